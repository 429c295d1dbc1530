// BEdita 5's API integration tests (bedita/bedita 5-salix,
// plugins/BEdita/API/tests/IntegrationTest), replayed over HTTP against Folio on BEdita's own
// fixture data (helpers/bedita-fixtures.ts): one test per BEdita test method and data row, named
// `<File>::<method> [<row>]`, asserting what BEdita's test asserts. BEdita's tests send
// `configRequestHeaders()`: its application's API key and no user, so they read as an anonymous
// client here; `authHeader()` ones sign in as the admin. A row is skipped only where it needs BEdita-only
// configuration (`Configure::write`), PHP internals, or where the contract decides otherwise — each
// with its reason. docs/bedita-compatibility.md lists the differences in one place.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { seedBEditaFixtures, type BEditaFixtures } from './helpers/bedita-fixtures.js';
import { startServer, type TestServer } from './helpers/server.js';

const BEDITA_CONFIG = (what: string) => `BEdita-only configuration: the row sets ${what} with Configure::write`;

describe('BEdita integration tests on BEdita\'s fixtures', () => {
  let s: TestServer;
  let fx: BEditaFixtures;
  const get = (path: string, token?: string) => s.request('GET', path, token ? { token } : {});
  const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id).sort((a, b) => Number(a) - Number(b));

  before(async () => {
    s = await startServer();
    fx = await seedBEditaFixtures(s);
  });
  after(() => s?.close());

  describe('StatusLevelTest', () => {
    // [name, expected ids, Status.level, url]
    const lists: [string, string[], string | null, string][] = [
      ['on docs', ['2'], 'on', '/documents'],
      ['all docs', ['2', '3'], 'draft', '/documents'],
      ['all docs 2', ['2', '3'], null, '/documents'],
      ['status filter off', [], 'on', '/documents?filter[status]=off'],
      ['status filter draft', ['3'], 'draft', '/documents?filter[status]=draft'],
    ];
    for (const [name, expected, level, url] of lists) {
      // Folio's anonymous clients see status `on` only: BEdita's `Status.level: on`.
      test(`testListObjects [${name}]`, { skip: level === 'on' ? false : BEDITA_CONFIG(`Status.level to ${level}`) }, async () => {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(ids(res.body), expected);
      });
    }
    const singles: [string, number, string, string][] = [
      ['notFound', 404, 'on', '/documents/3'],
      ['found', 200, 'draft', '/documents/3'],
      ['related with lang', 200, 'on', '/documents/3/test?lang=fr'],
    ];
    for (const [name, expected, level, url] of singles) {
      const skip =
        level !== 'on'
          ? BEDITA_CONFIG(`Status.level to ${level}`)
          : name === 'related with lang'
            ? "the contract decides otherwise: nothing under an object the caller may not read is shown (404), and anonymous clients read `on` objects only; BEdita lists a draft's related objects"
            : false;
      test(`testSingleObject [${name}]`, { skip }, async () => {
        const res = await get(url);
        assert.equal(res.status, expected, res.text);
      });
    }
  });

  describe('PublishStartEndTest', () => {
    const STATUS_NULL = BEDITA_CONFIG('no Status.level (its test bootstrap shows drafts to API-key clients)');
    test('testListObjects [publishable docs]', { skip: STATUS_NULL }, () => {});
    test('testListObjects [all docs]', { skip: `${BEDITA_CONFIG('Publish.checkDate to false')}; Folio always applies windows` }, () => {});
    const day = 24 * 3600 * 1000;
    const at = (offset: number) => new Date(Date.now() + offset).toISOString();
    const rows: [string, number, boolean, Record<string, string | null>][] = [
      ['not started', 404, true, { publish_start: at(day), publish_end: null }],
      ['no conf', 200, false, { publish_start: at(day), publish_end: null }],
      ['ended', 404, true, { publish_start: null, publish_end: at(-day) }],
      ['started', 200, true, { publish_start: at(-day), publish_end: at(day) }],
    ];
    for (const [name, expected, checkDate, window] of rows) {
      // BEdita's tests read document 3, a draft, with drafts shown (no Status.level): here it is
      // `on` for the row, so that only its window decides, as Publish.checkDate makes BEdita do.
      test(`testSingleObject [${name}]`, { skip: checkDate ? false : `${BEDITA_CONFIG('Publish.checkDate to false')}; Folio always applies windows` }, async () => {
        const patch = await s.request('PATCH', '/documents/3', { token: fx.admin, body: { data: { type: 'documents', id: '3', attributes: { status: 'on', ...window } } } });
        assert.equal(patch.status, 200, patch.text);
        try {
          assert.equal((await get('/documents/3')).status, expected);
        } finally {
          const back = await s.request('PATCH', '/documents/3', { token: fx.admin, body: { data: { type: 'documents', id: '3', attributes: { status: 'draft', publish_start: null, publish_end: null } } } });
          assert.equal(back.status, 200, back.text);
        }
      });
    }
  });

  describe('UniqueNameTest', () => {
    const post = (type: string, attributes: Record<string, unknown>) => s.request('POST', `/${type}`, { token: fx.admin, body: { data: { type, attributes } } });
    const rows: [string, Record<string, unknown>][] = [
      ['sameTitle', { title: 'test double test double' }],
      ['emptyTitle', { title: '' }],
      ['empty', {}],
    ];
    for (const [name, attributes] of rows) {
      test(`testDoubleInsert [${name}]`, async () => {
        for (const type of ['documents', 'locations']) {
          const unames: string[] = [];
          for (let i = 0; i < 2; i++) {
            const res = await post(type, attributes);
            assert.equal(res.status, 201, res.text);
            assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
            assert.equal(res.headers.get('location'), `${s.url}/${type}/${res.body.data.id}`);
            assert.equal(typeof res.body.data.attributes.uname, 'string');
            unames.push(res.body.data.attributes.uname);
          }
          assert.notEqual(unames[0], unames[1]);
        }
      });
    }
    test('testCustomBehavior', async () => {
      const res = await post('profiles', { title: 'my profile' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.get('location'), `${s.url}/profiles/${res.body.data.id}`);
      assert.equal(res.body.data.attributes.uname, 'profile-my-profile');
      assert.equal((await s.request('GET', `/profiles/${res.body.data.id}`, { token: fx.admin })).body.data.attributes.uname, 'profile-my-profile');
    });
    // BEdita's detail is "[uname.notNumeric]: The provided value is invalid"; Folio's errors are
    // its own words, naming the field in meta.fields.
    test('testInvalidNumericUname', async () => {
      const res = await post('documents', { uname: '123', title: 'my document' });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(res.body.error.meta?.fields, ['uname']);
    });
    test('testUpdateInvalidNumericUname', async () => {
      const res = await s.request('PATCH', '/documents/2', { token: fx.admin, body: { data: { type: 'documents', id: '2', attributes: { uname: '789' } } } });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.error.meta?.fields, ['uname']);
      assert.equal((await get('/documents/2')).body.data.attributes.uname, 'title-one');
    });
  });

  describe('ResourceNamesValidationTest', () => {
    const rows: [string, number, string, Record<string, unknown>, string][] = [
      ['bad ptype', 400, '/model/property_types', { name: '12345' }, 'property_types'],
      ['good ptype', 201, '/model/property_types', { name: 'abc_de', params: null }, 'property_types'],
      ['bad otype', 400, '/model/object_types', { name: 'Foos', singular: 'Foo' }, 'object_types'],
      ['good otype', 201, '/model/object_types', { name: 'foos', singular: 'foo' }, 'object_types'],
      ['bad app', 400, '/admin/applications', { name: '' }, 'applications'],
      ['bad role', 400, '/roles', { name: 'first-role' }, 'roles'],
    ];
    for (const [name, expected, endpoint, attributes, type] of rows) {
      test(`testValidate [${name}]`, async () => {
        const res = await s.request('POST', endpoint, { token: fx.admin, body: { data: { type, attributes } } });
        assert.equal(res.status, expected, res.text);
      });
    }
  });

  describe('DateTimeTest', () => {
    const ok = (expected: Record<string, string>, input: Record<string, string>) => ({ expected, input });
    const rows: [string, { expected: Record<string, string> | null; input: Record<string, string> }][] = [
      ['simple date', ok({ birthdate: '2018-02-02' }, { birthdate: '2018-02-02' })],
      ['date with time', ok({ birthdate: '2018-02-02' }, { birthdate: '2018-02-02 12:30' })],
      ['date with iso time', ok({ birthdate: '2018-01-02' }, { birthdate: '2018-01-02T14:23:23+00:00' })],
      ['simple date time', ok({ publish_start: '2018-08-02T14:23:23+00:00' }, { publish_start: '2018-08-02 14:23:23' })],
      ['datetime without time', ok({ publish_start: '2018-08-02T00:00:00+00:00' }, { publish_start: '2018-08-02' })],
      ['timezone', ok({ publish_start: '2018-08-02T16:23:23+00:00' }, { publish_start: '2018-08-02T16:23:23+00:00' })],
      ['datetime timestamp', ok({ publish_start: '2018-08-01T10:00:00+00:00' }, { publish_start: '1533117600' })],
      ['date fail', { expected: null, input: { birthdate: 'July, 1' } }],
      ['datetime fail', { expected: null, input: { birthdate: 'gustavo' } }],
      ['bad datetime', { expected: null, input: { birthdate: '2008 June, 1' } }],
    ];
    for (const [name, { expected, input }] of rows) {
      test(`testDateTimeInput [${name}]`, async () => {
        const res = await s.request('PATCH', '/profiles/4', { token: fx.admin, body: { data: { type: 'profiles', id: '4', attributes: input } } });
        if (!expected) {
          // BEdita: 400 "Invalid data", detail "[birthdate.date]: Invalid date or datetime …".
          assert.equal(res.status, 400, res.text);
          assert.deepEqual(res.body.error.meta?.fields, ['birthdate']);
          return;
        }
        assert.equal(res.status, 200, res.text);
        for (const [field, value] of Object.entries(expected)) assert.equal(res.body.data.attributes[field], value, field);
      });
    }
    test('testTimezoneSave', async () => {
      const res = await s.request('PATCH', '/documents/2', { token: fx.admin, body: { data: { type: 'documents', id: '2', attributes: { publish_start: '2018-08-02T16:23:23+02:00' } } } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await get('/documents/2', fx.admin)).body.data.attributes.publish_start, '2018-08-02T14:23:23+00:00');
      await s.request('PATCH', '/documents/2', { token: fx.admin, body: { data: { type: 'documents', id: '2', attributes: { publish_start: null } } } });
    });
  });

  describe('DefaultValuesTest', () => {
    const rows: [string, Record<string, unknown>, string, Record<string, unknown>, boolean][] = [
      ['files on', { status: 'on' }, 'files', { title: 'My File', media_property: true }, true],
      ['files draft', { status: 'draft' }, 'files', { title: 'My File', media_property: false }, false],
      ['folders description', { description: 'some text' }, 'folders', { title: 'My Folder' }, true],
      ['locations country', { country_name: 'Italy' }, 'locations', { title: 'My Location' }, true],
    ];
    for (const [name, expected, type, attributes, configured] of rows) {
      test(`testCreate [${name}]`, { skip: configured ? BEDITA_CONFIG('DefaultValues') : false }, async () => {
        const res = await s.request('POST', `/${type}`, { token: fx.admin, body: { data: { type, attributes } } });
        assert.equal(res.status, 201, res.text);
        assert.equal(res.headers.get('location'), `${s.url}/${type}/${res.body.data.id}`);
        for (const [field, value] of Object.entries(expected)) assert.equal(res.body.data.attributes[field], value, field);
      });
    }
  });

  describe('MetadataTest', () => {
    const rows: [string, number, string, Record<string, unknown>][] = [
      ['documents', 2, 'documents', { title: `My new title is: ${crypto.randomUUID()}` }],
      ['locations with own field', 8, 'locations', { locality: `My new locality is: ${crypto.randomUUID()}` }],
      ['locations with core field', 8, 'locations', { title: `My new title is: ${crypto.randomUUID()}` }],
      ['users with core field', 1, 'users', { title: `My new title is: ${crypto.randomUUID()}` }],
    ];
    for (const [name, id, type, attributes] of rows) {
      const skip = type === 'users' ? 'the contract decides otherwise: users are changed by admins (and each user its own account), so second user may not change user 1' : false;
      test(`testLastModified [${name}]`, { skip }, async () => {
        const res = await s.request('PATCH', `/${type}/${id}`, { token: fx.secondUser, body: { data: { id: String(id), type, attributes } } });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
        assert.ok(Math.abs(Date.parse(res.body.data.meta.modified) - Date.now()) < 5000, '`modified` field updated');
        assert.equal(res.body.data.meta.modified_by, 5);
      });
    }
  });

  describe('FieldsQueryStringTest', () => {
    const rows: [string, string, string[], string[]][] = [
      ['simple', '/documents?fields=title', ['title'], []],
      ['multi', '/roles?fields=name,created', ['name'], ['created']],
      ['none', '/users?fields[users]=gustavo', [], ['external_auth']],
      ['single', '/users/1?fields=username', ['username'], ['external_auth']],
      ['meta', '/roles/1?fields=unchangeable', [], ['unchangeable']],
      ['sparse', '/roles?fields[roles]=name', ['name'], []],
    ];
    for (const [name, url, attributes, meta] of rows) {
      // /users and /roles are for admins here (the contract): those rows read as the admin.
      test(`testFields [${name}]`, async () => {
        const res = await get(url, /^\/(users|roles)/.test(url) ? fx.admin : undefined);
        assert.equal(res.status, 200, res.text);
        const items: { attributes?: object; meta?: object }[] = Array.isArray(res.body.data) ? res.body.data : [res.body.data];
        assert.ok(items.length > 0);
        for (const item of items) {
          assert.deepEqual(Object.keys(item.attributes ?? {}), attributes);
          assert.deepEqual(Object.keys(item.meta ?? {}), meta);
        }
      });
    }
  });

  describe('CountQueryStringTest', () => {
    const rows: [string, Record<string, number>, string][] = [
      ['empty', {}, ''],
      ['one rel', { test: 2 }, 'test'],
      ['two rel', { test: 2, inverse_test: 0 }, 'test,inverse_test'],
      ['exclude invalid rel', { test: 2, inverse_test: 0 }, 'test,inverse_test,gustavo'],
      ['all rel', { test: 2, inverse_test: 0 }, 'all'],
    ];
    for (const [name, expected, count] of rows) {
      test(`testCountSingle [${name}]`, async () => {
        const res = await get(`/documents/2?count=${count}`);
        assert.equal(res.status, 200, res.text);
        const counts = Object.fromEntries(
          Object.entries(res.body.data.relationships as Record<string, { meta?: { count?: number } }>)
            .filter(([, r]) => r.meta?.count !== undefined)
            .map(([k, r]) => [k, r.meta!.count]),
        );
        if (!count) return assert.deepEqual(counts, {});
        const asked = count === 'all' ? ['test', 'inverse_test'] : count.split(',');
        for (const c of asked) assert.equal(counts[c], expected[c], c);
      });
    }
    test('testCountInclude', async () => {
      const res = await get('/documents?include=test&count=all');
      assert.equal(res.status, 200, res.text);
      for (const d of res.body.data) {
        assert.equal(typeof d.relationships.test.meta?.count, 'number');
        assert.equal(typeof d.relationships.inverse_test.meta?.count, 'number');
      }
      assert.ok(res.body.included?.length);
      for (const d of res.body.included) {
        if (d.type === 'documents') assert.equal(typeof d.relationships.test.meta?.count, 'number');
        assert.equal(typeof d.relationships.inverse_test.meta?.count, 'number');
      }
    });
  });

  describe('I18nTest', () => {
    test('testWrongLang', { skip: BEDITA_CONFIG('I18n.languages to English only') }, () => {});
    const rows: [string, string, string[]][] = [
      ['document 2 fr', '/documents/2?lang=fr', ['2']],
      ['profiles 4 related', '/profiles/4/inverse_test?lang=fr', ['2']],
    ];
    for (const [name, url, expected] of rows) {
      test(`testLang [${name}]`, async () => {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
        assert.deepEqual((res.body.included ?? []).map((i: { id: string }) => i.id), expected);
      });
    }
  });

  describe('SortQueryStringTest', () => {
    const rows: [string, number, string, string][] = [
      ['simpleObject', 200, '/documents', 'title'],
      ['usersSortByObjectsField', 200, '/users', 'title'],
      ['usersSortByProfilesField', 200, '/users', 'email'],
      ['notValidField', 400, '/users', 'not_valid_field'],
      ['roles', 200, '/roles', 'name'],
      ['eventsSpecialSort', 200, '/events', 'date_ranges_max_end_date'],
    ];
    for (const [name, expected, endpoint, sort] of rows) {
      // The contract keeps /users and /roles for admins: those rows read as the admin.
      test(`testSort [${name}]`, async () => {
        const token = endpoint === '/users' || endpoint === '/roles' ? fx.admin : undefined;
        const asc = await get(`${endpoint}?sort=${sort}`, token);
        assert.equal(asc.status, expected, asc.text);
        if (expected !== 200) {
          assert.equal((await get(`${endpoint}?sort=-${sort}`, token)).status, expected);
          return;
        }
        const values = (body: { data: { attributes: Record<string, unknown> }[] }) => body.data.map((d) => d.attributes[sort]).filter((v) => v !== undefined);
        const up = values(asc.body);
        assert.deepEqual(up, [...up].sort());
        const desc = await get(`${endpoint}?sort=-${sort}`, token);
        assert.equal(desc.status, 200, desc.text);
        assert.deepEqual(values(desc.body), [...up].sort().reverse());
      });
    }
  });
});
