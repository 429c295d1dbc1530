// Webhooks: admin CRUD, signed deliveries of every kind of object write to a receiver on
// loopback, filters by event and type, retries with backoff from the database queue (also across
// a restart), the test event, the deliveries list and its permissions.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createServer, type FolioServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { connectOutside } from './helpers/outside.js';
import { ADMIN, expectError, sameData, startServer, type TestServer } from './helpers/server.js';
import { queuesIdle, waitUntil } from './helpers/wait.js';
import { startReceiver, type Received } from './helpers/webhook-receiver.js';

const hmac = (secret: string, raw: string) => 'sha256=' + crypto.createHmac('sha256', secret).update(raw).digest('hex');

function assertSigned(r: Received, secret: string) {
  assert.equal(r.headers['x-folio-signature'], hmac(secret, r.raw), 'signature is the HMAC-SHA256 of the raw body');
  assert.equal(r.headers['x-folio-event'], r.body.event);
  assert.equal(r.headers['x-folio-delivery'], r.body.id);
  assert.match(r.body.id, /^[0-9a-f-]{36}$/);
  assert.match(String(r.headers['content-type']), /^application\/json/);
}

const hookBody = (attributes: Record<string, unknown>) => ({ data: { type: 'webhooks', attributes } });
const doc = (attributes: Record<string, unknown>) => ({ data: { type: 'documents', attributes } });

describe('/webhooks: management and signed deliveries', () => {
  let s: TestServer;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let hook: { id: string; secret: string };

  before(async () => {
    // A fixed public URL: links inside `data` then match what GET answers on any port.
    s = await startServer({}, { baseUrl: 'http://folio.test' });
    admin = await s.adminToken();
    receiver = await startReceiver();
    const res = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'Site builder', url: receiver.url, events: ['*'], types: ['documents'] }) });
    assert.equal(res.status, 201, res.text);
    hook = { id: res.body.data.id, secret: res.body.data.meta.secret };
  });
  after(async () => {
    await s.close();
    await receiver.close();
  });

  test('POST /webhooks answers the webhook with a generated secret; GET, PATCH and DELETE work', async () => {
    assert.match(hook.secret, /^[0-9a-f]{64}$/);
    const read = await s.request('GET', `/webhooks/${hook.id}`, { token: admin });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data.attributes, { name: 'Site builder', url: receiver.url, events: ['*'], types: ['documents'], enabled: true });
    assert.equal(read.body.data.type, 'webhooks');
    assert.equal(read.body.data.meta.secret, hook.secret);

    const other = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'Other', url: 'https://example.com/in' }) });
    assert.equal(other.status, 201);
    assert.equal(other.headers.get('location'), `http://folio.test/webhooks/${other.body.data.id}`);
    assert.deepEqual(other.body.data.attributes.events, ['*'], 'events default to every event');
    assert.deepEqual(other.body.data.attributes.types, [], 'types default to every type');
    assert.notEqual(other.body.data.meta.secret, hook.secret);

    const patched = await s.request('PATCH', `/webhooks/${other.body.data.id}`, {
      token: admin,
      body: { data: { id: other.body.data.id, type: 'webhooks', attributes: { enabled: false, events: ['objects.create'], types: ['media'] } } },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.data.attributes, { name: 'Other', url: 'https://example.com/in', events: ['objects.create'], types: ['media'], enabled: false });

    const rotated = await s.request('POST', `/webhooks/${other.body.data.id}/secret`, { token: admin });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.data.meta.secret, other.body.data.meta.secret);

    const list = await s.request('GET', '/webhooks', { token: admin });
    assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [hook.id, other.body.data.id]);
    assert.equal(list.body.meta.pagination.count, 2);

    assert.equal((await s.request('DELETE', `/webhooks/${other.body.data.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/webhooks/${other.body.data.id}`, { token: admin }), 404);
    expectError(await s.request('DELETE', `/webhooks/${other.body.data.id}`, { token: admin }), 404);
  });

  test('bad input gives 400 and creates nothing', async () => {
    const bad = async (attributes: Record<string, unknown>, code = 'invalid_data') =>
      expectError(await s.request('POST', '/webhooks', { token: admin, body: hookBody(attributes) }), 400, code);
    await bad({ name: 'x', url: 'ftp://example.com/' });
    await bad({ name: 'x', url: 'javascript:alert(1)' });
    await bad({ name: 'x', url: 'not a url' });
    await bad({ name: 'x' });
    await bad({ url: 'http://example.com/' });
    await bad({ name: '', url: 'http://example.com/' });
    await bad({ name: 'x', url: 'http://example.com/', events: ['objects.explode'] });
    await bad({ name: 'x', url: 'http://example.com/', events: [] });
    await bad({ name: 'x', url: 'http://example.com/', events: 'objects.create' });
    await bad({ name: 'x', url: 'http://example.com/', types: ['unicorns'] });
    await bad({ name: 'x', url: 'http://example.com/', enabled: 'yes' });
    await bad({ name: 'x', url: 'http://example.com/', colour: 'red' }, 'unknown_attribute');
    expectError(await s.request('POST', '/webhooks', { token: admin, body: { data: { type: 'documents', attributes: { name: 'x', url: 'http://e.com' } } } }), 409);
    expectError(await s.request('POST', '/webhooks', { token: admin, raw: '{nope', headers: { 'Content-Type': 'application/json' } }), 400);
    expectError(
      await s.request('PATCH', `/webhooks/${hook.id}`, { token: admin, body: { data: { id: hook.id, type: 'webhooks', attributes: { url: 'file:///etc/passwd' } } } }),
      400,
    );
    expectError(await s.request('GET', '/webhooks/abc', { token: admin }), 404);
    const list = await s.request('GET', '/webhooks', { token: admin });
    assert.equal(list.body.meta.pagination.count, 1);
    assert.equal(list.body.data[0].attributes.url, receiver.url, 'the failed PATCH changed nothing');
  });

  test('only admins manage webhooks: anonymous 401, other users 403', async () => {
    const roles = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'editor' } } } });
    assert.equal(roles.status, 201, roles.text);
    const plain = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'edna', password: 'password-1' } } } });
    await s.request('POST', `/users/${plain.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: roles.body.data.id }] } });
    const editor = (await s.login('edna', 'password-1')).jwt;
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['GET', `/webhooks/${hook.id}`],
      ['PATCH', `/webhooks/${hook.id}`],
      ['DELETE', `/webhooks/${hook.id}`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
      ['POST', `/webhooks/${hook.id}/test`],
      ['POST', `/webhooks/${hook.id}/secret`],
    ]) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : hookBody({ name: 'x', url: 'http://e.com' });
      expectError(await s.request(method, path, { body }), 401);
      expectError(await s.request(method, path, { token: editor, body }), 403);
    }
    const home = await s.request('GET', '/home', { token: editor });
    assert.ok(!Object.keys(home.body.meta.resources ?? {}).includes('/webhooks'));
    assert.ok(!home.text.includes('/webhooks'), 'GET /home does not list /webhooks to non-admins');
    const adminHome = await s.request('GET', '/home', { token: admin });
    assert.ok(adminHome.text.includes('/webhooks'));
    assert.equal(receiver.received.length, 0, 'none of this was an object write of a watched type');
  });

  test('create, update, trash, restore and remove reach the receiver signed, with the object as an admin reads it', async () => {
    const start = receiver.received.length;
    const created = await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Hello hooks', status: 'draft' }) });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const [c] = (await receiver.waitFor(start + 1)).slice(start);
    assertSigned(c, hook.secret);
    assert.equal(c.body.event, 'objects.create');
    assert.deepEqual(c.body.resource, { type: 'documents', id });
    assert.equal(c.body.user_id, '1');
    assert.ok(!Number.isNaN(Date.parse(c.body.created)));
    assert.deepEqual(Object.keys(c.body).sort(), ['created', 'data', 'event', 'id', 'resource', 'user_id']);
    const asAdmin = await s.request('GET', `/documents/${id}`, { token: admin });
    assert.deepEqual(c.body.data, asAdmin.body.data, 'data is the object as GET /{type}/{id} shows it to an admin');

    await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes: { title: 'Changed' } } } });
    const u = (await receiver.waitFor(start + 2))[start + 1];
    assertSigned(u, hook.secret);
    assert.equal(u.body.event, 'objects.update');
    assert.equal(u.body.data.attributes.title, 'Changed');

    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    const t = (await receiver.waitFor(start + 3))[start + 2];
    assertSigned(t, hook.secret);
    assert.equal(t.body.event, 'objects.trash');
    assert.equal(t.body.data.id, id, 'a trashed object is still described');

    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'documents' } } })).status, 204);
    const r = (await receiver.waitFor(start + 4))[start + 3];
    assertSigned(r, hook.secret);
    assert.equal(r.body.event, 'objects.restore');
    assert.equal(r.body.data.attributes.title, 'Changed');

    await s.request('DELETE', `/documents/${id}`, { token: admin });
    await receiver.waitFor(start + 5);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    const x = (await receiver.waitFor(start + 6))[start + 5];
    assertSigned(x, hook.secret);
    assert.equal(x.body.event, 'objects.remove');
    assert.deepEqual(x.body.resource, { type: 'documents', id });
    assert.equal(x.body.data, null);
    const ids = receiver.received.slice(start).map((d) => d.body.id);
    assert.equal(new Set(ids).size, ids.length, 'every delivery has its own id');
  });

  test('events and types filter what is sent; disabled webhooks and rolled-back writes send nothing', async () => {
    const other = await startReceiver();
    try {
      const mk = async (attributes: Record<string, unknown>) =>
        (await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'f', url: other.url, ...attributes }) })).body.data.id as string;
      const onlyCreate = await mk({ events: ['objects.create'] });
      const media = await mk({ types: ['media'] });
      const disabled = await mk({ enabled: false });
      const created = await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Filtered' }) });
      const id = created.body.data.id;
      await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes: { title: 'Filtered 2' } } } });
      const image = await s.request('POST', '/images', { token: admin, body: { data: { type: 'images', attributes: { title: 'A picture' } } } });
      assert.equal(image.status, 201, image.text);
      // A write that rolls back: the first operation would match every webhook.
      const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
      const failed = await s.request('POST', '/operations', {
        token: admin,
        headers: { 'Content-Type': ATOMIC, Accept: ATOMIC, Prefer: 'handling=strict' },
        body: { 'atomic:operations': [{ op: 'add', data: { type: 'documents', attributes: { title: 'Never' } } }, { op: 'add', data: { type: 'documents', attributes: { nonsense: 1 } } }] },
      });
      expectError(failed, 400);
      // Every delivery these writes queued has been sent: what the receiver got is all it gets.
      await queuesIdle(s.server);
      const got = other.received.map((r) => `${r.body.event} ${r.body.resource.type}`).sort();
      assert.deepEqual(got, ['objects.create documents', 'objects.create images', 'objects.create images'].sort());
      for (const [hookId, expected] of [[onlyCreate, 2], [media, 1], [disabled, 0]] as const) {
        const list = await s.request('GET', `/webhooks/${hookId}/deliveries`, { token: admin });
        assert.equal(list.body.meta.pagination.count, expected, `webhook ${hookId}`);
      }
      assert.ok(!other.received.some((r) => r.raw.includes('Never')));
      for (const hookId of [onlyCreate, media, disabled]) await s.request('DELETE', `/webhooks/${hookId}`, { token: admin });
    } finally {
      await other.close();
    }
  });

  test('GET /webhooks/{id}/deliveries lists deliveries with status and attempts', async () => {
    const list = await s.request('GET', `/webhooks/${hook.id}/deliveries?sort=-id&page_size=3`, { token: admin });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.data.length, 3);
    const [latest] = list.body.data;
    assert.equal(latest.type, 'webhook_deliveries');
    assert.deepEqual(Object.keys(latest.attributes).sort(), ['attempts', 'created', 'delivered', 'event', 'last_attempt', 'resource_id', 'status'].sort());
    assert.equal(latest.attributes.event, 'objects.update', 'the newest first with sort=-id (the last write was an update)');
    assert.equal(latest.attributes.status, 200);
    assert.equal(latest.attributes.attempts, 1);
    assert.ok(latest.attributes.delivered);
    assert.equal(latest.meta.state, 'delivered');
    const sent = receiver.received.find((r) => r.body.id === latest.id);
    assert.ok(sent, 'the delivery id is the X-Folio-Delivery the receiver got');

    const one = await s.request('GET', `/webhooks/${hook.id}/deliveries/${latest.id}`, { token: admin });
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data.meta.body, sent!.body, 'a single delivery shows the body sent');

    const removes = await s.request('GET', `/webhooks/${hook.id}/deliveries?filter[event]=objects.remove`, { token: admin });
    assert.equal(removes.body.meta.pagination.count, 1);
    expectError(await s.request('GET', `/webhooks/${hook.id}/deliveries?filter[colour]=red`, { token: admin }), 400);
    expectError(await s.request('GET', `/webhooks/${hook.id}/deliveries?sort=secret`, { token: admin }), 400);
    expectError(await s.request('GET', '/webhooks/9999/deliveries', { token: admin }), 404);
    expectError(await s.request('GET', `/webhooks/${hook.id}/deliveries/not-a-delivery`, { token: admin }), 404);

    const again = await s.request('POST', `/webhooks/${hook.id}/deliveries/${latest.id}/redeliver`, { token: admin });
    assert.equal(again.status, 202, again.text);
    const before = receiver.received.length;
    const resent = (await receiver.waitFor(before + 1))[before];
    assert.equal(resent.raw, sent!.raw, 'sent again with the same bytes');
    assert.equal(resent.headers['x-folio-signature'], sent!.headers['x-folio-signature']);
  });

  test('POST /webhooks/{id}/test sends a signed test event at once and answers the delivery', async () => {
    const before = receiver.received.length;
    const res = await s.request('POST', `/webhooks/${hook.id}/test`, { token: admin });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.type, 'webhook_deliveries');
    assert.equal(res.body.data.attributes.event, 'webhooks.test');
    assert.equal(res.body.data.attributes.status, 200);
    assert.equal(res.body.data.attributes.attempts, 1);
    assert.equal(res.body.data.meta.state, 'delivered');
    assert.equal(receiver.received.length, before + 1, 'delivered before the answer');
    const got = receiver.received[before];
    assertSigned(got, hook.secret);
    assert.equal(got.body.event, 'webhooks.test');
    assert.deepEqual(got.body.resource, { type: 'webhooks', id: hook.id });
    assert.equal(got.body.data.attributes.name, 'Site builder');
    assert.ok(!got.raw.includes(hook.secret), 'the secret is never sent');

    // A failing receiver: the answer says so, and a test event is not retried.
    const failing = await startReceiver(() => 503);
    try {
      const w = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'down', url: failing.url, enabled: false }) });
      const t = await s.request('POST', `/webhooks/${w.body.data.id}/test`, { token: admin });
      assert.equal(t.status, 201);
      assert.equal(t.body.data.attributes.status, 503);
      assert.equal(t.body.data.attributes.delivered, null);
      assert.equal(t.body.data.meta.state, 'failed');
      assert.match(t.body.data.meta.error, /503/);
      await queuesIdle(s.server);
      assert.equal(failing.received.length, 1, 'not retried');
      await s.request('DELETE', `/webhooks/${w.body.data.id}`, { token: admin });
    } finally {
      await failing.close();
    }
  });
});

describe('webhook retries', () => {
  test('a receiver answering 500 three times gets the event on the 4th try, same bytes and signature each time', async () => {
    const receiver = await startReceiver((n) => (n <= 3 ? 500 : 200));
    const s = await startServer({}, { webhookRetryDelaysMs: [150, 300, 450, 600] });
    try {
      const admin = await s.adminToken();
      const w = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'flaky', url: receiver.url }) });
      await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Retry me' }) });
      const got = await receiver.waitFor(4);
      assert.equal(new Set(got.map((r) => r.raw)).size, 1, 'every try sends the same body');
      assert.equal(new Set(got.map((r) => r.headers['x-folio-signature'])).size, 1);
      assertSigned(got[3], w.body.data.meta.secret);
      const gaps = got.slice(1).map((r, i) => r.at - got[i].at);
      assert.ok(gaps[0] >= 140 && gaps[1] >= 290 && gaps[2] >= 440, `delays grow: ${gaps.join(', ')} ms`);
      // Nothing is pending any more: the outcome is written, and nothing more will be sent.
      await queuesIdle(s.server);
      const list = await s.request('GET', `/webhooks/${w.body.data.id}/deliveries`, { token: admin });
      const [d] = list.body.data;
      assert.equal(d.attributes.attempts, 4);
      assert.equal(d.attributes.status, 200);
      assert.ok(d.attributes.delivered);
      assert.equal(d.meta.state, 'delivered');
      assert.equal(receiver.received.length, 4, 'nothing more after the success');
    } finally {
      await s.close();
      await receiver.close();
    }
  });

  test('a receiver that never answers 2xx is given up after the last try', async () => {
    const receiver = await startReceiver(() => 500);
    const s = await startServer({}, { webhookRetryDelaysMs: [50, 50] });
    try {
      const admin = await s.adminToken();
      const w = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'dead', url: receiver.url }) });
      await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Nobody home' }) });
      await queuesIdle(s.server);
      assert.equal(receiver.received.length, 3);
      const [d] = (await s.request('GET', `/webhooks/${w.body.data.id}/deliveries`, { token: admin })).body.data;
      assert.equal(d.attributes.attempts, 3);
      assert.equal(d.attributes.status, 500);
      assert.equal(d.attributes.delivered, null);
      assert.equal(d.meta.state, 'failed');
    } finally {
      await s.close();
      await receiver.close();
    }
  });

  test('a receiver that does not answer within the timeout counts as a failed try; redirects are not followed', async () => {
    const hang = http.createServer(() => {}); // never answers
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const target = await startReceiver();
    const redirect = http.createServer((_req, res) => {
      res.writeHead(307, { Location: target.url });
      res.end();
    });
    await new Promise<void>((r) => redirect.listen(0, '127.0.0.1', r));
    const s = await startServer({}, { webhookTimeoutMs: 300, webhookRetryDelaysMs: [] });
    try {
      const admin = await s.adminToken();
      const slow = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'slow', url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/` }) });
      // The receiver never answers: without the timeout this request would never end (the
      // runner's hang guard fails it); with it, the attempt ends as "No answer".
      const res = await s.request('POST', `/webhooks/${slow.body.data.id}/test`, { token: admin });
      assert.equal(res.body.data.attributes.status, null);
      assert.match(res.body.data.meta.error, /No answer/);
      const moved = await s.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'moved', url: `http://127.0.0.1:${(redirect.address() as AddressInfo).port}/` }) });
      const r = await s.request('POST', `/webhooks/${moved.body.data.id}/test`, { token: admin });
      assert.equal(r.body.data.attributes.status, 307);
      assert.equal(r.body.data.meta.state, 'failed');
      assert.equal(target.received.length, 0, 'the redirect was not followed');
    } finally {
      await s.close();
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
      await new Promise((r) => redirect.close(r));
      await target.close();
    }
  });

  test('finished deliveries older than 30 days are deleted; a test event sent again gets one try', async () => {
    const receiver = await startReceiver(() => 500);
    const first = await startServer({}, { webhookRetryDelaysMs: [60_000] });
    let second: FolioServer | null = null;
    try {
      const admin = await first.adminToken();
      const w = await first.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'old', url: receiver.url }) });
      const deliveries = `/webhooks/${w.body.data.id}/deliveries`;
      await first.request('POST', '/documents', { token: admin, body: doc({ title: 'Waits a minute' }) });
      // The first try's outcome is written; the next try is a minute away.
      const waiting = await waitUntil(async () => {
        const [d] = (await first.request('GET', deliveries, { token: admin })).body.data;
        return d?.attributes.attempts === 1 ? d : undefined;
      }, 'the first try of the delivery');
      assert.equal(waiting.meta.state, 'pending');
      assert.equal(receiver.received.length, 1);
      expectError(await first.request('POST', `${deliveries}/${waiting.id}/redeliver`, { token: admin }), 409, 'delivery_pending');

      const t = await first.request('POST', `/webhooks/${w.body.data.id}/test`, { token: admin });
      assert.equal(t.body.data.meta.state, 'failed');
      const again = await first.request('POST', `${deliveries}/${t.body.data.id}/redeliver`, { token: admin });
      assert.equal(again.status, 202);
      // The object event still waits for its retry, so the queue is not idle: wait for this one's end.
      const d = await waitUntil(async () => {
        const one = (await first.request('GET', `${deliveries}/${t.body.data.id}`, { token: admin })).body.data;
        return one.meta.state === 'pending' ? undefined : one;
      }, 'the test event sent again to end');
      assert.equal(d.attributes.attempts, 2);
      assert.equal(d.meta.state, 'failed', 'one more try only (failed ends it)');
      assert.equal(receiver.received.length, 3);
      await first.server.close();
      const db = await connectOutside(first);
      await db.run("update webhook_deliveries set created = '2020-01-01T00:00:00+00:00'");
      await db.close();
      second = await createServer(loadConfig(sameData(first), { logRequests: false }), { log: () => {} });
      const { url } = await second.listen(0, '127.0.0.1');
      const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
      const jwt = ((await login.json()) as any).meta.jwt;
      // The worker prunes when it starts looking at the queue.
      const list = await waitUntil(async () => {
        const l = (await (await fetch(`${url}/webhooks/${w.body.data.id}/deliveries`, { headers: { Authorization: `Bearer ${jwt}` } })).json()) as any;
        return l.data.length === 1 ? l : undefined;
      }, 'the finished deliveries to be pruned');
      assert.deepEqual(list.data.map((x: any) => x.meta.state), ['pending'], 'finished ones are gone; the one still waiting stays');
    } finally {
      if (second) await second.close();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      await receiver.close();
    }
  });

  test('two servers on one database never send the same delivery twice', async () => {
    // A slow receiver keeps deliveries in flight while the second server's worker starts and claims.
    const received = new Map<string, number>();
    const slow = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const id = JSON.parse(raw).id as string;
        received.set(id, (received.get(id) ?? 0) + 1);
        setTimeout(() => res.end('ok'), 150);
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const a = await startServer();
    let b: FolioServer | null = null;
    try {
      const admin = await a.adminToken();
      await a.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'slow', url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/` }) });
      const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
      const ops = Array.from({ length: 40 }, (_, i) => ({ op: 'add', data: { type: 'documents', attributes: { title: `Doc ${i}` } } }));
      const res = await a.request('POST', '/operations', { token: admin, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC }, body: { 'atomic:operations': ops } });
      assert.equal(res.status, 200, res.text);
      b = await createServer(loadConfig(sameData(a), { logRequests: false }), { log: () => {} });
      await waitUntil(() => (received.size >= 40 ? true : undefined), '40 deliveries');
      // Both workers are done (one database: nothing pending for either): no second send can follow.
      await queuesIdle(a.server);
      await queuesIdle(b);
      assert.equal(received.size, 40, 'every event delivered');
      assert.deepEqual([...received.values()].filter((n) => n !== 1), [], 'each exactly once');
    } finally {
      if (b) await b.close();
      await a.close();
      await new Promise((r) => slow.close(r));
    }
  });

  test('retries survive a restart: the 4th try comes from a new server on the same data', async () => {
    const receiver = await startReceiver((n) => (n <= 3 ? 500 : 200));
    const first = await startServer({}, { webhookRetryDelaysMs: [1500, 1500, 1500] });
    let second: FolioServer | null = null;
    try {
      const admin = await first.adminToken();
      const w = await first.request('POST', '/webhooks', { token: admin, body: hookBody({ name: 'restart', url: receiver.url }) });
      await first.request('POST', '/documents', { token: admin, body: doc({ title: 'Across a restart' }) });
      await receiver.waitFor(1);
      await first.server.close(); // mid-retries; the data dir stays
      const closedAt = Date.now();
      assert.equal(receiver.received.length, 1);

      const config = loadConfig(
        { FOLIO_ADMIN_USERNAME: ADMIN.username, FOLIO_ADMIN_PASSWORD: ADMIN.password, ...sameData(first) },
        { logRequests: false, webhookRetryDelaysMs: [100, 100, 100] },
      );
      second = await createServer(config, { log: () => {} });
      const { url } = await second.listen(0, '127.0.0.1');
      const got = await receiver.waitFor(4);
      assert.equal(new Set(got.map((r) => r.raw)).size, 1, 'the same delivery, byte for byte');
      assert.ok(got.slice(1).every((r) => r.at >= closedAt), 'tries 2 to 4 came from the new server');
      assert.ok(got[1].at - got[0].at >= 1400, 'the retry time written before the restart was kept');
      assert.equal(got[3].body.data.attributes.title, 'Across a restart');
      assertSigned(got[3], w.body.data.meta.secret);
      await queuesIdle(second);
      const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
      const jwt = ((await login.json()) as any).meta.jwt;
      const list = (await (await fetch(`${url}/webhooks/${w.body.data.id}/deliveries`, { headers: { Authorization: `Bearer ${jwt}` } })).json()) as any;
      assert.equal(list.data.length, 1);
      assert.equal(list.data[0].attributes.attempts, 4);
      assert.equal(list.data[0].meta.state, 'delivered');
    } finally {
      if (second) await second.close();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      await receiver.close();
    }
  });
});
