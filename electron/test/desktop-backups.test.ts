// "Back up now…" and "Restore from backup…" of the desktop app, without Electron: the menu items in
// each state, and a real embedded server backed up, changed, and restored from its backup (stopped
// during the restore, started again after, also when the file is damaged and nothing changes).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backUpTo, describeCounts, restoreFrom, restoreWithRestart, suggestedBackupPath } from '../backups.js';
import { desktopPaths, readInitialAdminPassword } from '../desktop-paths.js';
import { createEmbeddedServer, type EmbeddedServer } from '../embedded-server.js';
import { buildMenuModel, type MenuItemModel } from '../menu-model.js';
import { defaultSettings, type DesktopSettings } from '../settings.js';
import { freePort } from './helpers/free-port.js';
import { runningServer } from './helpers/running-server.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-desktop-backups-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const running = runningServer();
const find = (items: MenuItemModel[], action: string) => items.find((i) => 'action' in i && i.action === action) as { enabled: boolean; label: string };

describe('backup menu items', () => {
  test('the Folio menu offers "Back up now…" and "Restore from backup…" while the server runs', () => {
    const items = buildMenuModel({ server: running, busy: false, error: null, hasInitialPassword: false });
    assert.deepEqual([find(items, 'backup-now').label, find(items, 'restore-backup').label], ['Back up now…', 'Restore from backup…']);
    assert.equal(find(items, 'backup-now').enabled, true);
    assert.equal(find(items, 'restore-backup').enabled, true);
    const stopped = buildMenuModel({ server: null, busy: false, error: 'no free port', hasInitialPassword: false });
    assert.equal(find(stopped, 'restore-backup').enabled, true, 'a restore can bring back a site whose server does not start');
  });

  test('during a backup both are disabled and the menu says so; during a restore the server shows as stopped', () => {
    const backing = buildMenuModel({ server: running, busy: false, error: null, hasInitialPassword: false, task: 'backup' });
    assert.equal(find(backing, 'backup-now').enabled, false);
    assert.equal(find(backing, 'restore-backup').enabled, false);
    assert.ok(backing.some((i) => i.kind === 'note' && i.label === 'Backing up…'));
    assert.equal(find(backing, 'open-admin').enabled, true, 'the site keeps serving during a backup');
    const restoring = buildMenuModel({ server: null, busy: true, error: null, hasInitialPassword: false, task: 'restore' });
    assert.equal(restoring[0].kind === 'note' && restoring[0].label, 'Server: stopped while restoring a backup…');
    for (const action of ['backup-now', 'restore-backup', 'open-admin', 'open-settings', 'toggle-lan']) assert.equal(find(restoring, action).enabled, false, action);
  });
});

/** Status of a request on a fresh connection, or 0 when nothing answers. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', () => resolve(0));
  });
}

describe('back up and restore the embedded server', () => {
  const paths = desktopPaths(path.join(tmp, 'user-data'));
  let server: EmbeddedServer;
  let settings: DesktopSettings;
  let url: string;
  let token: string;

  const login = async () => {
    const res = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: readInitialAdminPassword(paths) }) });
    assert.equal(res.status, 200);
    token = ((await res.json()) as { meta: { jwt: string } }).meta.jwt;
  };
  const titles = async () => {
    const res = await fetch(`${url}/documents?sort=title`, { headers: { Authorization: `Bearer ${token}` } });
    return ((await res.json()) as { data: { attributes: { title: string } }[] }).data.map((d) => d.attributes.title);
  };
  const create = async (title: string) => {
    const res = await fetch(`${url}/documents`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ data: { type: 'documents', attributes: { title } } }) });
    assert.equal(res.status, 201);
  };
  const adapter = () => ({ stop: () => server.stop(), start: () => server.start(settings) });

  before(async () => {
    settings = { ...defaultSettings, port: await freePort() };
    server = createEmbeddedServer({ dataDir: paths.dataDir, uiDir: path.join(tmp, 'ui'), log: () => {} });
    url = (await server.start(settings)).localUrl;
    await login();
  });
  after(() => server.stop());

  test('"Back up now…" writes into the backups folder the admin UI lists, while the server serves', async () => {
    await create('Before the backup');
    const target = suggestedBackupPath(paths.dataDir);
    assert.equal(path.dirname(target), path.join(paths.dataDir, 'backups'));
    const made = await backUpTo({ dataDir: paths.dataDir }, target);
    assert.ok(fs.statSync(target).size === made.size && made.size > 0);
    assert.equal(made.counts.tables.objects, 2);
    assert.equal(describeCounts(made.counts), `2 objects (1 of them users) and ${made.counts.files} stored files`);
    const list = await fetch(`${url}/backups`, { headers: { Authorization: `Bearer ${token}` } });
    const listed = ((await list.json()) as { data: { attributes: { file_name: string } }[] }).data.map((b) => b.attributes.file_name);
    assert.deepEqual(listed, [path.basename(target)]);
    // Anywhere else, it is just the file.
    const elsewhere = path.join(tmp, 'copy.tar.gz');
    await backUpTo({ dataDir: paths.dataDir }, elsewhere);
    assert.ok(fs.statSync(elsewhere).size > 0);
  });

  test('"Restore from backup…" stops the server, restores, starts it again: later changes are gone', async () => {
    const file = path.join(tmp, 'copy.tar.gz');
    await create('After the backup');
    assert.deepEqual(await titles(), ['After the backup', 'Before the backup']);
    let statusDuringRestore = -1;
    const outcome = await restoreWithRestart(adapter(), async () => {
      statusDuringRestore = await statusOf(`${url}/status`);
      return restoreFrom({ dataDir: paths.dataDir }, file);
    });
    assert.equal(statusDuringRestore, 0, 'the server was stopped during the restore');
    assert.equal(outcome.error, null);
    assert.equal(outcome.startError, null);
    assert.equal(outcome.counts?.tables.objects, 2);
    assert.equal(outcome.running?.localUrl, url, 'back on the same port');
    await login(); // sessions are not restored
    assert.deepEqual(await titles(), ['Before the backup']);
  });

  test('a damaged backup changes nothing and the server comes back', async () => {
    await create('Kept');
    const damaged = path.join(tmp, 'damaged.tar.gz');
    const bytes = fs.readFileSync(path.join(tmp, 'copy.tar.gz'));
    fs.writeFileSync(damaged, bytes.subarray(0, bytes.length - 100));
    const outcome = await restoreWithRestart(adapter(), () => restoreFrom({ dataDir: paths.dataDir }, damaged));
    assert.equal(outcome.counts, null);
    assert.match(outcome.error ?? '', /damaged, truncated/);
    assert.ok(outcome.running);
    assert.equal(await statusOf(`${url}/status`), 200);
    assert.deepEqual(await titles(), ['Before the backup', 'Kept']);
  });
});
