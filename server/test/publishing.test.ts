// Scheduled publishing (CONTRACT.md "Scheduled publishing"): publish_start and
// publish_end on every object, anonymous clients (and users without `read`) see an `on` object only
// inside its window — single reads, lists, search, relations, bytes — caches follow the bounds with
// no job, and webhooks fire objects.publish / objects.unpublish once per change. Through HTTP, on
// SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitUntil } from './helpers/wait.js';
import { startReceiver } from './helpers/webhook-receiver.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('scheduled publishing', () => {
  let s: TestServer;
  let admin: string;
  let reader: string;
  const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });
  // Whole seconds, rounded up (instants are stored to the second, as BEdita does).
  const iso = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString();
  async function doc(attributes: Record<string, unknown>) {
    const r = await s.request('POST', '/documents', { token: admin, body: body('documents', attributes) });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { id: string; attributes: Record<string, unknown> };
  }
  const visible = async (id: string, token?: string) => (await s.request('GET', `/documents/${id}`, { token })).status === 200;
  const listed = async (id: string, token?: string) => (await s.request('GET', `/documents?filter[id]=${id}`, { token })).body.data.length === 1;

  before(async () => {
    // Sweeps of publication windows every half second: the events of a bound come at once.
    s = await startServer({}, { publicationSweepMs: 500, webhookRetryDelaysMs: [200], jobPollMs: 200 });
    admin = await s.adminToken();
    const role = await s.request('POST', '/roles', { token: admin, body: body('roles', { name: 'others', permissions: { events: ['read'] } }) });
    const u = await s.request('POST', '/users', { token: admin, body: body('users', { username: 'ruth', password: 'password-1' }) });
    await s.request('POST', `/users/${u.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
    reader = (await s.login('ruth', 'password-1')).jwt;
  });
  after(() => s.close());

  test('publish_start and publish_end: attributes stored as UTC instants, in the schema; bad values 400', async () => {
    const d = await doc({ title: 'Windowed', status: 'on', publish_start: '2030-01-01T10:00:00+02:00', publish_end: '2030-02-01T00:00:00Z' });
    assert.equal(d.attributes.publish_start, '2030-01-01T08:00:00+00:00');
    assert.equal(d.attributes.publish_end, '2030-02-01T00:00:00+00:00');
    const schema = await s.request('GET', '/model/schema/documents');
    assert.deepEqual(schema.body.properties.publish_start.type, ['string', 'null']);
    expectError(await s.request('POST', '/documents', { token: admin, body: body('documents', { title: 'x', publish_start: 'soon' }) }), 400);
    expectError(await s.request('POST', '/documents', { token: admin, body: body('documents', { title: 'x', publish_start: '2030-02-01T00:00:00Z', publish_end: '2030-01-01T00:00:00Z' }) }), 400);
    // A PATCH is checked against the bound it leaves in place.
    expectError(await s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { type: 'documents', id: d.id, attributes: { publish_end: '2029-01-01T00:00:00Z' } } } }), 400);
    const cleared = await s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { type: 'documents', id: d.id, attributes: { publish_start: null } } } });
    assert.equal(cleared.body.data.attributes.publish_start, null);
    const history = await s.request('GET', `/documents/${d.id}/history`, { token: admin });
    assert.deepEqual(history.body.data.at(-1).attributes.changed, { publish_start: null });
  });

  test('lists filter and sort by publish_start / publish_end with date operators (scheduled and expired objects)', async () => {
    const now = Date.now();
    const later = await doc({ title: 'Later', status: 'on', publish_start: iso(now + 86_400_000) });
    const sooner = await doc({ title: 'Sooner', status: 'on', publish_start: iso(now + 3_600_000) });
    const ended = await doc({ title: 'Ended', status: 'on', publish_end: iso(now - 3_600_000) });
    const ids = (r: { body: { data: Array<{ id: string }> } }) => r.body.data.map((o) => o.id);
    const scheduled = await s.request('GET', `/documents?filter[status]=on&filter[publish_start][gt]=${encodeURIComponent(iso(now))}&sort=publish_start`, { token: admin });
    assert.equal(scheduled.status, 200, scheduled.text);
    assert.deepEqual(ids(scheduled), [sooner.id, later.id]);
    const expired = await s.request('GET', `/documents?filter[status]=on&filter[publish_end][lt]=${encodeURIComponent(iso(now))}`, { token: admin });
    assert.deepEqual(ids(expired), [ended.id]);
    for (const id of [later.id, sooner.id, ended.id]) await s.request('DELETE', `/documents/${id}`, { token: admin });
  });

  test('outside its window an on object is hidden from anonymous clients and users without read: reads, lists, search; admins see it with its window', async () => {
    const future = await doc({ title: 'Future zebra', status: 'on', publish_start: iso(Date.now() + 3_600_000) });
    const past = await doc({ title: 'Past zebra', status: 'on', publish_end: iso(Date.now() - 1000) });
    const open = await doc({ title: 'Open zebra', status: 'on', publish_start: iso(Date.now() - 1000), publish_end: iso(Date.now() + 3_600_000) });
    for (const d of [future, past]) {
      assert.equal(await visible(d.id), false);
      assert.equal(await visible(d.id, reader), false);
      assert.equal(await listed(d.id), false);
      assert.equal(await visible(d.id, admin), true);
    }
    assert.equal(await visible(open.id), true);
    assert.equal(await listed(open.id), true);
    const found = await s.request('GET', '/documents?q=zebra');
    assert.deepEqual(found.body.data.map((x: { id: string }) => x.id), [open.id]);
    // Relations show only what the reader may see.
    const rel = await s.request('POST', `/documents/${open.id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: future.id }, { type: 'documents', id: past.id }] } });
    assert.equal(rel.status, 200, rel.text);
    assert.deepEqual((await s.request('GET', `/documents/${open.id}/see_also`)).body.data, []);
    assert.equal((await s.request('GET', `/documents/${open.id}/see_also`, { token: admin })).body.data.length, 2);
  });

  test('an object appears when its start passes and disappears when its end passes, cached answers included (no job needed)', async () => {
    const startsAt = Date.now() + 1500;
    const d = await doc({ title: 'Timed', status: 'on', publish_start: iso(startsAt), publish_end: iso(startsAt + 1500) });
    // The anonymous list is cached while the object is hidden…
    assert.equal(await listed(d.id), false);
    assert.equal(await listed(d.id), false);
    // …and shows it once the start has passed, then drops it at the end.
    await waitUntil(async () => ((await listed(d.id)) ? true : undefined), 'the object to appear');
    assert.ok(Date.now() >= startsAt, 'not before its start');
    assert.equal(await visible(d.id), true);
    await waitUntil(async () => ((await visible(d.id)) ? undefined : true), 'the object to disappear');
    assert.ok(Date.now() >= startsAt + 1500, 'not before its end');
    assert.equal(await listed(d.id), false);
  });

  test('webhooks: objects.publish and objects.unpublish once per change — by status, trash, restore and window bounds', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await s.request('POST', '/webhooks', { token: admin, body: body('webhooks', { name: 'publication', url: receiver.url, events: ['objects.publish', 'objects.unpublish'] }) });
      assert.equal(hook.status, 201, hook.text);
      const d = await doc({ title: 'Announced' });
      const patch = (attributes: Record<string, unknown>) => s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { type: 'documents', id: d.id, attributes } } });
      assert.equal((await patch({ status: 'on' })).status, 200);
      assert.equal((await patch({ title: 'Announced again' })).status, 200); // no change of visibility
      assert.equal((await s.request('DELETE', `/documents/${d.id}`, { token: admin })).status, 204);
      assert.equal((await s.request('PATCH', `/trash/${d.id}`, { token: admin, body: { data: { type: 'documents', id: d.id } } })).status, 204);
      // Other objects' bounds pass meanwhile (earlier tests): this object's events only.
      const of = (n: number) => waitUntil(() => { const mine = receiver.received.filter((e) => e.body.resource.id === d.id); return mine.length >= n ? mine : undefined; }, `${n} deliveries`);
      const events = await of(3);
      assert.deepEqual(events.map((e) => [e.body.event, e.body.resource.id]), [['objects.publish', d.id], ['objects.unpublish', d.id], ['objects.publish', d.id]]);
      // A delivery's body is the object as it reads when the delivery is built (webhooks/queue.ts
      // buildBody), which may come after the next PATCH on a busy machine: either title, never another.
      assert.ok(['Announced', 'Announced again'].includes(events[0].body.data.attributes.title), events[0].body.data.attributes.title);
      // A window bound: unpublished at its end by the sweep, once.
      assert.equal((await patch({ publish_end: iso(Date.now() + 1000) })).status, 200);
      const more = await of(4);
      assert.deepEqual([more[3].body.event, more[3].body.resource.id], ['objects.unpublish', d.id]);
      // Nothing more for it: every delivery recorded for it is one of these four.
      const deliveries = await s.request('GET', `/webhooks/${hook.body.data.id}/deliveries?filter[resource_id]=${d.id}`, { token: admin });
      assert.deepEqual(deliveries.body.data.map((x: { attributes: { event: string } }) => x.attributes.event).sort(), ['objects.publish', 'objects.publish', 'objects.unpublish', 'objects.unpublish']);
    } finally {
      await receiver.close();
    }
  });

  test('bytes of media follow the window: public caching never outlives its end', async () => {
    const { tinyPng } = await import('./helpers/fixtures.js');
    const up = await s.request('POST', '/images/upload/w.png', { token: admin, raw: await tinyPng(9), headers: { 'Content-Type': 'image/png' } });
    const id = up.body.data.id;
    const stream = up.body.included.find((r: { type: string }) => r.type === 'streams');
    await s.request('PATCH', `/images/${id}`, { token: admin, body: { data: { type: 'images', id, attributes: { status: 'on', publish_end: iso(Date.now() + 120_000) } } } });
    const res = await fetch(`${s.url}/streams/download/${stream.id}`);
    assert.equal(res.status, 200);
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(/^public/.test(res.headers.get('cache-control') ?? '') && maxAge <= 120 && maxAge > 60, res.headers.get('cache-control') ?? '');
    await s.request('PATCH', `/images/${id}`, { token: admin, body: { data: { type: 'images', id, attributes: { publish_start: iso(Date.now() + 60_000) } } } });
    assert.equal((await fetch(`${s.url}/streams/download/${stream.id}`)).status, 404);
  });
});
