// Media objects: linking streams, streams on images, the one-step upload, visibility, trash and
// permanent delete of the files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { mp4Header, png, rotatedJpeg, textFile } from './helpers/media-files.js';

describe('media objects', () => {
  let s: TestServer;
  let token: string;
  let pngBytes: Buffer;
  before(async () => {
    s = await startServer();
    token = await s.adminToken();
    pngBytes = await png(600, 300);
  });
  after(() => s.close());

  const upload = async (name: string, raw: Buffer, contentType: string) => {
    const res = await s.request('POST', `/streams/upload/${name}`, { token, raw, headers: { 'Content-Type': contentType } });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const create = async (type: string, attributes: Record<string, unknown> = {}) => {
    const res = await s.request('POST', `/${type}`, { token, body: { data: { type, attributes: { title: `a ${type}`, ...attributes } } } });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const link = (uuid: string, id: string | null, type = 'images', anonymous = false) =>
    s.request('PATCH', `/streams/${uuid}/relationships/object`, { token: anonymous ? undefined : token, body: { data: id === null ? null : { id, type } } });
  const storedFile = (uuid: string) => path.join(s.dataDir, 'files', 'streams', uuid.slice(0, 2), uuid);
  const countRows = async () => {
    const streams = await s.request('GET', '/streams?page_size=1', { token });
    const objects = await s.request('GET', '/objects?page_size=1', { token });
    return [streams.body.meta.pagination.count, objects.body.meta.pagination.count];
  };

  test('PATCH /streams/{uuid}/relationships/object links a stream; GET /images/{id} shows it', async () => {
    const uuid = await upload('photo.png', pngBytes, 'image/png');
    const id = await create('images');
    const res = await link(uuid, id);
    assert.equal(res.status, 200);
    assert.equal(res.body.data, undefined, 'links only');
    assert.equal(res.body.links.self, `${s.url}/streams/${uuid}/relationships/object`);

    const image = await s.request('GET', `/images/${id}`, { token });
    assert.equal(image.status, 200);
    assert.deepEqual(image.body.data.relationships.streams.data, [{ id: uuid, type: 'streams' }]);
    assert.equal(image.body.data.relationships.streams.links.related, `${s.url}/images/${id}/streams`);
    assert.equal(image.body.data.meta.media_url, `${s.url}/streams/download/${uuid}`);
    assert.equal(image.body.included.length, 1);
    const included = image.body.included[0];
    assert.equal(included.id, uuid);
    assert.equal(included.type, 'streams');
    assert.deepEqual(included.attributes, { file_name: 'photo.png', mime_type: 'image/png', private_url: false });
    assert.equal(included.meta.width, 600);
    assert.deepEqual(included.relationships.object.data, { id, type: 'images' });

    const stream = await s.request('GET', `/streams/${uuid}`, { token });
    assert.deepEqual(stream.body.data.relationships.object.data, { id, type: 'images' });
    const object = await s.request('GET', `/streams/${uuid}/object`, { token });
    assert.equal(object.body.data.id, id);
    const related = await s.request('GET', `/images/${id}/streams`, { token });
    assert.deepEqual(related.body.data.map((d: any) => d.id), [uuid]);

    const list = await s.request('GET', '/images', { token });
    const listed = list.body.data.find((d: any) => d.id === id);
    assert.deepEqual(listed.relationships.streams.data, [{ id: uuid, type: 'streams' }]);
    assert.ok(list.body.included.some((r: any) => r.id === uuid));
  });

  test('a media type that does not accept the file gives 400', async () => {
    const video = await upload('clip.mp4', mp4Header(), 'video/mp4');
    const text = await upload('notes.txt', textFile(), 'text/plain');
    const image = await create('images');
    expectError(await link(video, image), 400, 'mime_type_not_accepted');
    expectError(await link(text, image), 400, 'mime_type_not_accepted');
    const videoObject = await create('videos');
    assert.equal((await link(video, videoObject, 'videos')).status, 200);
    const file = await create('files');
    assert.equal((await link(text, file, 'files')).status, 200, 'files take any file');
  });

  test('linking errors: not media 400, unknown 404, mismatched type 409, already linked 409, anonymous 401', async () => {
    const uuid = await upload('x.png', pngBytes, 'image/png');
    const doc = await create('documents');
    expectError(await link(uuid, doc, 'documents'), 400, 'not_media');
    expectError(await link(uuid, '999999'), 404);
    const image = await create('images');
    expectError(await link(uuid, image, 'videos'), 409);
    expectError(await link(uuid, image, 'images', true), 401);
    expectError(await link('00000000-0000-4000-8000-000000000000', image), 404);
    assert.equal((await link(uuid, image)).status, 200);
    assert.equal((await link(uuid, image)).status, 200, 'linking again to the same object is fine');
    const other = await create('images');
    expectError(await link(uuid, other), 409, 'stream_already_linked');
    const second = await upload('y.png', pngBytes, 'image/png');
    expectError(await link(second, image), 409, 'object_has_stream');
    assert.equal((await link(uuid, null)).status, 200, 'data null unlinks');
    const image2 = await s.request('GET', `/images/${image}`, { token });
    assert.deepEqual(image2.body.data.relationships.streams.data, []);
    assert.equal(image2.body.data.meta.media_url, null);
  });

  test('streams and downloads follow their media object\'s status for anonymous clients', async () => {
    const uuid = await upload('vis.png', pngBytes, 'image/png');
    const id = await create('images', { status: 'draft' });
    await link(uuid, id);
    expectError(await s.request('GET', `/streams/${uuid}`), 404);
    expectError(await s.request('GET', `/streams/download/${uuid}`), 404);
    expectError(await s.request('GET', `/images/${id}/streams`), 404);
    const patched = await s.request('PATCH', `/images/${id}`, { token, body: { data: { id, type: 'images', attributes: { status: 'on' } } } });
    assert.equal(patched.status, 200);
    assert.equal((await s.request('GET', `/streams/${uuid}`)).status, 200);
    const dl = await fetch(`${s.url}/streams/download/${uuid}`);
    assert.equal(dl.status, 200);
    assert.equal(dl.headers.get('cache-control'), 'public, max-age=3600');
    assert.deepEqual(Buffer.from(await dl.arrayBuffer()), pngBytes);
    const anonList = await s.request('GET', '/streams?page_size=100');
    assert.ok(anonList.body.data.some((d: any) => d.id === uuid));
    assert.ok(anonList.body.data.every((d: any) => d.relationships.object.data !== null));
  });

  test('POST /{mediaType}/upload/{file_name} makes the stream and the object in one call', async () => {
    const jpeg = await rotatedJpeg();
    const res = await s.request('POST', '/images/upload/holiday.jpg', { token, raw: jpeg, headers: { 'Content-Type': 'image/jpeg' } });
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    assert.equal(d.type, 'images');
    assert.equal(d.attributes.title, 'holiday.jpg');
    assert.equal(res.headers.get('location'), `${s.url}/images/${d.id}`);
    assert.equal(res.body.included.length, 1);
    const stream = res.body.included[0];
    assert.equal(stream.type, 'streams');
    assert.deepEqual(stream.relationships.object.data, { id: d.id, type: 'images' });
    assert.deepEqual(d.relationships.streams.data, [{ id: stream.id, type: 'streams' }]);
    assert.equal(stream.meta.width, 200);
    assert.deepEqual(fs.readFileSync(storedFile(stream.id)), jpeg);

    const file = await s.request('POST', '/files/upload/notes.txt', { token, raw: textFile(), headers: { 'Content-Type': 'text/plain' } });
    assert.equal(file.status, 201);
    assert.equal(file.body.data.type, 'files');
  });

  test('a custom media type (under the abstract media) takes any file', async () => {
    const created = await s.request('POST', '/model/object_types', {
      token,
      body: { data: { type: 'object_types', attributes: { name: 'podcasts', singular: 'podcast', parent_name: 'media' } } },
    });
    assert.equal(created.status, 201, created.text);
    const text = await s.request('POST', '/podcasts/upload/episode.txt', { token, raw: textFile(), headers: { 'Content-Type': 'text/plain' } });
    assert.equal(text.status, 201, text.text);
    assert.equal(text.body.data.type, 'podcasts');
    assert.equal(text.body.included[0].attributes.mime_type, 'text/plain');
    const got = await s.request('GET', `/podcasts/${text.body.data.id}`, { token });
    assert.equal(got.body.data.meta.media_url, `${s.url}/streams/download/${text.body.included[0].id}`);
  });

  test('a one-step upload that fails leaves neither object nor stream', async () => {
    const before = await countRows();
    expectError(await s.request('POST', '/images/upload/notes.txt', { token, raw: textFile(), headers: { 'Content-Type': 'text/plain' } }), 400, 'mime_type_not_accepted');
    expectError(await s.request('POST', '/documents/upload/a.png', { token, raw: pngBytes, headers: { 'Content-Type': 'image/png' } }), 400, 'not_media');
    expectError(await s.request('POST', '/nothing/upload/a.png', { token, raw: pngBytes, headers: { 'Content-Type': 'image/png' } }), 404);
    expectError(await s.request('POST', '/images/upload/a.png', { raw: pngBytes, headers: { 'Content-Type': 'image/png' } }), 401);
    expectError(await s.request('POST', '/images/upload/a.png', { token, raw: pngBytes, headers: { 'Content-Type': 'image/jpeg' } }), 400, 'mime_type_mismatch');
    assert.deepEqual(await countRows(), before);
    const tmp = path.join(s.dataDir, 'files', 'tmp');
    assert.deepEqual(fs.readdirSync(tmp), []);
  });

  test('trash keeps the file; permanent delete removes row, file and thumbnails', async () => {
    const res = await s.request('POST', '/images/upload/gone.png', { token, raw: pngBytes, headers: { 'Content-Type': 'image/png' } });
    const id = res.body.data.id;
    const uuid = res.body.included[0].id;
    await s.request('PATCH', `/images/${id}`, { token, body: { data: { id, type: 'images', attributes: { status: 'on' } } } });
    const thumbs = await s.request('GET', `/media/thumbs/${id}?preset=small`);
    assert.equal(thumbs.body.meta.thumbnails[0].ready, true);
    const thumbDir = path.join(s.dataDir, 'files', 'thumbs', uuid.slice(0, 2), uuid);
    assert.equal(fs.readdirSync(thumbDir).length, 1);

    assert.equal((await s.request('DELETE', `/images/${id}`, { token })).status, 204);
    assert.ok(fs.existsSync(storedFile(uuid)), 'the trash keeps the file');
    expectError(await s.request('GET', `/streams/${uuid}`), 404);
    expectError(await s.request('GET', `/media/thumbs/${id}`), 404);
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token, body: { data: { id, type: 'objects' } } })).status, 204);
    assert.equal((await s.request('GET', `/streams/${uuid}`)).status, 200, 'restored with its stream');

    assert.equal((await s.request('DELETE', `/images/${id}`, { token })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token })).status, 204);
    expectError(await s.request('GET', `/streams/${uuid}`, { token }), 404);
    assert.ok(!fs.existsSync(storedFile(uuid)), 'the file is gone');
    assert.ok(!fs.existsSync(thumbDir), 'its thumbnails are gone');
  });
});

// Alt text and caption: `alt_text` is a property of images, the caption is
// the core `description`; a body that places an image keeps both for every reader.
describe('alt text and caption of images', () => {
  let s: TestServer;
  let token: string;
  before(async () => {
    s = await startServer();
    token = await s.adminToken();
  });
  after(() => s.close());

  const uploadImage = async (name: string) => {
    const res = await s.request('POST', `/images/upload/${name}`, { token, raw: await png(40, 30), headers: { 'Content-Type': 'image/png' } });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const patchImage = (id: string, attributes: Record<string, unknown>) => s.request('PATCH', `/images/${id}`, { token, body: { data: { id, type: 'images', attributes } } });

  test('images have alt_text (string, at most 255) in their schema and in /model/properties; other types do not', async () => {
    const schema = await s.request('GET', '/model/schema/images', { headers: { Accept: 'application/schema+json' } });
    assert.equal(schema.status, 200);
    const { $id, description, ...rest } = schema.body.properties.alt_text;
    assert.deepEqual(rest, { type: ['string', 'null'], maxLength: 255, isMeta: false });
    assert.equal($id, '/properties/alt_text');
    assert.match(description, /screen readers/);
    assert.equal(schema.body.required.includes('alt_text'), false);
    for (const other of ['files', 'videos', 'documents']) {
      const res = await s.request('GET', `/model/schema/${other}`, { headers: { Accept: 'application/schema+json' } });
      assert.equal('alt_text' in res.body.properties, false, other);
    }
    const props = await s.request('GET', '/model/properties?filter[object_type]=images', { token });
    assert.deepEqual(
      props.body.data.map((p: any) => [p.attributes.name, p.attributes.property_type_name, p.attributes.object_type_name]),
      [['alt_text', 'string', 'images']],
    );
  });

  test('a new image has no alt text and no caption; both are written with PATCH and read back', async () => {
    const image = await uploadImage('harbour.png');
    assert.equal(image.attributes.alt_text, null);
    assert.equal(image.attributes.description, null);
    const res = await patchImage(image.id, { alt_text: 'Fishing boats moored in the harbour at dawn', description: 'The old harbour, 1962.' });
    assert.equal(res.status, 200, res.text);
    const read = await s.request('GET', `/images/${image.id}`, { token });
    assert.equal(read.body.data.attributes.alt_text, 'Fishing boats moored in the harbour at dawn');
    assert.equal(read.body.data.attributes.description, 'The old harbour, 1962.');
    // /media and the search read it too.
    const media = await s.request('GET', `/media/${image.id}`, { token });
    assert.equal(media.body.data.attributes.alt_text, 'Fishing boats moored in the harbour at dawn');
    const found = await s.request('GET', '/media?q=moored', { token });
    assert.deepEqual(found.body.data.map((d: any) => d.id), [image.id]);
    // null clears it.
    assert.equal((await patchImage(image.id, { alt_text: null })).status, 200);
    assert.equal((await s.request('GET', `/images/${image.id}`, { token })).body.data.attributes.alt_text, null);
  });

  test('bad alt text is a 400 naming the field, and changes nothing', async () => {
    const image = await uploadImage('pier.png');
    assert.equal((await patchImage(image.id, { alt_text: 'A pier' })).status, 200);
    const before = (await s.request('GET', `/images/${image.id}`, { token })).body.data;
    const tooLong = expectError(await patchImage(image.id, { alt_text: 'x'.repeat(256), description: 'changed' }), 400, 'invalid_data');
    assert.deepEqual(tooLong.meta?.fields, ['alt_text']);
    assert.match(tooLong.detail, /alt_text/);
    const notText = expectError(await patchImage(image.id, { alt_text: 42 }), 400, 'invalid_data');
    assert.deepEqual(notText.meta?.fields, ['alt_text']);
    // Only images have it (strict, as the admin UI writes: else it is ignored, as BEdita does).
    const doc = await s.request('POST', '/documents', { token, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'documents', attributes: { title: 'Doc', alt_text: 'no' } } } });
    const unknown = expectError(doc, 400);
    assert.match(unknown.detail, /alt_text/);
    const after = (await s.request('GET', `/images/${image.id}`, { token })).body.data;
    assert.deepEqual(after.attributes, before.attributes);
    assert.equal(after.meta.modified, before.meta.modified);
  });

  test('a published body keeps the figure, the alt text and the caption for anonymous readers', async () => {
    const image = await uploadImage('boats.png');
    const src = new URL(image.meta.media_url).pathname;
    const body = `<p>Before.</p><figure><img src="${src}" alt="Boats at dawn"></figure><figure><img src="${src}" alt=""><figcaption>The harbour, “1962” &amp; after</figcaption></figure>`;
    const doc = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Harbour', body, status: 'on' } } } });
    assert.equal(doc.status, 201, doc.text);
    const read = await s.request('GET', `/documents/${doc.body.data.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.data.attributes.body, body);
  });
});
