// Administration as BEdita 5 clients use it: /config, /admin/applications,
// /admin/async_jobs and /async_jobs, /admin/config, /admin/endpoints, /admin/endpoint_permissions
// (enforced on requests), /admin/sysinfo — while /admin and its assets stay the admin UI.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createUser } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('BEdita administration', () => {
  let s: TestServer;
  let admin: string;
  let user: { id: string; jwt: string };
  let uiDir: string;
  /** Two applications: their ids and API keys. */
  const apps: Array<{ id: number; key: string; secret: string }> = [];

  const post = (p: string, type: string, attributes: Record<string, unknown>, token = admin) => s.request('POST', p, { token, body: { data: { type, attributes } } });
  const patch = (p: string, id: string, type: string, attributes: Record<string, unknown>, token = admin) =>
    s.request('PATCH', `${p}/${id}`, { token, body: { data: { id, type, attributes } } });

  before(async () => {
    uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ui-'));
    fs.mkdirSync(path.join(uiDir, 'assets'));
    fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>Folio admin</title><div id="root"></div>');
    fs.writeFileSync(path.join(uiDir, 'assets/app.js'), 'console.log("admin");');
    s = await startServer({}, {}, { uiDir });
    admin = await s.adminToken();
    user = await createUser(s, admin, { username: 'plain', password: 'plain-secret-1' });
    for (const name of ['site', 'other']) {
      const a = await post('/applications', 'applications', { name });
      assert.equal(a.status, 201, a.text);
      apps.push({ id: Number(a.body.data.id), key: a.body.data.meta.api_key, secret: a.body.data.meta.client_secret });
    }
  });
  after(async () => {
    await s.close();
    fs.rmSync(uiDir, { recursive: true, force: true });
  });

  test('/admin and its assets stay the admin UI; the six names are JSON API endpoints', async () => {
    const bare = await s.request('GET', '/admin', { headers: { Accept: 'text/html' } });
    assert.equal(bare.status, 301, 'the UI redirects /admin to /admin/ as before');
    assert.equal(bare.headers.get('location'), '/admin/');
    for (const p of ['/admin/', '/admin/anything/else', '/admin/configuration']) {
      const res = await s.request('GET', p, { headers: { Accept: 'text/html' } });
      assert.equal(res.status, 200, p);
      assert.match(res.text, /Folio admin/);
    }
    const asset = await s.request('GET', '/admin/assets/app.js', { headers: { Accept: '*/*' } });
    assert.equal(asset.status, 200);
    assert.match(asset.text, /console\.log/);
    for (const name of ['applications', 'async_jobs', 'config', 'endpoints', 'endpoint_permissions', 'sysinfo']) {
      const res = await s.request('GET', `/admin/${name}`, { token: admin });
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/vnd\.api\+json/);
      assert.ok(res.body.links.self);
      expectError(await s.request('GET', `/admin/${name}`, { token: user.jwt }), 403);
      expectError(await s.request('GET', `/admin/${name}`), 401);
    }
  });

  test('/admin/applications is /applications', async () => {
    const list = await s.request('GET', '/admin/applications', { token: admin });
    assert.deepEqual(list.body.data.map((a: { attributes: { name: string } }) => a.attributes.name), ['site', 'other']);
    const made = await post('/admin/applications', 'applications', { name: 'third' });
    assert.equal(made.status, 201, made.text);
    assert.ok(made.body.data.meta.client_secret);
    assert.equal((await s.request('GET', `/applications/${made.body.data.id}`, { token: admin })).body.data.attributes.name, 'third');
    expectError(await post('/admin/applications', 'applications', { name: 'third' }), 400);
    assert.equal((await s.request('DELETE', `/admin/applications/${made.body.data.id}`, { token: admin })).status, 204);
  });

  test('/config: admins write; an application reads its own entries and the global ones', async () => {
    const global = await post('/config', 'config', { name: 'Theme', context: 'app', content: '{"dark":true}' });
    assert.equal(global.status, 201, global.text);
    assert.equal(global.headers.get('location'), `${s.url}/config/${global.body.data.id}`);
    assert.deepEqual(global.body.data.attributes, { name: 'Theme', context: 'app', content: '{"dark":true}', application_id: null });
    assert.ok(global.body.data.meta.created);
    const own = await post('/admin/config', 'config', { name: 'Pagination', context: 'core', content: '20', application_id: apps[0].id });
    assert.equal(own.status, 201, own.text);
    const others = await post('/config', 'config', { name: 'Secret', content: 'x', application_id: apps[1].id });
    assert.equal(others.status, 201);
    assert.equal(others.body.data.attributes.context, 'app', 'the default context');

    const names = (res: { body: { data: Array<{ attributes: { name: string } }> } }) => res.body.data.map((c) => c.attributes.name).sort();
    assert.deepEqual(names(await s.request('GET', '/config', { token: admin })), ['Pagination', 'Secret', 'Theme']);
    const byKey = await s.request('GET', '/config', { headers: { 'X-Api-Key': apps[0].key } });
    assert.equal(byKey.status, 200, byKey.text);
    assert.deepEqual(names(byKey), ['Pagination', 'Theme']);
    const appToken = (await s.request('POST', '/auth', { headers: { 'Content-Type': 'application/json' }, body: { grant_type: 'client_credentials', client_id: apps[1].key, client_secret: apps[1].secret } })).body.meta.jwt;
    assert.deepEqual(names(await s.request('GET', '/config', { token: appToken })), ['Secret', 'Theme']);
    expectError(await s.request('GET', `/config/${own.body.data.id}`, { token: appToken }), 404);
    assert.equal((await s.request('GET', `/config/${others.body.data.id}`, { token: appToken })).status, 200);
    expectError(await s.request('GET', '/config'), 401);
    expectError(await s.request('GET', '/config', { token: user.jwt }), 403);
    expectError(await post('/config', 'config', { name: 'Mine', content: 'x' }, appToken), 401);
    expectError(await post('/config', 'config', { name: 'Mine', content: 'x' }, user.jwt), 403);

    const changed = await patch('/admin/config', own.body.data.id, 'config', { content: '50' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.attributes.content, '50');
    assert.equal((await s.request('DELETE', `/config/${others.body.data.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/config/${others.body.data.id}`, { token: admin }), 404);
  });

  test('/config: bad input gives a JSON API error and writes nothing', async () => {
    const count = async () => (await s.request('GET', '/admin/config', { token: admin })).body.meta.pagination.count;
    const before = await count();
    expectError(await post('/config', 'config', { context: 'app', content: 'x' }), 400, 'invalid_data');
    expectError(await post('/config', 'config', { name: 'has space', content: 'x' }), 400, 'invalid_data');
    expectError(await post('/config', 'config', { name: 'Empty', content: '' }), 400, 'invalid_data');
    expectError(await post('/config', 'config', { name: 'NoApp', content: 'x', application_id: 9999 }), 400, 'invalid_data');
    expectError(await post('/config', 'config', { name: 'Extra', content: 'x', colour: 'red' }), 400, 'unknown_attribute');
    expectError(await post('/config', 'config', { name: 'Theme', context: 'app', content: 'again' }), 400, 'config_exists');
    expectError(await post('/config', 'objects', { name: 'Typo', content: 'x' }), 409);
    expectError(await s.request('GET', '/config?filter[colour]=red', { token: admin }), 400);
    expectError(await s.request('GET', '/config/424242', { token: admin }), 404);
    assert.equal(await count(), before);
  });

  test('/admin/endpoints: the API endpoints, managed by admins', async () => {
    const list = await s.request('GET', '/admin/endpoints?page_size=100', { token: admin });
    const names = list.body.data.map((e: { attributes: { name: string } }) => e.attributes.name);
    for (const n of ['auth', 'objects', 'users', 'config', 'admin', 'annotations']) assert.ok(names.includes(n), n);
    const made = await post('/admin/endpoints', 'endpoints', { name: 'reports', description: 'Custom reports' });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.data.attributes, { name: 'reports', description: 'Custom reports', enabled: true });
    expectError(await post('/admin/endpoints', 'endpoints', { name: 'reports' }), 400, 'endpoint_exists');
    expectError(await post('/admin/endpoints', 'endpoints', { name: 'Bad Name' }), 400, 'invalid_data');
    expectError(await post('/admin/endpoints', 'endpoints', { name: 'x', enabled: 'yes' }), 400, 'invalid_data');
    expectError(await post('/admin/endpoints', 'endpoints', { name: 'y', object_type: 'documents' }), 400, 'unknown_attribute');
    expectError(await post('/admin/endpoints', 'endpoints', { name: 'z' }, user.jwt), 403);
    assert.equal((await patch('/admin/endpoints', made.body.data.id, 'endpoints', { description: null })).body.data.attributes.description, null);
    assert.equal((await s.request('DELETE', `/admin/endpoints/${made.body.data.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/admin/endpoints/${made.body.data.id}`, { token: admin }), 404);
  });

  test('/admin/endpoint_permissions: CRUD with read and write as BEdita encodes them', async () => {
    const endpoints = (await s.request('GET', '/admin/endpoints?filter[name]=trees', { token: admin })).body.data;
    const made = await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: Number(endpoints[0].id), application_id: apps[0].id, read: true, write: 'mine' });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.data.attributes, { endpoint_id: Number(endpoints[0].id), application_id: apps[0].id, role_id: null, read: true, write: 'mine' });
    const changed = await patch('/admin/endpoint_permissions', made.body.data.id, 'endpoint_permissions', { write: 'block' });
    assert.deepEqual([changed.body.data.attributes.read, changed.body.data.attributes.write], [true, 'block']);
    const filtered = await s.request('GET', `/admin/endpoint_permissions?filter[application_id]=${apps[0].id}`, { token: admin });
    assert.deepEqual(filtered.body.data.map((p: { id: string }) => p.id), [made.body.data.id]);
    expectError(await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: 9999, read: true }), 400, 'invalid_data');
    expectError(await post('/admin/endpoint_permissions', 'endpoint_permissions', { role_id: 'admin', read: true }), 400, 'invalid_data');
    expectError(await post('/admin/endpoint_permissions', 'endpoint_permissions', { read: 'sometimes' }), 400, 'invalid_data');
    expectError(await post('/admin/endpoint_permissions', 'endpoint_permissions', { permission: 15 }), 400, 'unknown_attribute');
    assert.equal((await s.request('DELETE', `/admin/endpoint_permissions/${made.body.data.id}`, { token: admin })).status, 204);
    assert.equal((await s.request('GET', '/admin/endpoint_permissions', { token: admin })).body.data.length, 0);
  });

  test('endpoint permissions are enforced on requests; admins always pass', async () => {
    const endpointId = async (name: string) => Number((await s.request('GET', `/admin/endpoints?filter[name]=${name}`, { token: admin })).body.data[0].id);
    const documents = await endpointId('documents').catch(async () => {
      const made = await post('/admin/endpoints', 'endpoints', { name: 'documents' });
      return Number(made.body.data.id);
    });
    const role = await post('/roles', 'roles', { name: 'writers', permissions: { documents: ['read', 'create', 'update', 'publish'] } });
    assert.equal(role.status, 201, role.text);
    const writer = await createUser(s, admin, { username: 'writer', password: 'writer-secret-1' });
    await s.request('POST', `/users/${writer.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
    writer.jwt = (await s.login('writer', 'writer-secret-1')).jwt;
    const write = (token?: string, headers: Record<string, string> = {}) =>
      s.request('POST', '/documents', { token, headers, body: { data: { type: 'documents', attributes: { title: 'By endpoint rules' } } } });
    assert.equal((await write(writer.jwt)).status, 201, 'no permission set: the roles decide');

    // Writers may read /documents but not write it.
    const rule = await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: documents, role_id: Number(role.body.data.id), read: true, write: false });
    assert.equal(rule.status, 201, rule.text);
    expectError(await write(writer.jwt), 403);
    assert.equal((await s.request('GET', '/documents', { token: writer.jwt })).status, 200);
    // Nobody else is named on this endpoint: users without the role and anonymous clients are refused.
    expectError(await s.request('GET', '/documents', { token: user.jwt }), 403);
    expectError(await s.request('GET', '/documents'), 401);
    assert.equal((await write(admin)).status, 201, 'admins pass');
    // Other endpoints are not concerned.
    assert.equal((await s.request('GET', '/folders', { token: user.jwt })).status, 200);

    // Everyone may read; an application's anonymous clients are blocked.
    const everyone = await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: documents, read: true, write: false });
    assert.equal((await s.request('GET', '/documents', { token: user.jwt })).status, 200);
    assert.equal((await s.request('GET', '/documents')).status, 200);
    const blocked = await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: documents, application_id: apps[0].id, read: 'block' });
    expectError(await s.request('GET', '/documents', { headers: { 'X-Api-Key': apps[0].key } }), 401);
    assert.equal((await s.request('GET', '/documents', { headers: { 'X-Api-Key': apps[1].key } })).status, 200);
    // A write from an anonymous client needs a permission naming the endpoint and its application.
    expectError(await write(undefined, { 'X-Api-Key': apps[1].key }), 401);
    // Logging in is never held back.
    assert.equal((await s.request('POST', '/auth', { headers: { 'Content-Type': 'application/json' }, body: { username: 'writer', password: 'writer-secret-1' } })).status, 200);

    for (const p of [rule, everyone, blocked]) await s.request('DELETE', `/admin/endpoint_permissions/${p.body.data.id}`, { token: admin });
    assert.equal((await write(writer.jwt)).status, 201, 'rules gone: the roles decide again');
  });

  test('/home lists what the endpoint permissions and the caller allow: /config for admins and applications only', async () => {
    const resources = async (opts: { token?: string; headers?: Record<string, string> } = {}) => {
      const home = await s.request('GET', '/home', opts);
      assert.equal(home.status, 200, home.text);
      return home.body.meta.resources as Record<string, { hints: { allow: string[] } }>;
    };
    assert.ok(!('/config' in (await resources())), 'anonymous clients would get 401 there');
    assert.ok(!('/config' in (await resources({ token: user.jwt }))), 'plain users would get 403 there');
    assert.deepEqual((await resources({ headers: { 'X-Api-Key': apps[0].key } }))['/config'].hints.allow, ['GET']);
    assert.ok('/config' in (await resources({ token: admin })));
    assert.ok((await resources())['/documents'].hints.allow.includes('GET'));

    // A rule that lets everyone read /documents but write nothing takes the writes out of /home.
    const documents = Number((await s.request('GET', '/admin/endpoints?filter[name]=documents', { token: admin })).body.data[0]?.id ?? (await post('/admin/endpoints', 'endpoints', { name: 'documents' })).body.data.id);
    const editorRole = await post('/roles', 'roles', { name: 'home_editors', permissions: { documents: ['read', 'create', 'update', 'delete'] } });
    const editor = await createUser(s, admin, { username: 'home-editor', password: 'home-editor-secret-1' });
    await s.request('POST', `/users/${editor.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: editorRole.body.data.id }] } });
    const jwt = (await s.login('home-editor', 'home-editor-secret-1')).jwt;
    assert.deepEqual((await resources({ token: jwt }))['/documents'].hints.allow, ['DELETE', 'GET', 'PATCH', 'POST']);
    const rule = await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: documents, read: true, write: false });
    assert.equal(rule.status, 201, rule.text);
    assert.deepEqual((await resources({ token: jwt }))['/documents'].hints.allow, ['GET']);
    assert.deepEqual((await resources({ token: admin }))['/documents'].hints.allow, ['DELETE', 'GET', 'PATCH', 'POST'], 'admins pass every rule');
    await s.request('DELETE', `/admin/endpoint_permissions/${rule.body.data.id}`, { token: admin });

    // A disabled endpoint is not listed to those it answers 404.
    const status = (await s.request('GET', '/admin/endpoints?filter[name]=status', { token: admin })).body.data[0];
    await patch('/admin/endpoints', status.id, 'endpoints', { enabled: false });
    assert.ok(!('/status' in (await resources({ token: jwt }))));
    assert.ok('/status' in (await resources({ token: admin })));
    await patch('/admin/endpoints', status.id, 'endpoints', { enabled: true });
    assert.ok('/status' in (await resources()));
  });

  test('a disabled endpoint answers 404 to everyone but admins', async () => {
    const trees = (await s.request('GET', '/admin/endpoints?filter[name]=status', { token: admin })).body.data[0];
    await patch('/admin/endpoints', trees.id, 'endpoints', { enabled: false });
    expectError(await s.request('GET', '/status'), 404);
    expectError(await s.request('GET', '/status', { token: user.jwt }), 404);
    assert.equal((await s.request('GET', '/status', { token: admin })).status, 200);
    await patch('/admin/endpoints', trees.id, 'endpoints', { enabled: true });
    assert.equal((await s.request('GET', '/status')).status, 200);
  });

  test('/async_jobs and /admin/async_jobs list the job queue', async () => {
    const ctx = s.server.ctx;
    // Kinds no handler is defined for stay in the queue as they are.
    await ctx.jobs.enqueue('inspection', { x: 1 });
    await ctx.jobs.enqueue('inspection_later', { x: 2 }, { runAt: Date.now() + 3_600_000 });
    for (const p of ['/async_jobs', '/admin/async_jobs']) {
      const list = await s.request('GET', `${p}?filter[service]=inspection,inspection_later&sort=id`, { token: admin });
      assert.equal(list.status, 200, list.text);
      const jobs = list.body.data;
      assert.deepEqual(jobs.map((j: { attributes: { service: string } }) => j.attributes.service), ['inspection', 'inspection_later']);
      assert.equal(jobs[0].type, 'async_jobs');
      assert.deepEqual(jobs.map((j: { meta: { status: string } }) => j.meta.status), ['pending', 'planned']);
      // Jobs of outside services show their payload (Folio's own jobs do not: see the next test).
      assert.deepEqual(jobs.map((j: { attributes: { payload: unknown } }) => j.attributes.payload), [{ x: 1 }, { x: 2 }]);
      const planned = await s.request('GET', `${p}?filter[status]=planned&filter[service]=inspection,inspection_later`, { token: admin });
      assert.deepEqual(planned.body.data.map((j: { id: string }) => j.id), [jobs[1].id]);
      const one = await s.request('GET', `${p}/${jobs[0].id}`, { token: admin });
      assert.equal(one.body.data.attributes.service, 'inspection');
      expectError(await s.request('GET', `${p}/999999`, { token: admin }), 404);
      expectError(await s.request('GET', `${p}?filter[status]=sleeping`, { token: admin }), 400);
      expectError(await s.request('GET', `${p}?filter[payload]=x`, { token: admin }), 400);
      expectError(await s.request('GET', p, { token: user.jwt }), 403);
      expectError(await s.request('GET', p), 401);
    }
    // Both take POST (queued for an outside runner: bedita-manager.test.ts and the CRUD test below).
    const posted = await s.request('POST', '/async_jobs', { token: admin, body: { data: { type: 'async_jobs', attributes: { service: 'inspection' } } } });
    assert.equal(posted.status, 201, posted.text);
    await ctx.db.deleteFrom('jobs').where('kind', 'in', ['inspection', 'inspection_later']).execute();
  });

  test('/admin/async_jobs: admins queue, change and remove jobs of outside services; Folio\'s own jobs are not made or changed there', async () => {
    const p = '/admin/async_jobs';
    const made = await post(p, 'async_jobs', { service: 'dummy', payload: { to: 'someone' }, priority: 3, scheduled_from: '2030-01-01 10:00:00', max_attempts: 2 });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.headers.get('location'), `${s.url}${p}/${made.body.data.id}`);
    const id = made.body.data.id;
    assert.deepEqual(
      { ...made.body.data.attributes, locked_until: undefined, last_error: undefined },
      { service: 'dummy', payload: { to: 'someone' }, priority: 3, max_attempts: 2, scheduled_from: '2030-01-01T10:00:00+00:00', scheduled: '2030-01-01T10:00:00+00:00', expires: null, attempts: 0, locked_until: undefined, last_error: undefined },
    );
    assert.equal(made.body.data.meta.status, 'planned');
    const changed = await patch(p, id, 'async_jobs', { priority: 2, scheduled_from: '' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.attributes.priority, 2);
    assert.equal(changed.body.data.meta.status, 'pending');
    assert.equal((await s.request('GET', `/async_jobs/${id}`, { token: admin })).body.data.attributes.priority, 2);
    // Bad input is 400 naming the field and changes nothing; editors get 403.
    for (const bad of [{ priority: 'high' }, { service: '' }, { max_attempts: 0 }, { scheduled_from: 'soon' }]) {
      const res = await patch(p, id, 'async_jobs', bad);
      expectError(res, 400);
      assert.deepEqual(res.body.error.meta.fields, Object.keys(bad));
    }
    expectError(await post(p, 'async_jobs', { payload: {} }), 400);
    expectError(await post(p, 'async_jobs', { service: 'dummy' }, user.jwt), 403);
    expectError(await patch(p, id, 'async_jobs', { priority: 9 }, user.jwt), 403);
    assert.equal((await s.request('GET', `${p}/${id}`, { token: admin })).body.data.attributes.priority, 2);
    // Folio's own kinds (mail here) are the server's: not queued, changed or shown with their payload.
    expectError(await post(p, 'async_jobs', { service: 'mail', payload: { to: 'x@example.com' } }), 400);
    await s.server.ctx.jobs.enqueue('mail', { to: 'hidden@example.com' }, { runAt: Date.now() + 3_600_000 });
    const mail = (await s.request('GET', `${p}?filter[service]=mail`, { token: admin })).body.data.at(-1);
    assert.equal(mail.attributes.payload, null);
    expectError(await patch(p, mail.id, 'async_jobs', { priority: 5 }), 403);
    assert.equal((await s.request('DELETE', `${p}/${mail.id}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `${p}/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `${p}/${id}`, { token: admin }), 404);
    expectError(await s.request('DELETE', `${p}/${id}`, { token: admin }), 404);
  });

  test('/admin/sysinfo answers the system in meta.info', async () => {
    const res = await s.request('GET', '/admin/sysinfo', { token: admin });
    assert.equal(res.status, 200);
    const info = res.body.meta.info;
    assert.match(info.Version, /^\d+\.\d+/);
    assert.equal(info['Node.js'], process.versions.node);
    assert.ok(['sqlite', 'postgres'].includes(info.Database));
    assert.equal(info.Storage, 'local');
    expectError(await s.request('GET', '/admin/sysinfo', { token: user.jwt }), 403);
    expectError(await s.request('POST', '/admin/sysinfo', { token: admin, body: {} }), 405);
  });
});
