// A real third-party BEdita 5 client against Folio: the BEdita JS SDK from the npm
// registry (@atlasconsulting/bedita-sdk, axios underneath), unchanged, with its own interceptors.
// Every call below is one the SDK makes itself (login, renewal, client credentials, the current
// user with roles, save, upload, delete) or a plain `get` shaped as its docs show, with the
// answers read the way the SDK's interceptors read them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BEditaApiClient, MapIncludedInterceptor, MemoryStorageAdapter, RemoveLinksInterceptor, UploadResourceType } from '@atlasconsulting/bedita-sdk';
import { createUser } from './helpers/fixtures.js';
import { png as makePng } from './helpers/media-files.js';
import { ADMIN, startServer, type TestServer } from './helpers/server.js';
import { waitUntil } from './helpers/wait.js';

const JSONAPI = 'application/vnd.api+json';

describe('the BEdita JS SDK against Folio', () => {
  let s: TestServer;
  let admin: string;
  const client = (config: { apiKey?: string; clientId?: string; clientSecret?: string } = {}) =>
    new BEditaApiClient({ baseUrl: s.url, storageAdapter: new MemoryStorageAdapter(), ...config });
  /** The status of a failed SDK call (axios rejects on 4xx), or 'ok'. */
  const failure = async (call: Promise<unknown>): Promise<{ status: number; code: string } | 'ok'> => {
    try {
      await call;
      return 'ok';
    } catch (err) {
      const response = (err as { response?: { status: number; data: { error?: { code?: string } } } }).response;
      if (!response) throw err;
      return { status: response.status, code: response.data?.error?.code ?? '' };
    }
  };

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('authenticate, getUserAuth with roles, renewTokens: the tokens the SDK stores work', async () => {
    const sdk = client();
    const login = await sdk.authenticate(ADMIN.username, ADMIN.password);
    assert.equal(login.status, 200);
    assert.equal(login.headers['content-type'], JSONAPI);
    const storage = sdk.getStorageService();
    const jwt = await storage.getAccessToken();
    const renew = await storage.getRefreshToken();
    assert.ok(jwt && renew);

    const user = await sdk.getUserAuth(['roles']);
    assert.equal(user.status, 200);
    assert.equal(user.formattedData.data.attributes.username, ADMIN.username);
    assert.deepEqual(user.formattedData.roles, ['admin']);
    // MapIncludedInterceptor put the role resources themselves in the relationship.
    assert.equal(user.formattedData.data.relationships.roles.data[0].attributes.name, 'admin');

    // renewTokens sends the refresh token as Bearer with {grant_type: refresh_token}.
    const renewed = await sdk.renewTokens();
    assert.equal(renewed.status, 200);
    assert.equal(await storage.getAccessToken(), renewed.data.meta.jwt);
    assert.equal(await storage.getRefreshToken(), renewed.data.meta.renew);
    assert.equal((await sdk.get('/auth/user')).data.data.attributes.username, ADMIN.username);
  });

  test('save creates then updates; delete trashes; the answers are JSON API documents', async () => {
    const sdk = client();
    await sdk.authenticate(ADMIN.username, ADMIN.password);
    const created = await sdk.save('documents', { title: 'Made by the SDK', description: 'The description is here', status: 'on' });
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-type'], JSONAPI);
    const id = created.data.data.id;
    assert.equal(created.data.data.type, 'documents');
    assert.equal(created.data.data.attributes.title, 'Made by the SDK');

    const updated = await sdk.save('documents', { id, title: 'Changed by the SDK' });
    assert.equal(updated.status, 200);
    assert.equal(updated.data.data.attributes.title, 'Changed by the SDK');
    assert.equal(updated.data.data.attributes.description, 'The description is here', 'save sends only what changes');

    // The SDK's documented read, with its link-stripping interceptor.
    const list = await sdk.get('/documents', { params: { filter: { query: 'changed' } }, responseInterceptors: [new RemoveLinksInterceptor()] });
    assert.deepEqual(list.data.data.map((d: { id: string }) => d.id), [id]);
    assert.equal(list.data.links, undefined);
    assert.equal(list.data.data[0].links, undefined);
    assert.equal(list.data.meta.pagination.count, 1);

    const removed = await sdk.delete(`/documents/${id}`);
    assert.equal(removed.status, 204);
    assert.deepEqual(await failure(sdk.get(`/documents/${id}`)), { status: 404, code: 'not_found' });
    const trashed = await sdk.get(`/trash/${id}`);
    assert.equal(trashed.data.data.attributes.title, 'Changed by the SDK');
  });

  test('a save with bad input is refused as a JSON API error and changes nothing', async () => {
    const sdk = client();
    await sdk.authenticate(ADMIN.username, ADMIN.password);
    const doc = await sdk.save('documents', { title: 'Stays' });
    const bad = await failure(sdk.save('documents', { id: doc.data.data.id, status: 'published?' }));
    assert.notEqual(bad, 'ok');
    assert.equal((bad as { status: number }).status, 400);
    assert.equal((await sdk.get(`/documents/${doc.data.data.id}`)).data.data.attributes.status, doc.data.data.attributes.status);
    assert.equal((await failure(sdk.save('no_such_type', { title: 'x' })) as { status: number }).status, 404);
  });

  test('upload: one call stores the file and makes the image, its stream included', async () => {
    const sdk = client();
    await sdk.authenticate(ADMIN.username, ADMIN.password);
    const png = await makePng(8, 6);
    const res = await sdk.upload(new Blob([new Uint8Array(png)], { type: 'image/png' }), UploadResourceType.images, 'sdk photo.png');
    assert.equal(res.status, 201);
    const image = res.data.data;
    assert.equal(image.type, 'images');
    const stream = res.data.included.find((r: { type: string }) => r.type === 'streams');
    assert.equal(stream.attributes.file_name, 'sdk photo.png');
    assert.equal(stream.attributes.mime_type, 'image/png');
    assert.equal(stream.meta.file_size, png.length);
    // The bytes come back from the stream's URL.
    const bytes = await fetch(stream.meta.url, { headers: { Authorization: `Bearer ${await sdk.getStorageService().getAccessToken()}` } });
    assert.equal(bytes.status, 200);
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), png);
  });

  test('translations: MapIncludedInterceptor replaces the fields with the chosen language', async () => {
    const sdk = client();
    await sdk.authenticate(ADMIN.username, ADMIN.password);
    const doc = await sdk.save('documents', { title: 'Good morning', description: 'A greeting', status: 'on' });
    const id = doc.data.data.id;
    const tr = await sdk.post('/translations', { data: { type: 'translations', attributes: { object_id: Number(id), lang: 'it', status: 'on', translated_fields: { title: 'Buongiorno' } } } });
    assert.equal(tr.status, 201);
    const read = await sdk.get(`/documents/${id}`, { params: { lang: 'it' }, responseInterceptors: [new MapIncludedInterceptor({ replaceWithTranslation: 'it' })] });
    assert.equal(read.formattedData.data.attributes.title, 'Buongiorno');
    assert.equal(read.formattedData.data.attributes.description, 'A greeting', 'empty translated fields keep the original');
    assert.equal(read.formattedData.data.relationships.translations.data[0].attributes.lang, 'it');
  });

  test('client credentials: an application client signs in by itself and reads what anonymous clients read', async () => {
    const app = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'sdk-site' } } } });
    assert.equal(app.status, 201, app.text);
    const { api_key: apiKey, client_secret: clientSecret } = app.body.data.meta;
    await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Public page', status: 'on' } } } });
    await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Draft page', status: 'draft' } } } });

    const sdk = client({ clientId: apiKey, clientSecret });
    const list = await sdk.get('/documents', { params: { filter: { query: 'page' } } });
    assert.equal(list.status, 200);
    assert.ok(await sdk.getStorageService().getAccessToken(), 'the AuthInterceptor obtained an application token first');
    assert.deepEqual(list.data.data.map((d: { attributes: { title: string } }) => d.attributes.title), ['Public page']);
    // An application token may not write.
    assert.equal((await failure(sdk.save('documents', { title: 'Not allowed' })) as { status: number }).status, 401);

    // The API-key configuration sends X-Api-Key on every call; a wrong key is refused.
    const byKey = client({ apiKey });
    assert.equal((await byKey.get('/documents', { params: { filter: { query: 'page' } } })).data.data.length, 1);
    assert.equal((await failure(client({ apiKey: 'not-a-key' }).get('/documents')) as { status: number }).status, 403);
    const wrongSecret = await failure(client({ clientId: apiKey, clientSecret: 'wrong' }).get('/documents'));
    assert.equal((wrongSecret as { status: number }).status, 401);
  });

  test('a user with fewer rights: 403 keeps the SDK signed in, an expired token makes it drop its tokens', async () => {
    const user = await createUser(s, admin, { username: 'sdk-reader', password: 'sdk-reader-secret-1' });
    assert.ok(user.id);
    const sdk = client();
    await sdk.authenticate('sdk-reader', 'sdk-reader-secret-1');
    const refused = await failure(sdk.get('/users'));
    assert.deepEqual(refused, { status: 403, code: 'forbidden' });
    assert.ok(await sdk.getStorageService().getAccessToken(), 'a 403 leaves the tokens in place');

    // Tokens that expire at once: the SDK sees 401 `expired_token` (not BEdita's
    // `be_token_expired`, see docs/decisions.md) and drops its tokens instead of renewing.
    const short = await startServer({ FOLIO_ACCESS_TOKEN_TTL: '1' });
    try {
      const quick = new BEditaApiClient({ baseUrl: short.url, storageAdapter: new MemoryStorageAdapter() });
      await quick.authenticate(ADMIN.username, ADMIN.password);
      const token = await quick.getStorageService().getAccessToken();
      // jsonwebtoken counts whole seconds: wait until the token's exp has passed.
      const exp = JSON.parse(Buffer.from(String(token).split('.')[1], 'base64url').toString()).exp as number;
      await waitUntil(() => (Date.now() / 1000 >= exp + 1 ? true : undefined), 'the token to expire by the clock');
      assert.deepEqual(await failure(quick.get('/auth/user')), { status: 401, code: 'expired_token' });
      assert.equal(await quick.getStorageService().getAccessToken(), undefined);
    } finally {
      await short.close();
    }
  });
});
