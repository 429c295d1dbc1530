// Entry points declared and attacked by construction. Every route that is not a read declares
// what it may change (RouteDef.writes: `objects` through the write kernel, and the other tables by
// name). This file walks every such route of a running server — the list comes from the server,
// not from here — and:
//   - fails on a route that declares nothing, or names a table no registry owns;
//   - sends each route that writes objects a well-formed request as an admin while a kernel guard
//     refuses every write: the answer is 403 or 404 and nothing changed (every row of the tables
//     an object write touches compared before and after);
//   - sends each admin-only route a request as an editor with every object right: 403, nothing
//     changed.
// A new object-writing route without an attack below fails the first test: adding a route means
// saying how to attack it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TABLE_OWNERS } from '../src/db/owners.js';
import { forbidden } from '../src/http/errors.js';
import type { RouteRecord } from '../src/http/router.js';
import { tinyPng } from './helpers/fixtures.js';
import { startServer, type RequestOptions, type TestResponse, type TestServer } from './helpers/server.js';
import { linkIn, readOutbox } from './helpers/smtp.js';
import { createRole, createUser } from './helpers/users.js';
import { waitUntil } from './helpers/wait.js';

const LEGACY = { Accept: 'application/json, text/javascript', 'Content-Type': 'application/json' };
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** The rows an object write may touch, as one comparable value. */
const WATCHED = ['objects', 'object_relations', 'trees', 'translations', 'roles_users', 'streams', 'object_categories', 'object_tags', 'date_items', 'users', 'object_perms'] as const;

interface Fixtures {
  admin: string;
  editor: string;
  doc: string;
  other: string;
  folder: string;
  sub: string;
  image: string;
  stream: string;
  translation: string;
  historyId: string;
  trashed: string;
  user: string;
  role: string;
}

/** A request that, were it allowed, would change objects. */
type Attack = (f: Fixtures, s: TestServer) => Promise<{ path: string; opts: RequestOptions }>;

const ids = (type: string, ...list: string[]) => ({ data: list.map((id) => ({ type, id })) });
const doc = (attributes: Record<string, unknown>, id?: string) => ({ data: { type: 'documents', ...(id ? { id } : {}), attributes } });
const as = (token: string, opts: RequestOptions = {}) => ({ ...opts, token });

/** How to attack each object-writing route: `METHOD path` as the route declares it. */
const ATTACKS: Record<string, Attack> = {
  'post /:type': async (f) => ({ path: '/documents', opts: as(f.admin, { body: doc({ title: 'Attack' }) }) }),
  'patch /:type/:id': async (f) => ({ path: `/documents/${f.doc}`, opts: as(f.admin, { body: doc({ title: 'Attack' }, f.doc) }) }),
  'delete /:type/:id': async (f) => ({ path: `/documents/${f.doc}`, opts: as(f.admin) }),
  'delete /:type': async (f) => ({ path: `/documents?ids=${f.doc},${f.other}`, opts: as(f.admin) }),
  'post /:type/:id/history/:historyId/restore': async (f) => ({ path: `/documents/${f.doc}/history/${f.historyId}/restore`, opts: as(f.admin) }),
  'post /objects/:id/history/:historyId/restore': async (f) => ({ path: `/objects/${f.doc}/history/${f.historyId}/restore`, opts: as(f.admin) }),
  'post /:type/:id/relationships/:relation': async (f) => ({ path: `/documents/${f.doc}/relationships/see_also`, opts: as(f.admin, { body: ids('documents', f.other) }) }),
  'patch /:type/:id/relationships/:relation': async (f) => ({ path: `/documents/${f.doc}/relationships/see_also`, opts: as(f.admin, { body: ids('documents') }) }),
  'delete /:type/:id/relationships/:relation': async (f) => ({ path: `/documents/${f.doc}/relationships/attach`, opts: as(f.admin, { body: ids('images', f.image) }) }),
  'post /:type/:id/relationships/parents': async (f) => ({ path: `/documents/${f.other}/relationships/parents`, opts: as(f.admin, { body: ids('folders', f.folder) }) }),
  'patch /:type/:id/relationships/parents': async (f) => ({ path: `/documents/${f.doc}/relationships/parents`, opts: as(f.admin, { body: ids('folders', f.folder) }) }),
  'delete /:type/:id/relationships/parents': async (f) => ({ path: `/documents/${f.doc}/relationships/parents`, opts: as(f.admin, { body: ids('folders', f.sub) }) }),
  'post /:type/upload/:file_name': async (f) => ({ path: '/images/upload/attack.png', opts: as(f.admin, { raw: await tinyPng(7), headers: { 'Content-Type': 'image/png' } }) }),
  'patch /auth/user': async (f) => ({ path: '/auth/user', opts: as(f.admin, { body: { name: 'Attack' }, headers: JSON_HEADERS }) }),
  'post /folders': async (f) => ({ path: '/folders', opts: as(f.admin, { body: { data: { type: 'folders', attributes: { title: 'Attack' } } } }) }),
  'patch /folders/:id': async (f) => ({ path: `/folders/${f.sub}`, opts: as(f.admin, { body: { data: { type: 'folders', id: f.sub, attributes: { title: 'Attack' } } } }) }),
  'delete /folders/:id': async (f) => ({ path: `/folders/${f.sub}`, opts: as(f.admin) }),
  'post /folders/:id/relationships/children': async (f) => ({ path: `/folders/${f.folder}/relationships/children`, opts: as(f.admin, { body: ids('documents', f.other) }) }),
  'patch /folders/:id/relationships/children': async (f) => ({ path: `/folders/${f.sub}/relationships/children`, opts: as(f.admin, { body: ids('documents', f.other) }) }),
  'post /users/:id/relationships/:relation': async (f) => ({ path: `/users/${f.user}/relationships/mentors`, opts: as(f.admin, { body: ids('documents', f.other) }) }),
  'patch /users/:id/relationships/:relation': async (f) => ({ path: `/users/${f.user}/relationships/mentors`, opts: as(f.admin, { body: ids('documents', f.other) }) }),
  'delete /users/:id/relationships/:relation': async (f) => ({ path: `/users/${f.user}/relationships/mentors`, opts: as(f.admin, { body: ids('documents', f.doc) }) }),
  'delete /folders/:id/relationships/children': async (f) => ({ path: `/folders/${f.sub}/relationships/children`, opts: as(f.admin, { body: ids('documents', f.doc) }) }),
  'patch /folders/:id/relationships/parent': async (f) => ({ path: `/folders/${f.sub}/relationships/parent`, opts: as(f.admin, { body: { data: null } }) }),
  'delete /folders/:id/relationships/parent': async (f) => ({ path: `/folders/${f.sub}/relationships/parent`, opts: as(f.admin, { body: { data: { type: 'folders', id: f.folder } } }) }),
  // A draft made first (drafts are not an object write); publishing it is the kernel write attacked.
  'post /drafts/:id/publish': async (f, s) => {
    const saved = await s.request('PATCH', `/drafts/${f.doc}`, { token: f.admin, body: doc({ title: 'Drafted attack' }, f.doc) });
    assert.equal(saved.status, 200, saved.text);
    return { path: `/drafts/${f.doc}/publish`, opts: as(f.admin) };
  },
  'post /objects': async (f) => ({ path: '/objects', opts: as(f.admin, { body: { data: { object_type: 'documents', title: 'Attack', parents: [Number(f.folder)] } }, headers: LEGACY }) }),
  'delete /objects/:id': async (f) => ({ path: `/objects/${f.doc}`, opts: as(f.admin) }),
  'delete /objects': async (f) => ({ path: `/objects?ids=${f.doc},${f.folder}`, opts: as(f.admin) }),
  'post /objects/:id/children': async (f) => ({ path: `/objects/${f.folder}/children`, opts: as(f.admin, { body: { data: [{ child_id: Number(f.other) }] }, headers: LEGACY }) }),
  'put /objects/:id/children/:childId': async (f) => ({ path: `/objects/${f.sub}/children/${f.doc}`, opts: as(f.admin, { body: { data: { priority: 1 } }, headers: LEGACY }) }),
  'post /objects/:id/relations/:name': async (f) => ({ path: `/objects/${f.doc}/relations/see_also`, opts: as(f.admin, { body: { data: [{ related_id: Number(f.other) }] }, headers: LEGACY }) }),
  'put /objects/:id/relations/:name/:relatedId': async (f) => ({ path: `/objects/${f.doc}/relations/attach/${f.image}`, opts: as(f.admin, { body: { data: { priority: 2 } }, headers: LEGACY }) }),
  'post /operations': async (f) => ({
    path: '/operations',
    opts: as(f.admin, { body: { 'atomic:operations': [{ op: 'add', data: { type: 'documents', attributes: { title: 'Attack' } } }, { op: 'update', data: { type: 'documents', id: f.doc, attributes: { title: 'Attack' } } }] } }),
  }),
  'patch /streams/:uuid/relationships/object': async (f) => ({ path: `/streams/${f.stream}/relationships/object`, opts: as(f.admin, { body: { data: { type: 'images', id: f.image } } }) }),
  'post /translations': async (f) => ({ path: '/translations', opts: as(f.admin, { body: { data: { type: 'translations', attributes: { object_id: f.other, lang: 'fr', status: 'draft', translated_fields: { title: 'Attaque' } } } } }) }),
  'patch /translations/:id': async (f) => ({ path: `/translations/${f.translation}`, opts: as(f.admin, { body: { data: { type: 'translations', id: f.translation, attributes: { translated_fields: { title: 'Attacco' } } } } }) }),
  'delete /translations/:id': async (f) => ({ path: `/translations/${f.translation}`, opts: as(f.admin) }),
  'post /users': async (f) => ({ path: '/users', opts: as(f.admin, { body: { data: { type: 'users', attributes: { username: 'attacker', password: 'attacker-pass-1' } } } }) }),
  'patch /users/:id': async (f) => ({ path: `/users/${f.user}`, opts: as(f.admin, { body: { data: { type: 'users', id: f.user, attributes: { name: 'Attack' } } } }) }),
  'delete /users/:id': async (f) => ({ path: `/users/${f.user}`, opts: as(f.admin) }),
  'post /users/:id/relationships/roles': async (f) => ({ path: `/users/${f.user}/relationships/roles`, opts: as(f.admin, { body: ids('roles', f.role) }) }),
  'delete /users/:id/relationships/roles': async (f) => ({ path: `/users/${f.user}/relationships/roles`, opts: as(f.admin, { body: ids('roles', '1') }) }),
  'patch /users/:id/relationships/roles': async (f) => ({ path: `/users/${f.user}/relationships/roles`, opts: as(f.admin, { body: ids('roles', f.role, '1') }) }),
  'patch /roles/:id/relationships/users': async (f) => ({ path: `/roles/${f.role}/relationships/users`, opts: as(f.admin, { body: ids('users') }) }),
  'post /roles/:id/relationships/users': async (f) => ({ path: `/roles/${f.role}/relationships/users`, opts: as(f.admin, { body: ids('users', f.user) }) }),
  'delete /roles/:id/relationships/users': async (f) => ({ path: '/roles/1/relationships/users', opts: as(f.admin, { body: ids('users', f.user) }) }),
  'patch /trash/:id': async (f) => ({ path: `/trash/${f.trashed}`, opts: as(f.admin, { body: { data: { type: 'documents', id: f.trashed } } }) }),
  'delete /trash/:id': async (f) => ({ path: `/trash/${f.trashed}`, opts: as(f.admin) }),
  'delete /trash': async (f) => ({ path: `/trash?ids=${f.trashed}`, opts: as(f.admin) }),
  'post /auth': async () => ({ path: '/auth', opts: { body: { auth_provider: 'uuid' }, headers: { ...JSON_HEADERS, Authorization: 'UUID 7f1c7a52-4a8b-4f5e-9a77-0c5b8e2d9a10' } } }),
  'post /auth/optout': async () => ({ path: '/auth/optout', opts: { body: { username: 'victim', password: 'victim-secret-1' }, headers: JSON_HEADERS } }),
  'post /signup': async () => ({ path: '/signup', opts: { body: { username: 'newcomer', password: 'newcomer-pass-1', email: 'newcomer@example.com', activation_url: 'http://127.0.0.1:9/activate' }, headers: JSON_HEADERS } }),
  'post /signup/activation': async (_f, s) => {
    // A signup made while writes were allowed; its activation is what is attacked.
    const mails = await waitUntil(async () => {
      const found = await readOutbox(s.dataDir);
      return found.some((m) => /activate/.test(linkIn(m).pathname)) ? found : undefined;
    }, 'the activation mail');
    const uuid = linkIn(mails.find((m) => /activate/.test(linkIn(m).pathname))!).searchParams.get('uuid');
    return { path: '/signup/activation', opts: { body: { uuid }, headers: JSON_HEADERS } };
  },
};

const key = (r: Pick<RouteRecord, 'method' | 'path'>) => `${r.method} ${r.path}`;

describe('every entry point declared and attacked', () => {
  let s: TestServer;
  let f: Fixtures;
  let refusing = false;

  /** Every row of the watched tables, sorted: equal before and after a refused write. */
  const snapshot = async () => {
    const db = s.server.ctx.db;
    const out: Record<string, unknown[]> = {};
    for (const table of WATCHED) {
      const rows = (await db.selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>;
      // A password checked on the way (optout) is recorded as a login: that is the authentication's
      // bookkeeping, not data the refused write changed.
      out[table] = rows.map((r) => JSON.stringify({ ...r, last_login: undefined, last_login_err: undefined, num_login_err: undefined })).sort();
    }
    return out;
  };

  before(async () => {
    s = await startServer({ FOLIO_SIGNUP: 'on' }, {}, {
      kernel: { guards: [() => {
        if (refusing) throw forbidden('Refused by the entry-point attack', 'attack_refused');
      }] },
    });
    const admin = await s.adminToken();
    const make = async (path: string, body: unknown, opts: RequestOptions = {}) => {
      const r = await s.request('POST', path, { token: admin, body, ...opts });
      assert.equal(r.status, 201, r.text);
      return String(r.body.data.id);
    };
    const docId = await make('/documents', doc({ title: 'Target', status: 'on' }));
    const other = await make('/documents', doc({ title: 'Other', status: 'on' }));
    const folder = await make('/folders', { data: { type: 'folders', attributes: { title: 'Root', status: 'on' } } });
    const sub = await make('/folders', { data: { type: 'folders', attributes: { title: 'Sub', status: 'on' }, relationships: { parent: { data: { type: 'folders', id: folder } } } } });
    const imageUp = await s.request('POST', '/images/upload/a.png', { token: admin, raw: await tinyPng(1), headers: { 'Content-Type': 'image/png' } });
    assert.equal(imageUp.status, 201, imageUp.text);
    const image = String(imageUp.body.data.id);
    const streamUp = await s.request('POST', '/streams/upload/b.png', { token: admin, raw: await tinyPng(2), headers: { 'Content-Type': 'image/png' } });
    assert.equal(streamUp.status, 201, streamUp.text);
    const ok = async (r: Promise<TestResponse>) => {
      const res = await r;
      assert.ok(res.status < 300, res.text);
      return res;
    };
    await ok(s.request('POST', `/documents/${docId}/relationships/see_also`, { token: admin, body: ids('documents', other) }));
    await ok(s.request('POST', `/documents/${docId}/relationships/attach`, { token: admin, body: ids('images', image) }));
    await ok(s.request('POST', `/folders/${sub}/relationships/children`, { token: admin, body: ids('documents', docId) }));
    await ok(s.request('PATCH', `/documents/${docId}`, { token: admin, body: doc({ title: 'Target, edited' }, docId) }));
    const translation = await make('/translations', { data: { type: 'translations', attributes: { object_id: docId, lang: 'it', status: 'on', translated_fields: { title: 'Bersaglio' } } } });
    const history = await ok(s.request('GET', `/documents/${docId}/history`, { token: admin }));
    const trashed = await make('/documents', doc({ title: 'Trashed' }));
    await ok(s.request('DELETE', `/documents/${trashed}`, { token: admin }));
    const role = await createRole(s, admin, 'attack_role', { '*': ['read', 'create', 'update', 'delete', 'publish'] });
    const user = await createUser(s, admin, { username: 'victim', roles: [role] });
    // A relation on users, so that the users' relationship writes have something to attack.
    await ok(s.request('POST', '/model/relations', { token: admin, body: { data: { type: 'relations', attributes: { name: 'mentors', inverse_name: 'mentored_by' } } } }));
    await ok(s.request('PATCH', '/model/relations/mentors/relationships/left_object_types', { token: admin, body: { data: [{ type: 'object_types', id: 'users' }] } }));
    await ok(s.request('PATCH', '/model/relations/mentors/relationships/right_object_types', { token: admin, body: { data: [{ type: 'object_types', id: 'documents' }] } }));
    await ok(s.request('POST', `/users/${user.id}/relationships/mentors`, { token: admin, body: ids('documents', docId) }));
    const editor = await createUser(s, admin, { username: 'editor', roles: [role] });
    // The signup whose activation is attacked.
    await ok(s.request('POST', '/signup', { body: { username: 'pending', password: 'pending-pass-1', email: 'pending@example.com', activation_url: 'http://127.0.0.1:9/activate' }, headers: JSON_HEADERS }));
    f = { admin, editor: editor.jwt, doc: docId, other, folder, sub, image, stream: streamUp.body.data.id, translation, historyId: history.body.data[0].id, trashed, user: user.id, role };
  });
  after(() => s.close());

  const writers = () => s.server.ctx.routes.filter((r) => r.method !== 'get');

  test('every route that is not a read declares what it writes, with tables the owners registry knows', () => {
    const routes = writers();
    assert.ok(routes.length > 80, `only ${routes.length} routes found`);
    const undeclared = routes.filter((r) => !Array.isArray(r.writes)).map(key);
    assert.deepEqual(undeclared, [], 'routes without `writes`');
    const known = new Set(['objects', ...Object.keys(TABLE_OWNERS)]);
    const unknown = routes.flatMap((r) => (r.writes ?? []).filter((t) => !known.has(t)).map((t) => `${key(r)}: ${t}`));
    assert.deepEqual(unknown, [], 'tables no registry knows');
    const unattacked = routes.filter((r) => r.writes?.includes('objects') && !ATTACKS[key(r)]).map(key);
    assert.deepEqual(unattacked, [], 'object-writing routes without an attack in this file');
    const stale = Object.keys(ATTACKS).filter((k) => !routes.some((r) => key(r) === k && r.writes?.includes('objects')));
    assert.deepEqual(stale, [], 'attacks of routes that do not exist or do not write objects');
  });

  test('with the kernel refusing every write, each object-writing route answers 403 or 404 and changes nothing', async () => {
    const failures: string[] = [];
    for (const route of writers().filter((r) => r.writes?.includes('objects'))) {
      const { path, opts } = await ATTACKS[key(route)](f, s);
      const before = await snapshot();
      refusing = true;
      let res: TestResponse;
      try {
        res = await s.request(route.method.toUpperCase(), path, opts);
      } finally {
        refusing = false;
      }
      const changed = Object.entries(await snapshot()).filter(([table, rows]) => JSON.stringify(rows) !== JSON.stringify(before[table])).map(([table]) => table);
      if (![403, 404].includes(res.status) || changed.length) failures.push(`${key(route)} (${path}): ${res.status}${changed.length ? `, changed ${changed.join(', ')}` : ''} ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });

  test('an editor with every object right gets 403 from every admin-only route, and nothing changes', async () => {
    const failures: string[] = [];
    for (const route of writers().filter((r) => r.guard === 'admin')) {
      const path = route.path.replace(/:[A-Za-z_]+/g, (p) => (p === ':relation' ? 'see_also' : p === ':side' ? 'left_object_types' : '1'));
      const before = await snapshot();
      const res = await s.request(route.method.toUpperCase(), path, { token: f.editor, body: { data: { type: 'x', attributes: {} } } });
      const after = await snapshot();
      if (res.status !== 403 || JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${key(route)}: ${res.status}`);
    }
    assert.deepEqual(failures, []);
  });
});
