// BEdita 5's object model: the core types' own fields (profiles, users, locations, media), unames
// as BEdita makes them, users as objects in full, dates in every form BEdita accepts and the
// small input rules of its clients (`0`/`1` booleans, `"attributes": []`, digits-only unames).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listIds } from './helpers/lists.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('objects in the BEdita model', () => {
  let s: TestServer;
  let admin: string;
  const post = (path: string, type: string, attributes: unknown) => s.request('POST', path, { token: admin, body: { data: { type, attributes } } });
  const created = async (path: string, type: string, attributes: Record<string, unknown>) => {
    const res = await post(path, type, attributes);
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const patch = (path: string, type: string, id: string, attributes: Record<string, unknown>) => s.request('PATCH', `${path}/${id}`, { token: admin, body: { data: { id, type, attributes } } });
  const ids = (path: string) => listIds(s, admin, path);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('profiles carry BEdita\'s fields: written, read back, filtered, sorted and searched', async () => {
    const p = await created('/profiles', 'profiles', {
      title: 'Gustavo Supporto', name: 'Gustavo', surname: 'Supporto', email: 'gustavo@example.com', person_title: 'Doct.',
      gender: 'monkey', birthdate: '1980-04-25', company: false, city: 'Bologna', street_address: 'Via Rizzoli 1', website: 'https://example.com',
    });
    assert.equal(p.attributes.uname, 'profile-gustavo-supporto');
    for (const [k, v] of Object.entries({ name: 'Gustavo', surname: 'Supporto', email: 'gustavo@example.com', person_title: 'Doct.', gender: 'monkey', birthdate: '1980-04-25', company: false, city: 'Bologna', zipcode: null, country: null, state_name: null, phone: null, national_id_number: null, vat_number: null, pseudonym: null, deathdate: null, company_name: null, company_kind: null })) {
      assert.deepEqual(p.attributes[k], v, k);
    }
    const q = await created('/profiles', 'profiles', { title: 'Second', name: 'Anna', city: 'Rome', birthdate: '1990-01-01' });
    assert.deepEqual(await ids('/profiles?filter[city]=Bologna'), [p.id]);
    assert.deepEqual(await ids('/profiles?sort=-birthdate'), [q.id, p.id]);
    assert.deepEqual(await ids('/profiles?filter[birthdate][gt]=1985-01-01'), [q.id]);
    assert.deepEqual(await ids('/profiles?q=Supporto'), [p.id]);
    assert.deepEqual(await ids('/profiles?filter[company]=0'), [p.id]);
    assert.deepEqual(await ids('/profiles?filter[company]=false'), [p.id]);
    const changed = await patch('/profiles', 'profiles', q.id, { surname: 'Bianchi', company: 1 });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.attributes.surname, 'Bianchi');
    assert.equal(changed.body.data.attributes.company, true);
    // Checked as BEdita checks them: a bad email or website is 400 naming the field.
    expectError(await post('/profiles', 'profiles', { email: 'not an email' }), 400);
    const bad = await post('/profiles', 'profiles', { website: 'not a url' });
    expectError(bad, 400);
    assert.deepEqual(bad.body.error.meta.fields, ['website']);
  });

  test('locations and media carry BEdita\'s fields; media unames start with media-', async () => {
    const l = await created('/locations', 'locations', { title: 'Two Towers', coords: 'POINT(11.3464 44.4944)', address: 'Piazza di Porta Ravegnana', locality: 'Bologna', postal_code: '40126', country_name: 'Italy', region: 'Emilia-Romagna' });
    assert.equal(l.attributes.coords, 'POINT(11.3464 44.4944)');
    assert.equal(l.attributes.postal_code, '40126');
    assert.deepEqual(await ids('/locations?filter[locality]=Bologna'), [l.id]);
    const v = await created('/videos', 'videos', { title: 'A Talk', provider: 'youtube', provider_uid: 'abc123', provider_url: 'https://youtu.be/abc123', provider_extra: { width: 640 } });
    assert.equal(v.attributes.uname, 'media-a-talk');
    assert.deepEqual([v.attributes.provider, v.attributes.provider_uid, v.attributes.provider_url, v.attributes.provider_extra, v.attributes.name], ['youtube', 'abc123', 'https://youtu.be/abc123', { width: 640 }, null]);
    assert.deepEqual(await ids('/videos?filter[provider]=youtube'), [v.id]);
  });

  test('/model/properties lists the core types\' fields as static properties, which cannot change', async () => {
    const list = await s.request('GET', '/model/properties?filter[type]=static&filter[object_type]=locations', { token: admin });
    assert.equal(list.status, 200, list.text);
    const coords = list.body.data.find((p: { attributes: { name: string } }) => p.attributes.name === 'coords');
    assert.ok(coords, 'coords is a static property of locations');
    assert.match(coords.id, /^[0-9a-f-]{36}$/);
    assert.equal(coords.attributes.object_type_name, 'locations');
    const dynamic = await s.request('GET', '/model/properties', { token: admin });
    assert.ok(!dynamic.body.data.some((p: { attributes: { name: string } }) => p.attributes.name === 'coords'));
    expectError(await s.request('DELETE', `/model/properties/${coords.id}`, { token: admin }), 403);
    // A custom property may not take a core field's name.
    expectError(await s.request('POST', '/model/properties', { token: admin, body: { data: { type: 'properties', attributes: { name: 'city', property_type_name: 'string', object_type_name: 'profiles' } } } }), 400);
  });

  test('a model file naming a core type\'s own field as a custom property applies: the field is kept as it is', async () => {
    const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
    const doc = (await s.request('GET', '/model/project', { token: admin, headers: { Accept: 'application/json' } })).body;
    doc.properties = [...doc.properties, { name: 'city', object: 'profiles', property: 'string', description: null, required: false }];
    const res = await s.request('POST', '/model/project', { token: admin, body: doc, headers });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.kept.properties, [{ name: 'city', object: 'profiles', reason: 'a field of the core type' }]);
    assert.ok(!(await s.request('GET', '/model/properties', { token: admin })).body.data.some((p: { attributes: { name: string } }) => p.attributes.name === 'city'));
  });

  test('users are objects: profile fields, custom properties, the publication window; filtered and sorted by any of them', async () => {
    const prop = await s.request('POST', '/model/properties', { token: admin, body: { data: { type: 'properties', attributes: { name: 'nickname', property_type_name: 'string', object_type_name: 'users' } } } });
    assert.equal(prop.status, 201, prop.text);
    const a = await created('/users', 'users', { username: 'gustavo', password: 'gustavo-secret-1', name: 'Gustavo', city: 'Bologna', birthdate: '1980-04-25', nickname: 'gus', publish_start: '2020-01-01 10:00:00', title: 'B title' });
    assert.equal(a.attributes.uname, 'user-gustavo');
    assert.deepEqual([a.attributes.city, a.attributes.birthdate, a.attributes.nickname, a.attributes.publish_start], ['Bologna', '1980-04-25', 'gus', '2020-01-01T10:00:00+00:00']);
    const b = await created('/users', 'users', { username: 'second', password: 'second-secret-1', city: 'Rome', nickname: 'sec', title: 'A title' });
    const read = await s.request('GET', `/users/${a.id}`, { token: admin });
    assert.equal(read.body.data.attributes.nickname, 'gus');
    assert.deepEqual(await ids('/users?filter[city]=Rome'), [b.id]);
    assert.deepEqual(await ids('/users?filter[nickname]=gus'), [a.id]);
    assert.deepEqual(await ids('/users?q=Bologna'), [a.id]);
    assert.deepEqual((await ids(`/users?sort=title&filter[id]=${a.id},${b.id}`)), [b.id, a.id]);
    assert.deepEqual((await ids(`/users?sort=-publish_start&filter[id]=${a.id},${b.id}`)).length, 2);
    const changed = await patch('/users', 'users', b.id, { city: 'Milan', nickname: null, publish_end: '2040-01-01' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual([changed.body.data.attributes.city, changed.body.data.attributes.nickname, changed.body.data.attributes.publish_end], ['Milan', null, '2040-01-01T00:00:00+00:00']);
    expectError(await patch('/users', 'users', b.id, { publish_start: '2041-01-01' }), 400);
    // An unknown attribute is ignored as BEdita ignores it, unless the client asks for strictness.
    expectError(await s.request('PATCH', `/users/${b.id}`, { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { id: b.id, type: 'users', attributes: { unknown_field: 1 } } } }), 400, 'unknown_attribute');
    assert.equal((await patch('/users', 'users', b.id, { unknown_field: 1 })).status, 200);
    const schema = await s.request('GET', '/model/schema/users', { token: admin });
    for (const name of ['city', 'nickname', 'publish_start', 'birthdate']) assert.ok(schema.body.properties[name], name);
    // Answers name the schema's revision, which moved with the custom property.
    assert.equal(read.body.meta.schema.users.revision, schema.body.revision);
    assert.ok(schema.body.revision > 2);
  });

  test('a user\'s history and trash are an object\'s: history records its field changes; trashed, it is listed and restored', async () => {
    const u = await created('/users', 'users', { username: 'historic', password: 'historic-secret-1' });
    await patch('/users', 'users', u.id, { city: 'Turin' });
    const history = await s.request('GET', `/users/${u.id}/history`, { token: admin });
    assert.equal(history.status, 200, history.text);
    assert.deepEqual(history.body.data.map((h: { attributes: { user_action: string } }) => h.attributes.user_action), ['create', 'update']);
    assert.deepEqual(history.body.data[1].attributes.changed, { city: 'Turin' });
    assert.equal((await s.request('DELETE', `/users/${u.id}`, { token: admin })).status, 204);
    assert.deepEqual(await ids('/trash?filter[type]=users'), [u.id]);
    assert.equal((await s.request('PATCH', `/trash/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users' } } })).status, 204);
    assert.equal((await s.request('GET', `/users/${u.id}`, { token: admin })).body.data.attributes.city, 'Turin');
  });

  test('dates in every form BEdita accepts, answered as YYYY-MM-DDTHH:MM:SS+00:00 (dates as YYYY-MM-DD)', async () => {
    const doc = await created('/documents', 'documents', { title: 'Dated' });
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ publish_start: '2018-08-02 14:23:23' }, { publish_start: '2018-08-02T14:23:23+00:00' }],
      [{ publish_start: '2018-08-02' }, { publish_start: '2018-08-02T00:00:00+00:00' }],
      [{ publish_start: '2018-08-02T16:23:23+02:00' }, { publish_start: '2018-08-02T14:23:23+00:00' }],
      [{ publish_start: '2018-08-02T16:23:23.250Z' }, { publish_start: '2018-08-02T16:23:23+00:00' }],
      [{ publish_start: '1533117600' }, { publish_start: '2018-08-01T10:00:00+00:00' }],
      [{ publish_start: 1533117600 }, { publish_start: '2018-08-01T10:00:00+00:00' }],
      [{ publish_start: '' }, { publish_start: null }],
    ];
    for (const [input, expected] of cases) {
      const res = await patch('/documents', 'documents', doc.id, input);
      assert.equal(res.status, 200, `${JSON.stringify(input)}: ${res.text}`);
      for (const [k, v] of Object.entries(expected)) assert.equal(res.body.data.attributes[k], v, JSON.stringify(input));
    }
    const p = await created('/profiles', 'profiles', { title: 'Born' });
    for (const [input, expected] of [['2018-02-02', '2018-02-02'], ['2018-02-02 12:30', '2018-02-02'], ['2018-01-02T14:23:23+00:00', '2018-01-02'], ['', null]] as const) {
      const res = await patch('/profiles', 'profiles', p.id, { birthdate: input });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.attributes.birthdate, expected, input);
    }
    for (const bad of ['July, 1', 'gustavo', '2008 June, 1', '2018-02-30']) {
      const res = await patch('/profiles', 'profiles', p.id, { birthdate: bad });
      expectError(res, 400);
      assert.deepEqual(res.body.error.meta.fields, ['birthdate']);
    }
    // Date ranges too (events have them).
    const ev = await created('/events', 'events', { title: 'Ranged', date_ranges: [{ start_date: '2018-08-02 14:23:23', end_date: 1533229200 }, { start_date: '2018-09-01', end_date: '' }] });
    assert.deepEqual(ev.attributes.date_ranges.map((d: { start_date: string; end_date: string | null }) => [d.start_date, d.end_date]), [
      ['2018-08-02T14:23:23+00:00', '2018-08-02T17:00:00+00:00'],
      ['2018-09-01T00:00:00+00:00', null],
    ]);
    expectError(await post('/events', 'events', { title: 'Bad range', date_ranges: [{ start_date: 'July, 1' }] }), 400);
    // A publication window's end before its start is still 400, and changes nothing.
    const before = (await s.request('GET', `/documents/${doc.id}`, { token: admin })).body.data.attributes;
    expectError(await patch('/documents', 'documents', doc.id, { publish_start: '2020-01-02 00:00:00', publish_end: 1577836800 }), 400);
    assert.deepEqual((await s.request('GET', `/documents/${doc.id}`, { token: admin })).body.data.attributes, before);
  });

  test('unames: a digits-only uname is 400; generated ones follow BEdita (title, username, prefixes)', async () => {
    const res = await post('/documents', 'documents', { title: 'x', uname: '12345' });
    expectError(res, 400);
    assert.deepEqual(res.body.error.meta.fields, ['uname']);
    expectError(await post('/users', 'users', { username: 'digits', password: 'digits-secret-1', uname: '987' }), 400);
    assert.equal((await created('/documents', 'documents', { title: 'Plain Title', uname: 'doc-1' })).attributes.uname, 'doc-1');
    assert.equal((await created('/documents', 'documents', { title: 'Plain Title' })).attributes.uname, 'plain-title');
    assert.equal((await created('/profiles', 'profiles', { title: 'Plain Title' })).attributes.uname, 'profile-plain-title');
    assert.equal((await created('/profiles', 'profiles', { title: 'Plain Title' })).attributes.uname, 'profile-plain-title-2');
    assert.equal((await created('/images', 'images', { title: 'Plain Title' })).attributes.uname, 'media-plain-title');
  });

  test('"attributes": [] is an empty object; 0 and 1 are booleans where a boolean is expected', async () => {
    const res = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: [] } } });
    assert.equal(res.status, 201, res.text);
    const u = await created('/users', 'users', { username: 'flags', password: 'flags-secret-1' });
    const blocked = await patch('/users', 'users', u.id, { blocked: 1 });
    assert.equal(blocked.status, 200, blocked.text);
    assert.equal(blocked.body.data.attributes.blocked, true);
    assert.equal((await patch('/users', 'users', u.id, { blocked: 0 })).body.data.attributes.blocked, false);
    expectError(await patch('/users', 'users', u.id, { blocked: 2 }), 400);
    const doc = (await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Lockable' } } } })).body.data;
    const locked = await s.request('PATCH', `/documents/${doc.id}`, { token: admin, body: { data: { id: doc.id, type: 'documents', meta: { locked: 1 } } } });
    assert.equal(locked.status, 200, locked.text);
    assert.equal(locked.body.data.meta.locked, true);
  });

  test('role names are checked as BEdita checks resource names (400 naming the field)', async () => {
    for (const name of ['Editors', 'web-editors', '1st', 'x', 'with space', '']) {
      const res = await post('/roles', 'roles', { name });
      expectError(res, 400);
      assert.deepEqual(res.body.error.meta.fields, ['name'], name);
    }
    assert.equal((await post('/roles', 'roles', { name: 'web_editors2' })).status, 201);
  });

  test('PATCH /model/object_types/{name} takes data.id equal to the URL\'s id as given, or the type\'s id', async () => {
    const t = (await s.request('GET', '/model/object_types/news', { token: admin })).body.data;
    const byName = await s.request('PATCH', '/model/object_types/news', { token: admin, body: { data: { id: 'news', type: 'object_types', attributes: { description: 'By name' } } } });
    assert.equal(byName.status, 200, byName.text);
    assert.equal(byName.body.data.attributes.description, 'By name');
    const byId = await s.request('PATCH', '/model/object_types/news', { token: admin, body: { data: { id: t.id, type: 'object_types', attributes: { description: 'By id' } } } });
    assert.equal(byId.status, 200, byId.text);
    expectError(await s.request('PATCH', '/model/object_types/news', { token: admin, body: { data: { id: 'documents', type: 'object_types', attributes: { description: 'x' } } } }), 409);
    assert.equal((await s.request('GET', '/model/object_types/news', { token: admin })).body.data.attributes.description, 'By id');
  });
});
