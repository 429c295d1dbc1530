// Reads by id and a type's lists answered straight from the server's request handler
// (http/router.ts directDispatch, issue 48) answer exactly what express's path answers: the same
// status, headers and body for every caller and case — anonymous, signed in, an API key, a bad
// token, restricted and draft objects, 304, HEAD, 406, an unknown type (which the direct path
// hands to express), query parameters and endpoint permissions. express's path is the server's
// own app, served on its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from './helpers/server.js';
import { createRole, createUser } from './helpers/users.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request with node's client (fetch will not send another Host). */
function ask(base: string, path: string, method: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const out: Record<string, string> = {};
        // The Date is the clock's; the rest must be the same.
        for (const [name, value] of Object.entries(res.headers)) if (name !== 'date' && value !== undefined) out[name] = String(value);
        resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('direct reads by id', () => {
  let s: TestServer;
  let viaExpress: http.Server;
  let expressUrl: string;
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  let apiKey = '';

  before(async () => {
    s = await startServer();
    const admin = await s.adminToken();
    tokens.admin = admin;
    const create = async (type: string, attributes: Record<string, unknown>) => {
      const r = await s.request('POST', `/${type}`, { token: admin, body: { data: { type, attributes } } });
      assert.equal(r.status, 201, r.text);
      return String(r.body.data.id);
    };
    ids.folder = await create('folders', { title: 'Harbour', status: 'on' });
    ids.published = await create('documents', { title: 'Tide tables', body: '<p>High water at six</p>', status: 'on' });
    ids.draft = await create('documents', { title: 'Winter plans', status: 'draft' });
    ids.restricted = await create('documents', { title: 'Crew list', status: 'on' });
    const placed = await s.request('POST', `/folders/${ids.folder}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: ids.published }] } });
    assert.equal(placed.status, 200, placed.text);
    const translated = await s.request('POST', '/translations', {
      token: admin,
      body: { data: { type: 'translations', attributes: { object_id: Number(ids.published), lang: 'it', status: 'on', translated_fields: { title: 'Tavole delle maree' } } } },
    });
    assert.equal(translated.status, 201, translated.text);
    const editors = await createRole(s, admin, 'harbour_editors', { documents: ['read', 'create', 'update'] });
    await createRole(s, admin, 'crew', { documents: ['read'] });
    const restrict = await s.request('PATCH', `/documents/${ids.restricted}`, { token: admin, body: { data: { id: ids.restricted, type: 'documents', meta: { perms: { roles: ['crew'] } } } } });
    assert.equal(restrict.status, 200, restrict.text);
    tokens.editor = (await createUser(s, admin, { username: 'harbour-editor', roles: [editors] })).jwt;
    const app = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'harbour-site' } } } });
    assert.equal(app.status, 201, app.text);
    apiKey = app.body.data.meta.api_key;
    viaExpress = http.createServer(s.server.app);
    await new Promise<void>((resolve) => viaExpress.listen(0, '127.0.0.1', resolve));
    expressUrl = `http://127.0.0.1:${(viaExpress.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => viaExpress?.close(resolve));
    await s?.close();
  });

  /** The same request through both paths, compared; answers the direct one. */
  async function same(path: string, opts: { method?: string; headers?: Record<string, string>; token?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/vnd.api+json', ...(opts.headers ?? {}) };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    const method = opts.method ?? 'GET';
    // The express path's links start at its own port: asked with the direct server's Host, both build the same.
    const host = new URL(s.url).host;
    const direct = await ask(s.url, path, method, { ...headers, Host: host });
    const routed = await ask(expressUrl, path, method, { ...headers, Host: host });
    assert.deepEqual(direct, routed, `${method} ${path} ${JSON.stringify(opts.headers ?? {})}${opts.token ? ' signed in' : ''}: the direct answer differs from express's`);
    return direct;
  }

  test('anonymous, signed-in and API-key reads answer as express does, security headers and ETag included', async () => {
    const anonymous = await same(`/documents/${ids.published}`);
    assert.equal(anonymous.status, 200);
    assert.equal(JSON.parse(anonymous.body).data.attributes.title, 'Tide tables');
    assert.deepEqual(JSON.parse(anonymous.body).data.relationships.parents.data, [{ id: ids.folder, type: 'folders' }], 'the parent folder read with the row');
    assert.equal(anonymous.headers['x-content-type-options'], 'nosniff', "helmet's headers are set");
    assert.match(anonymous.headers['content-security-policy'] ?? '', /img-src 'self' data: blob:/);
    assert.match(anonymous.headers.etag ?? '', /^"v\d+-/);
    assert.equal((await same(`/documents/${ids.published}`, { token: tokens.editor })).status, 200);
    assert.equal((await same(`/documents/${ids.draft}`, { token: tokens.editor })).status, 200, 'an editor reads drafts');
    assert.equal((await same(`/documents/${ids.published}`, { headers: { 'X-Api-Key': apiKey } })).status, 200);
    assert.equal((await same(`/documents/${ids.published}`, { token: tokens.admin })).status, 200);
  });

  test('refusals match: drafts, restricted objects, bad tokens and keys, unknown ids and types, 406', async () => {
    assert.equal((await same(`/documents/${ids.draft}`)).status, 404, 'anonymous callers do not see drafts');
    assert.equal((await same(`/documents/${ids.restricted}`)).status, 401, 'restricted: anonymous callers are asked to log in');
    assert.equal((await same(`/documents/${ids.restricted}`, { token: tokens.editor })).status, 403, 'restricted to another role');
    assert.equal((await same(`/documents/${ids.published}`, { token: 'not-a-token' })).status, 401);
    assert.equal((await same(`/documents/${ids.published}`, { headers: { 'X-Api-Key': 'no-such-key' } })).status, 403);
    assert.equal((await same('/documents/999999')).status, 404);
    assert.equal((await same(`/events/${ids.published}`)).status, 404, 'an object of another type');
    assert.equal((await same(`/nothings/${ids.published}`)).status, 404, 'no such type: express answers it');
    assert.equal((await same(`/documents/${ids.published}`, { headers: { Accept: 'text/html' } })).status, 406);
    assert.equal((await same(`/documents/${ids.published}`, { headers: { Accept: 'application/json' } })).status, 200);
  });

  test('HEAD, If-None-Match and query parameters match', async () => {
    const first = await same(`/documents/${ids.published}`);
    const head = await same(`/documents/${ids.published}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal((await same(`/documents/${ids.published}`, { headers: { 'If-None-Match': first.headers.etag } })).status, 304);
    const italian = await same(`/documents/${ids.published}?lang=it`);
    assert.equal(JSON.parse(italian.body).included?.[0]?.attributes?.translated_fields?.title, 'Tavole delle maree');
    const fields = await same(`/documents/${ids.published}?fields=title`);
    assert.deepEqual(Object.keys(JSON.parse(fields.body).data.attributes), ['title']);
    const included = await same(`/documents/${ids.published}?include=parents`);
    assert.equal(JSON.parse(included.body).included[0].id, ids.folder);
    assert.equal((await same(`/documents/${ids.published}?include=nothing`)).status, 400);
    // Asked often enough, the answer comes from the response cache (before the direct path): still the same.
    for (let i = 0; i < 3; i++) assert.equal((await same(`/documents/${ids.published}`)).body, first.body);
  });

  test('a type\'s list answers as express does: callers, pages, sorts, filters, search, include, fields, HEAD, 304, refusals', async () => {
    const anonymous = await same('/documents');
    assert.equal(anonymous.status, 200);
    const listed = JSON.parse(anonymous.body);
    assert.deepEqual(
      listed.data.map((d: { id: string }) => d.id),
      [ids.published],
      'anonymous callers list what they may see: no draft, no object restricted to a role',
    );
    assert.match(anonymous.headers.etag ?? '', /^W\//, 'a list carries a weak ETag');
    assert.equal(anonymous.headers['x-content-type-options'], 'nosniff');
    const drafts = JSON.parse((await same('/documents', { token: tokens.editor })).body);
    assert.ok(drafts.data.some((d: { id: string }) => d.id === ids.draft), 'an editor lists drafts');
    assert.equal((await same('/documents', { headers: { 'X-Api-Key': apiKey } })).status, 200);
    assert.equal((await same('/documents?sort=-id&page_size=1&page=2', { token: tokens.admin })).status, 200);
    const paged = JSON.parse((await same('/documents?sort=title&page_size=1&page=2', { token: tokens.admin })).body);
    assert.equal(paged.meta.pagination.page, 2);
    assert.match(paged.links.prev, /page=1/);
    assert.equal(JSON.parse((await same('/documents?filter[title]=Tide tables')).body).data.length, 1);
    assert.equal(JSON.parse((await same('/documents?q=water')).body).data[0]?.id, ids.published);
    assert.equal(JSON.parse((await same('/documents?include=parents')).body).included?.[0]?.id, ids.folder);
    assert.deepEqual(Object.keys(JSON.parse((await same('/documents?fields=title')).body).data[0].attributes), ['title']);
    assert.equal((await same('/documents?lang=it')).status, 200);
    const head = await same('/documents', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal((await same('/documents', { headers: { 'If-None-Match': anonymous.headers.etag } })).status, 304);
    assert.equal((await same('/documents?sort=nothing')).status, 400);
    assert.equal((await same('/documents?page=0')).status, 400);
    assert.equal((await same('/documents?filter[nothing]=1')).status, 400);
    assert.equal((await same('/documents', { token: 'not-a-token' })).status, 401);
    assert.equal((await same('/documents', { headers: { Accept: 'text/html' } })).status, 406);
    assert.equal((await same('/nothings')).status, 404, 'no such type');
    // Lists with routes of their own (/media, /folders, /objects) and the trash answer as before.
    for (const path of ['/media', '/folders', '/objects', '/trash']) assert.equal((await same(path, { token: tokens.admin })).status, 200, path);
    // Asked often enough, the answer comes from the response cache (before the direct path): still the same.
    for (let i = 0; i < 3; i++) assert.equal((await same('/documents')).body, anonymous.body);
  });

  test('endpoint permissions apply on the direct path', async () => {
    const admin = tokens.admin;
    const endpoints = await s.request('GET', '/admin/endpoints?filter[name]=documents', { token: admin });
    let endpointId = endpoints.body.data[0]?.id;
    if (!endpointId) {
      const made = await s.request('POST', '/admin/endpoints', { token: admin, body: { data: { type: 'endpoints', attributes: { name: 'documents' } } } });
      assert.equal(made.status, 201, made.text);
      endpointId = made.body.data.id;
    }
    const rule = await s.request('POST', '/admin/endpoint_permissions', {
      token: admin,
      body: { data: { type: 'endpoint_permissions', attributes: { endpoint_id: Number(endpointId), role_id: null, read: false, write: false } } },
    });
    assert.equal(rule.status, 201, rule.text);
    const refused = await same(`/documents/${ids.published}`);
    assert.ok(refused.status === 401 || refused.status === 403, `reads of /documents are refused by the endpoint rule: ${refused.status}`);
    assert.equal((await same('/documents')).status, refused.status, 'and so is its list');
    assert.equal((await same(`/documents/${ids.published}`, { token: admin })).status, 200, 'admins always pass');
    const removed = await s.request('DELETE', `/admin/endpoint_permissions/${rule.body.data.id}`, { token: admin });
    assert.equal(removed.status, 204);
    assert.equal((await same(`/documents/${ids.published}`)).status, 200);
  });
});
