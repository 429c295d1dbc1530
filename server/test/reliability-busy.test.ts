// Writes while another process holds SQLite's write lock (a CLI, a backup, a second server):
// they wait for it (busy_timeout, transactions begin IMMEDIATE) instead of failing; only a lock
// held past the timeout gives 503 with Retry-After, never a 500.
// postgres pass: not run (SQLite's write lock held by another process)
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { ADMIN, expectError, startServer, type TestServer } from './helpers/server.js';

/** Another process takes the write lock, writes, and holds it for `holdMs`. Resolves once locked. */
function holdWriteLock(dbFile: string, holdMs: number): Promise<{ child: ChildProcess; released: Promise<void> }> {
  const code = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    db.prepare("UPDATE roles SET description = 'held by another process' WHERE id = 1").run();
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0); }, Number(process.argv[2]));
  `;
  const child = spawn(process.execPath, ['-e', code, dbFile, String(holdMs)], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve({ child, released }));
    child.once('error', reject);
  });
}

describe('writes under SQLITE_BUSY', () => {
  let s: TestServer;
  let dbFile: string;
  before(async () => {
    s = await startServer();
    dbFile = path.join(s.dataDir, 'folio.sqlite');
  });
  after(() => s.close());

  test('writes arriving while another process holds the lock wait and succeed', async () => {
    const { renew } = await s.login();
    const { released } = await holdWriteLock(dbFile, 1200);
    const started = Date.now();
    // Logins write (last_login, a new refresh token); a renewal is a transaction that reads, then writes.
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => s.request('POST', '/auth', { body: ADMIN, headers: { 'Content-Type': 'application/json' } })),
      s.request('POST', '/auth', { token: renew }),
    ]);
    await released;
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200, 200], results.map((r) => r.text).join('\n'));
    assert.ok(Date.now() - started >= 900, 'the writes waited for the other process');
    const role = await s.server.ctx.db.selectFrom('roles').select('description').where('id', '=', 1).executeTakeFirstOrThrow();
    assert.equal(role.description, 'held by another process');
  });

  test('a lock held past the busy timeout gives 503 with Retry-After, then the retry succeeds', async () => {
    // A renewal writes at once (no password hashing first), so it meets the lock with the whole
    // 5 s busy timeout still to wait.
    const { renew } = await s.login();
    const { released } = await holdWriteLock(dbFile, 7500);
    const res = await s.request('POST', '/auth', { token: renew });
    expectError(res, 503, 'busy');
    assert.equal(res.headers.get('retry-after'), '1');
    await released;
    assert.equal((await s.request('POST', '/auth', { body: ADMIN, headers: { 'Content-Type': 'application/json' } })).status, 200);
  });

  test('a transaction owns the write lock from its start: a write in between cannot make it fail', async () => {
    // With a deferred BEGIN the other connection's write would succeed and this transaction's own
    // write would then fail with SQLITE_BUSY_SNAPSHOT, which no busy timeout can cure.
    const other = new Database(dbFile);
    other.pragma('busy_timeout = 0');
    let otherError: string | undefined;
    try {
      await s.server.ctx.db.transaction().execute(async (trx) => {
        await sql`select count(*) from roles`.execute(trx);
        try {
          other.prepare("UPDATE roles SET description = 'sneaked in' WHERE id = 1").run();
        } catch (err) {
          otherError = (err as { code?: string }).code;
        }
        await trx.updateTable('roles').set({ description: 'transaction' }).where('id', '=', 1).execute();
      });
    } finally {
      other.close();
    }
    assert.equal(otherError, 'SQLITE_BUSY');
    const role = await s.server.ctx.db.selectFrom('roles').select('description').where('id', '=', 1).executeTakeFirstOrThrow();
    assert.equal(role.description, 'transaction');
  });
});
