// A private stream's metadata (file name, hashes, size, dimensions) is shown only to readers who
// may download its bytes (a signed-in user who may read its media object). Anyone else reading
// the media object sees that it has a stream (the identifier in relationships.streams.data) and
// nothing about it: not in `included`, `meta.media_url`, `/streams`, `/streams/{uuid}` (401),
// `/{mediaType}/{id}/streams`, the legacy layout or posters.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { createUser } from './helpers/users.js';

const LEGACY = 'application/json, text/javascript';

describe('private streams: metadata only for readers who may download', () => {
  let s: TestServer;
  let admin: string;
  let reader: string;
  let imageId: string;
  let uuid: string;
  let secrets: string[];
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    reader = (await createUser(s, admin, { username: 'reader' })).jwt;
    const media = await s.request('POST', '/images/upload/secret-plan.png?private_url=true', { token: admin, raw: await tinyPng(7), headers: { 'Content-Type': 'image/png' } });
    assert.equal(media.status, 201, media.text);
    imageId = media.body.data.id;
    const stream = media.body.included.find((r: { type: string }) => r.type === 'streams');
    uuid = stream.id;
    secrets = ['secret-plan', stream.meta.hash_sha1, stream.meta.hash_md5];
    const published = await s.request('PATCH', `/images/${imageId}`, { token: admin, body: { data: { type: 'images', id: imageId, attributes: { status: 'on', title: 'A picture', uname: 'a-picture' } } } });
    assert.equal(published.status, 200, published.text);
    // In the publication (the first root folder), for the legacy layout.
    const site = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Site', status: 'on' } } } });
    const placed = await s.request('POST', `/folders/${site.body.data.id}/relationships/children`, { token: admin, body: { data: [{ type: 'images', id: imageId }] } });
    assert.equal(placed.status, 200, placed.text);
    // A document pointing at the image as its poster, for included media objects.
    const doc = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Doc', status: 'on' } } } });
    const linked = await s.request('POST', `/documents/${doc.body.data.id}/relationships/poster`, { token: admin, body: { data: [{ type: 'images', id: imageId }] } });
    assert.equal(linked.status, 200, linked.text);
  });
  after(() => s.close());

  const reads = (token?: string) => [
    s.request('GET', `/images/${imageId}`, { token }),
    s.request('GET', '/images', { token }),
    s.request('GET', '/media', { token }),
    s.request('GET', '/documents?include=poster', { token }),
    s.request('GET', `/images/${imageId}/streams`, { token }),
    s.request('GET', '/streams', { token }),
    s.request('GET', `/streams?id=${uuid}`, { token }),
    s.request('GET', `/objects/${imageId}`, { token, headers: { Accept: LEGACY } }),
  ];

  test('anonymous readers of the media object see that a stream exists, nothing about it', async () => {
    const item = await s.request('GET', `/images/${imageId}`);
    assert.equal(item.status, 200);
    assert.deepEqual(item.body.data.relationships.streams.data, [{ id: uuid, type: 'streams' }]);
    assert.equal(item.body.data.meta.media_url, null);
    assert.equal((item.body.included ?? []).some((r: { type: string }) => r.type === 'streams'), false);
    for (const res of await Promise.all(reads())) {
      assert.equal(res.status, 200, res.text);
      for (const secret of secrets) assert.equal(res.text.includes(secret), false, `${secret} in ${res.text}`);
    }
    assert.deepEqual((await s.request('GET', `/images/${imageId}/streams`)).body.data, []);
    assert.equal((await s.request('GET', '/streams')).body.data.some((r: { id: string }) => r.id === uuid), false);
    expectError(await s.request('GET', `/streams/${uuid}`), 401, 'private_stream');
    const legacy = await s.request('GET', `/objects/${imageId}`, { headers: { Accept: LEGACY } });
    assert.equal(legacy.body.data.object.name ?? null, null);
    assert.equal(legacy.body.data.object.file_size ?? null, null);
  });

  test('a signed-in reader, who may download, sees the metadata everywhere', async () => {
    const [item, , , withPoster, sub, list, byId, legacy] = await Promise.all(reads(reader));
    const included = item.body.included.find((r: { type: string }) => r.type === 'streams');
    assert.equal(included.attributes.file_name, 'secret-plan.png');
    assert.equal(included.meta.hash_sha1, secrets[1]);
    assert.equal(item.body.data.meta.media_url, `${s.url}/streams/download/${uuid}`);
    assert.ok(withPoster.text.includes(secrets[1]));
    assert.deepEqual(sub.body.data.map((r: { id: string }) => r.id), [uuid]);
    assert.ok(list.body.data.some((r: { id: string }) => r.id === uuid));
    assert.deepEqual(byId.body.data.map((r: { id: string }) => r.id), [uuid]);
    assert.equal(legacy.body.data.object.name, 'secret-plan.png');
    const one = await s.request('GET', `/streams/${uuid}`, { token: reader });
    assert.equal(one.status, 200);
    assert.equal(one.body.data.meta.file_size > 0, true);
    assert.equal((await fetch(`${s.url}/streams/download/${uuid}`, { headers: { Authorization: `Bearer ${reader}` } })).status, 200);
  });
});
