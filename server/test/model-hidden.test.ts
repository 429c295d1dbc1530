// A type's `hidden` fields (PATCH /model/object_types/{name} `hidden`) are gone everywhere: JSON
// API and legacy reads, history, search (words of a hidden field find nothing), translations,
// webhook payloads; naming one in a filter, sort or `fields` gives 400; a write treats it as an
// unknown attribute (ignored; 400 under `Prefer: handling=strict`). Shown again, a field is back
// with the value it had, and found again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { waitUntil } from './helpers/wait.js';
import { startReceiver } from './helpers/webhook-receiver.js';

const LEGACY = 'application/json, text/javascript';
/** Words only the hidden fields hold (description, secret_code, and their translations). */
const SECRETS = ['deschidden', 'zebrafish', 'pesceremo', 'descnascosto'];

describe("a type's hidden fields", () => {
  let s: TestServer;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let typeId: string;
  let id: string;
  const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => s.request(method, path, { token: admin, body, headers });
  const hide = async (hidden: string[] | null) => {
    const res = await req('PATCH', `/model/object_types/${typeId}`, { data: { id: typeId, type: 'object_types', attributes: { hidden } } });
    assert.equal(res.status, 200, res.text);
  };
  const noSecret = (text: string, where: string) => {
    for (const word of SECRETS) assert.equal(text.toLowerCase().includes(word), false, `${word} in ${where}: ${text}`);
  };
  const found = async (path: string) => (await req('GET', path)).body.data.map((o: { id: string }) => o.id);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    receiver = await startReceiver();
    const type = await req('POST', '/model/object_types', { data: { type: 'object_types', attributes: { name: 'notes', singular: 'note' } } });
    typeId = type.body.data.id;
    for (const name of ['secret_code', 'mood']) {
      const p = await req('POST', '/model/properties', { data: { type: 'properties', attributes: { name, property_type_name: 'string', object_type_name: 'notes' } } });
      assert.equal(p.status, 201, p.text);
    }
    const hook = await req('POST', '/webhooks', { data: { type: 'webhooks', attributes: { name: 'Notes', url: receiver.url, events: ['*'], types: ['notes'] } } });
    assert.equal(hook.status, 201, hook.text);
    const site = await req('POST', '/folders', { data: { type: 'folders', attributes: { title: 'Site', status: 'on' } } });
    const note = await req('POST', '/notes', {
      data: { type: 'notes', attributes: { title: 'Visible note', description: 'Deschidden words', body: 'Plain body', secret_code: 'zebrafish', mood: 'calm', status: 'on' } },
    });
    assert.equal(note.status, 201, note.text);
    id = note.body.data.id;
    assert.equal((await req('POST', `/folders/${site.body.data.id}/relationships/children`, { data: [{ type: 'notes', id }] })).status, 200);
    const tr = await req('POST', '/translations', {
      data: { type: 'translations', attributes: { object_id: Number(id), lang: 'it', status: 'on', translated_fields: { title: 'Nota', description: 'Descnascosto', secret_code: 'pesceremo' } } },
    });
    assert.equal(tr.status, 201, tr.text);
    assert.deepEqual(await found('/notes?q=zebrafish'), [id]);
    await hide(['description', 'secret_code']);
  });
  after(async () => {
    await s.close();
    await receiver.close();
  });

  test('reads: JSON API, legacy, history, translations leave the hidden fields out', async () => {
    const item = await req('GET', `/notes/${id}`);
    assert.equal(item.status, 200);
    assert.equal('secret_code' in item.body.data.attributes, false);
    assert.equal('description' in item.body.data.attributes, false);
    assert.equal(item.body.data.attributes.mood, 'calm');
    const reads = [
      item,
      await s.request('GET', `/notes/${id}`),
      await req('GET', '/notes'),
      await req('GET', `/objects/${id}`),
      await req('GET', `/notes/${id}?lang=it`),
      await req('GET', `/objects/${id}`, undefined, { Accept: LEGACY }),
      await s.request('GET', `/objects/${id}`, { headers: { Accept: LEGACY } }),
      await req('GET', `/notes/${id}/history`),
      await req('GET', `/history?filter[resource_id]=${id}`),
      await req('GET', `/translations?filter[object_id]=${id}`),
      await req('GET', `/notes/${id}/translations`),
    ];
    for (const res of reads) {
      assert.equal(res.status, 200, res.text);
      noSecret(res.text, 'a read');
    }
    assert.equal(reads[5].body.data.object.title, 'Visible note');
  });

  test('search: the hidden fields\' words find nothing, the others still do', async () => {
    for (const q of ['zebrafish', 'deschidden']) {
      assert.deepEqual(await found(`/notes?q=${q}`), [], q);
      assert.deepEqual(await found(`/objects?q=${q}`), [], q);
    }
    assert.deepEqual(await found('/notes?q=pesceremo&lang=it'), []);
    assert.deepEqual(await found('/notes?q=visible'), [id]);
    assert.deepEqual(await found('/notes?q=calm'), [id]);
  });

  test('filters, sorts and fields naming a hidden field give 400', async () => {
    for (const q of ['filter[secret_code]=zebrafish', 'filter[description]=x', 'sort=secret_code', 'sort=-description', 'fields[notes]=title,secret_code', 'fields=description']) {
      expectError(await req('GET', `/notes?${q}`), 400);
    }
    expectError(await req('GET', `/notes/${id}?fields[notes]=secret_code`), 400);
    assert.equal((await req('GET', '/notes?filter[mood]=calm&sort=mood&fields[notes]=title,mood')).status, 200);
  });

  test('writes: a hidden field is an unknown attribute, as one the type never had; webhooks carry none', async () => {
    const write = (attributes: Record<string, unknown>, headers?: Record<string, string>) => req('PATCH', `/notes/${id}`, { data: { id, type: 'notes', attributes } }, headers);
    for (const headers of [undefined, { Prefer: 'handling=strict' }]) {
      const unknown = await write({ title: 'Visible note 2', no_such_field: 'x' }, headers);
      for (const [name, value] of [['secret_code', 'overwritten'], ['description', 'Overwritten']]) {
        const res = await write({ title: 'Visible note 2', [name]: value }, headers);
        assert.equal(res.status, unknown.status, res.text);
        if (res.status >= 400) {
          assert.equal(res.body.error.code, unknown.body.error.code);
          assert.match(res.text, new RegExp(name));
        } else assert.equal(name in res.body.data.attributes, false);
      }
    }
    const patched = await write({ title: 'Visible note 2' });
    assert.equal(patched.status, 200, patched.text);
    const created = await req('POST', '/notes', { data: { type: 'notes', attributes: { title: 'Second', mood: 'serene' } } });
    assert.equal(created.status, 201, created.text);
    const history = await req('GET', `/notes/${id}/history`);
    noSecret(history.text, 'history');
    assert.equal(history.text.toLowerCase().includes('overwritten'), false);
    // The deliveries of writes made since the fields were hidden (earlier ones showed them then).
    const later = await waitUntil(() => {
      const found = receiver.received.filter((d) => d.raw.includes('Visible note 2') || d.raw.includes('"Second"'));
      return found.length >= 2 ? found : undefined;
    }, 'deliveries of the later writes');
    for (const d of later) noSecret(d.raw, 'a webhook payload');
  });

  test('shown again, a field is back with the value it had, and found again', async () => {
    await hide(['description']);
    const item = await req('GET', `/notes/${id}`);
    assert.equal(item.body.data.attributes.secret_code, 'zebrafish');
    assert.deepEqual(await found('/notes?q=zebrafish'), [id]);
    assert.deepEqual(await found('/notes?q=deschidden'), []);
    await hide(null);
    assert.equal((await req('GET', `/notes/${id}`)).body.data.attributes.description, 'Deschidden words');
    assert.deepEqual(await found('/notes?q=deschidden'), [id]);
  });
});
