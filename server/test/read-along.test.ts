// PostgreSQL's read by id with the data version along (db/read-along.ts): one statement reads the
// object and the version rows; a request that began before a commit of another process is answered
// again, one that saw only this server's own commits is not. The counter's moves are made here by
// this server (its own commits, read back at commit) and by a second connection (another process).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

describe('the data version read along with an object', { skip: onPostgres ? false : 'only PostgreSQL reads the data version per request (SQLite knows it at once)' }, () => {
  let t: TestServer;
  let token: string;
  let other: pg.Client;
  let id: string;

  before(async () => {
    t = await startServer();
    token = await t.adminToken();
    other = new pg.Client({ connectionString: t.databaseUrl! });
    await other.connect();
    const made = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Along', status: 'on' } } } });
    assert.equal(made.status, 201, made.text);
    id = made.body.data.id;
  });
  after(async () => {
    await other?.end();
    await t?.close();
  });

  const along = () => t.server.ctx.dataVersion.along!;
  const patch = async (title: string) => {
    const res = await t.request('PATCH', `/documents/${id}`, { token, body: { data: { id, type: 'documents', attributes: { title } } } });
    assert.equal(res.status, 200, res.text);
  };

  test('only this server\'s own commits since a point are told apart from another process\'s', async () => {
    await t.server.ctx.dataVersion.refresh();
    const from = along().seen();
    await patch('Own 1');
    await patch('Own 2');
    // Each commit read the counter back (it moved twice), and both moves were this server's.
    assert.ok(along().seen() >= from + 2, `${along().seen()} after ${from}`);
    assert.equal(along().onlyOwnSince(from), true);
    // Another process writes, then this server again: its own commit reads the other's move too.
    const before = along().seen();
    await other.query(`update objects set description = 'by another process' where id = $1`, [Number(id)]);
    await patch('Own 3');
    assert.ok(along().seen() >= before + 2);
    assert.equal(along().onlyOwnSince(before), false, 'a move of another process passed for this server\'s own');
    assert.equal(along().onlyOwnSince(along().seen()), true);
  });

  test('a read by id after another process\'s write answers it, with no read of the version first', async () => {
    const read = async () => {
      const res = await t.request('GET', `/documents/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data.attributes;
    };
    await read();
    await read();
    await other.query(`update objects set title = 'Changed elsewhere', version = version + 1 where id = $1`, [Number(id)]);
    // The answer held for it (asked twice) is not sent: the version is read first, the answer made again.
    assert.equal((await read()).title, 'Changed elsewhere');
    await other.query(`update objects set title = 'Changed again' where id = $1`, [Number(id)]);
    assert.equal((await read()).title, 'Changed again');
    // Trashed elsewhere: 404 at once.
    await other.query(`update objects set deleted = true where id = $1`, [Number(id)]);
    assert.equal((await t.request('GET', `/documents/${id}`)).status, 404);
    await other.query(`update objects set deleted = false where id = $1`, [Number(id)]);
    assert.equal((await read()).title, 'Changed again');
  });
});
