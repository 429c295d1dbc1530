// BEdita 5's core test fixtures (bedita/bedita 5-salix, plugins/BEdita/Core/tests/Fixture), made
// through Folio's API on a fresh server so that BEdita's integration tests can be replayed against
// it: the same objects in the same order — so with the same ids, 1 to 18 — with their unames,
// titles, statuses and texts, the custom properties, the relations `test`, `another_test`,
// `test_abstract`, `test_simple`, `test_defaults` with their object relations, the folder tree, the
// translations of object 2, the date range of event 9. What cannot come through an API is left
// as Folio makes it: `created`/`modified` (now), `created_by`, `locked`; user 5's username is
// `second.user` (the contract refuses space characters in usernames); and object 2's publication
// window (BEdita's fixtures give it one already over, which BEdita ignores without
// `Publish.checkDate`; Folio always applies windows, so the replayed tests would not see it).
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { TestServer } from './server.js';

/** BEdita's fixture objects, in id order (1 is the admin Folio made). */
export const BEDITA_OBJECTS = [
  // Object 2's body and extra come from user 5, as HistoryFixture records (see the end).
  { id: 2, type: 'documents', uname: 'title-one', status: 'on', title: 'title one', description: 'description here', lang: 'en' },
  { id: 3, type: 'documents', uname: 'title-two', status: 'draft', title: 'title two', description: 'description here', body: 'body here' },
  { id: 4, type: 'profiles', uname: 'gustavo-supporto', status: 'on', title: 'Gustavo Supporto profile', description: 'Some description about Gustavo', lang: 'en', name: 'Gustavo', surname: 'Supporto', email: 'gustavo.supporto@channelweb.it', person_title: 'Doct.', gender: 'monkey' },
  { id: 5, type: 'users', uname: 'second-user', status: 'on', title: 'Miss Second User', lang: 'en', username: 'second.user', password: 'password2', email: 'second.user@example.com', name: 'Second', surname: 'User', person_title: 'Miss' },
  { id: 6, type: 'documents', uname: 'title-one-deleted', status: 'on', title: 'title one deleted', description: 'description removed', body: 'body no more', extra: { abstract: 'what?' }, lang: 'en', deleted: true },
  { id: 7, type: 'documents', uname: 'title-two-deleted', status: 'on', title: 'title two deleted', description: 'description removed', body: 'body no more', extra: { abstract: 'what?' }, lang: 'en', deleted: true },
  { id: 8, type: 'locations', uname: 'the-two-towers', status: 'on', title: 'The Two Towers', lang: 'en', coords: 'POINT(11.3464055 44.4944183)', address: 'Piazza di Porta Ravegnana', locality: 'Bologna', postal_code: '40126', country_name: 'Italy', region: 'Emilia-romagna' },
  { id: 9, type: 'events', uname: 'event-one', status: 'on', title: 'first event', description: 'event description goes here', lang: 'en' },
  { id: 10, type: 'files', uname: 'media-one', status: 'on', title: 'first media', description: 'media description goes here', lang: 'en', name: 'My media name' },
  { id: 11, type: 'folders', uname: 'root-folder', status: 'on', title: 'Root Folder', description: 'first root folder', lang: 'en' },
  { id: 12, type: 'folders', uname: 'sub-folder', status: 'on', title: 'Sub Folder', description: 'sub folder of root folder', lang: 'en' },
  { id: 13, type: 'folders', uname: 'another-root-folder', status: 'on', title: 'Another Root Folder', description: 'second root folder', lang: 'en' },
  { id: 14, type: 'files', uname: 'media-two', status: 'on', title: 'second media', description: 'another media description goes here', lang: 'en', name: 'My other media name' },
  { id: 15, type: 'documents', uname: '__deleted-15', status: 'draft', deleted: true },
  { id: 16, type: 'files', uname: 'media-svg', status: 'on', title: 'svg media', description: 'an svg image', lang: 'en', name: 'An svg media' },
  { id: 17, type: 'images', uname: 'media-modern-art', status: 'on', title: 'Modern art', description: 'an art piece', lang: 'en', name: 'Modern art' },
  { id: 18, type: 'images', uname: 'media-contemporary-art', status: 'on', title: 'Contemporary art', description: 'an art piece', lang: 'en', name: 'Contemporary art' },
] as const;

export interface BEditaFixtures {
  admin: string;
  /** The API key of BEdita's application 1 (API_KEY of its tests): an application without a secret. */
  apiKey: string;
  /** BEdita's application 2, "Disabled app": its id, API key and secret. */
  disabledApp: { id: string; apiKey: string; secret: string };
  /** A token of `second user` (object 5). */
  secondUser: string;
}

/** Builds BEdita's fixtures on `s` (a fresh server); asserts every object got BEdita's id. */
export async function seedBEditaFixtures(s: TestServer): Promise<BEditaFixtures> {
  const admin = await s.adminToken();
  const call = async (method: string, path: string, body?: unknown, expect = [200, 201, 204]) => {
    const res = await s.request(method, path, { token: admin, body });
    assert.ok(expect.includes(res.status), `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  // Custom properties first: objects carry some of them.
  const properties: [string, string, string, Record<string, unknown>?][] = [
    ['another_title', 'string', 'documents'],
    ['another_description', 'string', 'documents'],
    ['another_username', 'string', 'users', { description: 'Username, unique string' }],
    ['another_email', 'email', 'users', { description: 'User email' }],
    ['another_birthdate', 'date', 'profiles'],
    ['another_surname', 'string', 'profiles'],
    ['media_property', 'boolean', 'media'],
    ['number_of_friends', 'integer', 'profiles'],
  ];
  for (const [name, property_type_name, object_type_name, extra] of properties) {
    await call('POST', '/model/properties', { data: { type: 'properties', attributes: { name, property_type_name, object_type_name, ...extra } } });
  }
  // Object 1, the admin Folio made, with ProfilesFixture's fields of BEdita's first user.
  await call('PATCH', '/users/1', { data: { type: 'users', id: '1', attributes: { title: 'Mr. First User', name: 'First', surname: 'User', person_title: 'Mr.', birthdate: '1945-04-25' } } });
  for (const o of BEDITA_OBJECTS) {
    const { id, type, deleted, ...attributes } = o as typeof o & { deleted?: boolean };
    if (type === 'users') Object.assign(attributes, { another_username: 'synapse', another_email: 'synapse@example.org' });
    if (type === 'files' || type === 'images') Object.assign(attributes, { media_property: o.uname === 'media-one' });
    const created = await call('POST', `/${type}`, { data: { type, attributes } });
    assert.equal(created.data.id, String(id), `${o.uname} has BEdita's id`);
    if (deleted) await call('DELETE', `/${type}/${id}`);
  }
  // Relations and their sides, as RelationsFixture and RelationTypesFixture.
  const nameAge = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } } };
  const relations: [string, string, string, string, string[], string[], unknown][] = [
    ['test', 'Test relation', 'inverse_test', 'Inverse test relation', ['documents'], ['documents', 'profiles'], null],
    // another_test's params require `name` from after its fixture relation (1 → 8, without params) is made: see below.
    ['another_test', 'Another test relation', 'inverse_another_test', 'Another inverse test relation', ['users'], ['locations'], nameAge],
    ['test_abstract', 'Test relation involving abstract types', 'inverse_test_abstract', 'Inverse test relation involving abstract types', ['events'], ['media'], null],
    ['test_simple', 'Test relation involving simple parameters', 'inverse_test_simple', 'Inverse test relation involving simple parameters', ['documents'], ['documents', 'profiles'], nameAge],
    [
      'test_defaults',
      'Test relation involving default parameters',
      'inverse_test_defaults',
      'Inverse test relation involving default parameters',
      ['documents'],
      ['documents', 'profiles'],
      { type: 'object', properties: { size: { type: ['integer', 'null'], default: 5 }, street: { type: 'string', default: 'fighter' }, color: { type: ['string', 'null'], default: null } } },
    ],
  ];
  const relationIds = new Map<string, string>();
  for (const [name, label, inverse_name, inverse_label, left, right, params] of relations) {
    const r = await call('POST', '/model/relations', { data: { type: 'relations', attributes: { name, label, inverse_name, inverse_label, description: 'Sample description.', params } } });
    const id = r.data.id;
    relationIds.set(name, id);
    await call('POST', `/model/relations/${id}/relationships/left_object_types`, { data: left.map((t) => ({ type: 'object_types', id: t })) });
    await call('POST', `/model/relations/${id}/relationships/right_object_types`, { data: right.map((t) => ({ type: 'object_types', id: t })) });
  }
  const relate = (left: string, id: number, relation: string, right: number, right_type: string, meta: Record<string, unknown>) =>
    call('POST', `/${left}/${id}/relationships/${relation}`, { data: [{ type: right_type, id: String(right), meta: { relation: meta } }] });
  await relate('documents', 2, 'test', 4, 'profiles', { priority: 1, inv_priority: 2 });
  await relate('documents', 3, 'test', 4, 'profiles', { priority: 1, inv_priority: 1 });
  await relate('documents', 2, 'test', 3, 'documents', { priority: 2, inv_priority: 1 });
  await relate('users', 1, 'another_test', 8, 'locations', { priority: 1, inv_priority: 1 });
  const anotherTest = relationIds.get('another_test');
  await call('PATCH', `/model/relations/${anotherTest}`, { data: { type: 'relations', id: anotherTest, attributes: { description: 'Sample description /2.', params: { ...nameAge, required: ['name'] } } } });
  await relate('documents', 2, 'test_simple', 4, 'profiles', { priority: 1, inv_priority: 1, params: { name: 'John' } });
  await relate('documents', 2, 'test_defaults', 4, 'profiles', { priority: 1, inv_priority: 1, params: { size: 6, street: 'fighter' } });
  // The tree: 11 ⊃ 12 ⊃ 4, 11 ⊃ 2; 13 a root of its own.
  await call('PATCH', '/folders/12/relationships/parent', { data: { type: 'folders', id: '11' } });
  await call('POST', '/folders/12/relationships/children', { data: [{ type: 'profiles', id: '4' }] });
  await call('POST', '/folders/11/relationships/children', { data: [{ type: 'documents', id: '2' }] });
  // Translations of object 2.
  const translations: [string, string, Record<string, unknown>][] = [
    ['it-IT', 'on', { title: 'titolo uno', description: 'descrizione qui', body: 'contenuto qui' }],
    ['fr', 'on', { description: 'description ici' }],
    ['es', 'draft', { description: 'descripción aquí' }],
    ['no', 'off', { description: 'beskrivelse her' }],
  ];
  for (const [lang, status, translated_fields] of translations) {
    await call('POST', '/translations', { data: { type: 'translations', attributes: { object_id: 2, lang, status, translated_fields } } });
  }
  // Event 9's date range.
  await call('PATCH', '/events/9', { data: { type: 'events', id: '9', attributes: { date_ranges: [{ start_date: '2017-03-07T12:40:19+00:00', end_date: '2017-03-08T21:40:19+00:00' }] } } });
  // StreamsFixture: the files of the media objects (small real files of the same kinds and names).
  const image = (format: 'gif' | 'jpeg') => sharp({ create: { width: 12, height: 6, channels: 3, background: { r: 200, g: 200, b: 200 } } })[format]().toBuffer();
  const streams: [number, string, string, Buffer][] = [
    [10, 'sample.txt', 'text/plain', Buffer.from('Sample uploaded file.\n')],
    [14, 'bedita-logo-gray.gif', 'image/gif', await image('gif')],
    [16, 'sample.svg', 'image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>')],
    [17, 'snow-on-white.jpg', 'image/jpeg', await image('jpeg')],
    [18, 'snow-on-white.jpg', 'image/jpeg', await image('jpeg')],
  ];
  for (const [id, name, contentType, bytes] of streams) {
    const up = await s.request('POST', `/streams/upload/${name}`, { token: admin, raw: bytes, headers: { 'Content-Type': contentType } });
    assert.equal(up.status, 201, up.text);
    const type = BEDITA_OBJECTS.find((o) => o.id === id)!.type;
    await call('PATCH', `/streams/${up.body.data.id}/relationships/object`, { data: { type, id: String(id) } });
  }
  // Categories of documents and the tag of profile 4 (CategoriesFixture, TagsFixture, Object*Fixture).
  for (const [type, associations] of [['documents', ['Categories']], ['profiles', ['Tags']]] as const) {
    const { id } = (await call('GET', `/model/object_types/${type}`)).data;
    await call('PATCH', `/model/object_types/${id}`, { data: { type: 'object_types', id, attributes: { associations } } });
  }
  const categories: [string, string, boolean, string?][] = [
    ['first-cat', 'First category', true],
    ['second-cat', 'Second category', true],
    ['disabled-cat', 'Disabled category', false],
    ['child-cat-1', 'Child category', true, 'second-cat'],
  ];
  const categoryIds = new Map<string, string>();
  // disabled-cat is disabled once object 2 has it (a disabled category cannot be given).
  for (const [name, label, , parent] of categories) {
    const c = await call('POST', '/model/categories', {
      data: { type: 'categories', attributes: { name, label, labels: { default: label }, type: 'documents', enabled: true, parent_id: parent ? Number(categoryIds.get(parent)) : null } },
    });
    categoryIds.set(name, c.data.id);
  }
  await call('POST', '/model/tags', { data: { type: 'tags', attributes: { name: 'first-tag', label: 'First tag', labels: { default: 'First tag' }, enabled: true } } });
  await call('PATCH', '/documents/2', { data: { type: 'documents', id: '2', attributes: { categories: [{ name: 'first-cat' }, { name: 'second-cat' }, { name: 'disabled-cat' }] } } });
  await call('PATCH', '/profiles/4', { data: { type: 'profiles', id: '4', attributes: { tags: [{ name: 'first-tag' }] } } });
  // ObjectCategoriesFixture gives object 2's first-cat the params "100". No API writes an
  // object's category params (BEdita's neither: its categories are written by name), so this one
  // value is set in the database, as BEdita's fixture sets it.
  await s.server.ctx.db
    .updateTable('object_categories')
    .set({ params: JSON.stringify('100') })
    .where('object_id', '=', 2)
    .where('category_id', '=', Number(categoryIds.get('first-cat')))
    .execute();
  for (const [name, , enabled] of categories) {
    if (!enabled) await call('PATCH', `/model/categories/${categoryIds.get(name)}`, { data: { type: 'categories', id: categoryIds.get(name), attributes: { enabled: false } } });
  }
  // User 5 has BEdita's "second role": every right on objects (RolesUsersFixture, EndpointPermissionsFixture).
  const role = await call('POST', '/roles', { data: { type: 'roles', attributes: { name: 'second_role', permissions: { '*': ['read', 'create', 'update', 'delete', 'publish'] } } } });
  await call('POST', '/users/5/relationships/roles', { data: [{ type: 'roles', id: role.data.id }] });
  const { jwt } = await s.login('second.user', 'password2');
  const change = await s.request('PATCH', '/documents/2', {
    token: jwt,
    body: { data: { type: 'documents', id: '2', attributes: { body: 'body here', extra: { abstract: 'abstract here', list: ['one', 'two', 'three'] } } } },
  });
  assert.equal(change.status, 200, change.text);
  // ConfigFixture: the entries of BEdita's application.
  const config: [string, string, string][] = [
    ['Name1', 'group1', 'data'],
    ['Name2', 'group1', 'true'],
    ['Key2', 'group1', '{"test1" : "some data", "test2" : "other data"}'],
    ['IntVal', 'group2', '14'],
    ['appVal', 'app', '{"val": 42}'],
    ['someVal', 'core', '42'],
    ['myVal', 'somecontext', '42'],
  ];
  for (const [name, context, content] of config) await call('POST', '/admin/config', { data: { type: 'config', attributes: { name, context, content } } });
  // AnnotationsFixture: one by the admin on 2, one by user 5 on 3.
  await call('POST', '/annotations', { data: { type: 'annotations', attributes: { object_id: 2, description: 'Lorem ipsum dolor sit amet, aliquet feugiat. Best regards.', params: 'something' } } });
  const note = await s.request('POST', '/annotations', { token: jwt, body: { data: { type: 'annotations', attributes: { object_id: 3, description: 'Gustavo for President!', params: '1' } } } });
  assert.equal(note.status, 201, note.text);
  // ApplicationsFixture 1: the application BEdita's tests send the API key of, without a secret.
  const app = await call('POST', '/admin/applications', { data: { type: 'applications', attributes: { name: 'First app', description: 'This is the test application.', client_secret: null } } });
  const disabled = await call('POST', '/admin/applications', { data: { type: 'applications', attributes: { name: 'Disabled app', description: 'This app has been disabled', enabled: false } } });
  return {
    admin,
    apiKey: app.data.meta.api_key,
    disabledApp: { id: disabled.data.id, apiKey: disabled.data.meta.api_key, secret: disabled.data.meta.client_secret },
    secondUser: jwt,
  };
}
