// Desktop app logic that needs no server: settings file, data-dir layout, menu model, navigation
// lock, LAN addresses, port fallback and the login hint.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../server/src/config.js';
import { desktopPaths, openLogFile, readInitialAdminPassword } from '../desktop-paths.js';
import { lanAddresses, listenOnFreePort, settingsToEnv } from '../embedded-server.js';
import { loginHint } from '../first-start.js';
import { buildMenuModel, type MenuItemModel } from '../menu-model.js';
import { runningServer } from './helpers/running-server.js';
import { classifyNavigation, isLocalResource } from '../navigation.js';
import { defaultSettings, loadSettings, saveSettings, SettingsError, validateSettings } from '../settings.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-desktop-logic-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('settings file', () => {
  test('a missing file gives the defaults without problems', () => {
    assert.deepEqual(loadSettings(path.join(tmp, 'none.json')), { settings: { port: 8090, lanSharing: false, smtpUrl: null, mailFrom: null }, problems: [] });
  });

  test('saving writes a 0600 JSON file that loads back', () => {
    const file = path.join(tmp, 'a', 'settings.json');
    const saved = saveSettings(file, defaultSettings, { port: '9000', lanSharing: true, smtpUrl: ' smtp://u:p@mail.example:587 ', mailFrom: 'Folio <folio@example.org>' });
    assert.deepEqual(saved, { port: 9000, lanSharing: true, smtpUrl: 'smtp://u:p@mail.example:587', mailFrom: 'Folio <folio@example.org>' });
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(loadSettings(file), { settings: saved, problems: [] });
    // Empty strings clear the optional values; fields not sent keep theirs.
    assert.deepEqual(saveSettings(file, saved, { smtpUrl: '', mailFrom: '  ' }), { ...saved, smtpUrl: null, mailFrom: null });
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['settings.json'], 'no temporary file is left behind');
  });

  test('an invalid change names the field and leaves the file as it was', () => {
    const file = path.join(tmp, 'b.json');
    saveSettings(file, defaultSettings, { port: 8100 });
    const before = fs.readFileSync(file, 'utf8');
    const cases: Array<[unknown, string | null]> = [
      [{ port: 0 }, 'port'],
      [{ port: 70000 }, 'port'],
      [{ port: 80.5 }, 'port'],
      [{ lanSharing: 'yes' }, 'lanSharing'],
      [{ smtpUrl: 'http://mail.example' }, 'smtpUrl'],
      [{ smtpUrl: 'not a url' }, 'smtpUrl'],
      [{ mailFrom: 'nobody' }, 'mailFrom'],
      [{ colour: 'blue' }, null],
      [[], null],
    ];
    for (const [changes, field] of cases) {
      assert.throws(
        () => saveSettings(file, defaultSettings, changes),
        (e: unknown) => e instanceof SettingsError && e.field === field,
        JSON.stringify(changes),
      );
    }
    assert.equal(fs.readFileSync(file, 'utf8'), before);
  });

  test('a damaged file falls back to defaults and says why', () => {
    const file = path.join(tmp, 'c.json');
    fs.writeFileSync(file, '{"port": 9100, "lanSharing": "sometimes", "extra": 1}');
    const { settings, problems } = loadSettings(file);
    assert.deepEqual(settings, { ...defaultSettings, port: 9100 });
    assert.equal(problems.length, 2);
    assert.match(problems.join('\n'), /lanSharing/);
    assert.match(problems.join('\n'), /extra/);
    fs.writeFileSync(file, '{not json');
    const broken = loadSettings(file);
    assert.deepEqual(broken.settings, defaultSettings);
    assert.match(broken.problems[0], /not valid JSON/);
  });

  test('settings become the environment the server configuration reads', () => {
    const dataDir = path.join(tmp, 'data');
    const local = loadConfig(settingsToEnv({ ...defaultSettings, port: 9001 }, dataDir));
    assert.equal(local.host, '127.0.0.1');
    assert.equal(local.port, 9001);
    assert.equal(local.dataDir, dataDir);
    assert.equal(local.smtpUrl, null);
    assert.equal(local.mailFrom, 'folio@localhost');
    const shared = loadConfig(settingsToEnv(validateSettings({ lanSharing: true, smtpUrl: 'smtps://mail.example', mailFrom: 'a@b.example' }), dataDir));
    assert.equal(shared.host, '0.0.0.0');
    assert.equal(shared.smtpUrl, 'smtps://mail.example');
    assert.equal(shared.mailFrom, 'a@b.example');
  });
});

describe('data-dir layout', () => {
  test('everything lives in the user-data folder, the server data in data/', () => {
    const p = desktopPaths('/home/u/.config/Folio');
    assert.deepEqual(p, {
      userData: '/home/u/.config/Folio',
      settingsFile: path.join('/home/u/.config/Folio', 'settings.json'),
      dataDir: path.join('/home/u/.config/Folio', 'data'),
      logFile: path.join('/home/u/.config/Folio', 'logs', 'server.log'),
      initialPasswordFile: path.join('/home/u/.config/Folio', 'data', 'initial-admin-password'),
    });
  });

  test('the first admin password is read from its file, or null', () => {
    const p = desktopPaths(path.join(tmp, 'ud'));
    assert.equal(readInitialAdminPassword(p), null);
    fs.mkdirSync(p.dataDir, { recursive: true });
    fs.writeFileSync(p.initialPasswordFile, 'Secr3t-pass\n');
    assert.equal(readInitialAdminPassword(p), 'Secr3t-pass');
  });

  test('the log file appends timestamped lines and is rotated when large', () => {
    const p = desktopPaths(path.join(tmp, 'logs'));
    const first = openLogFile(p);
    first.write('one');
    first.close();
    first.write('after close is ignored');
    assert.match(fs.readFileSync(p.logFile, 'utf8'), /^\d{4}-\d\d-\d\dT\S+ one\n$/);
    fs.appendFileSync(p.logFile, 'x'.repeat(5 * 1024 * 1024 + 1));
    const second = openLogFile(p);
    second.write('two');
    second.close();
    assert.ok(fs.existsSync(`${p.logFile}.1`));
    assert.match(fs.readFileSync(p.logFile, 'utf8'), / two\n$/);
  });
});

const running = runningServer;
const labels = (items: MenuItemModel[]) => items.map((i) => (i.kind === 'separator' ? '---' : i.label));
const item = (items: MenuItemModel[], action: string) => items.find((i) => 'action' in i && i.action === action);

describe('menu model', () => {
  test('a running local server offers the window, the API URL, sharing off and quit', () => {
    const items = buildMenuModel({ server: running(), busy: false, error: null, hasInitialPassword: false });
    assert.deepEqual(labels(items), [
      'Server: http://127.0.0.1:8090',
      'Open Admin Window',
      'Copy API Base URL',
      '---',
      'Share on Local Network',
      '---',
      'Open Data Folder',
      'Back up now…',
      'Restore from backup…',
      'Settings…',
      '---',
      'Quit Folio',
    ]);
    assert.deepEqual(item(items, 'copy-api-url'), { kind: 'action', label: 'Copy API Base URL', action: 'copy-api-url', enabled: true, arg: 'http://127.0.0.1:8090' });
    assert.equal((item(items, 'toggle-lan') as { checked: boolean }).checked, false);
  });

  test('with LAN sharing on, the toggle is checked and every LAN URL can be copied', () => {
    const urls = ['http://192.168.1.20:8091', 'http://10.0.0.5:8091'];
    const items = buildMenuModel({
      server: running({ port: 8091, lanSharing: true, host: '0.0.0.0', lanUrls: urls, localUrl: 'http://127.0.0.1:8091' }),
      busy: false,
      error: null,
      hasInitialPassword: true,
    });
    assert.equal(items[0].kind === 'note' && items[0].label, 'Server: http://127.0.0.1:8091 (port 8090 was taken)');
    assert.equal((item(items, 'toggle-lan') as { checked: boolean }).checked, true);
    const copies = items.filter((i) => i.kind === 'action' && i.action === 'copy-url');
    assert.deepEqual(copies.map((i) => (i as { arg?: string }).arg), urls);
    assert.ok(item(items, 'show-admin-password'), 'the first admin password can be shown');
    const shared = buildMenuModel({ server: running({ lanSharing: true }), busy: false, error: null, hasInitialPassword: false });
    assert.ok(labels(shared).includes('No network address found'));
  });

  test('while restarting or stopped, server actions are disabled and the reason shows', () => {
    const busy = buildMenuModel({ server: running(), busy: true, error: null, hasInitialPassword: false });
    assert.equal(labels(busy)[0], 'Server: starting…');
    for (const action of ['open-admin', 'copy-api-url', 'toggle-lan', 'open-settings']) {
      assert.equal((item(busy, action) as { enabled: boolean }).enabled, false, action);
    }
    const failed = buildMenuModel({ server: null, busy: false, error: 'no free port from 8090 to 8109', hasInitialPassword: false });
    assert.equal(labels(failed)[0], 'Server: stopped (no free port from 8090 to 8109)');
    assert.equal((item(failed, 'open-admin') as { enabled: boolean }).enabled, false);
    assert.equal((item(failed, 'toggle-lan') as { enabled: boolean }).enabled, true, 'sharing can still be changed');
    assert.equal((item(failed, 'quit') as { enabled: boolean }).enabled, true);
  });
});

describe('navigation lock', () => {
  const origin = 'http://127.0.0.1:8090';
  test('pages of the embedded server load in the window', () => {
    assert.equal(classifyNavigation('http://127.0.0.1:8090/admin/objects?x=1', origin), 'allow');
  });
  test('other web addresses go to the system browser', () => {
    for (const url of ['https://example.org/', 'http://127.0.0.1:8091/admin', 'http://localhost:8090/admin', 'mailto:a@b.example']) {
      assert.equal(classifyNavigation(url, origin), 'external', url);
    }
  });
  test('file, javascript and unknown schemes are refused', () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'not a url']) {
      assert.equal(classifyNavigation(url, origin), 'deny', url);
    }
    assert.equal(classifyNavigation('http://127.0.0.1:8090/admin', null), 'external', 'no server: nothing is in-app');
  });
  test('only local resources may be fetched by the windows', () => {
    assert.equal(isLocalResource('http://127.0.0.1:8090/objects', origin), true);
    assert.equal(isLocalResource('data:image/png;base64,AAAA', origin), true);
    assert.equal(isLocalResource('https://cdn.example/lib.js', origin), false);
    assert.equal(isLocalResource('http://127.0.0.1:9999/', origin), false);
  });
});

describe('LAN addresses and port choice', () => {
  test('only reachable IPv4 addresses are listed, once each', () => {
    const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false) =>
      ({ address, family, internal, netmask: '', mac: '', cidr: null }) as os.NetworkInterfaceInfo;
    assert.deepEqual(
      lanAddresses({
        lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
        eth0: [nic('192.168.1.20', 'IPv4'), nic('fe80::1', 'IPv6')],
        wlan0: [nic('169.254.3.4', 'IPv4'), nic('10.0.0.5', 'IPv4')],
        br0: [nic('192.168.1.20', 'IPv4')],
      }),
      ['192.168.1.20', '10.0.0.5'],
    );
  });

  test('a taken port moves on to the next free one; other errors stop at once', async () => {
    const tried: number[] = [];
    const taken = new Set([9500, 9501]);
    const port = await listenOnFreePort(async (p) => {
      tried.push(p);
      if (taken.has(p)) throw Object.assign(new Error('in use'), { code: 'EADDRINUSE' });
      return p;
    }, 9500);
    assert.equal(port, 9502);
    assert.deepEqual(tried, [9500, 9501, 9502]);
    await assert.rejects(listenOnFreePort(async () => Promise.reject(Object.assign(new Error('boom'), { code: 'EADDRNOTAVAIL' })), 9500), /boom/);
    await assert.rejects(
      listenOnFreePort(async () => Promise.reject(Object.assign(new Error('in use'), { code: 'EADDRINUSE' })), 65534, 20),
      /no free port from 65534 to 65535/,
    );
  });

  test('with a real socket holding the port, the next one is used', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const held = (blocker.address() as net.AddressInfo).port;
    const listenAt = (p: number) =>
      new Promise<net.Server>((resolve, reject) => {
        const s = net.createServer();
        s.once('error', reject);
        s.listen(p, '127.0.0.1', () => resolve(s));
      });
    try {
      const s = await listenOnFreePort(listenAt, held);
      const got = (s.address() as net.AddressInfo).port;
      assert.ok(got > held && got < held + 20);
      s.close();
    } finally {
      blocker.close();
    }
  });
});

describe('login hint', () => {
  test('the first start tells the admin name and the generated password', () => {
    const hint = loginHint({ username: 'admin', password: 'Xy7-generated', adminUrl: 'http://127.0.0.1:8090/admin', passwordFile: '/d/initial-admin-password', firstStart: true });
    assert.equal(hint.title, 'Welcome to Folio');
    assert.equal(hint.message, 'Log in as "admin" with the password Xy7-generated');
    assert.match(hint.detail, /created for you/);
    assert.match(hint.detail, /\/d\/initial-admin-password/);
    const gone = loginHint({ username: 'admin', password: null, adminUrl: 'u', passwordFile: '/d/f', firstStart: false });
    assert.equal(gone.message, 'Log in as "admin".');
    assert.match(gone.detail, /is gone/);
  });
});
