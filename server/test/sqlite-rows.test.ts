// Rows of SQLite statements are made by Folio (db/dialect/sqlite.ts rowMaker) from the values
// better-sqlite3 reads as arrays: they must be the objects better-sqlite3 itself would make, for
// any column name a query can give (quotes, backslashes, names given twice, `__proto__`), through
// kysely (its driver) and through a streamed read, on a real database file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { openSqlite } from '../src/db/dialect/sqlite.js';

test("rows read through Folio's SQLite connection are the objects better-sqlite3 makes, whatever the column names", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-rows-'));
  const file = path.join(dir, 'folio.sqlite');
  const handle = openSqlite(file);
  const db = new Kysely<any>({ dialect: handle.dialect });
  try {
    await sql`create table t (id integer primary key, "a""b" text, "c\\d" real, e blob)`.execute(db);
    await sql`insert into t values (1, 'one', 1.5, x'00ff'), (2, null, -2, null)`.execute(db);
    const plain = new Database(file, { readonly: true });
    const queries = [
      'select * from t order by id',
      'select id, id as id, "a""b" as "x\'y", 1 as "}", 2 as "`${1}`" from t order by id',
      'select count(*) as n from t where id > 5',
    ];
    for (const text of queries) {
      const expected = plain.prepare(text).all();
      const rows = (await db.executeQuery(CompiledQuery.raw(text))).rows;
      assert.deepEqual(rows, expected, text);
      for (const row of rows as object[]) assert.equal(Object.getPrototypeOf(row), Object.prototype, `${text}: a plain object`);
    }
    // A column named __proto__ is an ordinary property, whatever its value (better-sqlite3 would
    // make the row inherit from a blob's Buffer).
    const proto = (await db.executeQuery(CompiledQuery.raw('select e as "__proto__", id from t order by id'))).rows as object[];
    for (const row of proto) assert.equal(Object.getPrototypeOf(row), Object.prototype, 'a plain object');
    assert.deepEqual(Object.getOwnPropertyDescriptor(proto[0], '__proto__')?.value, Buffer.from([0x00, 0xff]));
    assert.equal(Object.getOwnPropertyDescriptor(proto[1], '__proto__')?.value, null);
    assert.deepEqual(Object.keys(proto[0]), ['__proto__', 'id']);
    const streamed: unknown[] = [];
    for await (const row of db.selectFrom('t').selectAll().orderBy('id').stream()) streamed.push(row);
    assert.deepEqual(streamed, plain.prepare('select * from t order by id').all(), 'a streamed read makes the same rows');
    // A stream left early releases its statement: the next read runs.
    for await (const row of db.selectFrom('t').select('id').orderBy('id').stream()) {
      assert.equal((row as { id: number }).id, 1);
      break;
    }
    assert.equal((await db.selectFrom('t').select('id').where('id', '=', 2).executeTakeFirst())?.id, 2);
    plain.close();
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
