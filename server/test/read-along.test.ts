// The read by id with the data version along (db/read-along.ts): one statement reads the object
// and the version rows (PostgreSQL) or SQLite's data_version; a request that began before a commit
// of another process is answered again, one that saw only this server's own commits is not. The
// counter's moves are made here by this server (its own commits, read back at commit) and by a
// second connection (another process).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';
import { createRole, createUser } from './helpers/users.js';
import { connectOutside, type OutsideConnection } from './helpers/outside.js';
import { logStatements, type StatementLog } from './helpers/pg-statements.js';
import { dataVersionStatistics } from '../src/db/dialect/sqlite.js';

/** A test server, its admin's token, a published document, and another connection to its database (another process). */
function withDocumentAndAnotherProcess() {
  const env = {} as { t: TestServer; token: string; other: OutsideConnection; id: string };
  before(async () => {
    env.t = await startServer();
    env.token = await env.t.adminToken();
    env.other = await connectOutside(env.t);
    const made = await env.t.request('POST', '/documents', { token: env.token, body: { data: { type: 'documents', attributes: { title: 'Along', status: 'on' } } } });
    assert.equal(made.status, 201, made.text);
    env.id = made.body.data.id;
  });
  after(async () => {
    await env.other?.close();
    await env.t?.close();
  });
  return env;
}

describe('the data version read along with an object', () => {
  const env = withDocumentAndAnotherProcess();
  const along = () => env.t.server.ctx.dataVersion.along!;
  const read = async () => {
    const res = await env.t.request('GET', `/documents/${env.id}`);
    assert.equal(res.status, 200, res.text);
    return res.body.data.attributes;
  };
  const listed = async () => {
    const res = await env.t.request('GET', '/documents?sort=-id&page_size=5');
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  const patch = async (title: string) => {
    const res = await env.t.request('PATCH', `/documents/${env.id}`, { token: env.token, body: { data: { id: env.id, type: 'documents', attributes: { title } } } });
    assert.equal(res.status, 200, res.text);
  };

  test('only this server\'s own commits since a point are told apart from another process\'s', { skip: onPostgres ? false : 'SQLite: its own commits never move data_version (below)' }, async () => {
    await env.t.server.ctx.dataVersion.refresh();
    const from = along().seen();
    await patch('Own 1');
    await patch('Own 2');
    // Each commit read the counter back (it moved twice), and both moves were this server's.
    assert.ok(along().seen() >= from + 2, `${along().seen()} after ${from}`);
    assert.equal(along().onlyOwnSince(from), true);
    // Another process writes, then this server again: its own commit reads the other's move too.
    const before = along().seen();
    await env.other.run(`update objects set description = 'by another process' where id = ?`, [Number(env.id)]);
    await patch('Own 3');
    assert.ok(along().seen() >= before + 2);
    assert.equal(along().onlyOwnSince(before), false, 'a move of another process passed for this server\'s own');
    assert.equal(along().onlyOwnSince(along().seen()), true);
  });

  test('a read by id after another process\'s write answers it, with no read of the version first', async () => {
    await read();
    await read();
    await env.other.run(`update objects set title = 'Changed elsewhere', version = version + 1 where id = ?`, [Number(env.id)]);
    // The answer held for it (asked twice) is not sent: the version is read first, the answer made again.
    assert.equal((await read()).title, 'Changed elsewhere');
    await env.other.run(`update objects set title = 'Changed again' where id = ?`, [Number(env.id)]);
    assert.equal((await read()).title, 'Changed again');
    // Trashed elsewhere: 404 at once.
    await env.other.run(`update objects set deleted = true where id = ?`, [Number(env.id)]);
    assert.equal((await env.t.request('GET', `/documents/${env.id}`)).status, 404);
    await env.other.run(`update objects set deleted = false where id = ?`, [Number(env.id)]);
    assert.equal((await read()).title, 'Changed again');
  });

  test("SQLite: this server's own commits leave data_version; another connection's commit moves it, seen by the next read", { skip: onPostgres ? 'PostgreSQL: the test above' : false }, async () => {
    await read();
    const from = along().seen();
    const res = await env.t.request('PATCH', `/documents/${env.id}`, { token: env.token, body: { data: { id: env.id, type: 'documents', attributes: { title: 'Own' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal((await read()).title, 'Own');
    assert.equal(along().seen(), from, 'an own commit moved data_version');
    await env.other.run(`update objects set description = 'by another process' where id = ?`, [Number(env.id)]);
    assert.equal((await read()).description, 'by another process');
    assert.notEqual(along().seen(), from);
    assert.equal(along().onlyOwnSince(from), false);
  });

  test("SQLite: a request that goes ahead on data_version as read before another process blocked its user is answered again", { skip: onPostgres ? 'PostgreSQL reads its identities per accounts version (the describe below)' : false }, async () => {
    const role = await createRole(env.t, env.token, 'along_readers', { documents: ['read'] });
    const user = await createUser(env.t, env.token, { username: 'along-reader', roles: [role] });
    const ask = () => env.t.request('GET', `/documents/${env.id}`, { token: user.jwt });
    assert.equal((await ask()).status, 200);
    // data_version read in a check phase (a write batch's flush reads it there), then another
    // process blocks the user: the request sent now is handled before that value is forgotten,
    // with the identity held for it. Its read of the object brings the moved data_version along.
    const sent = await new Promise<Promise<{ status: number }>>((resolve) =>
      setImmediate(() => {
        env.t.server.ctx.dataVersion.current();
        void env.other.run('update users set blocked = 1 where id = ?', [Number(user.id)]);
        resolve(ask());
      }),
    );
    assert.equal((await sent).status, 401, 'a blocked user was answered from an identity held before the block');
    await env.other.run('update users set blocked = 0 where id = ?', [Number(user.id)]);
    assert.equal((await ask()).status, 200);
  });

  test("a list page after another process's write shows it: a title, a document switched off, the count", async () => {
    const first = await listed();
    await listed();
    assert.equal(first.data[0].id, env.id);
    await env.other.run(`update objects set title = 'Listed elsewhere' where id = ?`, [Number(env.id)]);
    assert.equal((await listed()).data[0].attributes.title, 'Listed elsewhere');
    await env.other.run(`update objects set status = 'off' where id = ?`, [Number(env.id)]);
    const after = await listed();
    assert.ok(!after.data.some((d: { id: string }) => d.id === env.id), 'a document switched off elsewhere is still listed');
    assert.equal(after.meta.pagination.count, first.meta.pagination.count - 1);
    await env.other.run(`update objects set status = 'on' where id = ?`, [Number(env.id)]);
    assert.equal((await listed()).data[0].id, env.id);
  });
});

/** A server on PostgreSQL, its admin's token, a second connection standing for another process, and the server's statements. */
function withAnotherProcess() {
  const env = {} as { t: TestServer; token: string; other: pg.Client; log: StatementLog };
  before(async () => {
    env.log = logStatements();
    env.t = await startServer();
    env.token = await env.t.adminToken();
    env.other = new pg.Client({ connectionString: env.t.databaseUrl! });
    await env.other.connect();
  });
  after(async () => {
    env.log?.restore();
    await env.other?.end();
    await env.t?.close();
  });
  return env;
}

// A signed-in user's identity is kept per version of the accounts (DataVersion.accounts()): a
// write to a document keeps it; a change to the user, its roles or their rights, or its object's
// status or trash state, by this server or by another process, drops it.
describe('SQLite: the pragma read by requests read along', { skip: onPostgres ? 'PostgreSQL: its version reads are counted below' : false }, () => {
  const env = withDocumentAndAnotherProcess();

  test('SQLite: reads by id read no pragma (their own read confirms the version), other requests read it as they start', async () => {
    // Answers asked for once each (no held answer: one goes out only once the pragma is read).
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const made = await env.t.request('POST', '/documents', { token: env.token, body: { data: { type: 'documents', attributes: { title: `Pragma ${i}`, status: 'on' } } } });
      assert.equal(made.status, 201, made.text);
      ids.push(made.body.data.id);
    }
    const ok = async (path: string, token?: string) => {
      const res = await env.t.request('GET', path, { token });
      assert.equal(res.status, 200, res.text);
    };
    const pragmaReads = async (request: (i: number) => Promise<unknown>) => {
      const before = dataVersionStatistics.pragmaReads;
      // Each request in a turn of its own: a value read earlier in a turn is not read again in it.
      for (let i = 0; i < 10; i++) {
        await new Promise((r) => setImmediate(r));
        await request(i);
      }
      return dataVersionStatistics.pragmaReads - before;
    };
    await ok('/home');
    assert.equal(await pragmaReads((i) => ok(`/documents/${ids[i]}`)), 0, 'a read by id read the pragma');
    // A list page reads it at most once: its count, when read from the read cache, waits, and the
    // page's statement comes after that wait. Once more where the count is read: on a reader thread
    // (dialect/sqlite-reader.ts), whose answer comes in a turn of its own.
    assert.ok((await pragmaReads((i) => ok(`/documents?sort=-id&page_size=1&page=${i + 1}`))) <= 11, 'a list page read the pragma more than once');
    await ok(`/documents/${env.id}`, env.token); // the identity read once
    assert.equal(await pragmaReads((i) => ok(`/documents/${ids[i]}`, env.token)), 0, 'a signed-in read by id read the pragma');
    assert.ok((await pragmaReads(() => ok('/home'))) >= 10, 'a request that is not read along reads it as it starts');
    // Still confirmed: another process's write is in the next read of each.
    await env.other.run(`update objects set title = 'Seen without a pragma' where id = ?`, [Number(env.id)]);
    const read = async () => (await env.t.request('GET', `/documents/${env.id}`)).body.data.attributes.title;
    assert.equal(await read(), 'Seen without a pragma');
    assert.equal((await env.t.request('GET', '/documents?sort=id&page_size=1')).body.data[0].attributes.title, 'Seen without a pragma');
  });
});

describe('identities kept across writes to documents', { skip: onPostgres ? false : 'SQLite reads an identity in-process, once per data version' }, () => {
  const env = withAnotherProcess();

  const identityReads = async (request: () => Promise<unknown>) => (await env.log.during(request)).filter((s) => /^select "users"\."blocked"/.test(s)).length;

  test('a document write keeps it; a change to the user, its role or its object, here or in another process, is seen at the next request', async () => {
    const role = await createRole(env.t, env.token, 'kept_editor', { documents: ['read', 'create', 'update'] });
    const user = await createUser(env.t, env.token, { username: 'kept-editor', roles: [role] });
    const made = await env.t.request('POST', '/documents', { token: env.token, body: { data: { type: 'documents', attributes: { title: 'Kept', status: 'draft' } } } });
    assert.equal(made.status, 201, made.text);
    const doc = made.body.data.id;
    const read = () => env.t.request('GET', `/documents/${doc}`, { token: user.jwt });
    const list = () => env.t.request('GET', '/documents', { token: user.jwt });
    assert.equal((await read()).status, 200);
    // Another user's write to a document (this server's): the editor's identity is not read again.
    const edit = await env.t.request('PATCH', `/documents/${doc}`, { token: env.token, body: { data: { id: doc, type: 'documents', attributes: { title: 'Kept, edited' } } } });
    assert.equal(edit.status, 200, edit.text);
    let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
    assert.equal(await identityReads(async () => (answer = await read())), 0);
    assert.equal(answer!.status, 200);
    assert.equal(answer!.body.data.attributes.title, 'Kept, edited');
    // The same by another process: the data moved, the accounts did not.
    await env.other.query(`update objects set title = 'Edited elsewhere' where id = $1`, [Number(doc)]);
    assert.equal(await identityReads(async () => (answer = await read())), 0);
    assert.equal(answer!.body.data.attributes.title, 'Edited elsewhere');

    // The user object switched off by another process: the next request, by id or a list, is refused.
    await env.other.query(`update objects set status = 'off' where id = $1`, [Number(user.id)]);
    assert.equal((await read()).status, 401);
    assert.equal((await list()).status, 401);
    await env.other.query(`update objects set status = 'on' where id = $1`, [Number(user.id)]);
    assert.equal((await read()).status, 200);
    // Trashed by another process, then restored.
    await env.other.query(`update objects set deleted = true where id = $1`, [Number(user.id)]);
    assert.equal((await list()).status, 401);
    await env.other.query(`update objects set deleted = false where id = $1`, [Number(user.id)]);
    assert.equal((await list()).status, 200);
    // Its role's rights taken away by another process: drafts are no longer its to read.
    await env.other.query(`update roles set permissions = $1 where id = $2`, [JSON.stringify({ documents: [] }), Number(role)]);
    assert.equal((await read()).status, 404);
    // Given back, then the role taken from the user (roles_users), each by another process.
    await env.other.query(`update roles set permissions = $1 where id = $2`, [JSON.stringify({ documents: ['read'] }), Number(role)]);
    assert.equal((await read()).status, 200);
    await env.other.query(`delete from roles_users where user_id = $1`, [Number(user.id)]);
    assert.equal((await read()).status, 404);
    // Blocked through this server's API: refused at its next request.
    const back = await env.t.request('POST', `/users/${user.id}/relationships/roles`, { token: env.token, body: { data: [{ type: 'roles', id: role }] } });
    assert.equal(back.status, 200, back.text);
    assert.equal((await read()).status, 200);
    const blocked = await env.t.request('PATCH', `/users/${user.id}`, { token: env.token, body: { data: { id: user.id, type: 'users', attributes: { blocked: true } } } });
    assert.equal(blocked.status, 200, blocked.text);
    assert.equal((await read()).status, 401);
  });
});

// A type's list (`GET /{type}`) reads the data version along with its page's rows, as a read by
// id does with its object: no round trip of its own for the version, and another process's write
// still seen at the next request, whether the page is read or comes from a cache.
describe('the data version read along with a list page', { skip: onPostgres ? false : 'only PostgreSQL reads the data version per request (SQLite knows it at once)' }, () => {
  const env = withAnotherProcess();
  const ids: number[] = [];

  before(async () => {
    for (let i = 0; i < 5; i++) {
      const made = await env.t.request('POST', '/documents', { token: env.token, body: { data: { type: 'documents', attributes: { title: `Listed ${i}`, status: 'on' } } } });
      assert.equal(made.status, 201, made.text);
      ids.push(Number(made.body.data.id));
    }
  });

  const versionReads = (statements: string[]) => statements.filter((s) => /from folio_data_version\s*$/.test(s)).length;
  const list = async (query = 'sort=-id&page_size=2&page=1') => {
    const res = await env.t.request('GET', `/documents?${query}`);
    assert.equal(res.status, 200, res.text);
    return { titles: res.body.data.map((d: { attributes: { title: string } }) => d.attributes.title) as string[], count: res.body.meta.pagination.count as number };
  };
  const logged = async (query?: string) => {
    let answer: Awaited<ReturnType<typeof list>> | undefined;
    const statements = await env.log.during(async () => (answer = await list(query)));
    return { ...answer!, statements };
  };

  test('a page read after this server\'s own write takes the version with its rows: no read of it first', async () => {
    await list();
    const edit = await env.t.request('PATCH', `/documents/${ids[4]}`, { token: env.token, body: { data: { id: String(ids[4]), type: 'documents', attributes: { title: 'Listed 4, edited' } } } });
    assert.equal(edit.status, 200, edit.text);
    const page = await logged();
    assert.deepEqual(page.titles, ['Listed 4, edited', 'Listed 3']);
    assert.equal(versionReads(page.statements), 0, page.statements.join('\n'));
    assert.ok(page.statements.some((s) => s.includes('folio_data_version') && s.includes('"objects".*')), 'the page\'s rows did not take the version along');
    // Another page of the same list, never read: its rows' statement alone.
    const second = await logged('sort=-id&page_size=2&page=2');
    assert.deepEqual(second.titles, ['Listed 2', 'Listed 1']);
    assert.equal(versionReads(second.statements), 0, second.statements.join('\n'));
  });

  test('another process\'s write is in the next page, read afresh or held', async () => {
    // Read, then held (asked again): the answer and the page's ids are kept.
    await list();
    assert.deepEqual((await list()).titles, ['Listed 4, edited', 'Listed 3']);
    await env.other.query(`update objects set title = 'Renamed elsewhere', version = version + 1 where id = $1`, [ids[3]]);
    // The held answer is not sent: the version is read, found moved, and the page made again.
    const held = await logged();
    assert.deepEqual(held.titles, ['Listed 4, edited', 'Renamed elsewhere']);
    assert.ok(versionReads(held.statements) >= 1, 'a held page went out without the version read');
    // A page not read before: its rows show the move, and the request is answered again.
    await env.other.query(`update objects set title = 'Renamed again' where id = $1`, [ids[1]]);
    const fresh = await logged('sort=-id&page_size=2&page=2');
    assert.deepEqual(fresh.titles, ['Listed 2', 'Renamed again']);
    assert.ok(versionReads(fresh.statements) >= 1, 'the moved version was not read before answering again');
    // Switched off elsewhere: out of the list and its count at once.
    const before = (await list()).count;
    await env.other.query(`update objects set status = 'off' where id = $1`, [ids[4]]);
    const after = await list();
    assert.equal(after.count, before - 1);
    assert.deepEqual(after.titles, ['Renamed elsewhere', 'Listed 2']);
    // An empty page (past the end) carries no version: read first, then answered.
    await env.other.query(`update objects set status = 'on' where id = $1`, [ids[4]]);
    const past = await env.t.request('GET', '/documents?page_size=2&page=40');
    assert.equal(past.status, 200, past.text);
    assert.equal(past.body.meta.pagination.count, before);
  });

  test('a type another process switched off is gone from the next request', async () => {
    await list();
    await env.other.query(`update object_types set enabled = false where name = 'documents'`);
    try {
      const res = await env.t.request('GET', '/documents');
      assert.equal(res.status, 404, res.text);
    } finally {
      await env.other.query(`update object_types set enabled = true where name = 'documents'`);
    }
    assert.equal((await list()).titles.length, 2);
  });
});
