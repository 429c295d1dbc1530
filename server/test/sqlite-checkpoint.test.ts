// SQLite's checkpoints (the WAL copied back into the database file, with its syncs to disk) run
// on a thread of their own, not on the server's connection after a commit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { BACKSTOP_PAGES, checkpointStatistics, sqliteCheckpointer } from '../src/db/dialect/sqlite-checkpoint.js';
import { onPostgres } from './helpers/test-database.js';

const skip = onPostgres && 'SQLite checkpoints';

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a commit is checkpointed by the thread, not by the connection that committed', { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ckpt-'));
  const file = path.join(dir, 'db.sqlite');
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  // The connection never checkpoints on its own here: whatever is copied back, the thread copied.
  raw.pragma('wal_autocheckpoint = 0');
  raw.exec('create table t (b blob)');
  const checkpointer = sqliteCheckpointer(file, null, { delayMs: 10, idleMs: 400, startAfter: 1 });
  try {
    const before = checkpointStatistics.checkpoints;
    raw.exec('insert into t (b) with recursive n(i) as (select 1 union all select i + 1 from n where i < 200) select zeroblob(4000) from n');
    checkpointer.wrote();
    await until('a checkpoint', () => checkpointStatistics.checkpoints > before);
    const last = checkpointStatistics.last!;
    assert.ok(last.log >= 200, `the WAL held the 200 rows' pages: ${last.log}`);
    assert.equal(last.checkpointed, last.log, 'every page was copied back');
    // Copied back: a new connection reading the file without its WAL finds the rows.
    raw.close();
    const copy = path.join(dir, 'copy.sqlite');
    fs.copyFileSync(file, copy);
    const alone = new Database(copy, { readonly: true });
    assert.ok(Number(alone.prepare('select count(*) from t').pluck().get()) >= 200, 'the rows are in the database file itself');
    alone.close();
    // Without commits the thread ends.
    await until('the idle thread ending', () => checkpointStatistics.running === 0, 3000);
  } finally {
    checkpointer.close();
    if (raw.open) raw.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the server commits without checkpointing, the thread keeps the WAL short, and closing removes the WAL', { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ckpt-'));
  const opened = await openDatabase(loadConfig({ FOLIO_DATA_DIR: dir }, { logRequests: false }));
  const wal = path.join(dir, 'folio.sqlite-wal');
  try {
    const [{ wal_autocheckpoint: backstop }] = (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(opened.db)).rows;
    assert.equal(backstop, BACKSTOP_PAGES);
    await sql`create table filler (b blob)`.execute(opened.db);
    const before = checkpointStatistics.checkpoints;
    for (let i = 0; i < 20; i++) await sql`insert into filler (b) values (zeroblob(${64 * 1024}))`.execute(opened.db);
    await until('a checkpoint after the commits', () => checkpointStatistics.checkpoints > before);
    assert.equal(checkpointStatistics.last!.checkpointed, checkpointStatistics.last!.log);
    assert.ok(checkpointStatistics.running >= 1, 'the thread runs');
  } finally {
    await opened.close();
  }
  // The thread's connection closed first: the server's was the file's last, and took the WAL away.
  assert.equal(fs.existsSync(wal), false, 'no WAL file left after closing');
  assert.equal(checkpointStatistics.running, 0);
  // A start on a made database commits a few times: no thread for those.
  const again = await openDatabase(loadConfig({ FOLIO_DATA_DIR: dir }, { logRequests: false }));
  try {
    assert.equal(checkpointStatistics.running, 0, 'no checkpoint thread after a start alone');
    assert.equal(Number((await sql<{ n: number }>`select count(*) as n from filler`.execute(again.db)).rows[0].n), 20);
  } finally {
    await again.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
