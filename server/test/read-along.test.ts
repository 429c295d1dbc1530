// PostgreSQL's read by id with the data version along (db/read-along.ts): one statement reads the
// object and the version rows; a request that began before a commit of another process is answered
// again, one that saw only this server's own commits is not. The counter's moves are made here by
// this server (its own commits, read back at commit) and by a second connection (another process).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';
import { createRole, createUser } from './helpers/users.js';
import { logStatements, type StatementLog } from './helpers/pg-statements.js';

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

// A signed-in user's identity is kept per version of the accounts (DataVersion.accounts()): a
// write to a document keeps it; a change to the user, its roles or their rights, or its object's
// status or trash state, by this server or by another process, drops it.
describe('identities kept across writes to documents', { skip: onPostgres ? false : 'SQLite reads an identity in-process, once per data version' }, () => {
  let t: TestServer;
  let token: string;
  let other: pg.Client;
  let log: StatementLog;

  before(async () => {
    log = logStatements();
    t = await startServer();
    token = await t.adminToken();
    other = new pg.Client({ connectionString: t.databaseUrl! });
    await other.connect();
  });
  after(async () => {
    log.restore();
    await other?.end();
    await t?.close();
  });

  const identityReads = async (request: () => Promise<unknown>) => (await log.during(request)).filter((s) => /^select "users"\."blocked"/.test(s)).length;

  test('a document write keeps it; a change to the user, its role or its object, here or in another process, is seen at the next request', async () => {
    const role = await createRole(t, token, 'kept_editor', { documents: ['read', 'create', 'update'] });
    const user = await createUser(t, token, { username: 'kept-editor', roles: [role] });
    const made = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Kept', status: 'draft' } } } });
    assert.equal(made.status, 201, made.text);
    const doc = made.body.data.id;
    const read = () => t.request('GET', `/documents/${doc}`, { token: user.jwt });
    const list = () => t.request('GET', '/documents', { token: user.jwt });
    assert.equal((await read()).status, 200);
    // Another user's write to a document (this server's): the editor's identity is not read again.
    const edit = await t.request('PATCH', `/documents/${doc}`, { token, body: { data: { id: doc, type: 'documents', attributes: { title: 'Kept, edited' } } } });
    assert.equal(edit.status, 200, edit.text);
    let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
    assert.equal(await identityReads(async () => (answer = await read())), 0);
    assert.equal(answer!.status, 200);
    assert.equal(answer!.body.data.attributes.title, 'Kept, edited');
    // The same by another process: the data moved, the accounts did not.
    await other.query(`update objects set title = 'Edited elsewhere' where id = $1`, [Number(doc)]);
    assert.equal(await identityReads(async () => (answer = await read())), 0);
    assert.equal(answer!.body.data.attributes.title, 'Edited elsewhere');

    // The user object switched off by another process: the next request, by id or a list, is refused.
    await other.query(`update objects set status = 'off' where id = $1`, [Number(user.id)]);
    assert.equal((await read()).status, 401);
    assert.equal((await list()).status, 401);
    await other.query(`update objects set status = 'on' where id = $1`, [Number(user.id)]);
    assert.equal((await read()).status, 200);
    // Trashed by another process, then restored.
    await other.query(`update objects set deleted = true where id = $1`, [Number(user.id)]);
    assert.equal((await list()).status, 401);
    await other.query(`update objects set deleted = false where id = $1`, [Number(user.id)]);
    assert.equal((await list()).status, 200);
    // Its role's rights taken away by another process: drafts are no longer its to read.
    await other.query(`update roles set permissions = $1 where id = $2`, [JSON.stringify({ documents: [] }), Number(role)]);
    assert.equal((await read()).status, 404);
    // Given back, then the role taken from the user (roles_users), each by another process.
    await other.query(`update roles set permissions = $1 where id = $2`, [JSON.stringify({ documents: ['read'] }), Number(role)]);
    assert.equal((await read()).status, 200);
    await other.query(`delete from roles_users where user_id = $1`, [Number(user.id)]);
    assert.equal((await read()).status, 404);
    // Blocked through this server's API: refused at its next request.
    const back = await t.request('POST', `/users/${user.id}/relationships/roles`, { token, body: { data: [{ type: 'roles', id: role }] } });
    assert.equal(back.status, 200, back.text);
    assert.equal((await read()).status, 200);
    const blocked = await t.request('PATCH', `/users/${user.id}`, { token, body: { data: { id: user.id, type: 'users', attributes: { blocked: true } } } });
    assert.equal(blocked.status, 200, blocked.text);
    assert.equal((await read()).status, 401);
  });
});
