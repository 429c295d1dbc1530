// SQLite's WAL file goes back to WAL_SIZE_LIMIT once a checkpoint has written a large
// transaction back, instead of keeping that transaction's size until the last connection closes
// (a restore, a type's search documents made again, an import: gigabytes at a million objects).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { WAL_SIZE_LIMIT } from '../src/db/dialect/sqlite.js';
import { onPostgres } from './helpers/test-database.js';

test('the WAL is cut back to its limit after a transaction larger than it', { skip: onPostgres && 'SQLite WAL' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-wal-'));
  const opened = await openDatabase(loadConfig({ FOLIO_DATA_DIR: dir }, { logRequests: false }));
  try {
    const wal = () => fs.statSync(path.join(dir, 'folio.sqlite-wal')).size;
    await sql`create table wal_filler (b blob)`.execute(opened.db);
    const megabytes = WAL_SIZE_LIMIT / 2 ** 20 + 16;
    await opened.db.transaction().execute(async (trx) => {
      for (let i = 0; i < megabytes; i++) await sql`insert into wal_filler (b) values (zeroblob(${2 ** 20}))`.execute(trx);
    });
    assert.ok(wal() > WAL_SIZE_LIMIT, `the transaction's WAL: ${wal()} bytes`);
    // Written back (SQLite does so on its own after a commit, when no reader holds the old data),
    // the next write starts the WAL again from its beginning, and the file is cut back.
    await sql`pragma wal_checkpoint(PASSIVE)`.execute(opened.db);
    await sql`delete from wal_filler`.execute(opened.db);
    assert.ok(wal() <= WAL_SIZE_LIMIT, `cut back: ${wal()} bytes`);
  } finally {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
