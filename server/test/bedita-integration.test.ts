// BEdita 5's API integration tests (bedita/bedita 5-salix,
// plugins/BEdita/API/tests/IntegrationTest), replayed over HTTP against Folio on BEdita's own
// fixture data (helpers/bedita-fixtures.ts): one test per BEdita test method and data row, named
// `<File>::<method> [<row>]`, asserting what BEdita's test asserts. BEdita's tests send
// `configRequestHeaders()`: its application's API key and no user, in a test bootstrap without
// `Status.level`, so that client sees every status; Folio shows drafts only to readers with `read`
// on the type, so those reads are made as the admin here — and rows that set `Status.level: on`
// read as an anonymous client, which sees `on` objects only. `authHeader()` ones sign in as the
// admin, `getUserAuthHeader('second user', …)` as object 5. A row is skipped only where it needs BEdita-only
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
  /** A read as BEdita's test client (see above): the admin by default. */
  const get = (path: string, token: string | null = fx.admin) => s.request('GET', path, token ? { token } : {});
  const anonymous = (path: string) => get(path, null);
  const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id).sort((a, b) => Number(a) - Number(b));

  /** Every BEdita test file starts from its fixtures (BEdita reloads them): a server of its own. */
  const fixtures = (env: Record<string, string> = {}) => {
    before(async () => {
      s = await startServer(env);
      fx = await seedBEditaFixtures(s);
    });
    after(() => s?.close());
  };

  describe('StatusLevelTest', () => {
    fixtures();
    // [name, expected ids, Status.level, url]
    const lists: [string, string[], string | null, string][] = [
      ['on docs', ['2'], 'on', '/documents'],
      ['all docs', ['2', '3'], 'draft', '/documents'],
      ['all docs 2', ['2', '3'], null, '/documents'],
      ['status filter off', [], 'on', '/documents?filter[status]=off'],
      ['status filter draft', ['3'], 'draft', '/documents?filter[status]=draft'],
    ];
    for (const [name, expected, level, url] of lists) {
      // `Status.level: on` is what Folio's anonymous clients see; `draft` (or none: every status)
      // is what a reader with `read` sees, and no document is `off`.
      test(`testListObjects [${name}]`, async () => {
        const res = level === 'on' ? await anonymous(url) : await get(url);
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
        name === 'related with lang'
            ? "the contract decides otherwise: nothing under an object the caller may not read is shown (404), and anonymous clients read `on` objects only; BEdita lists a draft's related objects"
            : false;
      test(`testSingleObject [${name}]`, { skip }, async () => {
        const res = level === 'on' ? await anonymous(url) : await get(url);
        assert.equal(res.status, expected, res.text);
      });
    }
  });

  describe('PublishStartEndTest', () => {
    fixtures();
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
      // `on` for the row and read anonymously (readers with `read` see every window), so that only
      // its window decides, as Publish.checkDate makes BEdita do.
      test(`testSingleObject [${name}]`, { skip: checkDate ? false : `${BEDITA_CONFIG('Publish.checkDate to false')}; Folio always applies windows` }, async () => {
        const patch = await s.request('PATCH', '/documents/3', { token: fx.admin, body: { data: { type: 'documents', id: '3', attributes: { status: 'on', ...window } } } });
        assert.equal(patch.status, 200, patch.text);
        try {
          assert.equal((await anonymous('/documents/3')).status, expected);
        } finally {
          const back = await s.request('PATCH', '/documents/3', { token: fx.admin, body: { data: { type: 'documents', id: '3', attributes: { status: 'draft', publish_start: null, publish_end: null } } } });
          assert.equal(back.status, 200, back.text);
        }
      });
    }
  });

  describe('UniqueNameTest', () => {
    fixtures();
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
    fixtures();
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
    fixtures();
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
      assert.equal((await get('/documents/2')).body.data.attributes.publish_start, '2018-08-02T14:23:23+00:00');
      await s.request('PATCH', '/documents/2', { token: fx.admin, body: { data: { type: 'documents', id: '2', attributes: { publish_start: null } } } });
    });
  });

  describe('DefaultValuesTest', () => {
    fixtures();
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
    fixtures();
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
    fixtures();
    const rows: [string, string, string[], string[]][] = [
      ['simple', '/documents?fields=title', ['title'], []],
      ['multi', '/roles?fields=name,created', ['name'], ['created']],
      ['none', '/users?fields[users]=gustavo', [], ['external_auth']],
      ['single', '/users/1?fields=username', ['username'], ['external_auth']],
      ['meta', '/roles/1?fields=unchangeable', [], ['unchangeable']],
      ['sparse', '/roles?fields[roles]=name', ['name'], []],
    ];
    for (const [name, url, attributes, meta] of rows) {
      test(`testFields [${name}]`, async () => {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        const items: { attributes?: object; meta?: object }[] = Array.isArray(res.body.data) ? res.body.data : [res.body.data];
        assert.ok(items.length > 0, 'the list has items');
        for (const item of items) {
          assert.deepEqual(Object.keys(item.attributes ?? {}), attributes);
          assert.deepEqual(Object.keys(item.meta ?? {}), meta);
        }
      });
    }
  });

  describe('CountQueryStringTest', () => {
    fixtures();
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
      assert.ok(res.body.included?.length, 'included holds the related objects');
      for (const d of res.body.included) {
        if (d.type === 'documents') assert.equal(typeof d.relationships.test.meta?.count, 'number');
        assert.equal(typeof d.relationships.inverse_test.meta?.count, 'number');
      }
    });
  });

  describe('I18nTest', () => {
    fixtures();
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

  describe('FilterQueryStringTest', () => {
    fixtures();
    const expectIds = async (url: string, expected: string[], token: string | null = fx.admin) => {
      const res = await get(url, token);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(
        res.body.data.map((d: { id: string }) => d.id),
        expected,
      );
    };
    const dates: [string, string, number][] = [
      ['simple', 'filter[date_ranges][start_date][gt]=2017-01-01', 1],
      ['simple 2', 'filter[date_ranges][from_date]=2017-01-01T14:00:00', 1],
      ['simple 3', 'filter[date_ranges][from_date]=2017-03-08T21:41:00', 0],
      ['none', 'filter[date_ranges][end_date][le]=2017-01-01', 0],
      ['none 2', 'filter[date_ranges][to_date]=2017-01-01', 0],
      ['combined', 'filter[date_ranges][start_date][gt]=2017-01-01&filter[date_ranges][end_date][lt]=2017-04-01', 1],
      ['absurd', 'filter[date_ranges][start_date][ge]=2018-01-01&filter[date_ranges][end_date][le]=2017-01-01', 0],
    ];
    for (const [name, query, count] of dates) {
      test(`testFilterDate [${name}]`, async () => {
        const res = await get(`/events?${query}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.length, count);
      });
    }
    for (const [name, query] of [
      ['simple', 'filter[geo][center][]=44.4944183&filter[geo][center][]=11.3464055'],
      ['array', 'filter[geo][center]=44.4944183,11.3464055'],
    ]) {
      test(`testFilterGeo [${name}]`, async () => {
        const res = await get(`/locations?${query}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          res.body.data.map((d: { meta: { extra?: { distance?: number } } }) => d.meta.extra?.distance),
          [0],
        );
      });
    }
    test('testBadFilter [simple]', {
      skip: "the contract decides otherwise: every Folio object may carry geo tags (the legacy layout's geo_tags), so a geo filter on /documents is answered; BEdita's only geo field is locations' coords",
    }, () => {});
    for (const [name, query, endpoint] of [
      ['bad', 'filter[cool_filter]=top', '/events'],
      ['banana', 'filter[geo][banana]=44.4944183,11.3464055', '/locations'],
      ['banana2', 'filter[date_ranges][banana][gt]=2017-01-01', '/events'],
    ]) {
      test(`testBadFilter [${name}]`, async () => {
        const res = await get(`${endpoint}?${query}`);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      });
    }
    const names = (res: { body: { data: { attributes: { name: string } }[] } }) => res.body.data.map((d) => d.attributes.name).sort();
    test('testFindByRelation', async () => {
      const res = await get('/model/object_types?filter[by_relation][name]=test');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(names(res), ['documents', 'profiles']);
    });
    // BEdita's core media types are files and images; Folio's are also audio and videos.
    test('testFindParent', async () => {
      const res = await get('/model/object_types?filter[parent]=media');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(names(res), ['audio', 'files', 'images', 'videos']);
    });
    // Model resources have Folio's own ids: those rows compare names (BEdita's ids in comments).
    const search: [string, string, string[]][] = [
      ['here', '/objects?filter[query]=here', ['2', '3', '9', '10', '14']],
      ['locations', '/locations?filter[query]=bologna', ['8']],
      ['users', '/users?filter[query]=second', ['5']],
      ['filter role id', '/users?filter[roles]=1', ['1']],
      ['filter roles ids', '/users?filter[roles][]=1&filter[roles][]=2', ['1', '5']],
      // BEdita's role 1 is "first role", Folio's is "admin"; BEdita's "second role" is second_role.
      ['role name', '/users?filter[roles]=admin', ['1']],
      ['role name (multiple)', '/users?filter[roles]=admin,second_role', ['1', '5']],
      ['here2', '/objects?q=here', ['2', '3', '9', '10', '14']],
      ['roles', '/roles?q=admin', ['1']],
      ['translations', '/translations?filter[query]=ici', ['2']],
      ['annotations', '/annotations?q=ipsum', ['1']],
      ['tags', '/model/tags?q=first', ['1']],
    ];
    for (const [name, url, expected] of search) {
      test(`testSearchFilter [${name}]`, () => expectIds(url, expected));
    }
    const searchNames: [string, string, string[]][] = [
      ['object_types', '/model/object_types?filter[query]=profile', ['profiles']], // BEdita: 3
      ['relations', '/model/relations?q=another', ['another_test']], // 2
      ['properties', '/model/properties?filter[query]=another', ['another_birthdate', 'another_description', 'another_email', 'another_surname', 'another_title', 'another_username']], // 1…6
      ['categories', '/model/categories?filter[query]=second', ['second-cat']], // 2
    ];
    for (const [name, url, expected] of searchNames) {
      test(`testSearchFilter [${name}]`, async () => {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(names(res), expected);
      });
    }
    const types: [string, string, string[]][] = [
      ['simple', 'filter[type]=users', ['1', '5']],
      ['exclude', 'filter[type][ne]=documents', ['1', '4', '5', '8', '9', '10', '11', '12', '13', '14', '16', '17', '18']],
      ['multi', 'filter[type][]=events&filter[type][]=locations', ['8', '9']],
    ];
    for (const [name, query, expected] of types) {
      test(`testTypeFilter [${name}]`, () => expectIds(`/objects?${query}`, expected));
    }
    const fieldRows: [string, string, string, string[]][] = [
      ['simple', '/objects', 'filter[uname]=title-one', ['2']],
      ['users', '/users', 'filter[email]=second.user@example.com', ['5']],
      ['status', '/documents', 'filter[status]=off', []],
      ['emptyRoles', '/roles', 'filter[name]=gustavo', []],
      ['profileNameNull', '/profiles', 'filter[name][null]=1', []],
      ['profileNameNotNull', '/profiles', 'filter[name][null]=0', ['4']],
    ];
    for (const [name, endpoint, query, expected] of fieldRows) {
      test(`testFieldsFilter [${name}]`, () => expectIds(`${endpoint}?${query}`, expected));
    }
    test('testFieldsFilter [boolean]', async () => {
      const res = await get('/model/object_types?filter[is_abstract]=true');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(names(res), ['media', 'objects']); // BEdita: 1, 8
    });
    test('testFieldsFilter [config name]', async () => {
      const res = await get('/config?filter[name]=appVal');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(names(res), ['appVal']); // BEdita: 11
    });
    test('testMineFilter', { skip: 'the contract decides otherwise: /users is for admins (each user reads its own account at /auth/user)' }, () => {});
    test('testHistoryEditorFilter', async () => {
      await expectIds('/documents?filter[history_editor]', ['2'], fx.secondUser);
      // The value is an editor's id, as in BEdita (HistoryBehavior::findHistoryEditor): user 1.
      // BEdita's HistoryFixture has user 1 create object 2 only; here the admin made every
      // fixture through the API, so its history holds documents 2 and 3.
      await expectIds('/documents?filter[history_editor]=1', ['2', '3'], fx.secondUser);
    });
    const trash: [string, string, string[]][] = [
      ['simple', 'filter[type]=documents', ['6', '7', '15']],
      ['exclude', 'filter[type][ne]=documents', []],
      ['query1', 'filter[query]=one', ['6']],
      ['query2', 'q=two', ['7']],
    ];
    for (const [name, query, expected] of trash) {
      // BEdita's fixture 15 is deleted too but locked, which its trash leaves out; Folio has no locks.
      test(`testTrashFilter [${name}]`, async () => {
        const res = await get(`/trash?${query}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(ids(res.body), expected);
      });
    }
    const tree: [string, string, string, string[]][] = [
      ['root parent', '/objects', 'filter[parent]=root-folder', ['12', '2']],
      ['root ancestor', '/objects', 'filter[ancestor]=root-folder', ['2', '4', '12']],
      ['documents', '/documents', 'filter[ancestor]=11', ['2']],
      ['folders', '/folders', 'filter[parent]=11', ['12']],
    ];
    for (const [name, endpoint, query, expected] of tree) {
      test(`testParentAncestorFilter [${name}]`, () => expectIds(`${endpoint}?${query}`, expected));
    }
    test('testRootsFilter', () => expectIds('/folders?filter[roots]', ['11', '13']));
    const terms: [string, string, string, string[]][] = [
      ['categories', '/documents', 'filter[categories]=first-cat', ['2']],
      ['two cats', '/documents', 'filter[categories]=first-cat,second-cat', ['2']],
      ['disabled', '/documents', 'filter[categories]=disabled-cat', []],
      ['tags', '/profiles', 'filter[tags]=first-tag', ['4']],
    ];
    for (const [name, endpoint, query, expected] of terms) {
      test(`testCategoriesTags [${name}]`, () => expectIds(`${endpoint}?${query}`, expected));
    }
    test('testCategoriesTypeFilter', async () => {
      assert.equal((await get('/model/categories?filter[type]=documents')).body.data.length, 4);
      assert.equal((await get('/model/categories?filter[type]=locations')).body.data.length, 0);
    });
    test('testRelatedFilter [test]', () => expectIds('/documents?filter[test]=4', ['2', '3']));
    test('testRelatedFilter [inverse_another_test]', () => expectIds('/locations?filter[inverse_another_test]=1', ['8']));
    // Last: it adds a user. BEdita makes users without a password; Folio needs one.
    test('testSearchUsername', async () => {
      const res = await s.request('POST', '/users', { token: fx.admin, body: { data: { type: 'users', attributes: { username: 'gustavo', password: 'gustavo-secret-1' } } } });
      assert.equal(res.status, 201, res.text);
      await expectIds('/users?filter[query]=gustavo', [res.body.data.id]);
    });
  });

  // BEdita runs this file on MySQL only (skipUnless Mysql); Folio answers it on both its engines.
  describe('CustomPropertiesFilterTest', () => {
    fixtures();
    const rows: [string, string[], string][] = [
      ['bool true', ['10'], '/files?filter[media_property]=true'],
      ['bool 1', ['10'], '/files?filter[media_property]=1'],
      ['bool false', ['14', '16'], '/files?filter[media_property]=false'],
      ['bool 0', ['14', '16'], '/files?filter[media_property]=0'],
      ['string', ['5'], '/users?filter[another_username]=synapse'],
      ['string no results', [], '/users?filter[another_username]=batman'],
    ];
    for (const [name, expected, url] of rows) {
      test(`testFilter [${name}]`, async () => {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(ids(res.body), expected);
      });
    }
    test('testMultiFilter', async () => {
      const patch = await s.request('PATCH', '/profiles/4', { token: fx.admin, body: { data: { type: 'profiles', id: '4', attributes: { number_of_friends: 10, another_surname: 'Support' } } } });
      assert.equal(patch.status, 200, patch.text);
      const hit = await get('/profiles?filter[number_of_friends]=10&filter[another_surname]=Support');
      assert.equal(hit.status, 200, hit.text);
      assert.deepEqual(ids(hit.body), ['4']);
      const miss = await get('/profiles?filter[number_of_friends]=11&filter[another_surname]=Support');
      assert.equal(miss.status, 200, miss.text);
      assert.deepEqual(ids(miss.body), []);
    });
  });

  describe('NewObjectTypesTest', () => {
    fixtures();
    const rows: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['cats', { name: 'cats', singular: 'cat' }, { description: 'another cat' }],
      ['songs', { name: 'songs', singular: 'song', table: 'BEdita/Core.Media', parent_name: 'media' }, { description: 'a new song', media_property: true }],
    ];
    for (const [name, typeData, attributes] of rows) {
      test(`testNewTypes [${name}]`, async () => {
        const type = String(typeData.name);
        const created = await s.request('POST', '/model/object_types', { token: fx.admin, body: { data: { type: 'object_types', attributes: typeData } } });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.headers.get('content-type'), 'application/vnd.api+json');
        const object = await s.request('POST', `/${type}`, { token: fx.admin, body: { data: { type, attributes } } });
        assert.equal(object.status, 201, object.text);
        const id = object.body.data.id;
        for (const path of [`/${type}/${id}`, `/${String(typeData.parent_name ?? 'objects')}/${id}`]) {
          const view = await get(path);
          assert.equal(view.status, 200, view.text);
          for (const [field, value] of Object.entries(attributes)) assert.deepEqual(view.body.data.attributes[field], value, `${path} ${field}`);
        }
        const del = await s.request('DELETE', `/${type}/${id}`, { token: fx.admin });
        assert.equal(del.status, 204, del.text);
        assert.equal(del.text, '');
        const purge = await s.request('DELETE', `/trash/${id}`, { token: fx.admin });
        assert.equal(purge.status, 204, purge.text);
        const drop = await s.request('DELETE', `/model/object_types/${type}`, { token: fx.admin });
        assert.equal(drop.status, 204, drop.text);
        assert.equal(drop.text, '');
      });
    }
  });

  describe('MarshallInheritedPropertiesTest', () => {
    fixtures();
    const rows: [string, string, string | null][] = [
      ['date', '2018-02-20 00:00:00', '2018-02-20T00:00:00+00:00'],
      ['emptyDate', '', null],
    ];
    for (const [name, publishStart, expected] of rows) {
      test(`testMarshall [${name}]`, async () => {
        // BEdita's row makes user "ovatsug" twice (each test on fresh fixtures): one per row here.
        const username = `ovatsug-${name}`;
        const res = await s.request('POST', '/users', { token: fx.admin, body: { data: { type: 'users', attributes: { username, password: 'anonymous', publish_start: publishStart } } } });
        assert.equal(res.status, 201, res.text);
        assert.equal((await get(`/users/${res.body.data.id}`)).body.data.attributes.publish_start, expected);
      });
    }
  });

  describe('ChildrenRelationshipTest', () => {
    fixtures();
    const childrenIds = async (folder: number) => (await get(`/folders/${folder}/children`)).body.data.map((d: { id: string }) => d.id);
    const newDocuments = async (n: number) => {
      const out: { type: string; id: string }[] = [];
      for (let i = 1; i <= n; i++) {
        const res = await s.request('POST', '/documents', { token: fx.admin, body: { data: { type: 'documents', attributes: { title: `Doc ${i} here`, description: `Document ${i}` } } } });
        assert.equal(res.status, 201, res.text);
        out.push({ type: 'documents', id: res.body.data.id });
      }
      return out;
    };
    test('testMoveChildrenToCustomPosition', async () => {
      const docs = await newDocuments(3);
      const add = await s.request('POST', '/folders/13/relationships/children', { token: fx.admin, body: { data: docs } });
      assert.equal(add.status, 200, add.text);
      assert.deepEqual(await childrenIds(13), docs.map((d) => d.id));
      const positions = [3, 1, 2];
      const move = await s.request('PATCH', '/folders/13/relationships/children', {
        token: fx.admin,
        body: { data: docs.map((d, i) => ({ ...d, meta: { relation: { position: positions[i] } } })) },
      });
      assert.equal(move.status, 200, move.text);
      assert.equal(move.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(await childrenIds(13), [docs[1].id, docs[2].id, docs[0].id]);
    });
    // BEdita's meta.relation holds exactly these four; the contract adds `position`.
    test('testChildrenMeta', async () => {
      const res = await get('/folders/12/children');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 1);
      const relation = res.body.data[0].meta.relation;
      assert.deepEqual({ depth_level: relation.depth_level, menu: relation.menu, canonical: relation.canonical, params: relation.params }, { depth_level: 2, menu: true, canonical: true, params: null });
    });
    test('testTreeParams', { skip: BEDITA_CONFIG('ChildrenParams (the JSON Schema of tree params)') }, () => {});
  });

  describe('DeleteFolderTest', () => {
    fixtures();
    test('testRestoreFolder', async () => {
      const before = await get('/folders/11/children');
      assert.equal(before.status, 200, before.text);
      assert.ok(before.body.data.length, 'folder 11 has children');
      const del = await s.request('DELETE', '/folders/11', { token: fx.admin });
      assert.equal(del.status, 204, del.text);
      assert.equal(del.text, '');
      for (const child of before.body.data as { id: string; type: string }[]) {
        const read = await get(`/${child.type}/${child.id}`);
        if (child.type !== 'folders') {
          assert.equal(read.status, 200, read.text);
          continue;
        }
        assert.equal(read.status, 404, read.text);
        // A sub-folder of a folder in the trash cannot come back alone (BEdita: isFolderRestorable).
        const restore = await s.request('PATCH', `/trash/${child.id}`, { token: fx.admin, body: { data: { id: child.id, type: 'folders' } } });
        assert.equal(restore.status, 400, restore.text);
        assert.ok(restore.body.error.detail, 'the error says why');
      }
      const restore = await s.request('PATCH', '/trash/11', { token: fx.admin, body: { data: { id: '11', type: 'folders' } } });
      assert.equal(restore.status, 204, restore.text);
      assert.equal(restore.text, '');
      const after = await get('/folders/11/children');
      assert.equal(after.status, 200, after.text);
      assert.deepEqual(
        after.body.data.map((d: { id: string }) => d.id),
        before.body.data.map((d: { id: string }) => d.id),
      );
    });
  });

  describe('ParentsRelationshipTest', () => {
    fixtures();
    const parentIds = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      return res.body.data.map((d: { id: string }) => d.id).sort((a: string, b: string) => Number(a) - Number(b));
    };
    const relationOf = (meta: Record<string, unknown>) => ({ depth_level: meta.depth_level, menu: meta.menu, canonical: meta.canonical, params: meta.params });
    test('testParents', async () => {
      const doc = await s.request('POST', '/documents', { token: fx.admin, body: { data: { type: 'documents', attributes: { title: 'Doc here', description: 'Please put me on tree' } } } });
      assert.equal(doc.status, 201, doc.text);
      const id = doc.body.data.id;
      const rel = `/documents/${id}/relationships/parents`;
      let data = ['11', '12', '13'].map((f) => ({ type: 'folders', id: f }));
      const post = await s.request('POST', rel, { token: fx.admin, body: { data } });
      assert.equal(post.status, 200, post.text);
      assert.deepEqual(await parentIds(`/documents/${id}/parents`), ['11', '12', '13']);
      data = data.slice(0, 2);
      const patch = await s.request('PATCH', rel, { token: fx.admin, body: { data } });
      assert.equal(patch.status, 200, patch.text);
      assert.deepEqual(await parentIds(`/documents/${id}/parents`), ['11', '12']);
      const del = await s.request('DELETE', rel, { token: fx.admin, body: { data } });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(await parentIds(`/documents/${id}/parents`), []);
    });
    test('testNotAllowedResourceType', async () => {
      const res = await s.request('POST', '/documents/2/relationships/parents', { token: fx.admin, body: { data: [{ type: 'profiles', id: '4' }] } });
      // BEdita's title is "Unsupported resource type"; Folio's titles are the status's name, its
      // code says why.
      assert.equal(res.status, 409, res.text);
      assert.ok(res.body.error.code, res.text);
    });
    test('testDeletedParent', async () => {
      const del = await s.request('DELETE', '/folders/12', { token: fx.admin });
      assert.equal(del.status, 204, del.text);
      try {
        assert.deepEqual(await parentIds('/profiles/4/parents'), []);
      } finally {
        assert.equal((await s.request('PATCH', '/trash/12', { token: fx.admin, body: { data: { type: 'folders', id: '12' } } })).status, 204);
      }
    });
    test('testIncludeParents', async () => {
      const res = await get('/documents/2?include=parents');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((res.body.included ?? []).map((i: { id: string }) => i.id), ['11']);
    });
    test('testSetParentPosition', async () => {
      const res = await s.request('POST', '/documents/2/relationships/parents', { token: fx.admin, body: { data: [{ id: '12', type: 'folders', meta: { relation: { position: 1 } } }] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await get('/folders/12/children')).body.data.map((d: { id: string }) => d.id), ['2', '4']);
      const back = await s.request('DELETE', '/documents/2/relationships/parents', { token: fx.admin, body: { data: [{ id: '12', type: 'folders' }] } });
      assert.equal(back.status, 200, back.text);
    });
    const invalid: [string, unknown][] = [
      ['zero', 0],
      ['invalid string', 'gustavo'],
      ['empty', ''],
    ];
    for (const [name, position] of invalid) {
      // BEdita: 400 "Invalid data", "[position.notEquals]…" / "[position.inList]…" / "[position._empty]…".
      test(`testSetParentPositionInvalid [${name}]`, async () => {
        const res = await s.request('POST', '/documents/2/relationships/parents', { token: fx.admin, body: { data: [{ id: '12', type: 'folders', meta: { relation: { position } } }] } });
        assert.equal(res.status, 400, res.text);
        assert.match(res.body.error.detail, /position/);
        assert.deepEqual((await get('/folders/12/children')).body.data.map((d: { id: string }) => d.id), ['4']);
      });
    }
    test('testParentsMeta', async () => {
      const parents = await get('/profiles/4/parents');
      assert.equal(parents.status, 200, parents.text);
      assert.equal(parents.body.data.length, 1);
      assert.deepEqual(relationOf(parents.body.data[0].meta.relation), { depth_level: 2, menu: true, canonical: true, params: null });
      const parent = await get('/folders/12/parent');
      assert.equal(parent.status, 200, parent.text);
      assert.equal(parent.body.data.id, '11');
      assert.deepEqual(relationOf(parent.body.data.meta.relation), { depth_level: 1, menu: true, canonical: true, params: null });
    });
  });

  describe('RelationshipsPriorityTest', () => {
    fixtures();
    const rows: [string, { priority: number; inv_priority: number }[], string, { id: string; type: string; meta?: unknown }[], string][] = [
      ['ok', [{ priority: 1, inv_priority: 1 }], '/events/9/relationships/test_abstract', [{ id: '10', type: 'files' }], '/events/9/test_abstract'],
      ['inverse', [{ priority: 3, inv_priority: 2 }], '/documents/3/relationships/inverse_test', [{ id: '2', type: 'documents', meta: { relation: { priority: 3 } } }], '/documents/3/inverse_test'],
    ];
    for (const [name, expected, save, data, read] of rows) {
      const skip =
        name === 'inverse'
          ? "Folio decides otherwise (decisions.md, BEdita compatibility): a link written again from its other side with only `priority` keeps its place on the first side (inv_priority stays 1); BEdita's PriorityBehavior moves it last there (2)"
          : false;
      test(`testPriority [${name}]`, { skip }, async () => {
        const res = await s.request('POST', save, { token: fx.admin, body: { data } });
        assert.equal(res.status, 200, res.text);
        const list = await get(read);
        assert.equal(list.status, 200, list.text);
        const byId = new Map<string, { priority: number; inv_priority: number }>(list.body.data.map((d: { id: string; meta: { relation: { priority: number; inv_priority: number } } }) => [d.id, d.meta.relation]));
        assert.deepEqual(
          data.map((d) => ({ priority: byId.get(d.id)?.priority, inv_priority: byId.get(d.id)?.inv_priority })),
          expected,
        );
      });
    }
  });

  describe('RelationshipsParamsTest', () => {
    fixtures();
    const newLocation = async () => {
      const res = await s.request('POST', '/locations', { token: fx.admin, body: { data: { type: 'locations', attributes: { title: 'Another location' } } } });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    /** The `another_test` relations of user 1 (a reader's view: id → meta.relation). */
    const related = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, res.text);
      return new Map<string, { params?: unknown; priority?: number }>(res.body.data.map((d: { id: string; meta: { relation: object } }) => [d.id, d.meta.relation]));
    };
    test('testOk', async () => {
      const params = { name: 'Gustavo', age: 42 };
      const location = await newLocation();
      assert.equal((await related('/users/1/another_test')).has(location), false);
      const res = await s.request('POST', '/users/1/relationships/another_test', { token: fx.admin, body: { data: [{ id: location, type: 'locations', meta: { relation: { params } } }] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await related('/users/1/another_test')).get(location)?.params, params);
    });
    const invalid: [string, unknown, string][] = [
      ['POST, not an object', 'this is an invalid parameter data', 'POST'],
      ['POST, missing required property', { age: 42 }, 'POST'],
      ['POST, violated constraints', { name: true }, 'POST'],
      ['PATCH, not an object', 'this is an invalid parameter data', 'PATCH'],
      ['PATCH, missing required property', { age: 42 }, 'PATCH'],
      ['PATCH, violated constraints', { name: true }, 'PATCH'],
    ];
    for (const [name, params, method] of invalid) {
      // BEdita's details: "[params.valid]: Object expected…", "…Required property missing: name",
      // "…String expected, true received"; Folio's name the params of the relation.
      test(`testInvalidParams [${name}]`, async () => {
        const location = await newLocation();
        const before = await related('/users/1/another_test');
        const res = await s.request(method, '/users/1/relationships/another_test', { token: fx.admin, body: { data: [{ id: location, type: 'locations', meta: { relation: { params } } }] } });
        assert.equal(res.status, 400, res.text);
        assert.match(res.body.error.detail, /params/);
        assert.deepEqual([...(await related('/users/1/another_test')).keys()], [...before.keys()]);
      });
    }
    test('testUpdateParamsNotRequired', async () => {
      // The first object relation of a relation with params: 2 -test_simple-> 4 ({name: John}).
      const set = await s.request('POST', '/documents/2/relationships/test_simple', { token: fx.admin, body: { data: [{ id: '4', type: 'profiles', meta: { relation: { params: { name: 'Gustavo' } } } }] } });
      assert.equal(set.status, 200, set.text);
      const current = (await related('/documents/2/test_simple')).get('4')!;
      const res = await s.request('POST', '/documents/2/relationships/test_simple', { token: fx.admin, body: { data: [{ id: '4', type: 'profiles', meta: { relation: { priority: (current.priority ?? 0) + 1 } } }] } });
      assert.ok(res.status >= 200 && res.status < 300, res.text);
      const after = (await related('/documents/2/test_simple')).get('4')!;
      assert.equal(after.priority, (current.priority ?? 0) + 1);
      assert.deepEqual(after.params, { name: 'Gustavo' });
    });
    test('testOkNoParams', async () => {
      const relation = (await get('/model/relations/another_test')).body.data;
      const patch = await s.request('PATCH', `/model/relations/${relation.id}`, {
        token: fx.admin,
        body: { data: { type: 'relations', id: relation.id, attributes: { params: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } } } } } },
      });
      assert.equal(patch.status, 200, patch.text);
      const location = await newLocation();
      const res = await s.request('POST', '/users/1/relationships/another_test', { token: fx.admin, body: { data: [{ id: location, type: 'locations' }] } });
      assert.equal(res.status, 200, res.text);
      assert.ok((await related('/users/1/another_test')).has(location), 'the location is related');
    });
    for (const [name, id] of [
      ['testPatch', '5'],
      ['testPatchUname', 'second-user'],
    ]) {
      test(name, async () => {
        const res = await s.request('PATCH', '/locations/8/relationships/inverse_another_test', {
          token: fx.admin,
          body: { data: [{ id, type: 'users', meta: { relation: { params: { name: 'Gustavo' } } } }] },
        });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual([...(await related('/locations/8/inverse_another_test')).keys()], ['5']);
      });
    }
  });

  describe('ExceptionRendererTest', () => {
    fixtures();
    const rows: [string, number, string, string][] = [
      ['JSON', 200, 'application/json', 'application/json'],
      ['JSON API', 200, 'application/vnd.api+json', 'application/vnd.api+json'],
      ['JSON API (wrong media type)', 415, 'application/vnd.api+json', 'application/vnd.api+json; m=test'],
    ];
    for (const [name, code, contentType, accept] of rows) {
      const skip = name === 'JSON API (wrong media type)' ? 'the contract decides otherwise: a JSON API Accept with parameters is 406 (BEdita answers 415)' : false;
      test(`testContentType [${name}]`, { skip }, async () => {
        const res = await s.request('GET', '/roles', { token: fx.admin, headers: { Accept: accept } });
        assert.equal(res.status, code, res.text);
        // CakePHP's assertContentType compares the media type (no charset).
        assert.equal(res.headers.get('content-type')?.split(';')[0], contentType);
      });
    }
    for (const name of ['JSON (initialize)', 'JSON (beforeRender)', 'JSON API (initialize)', 'JSON API (beforeRender)']) {
      test(`testContentTypeError [${name}]`, { skip: 'PHP internals: the row throws from a CakePHP controller event listener' }, () => {});
    }
    test('testDBFail', { skip: "PHP internals: the test swaps CakePHP's connection for one to a missing database (reliability-* tests cover a failing database)" }, () => {});
  });

  describe('AuthenticationTest', () => {
    fixtures();
    const renew = async (refresh: string) => {
      const res = await s.request('POST', '/auth', { headers: { Authorization: `Bearer ${refresh}`, 'Content-Type': 'application/json' }, raw: JSON.stringify({ grant_type: 'refresh_token' }) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.ok(res.body.meta.jwt && res.body.meta.renew, 'both tokens');
    };
    const rows: [string, Record<string, unknown>, boolean][] = [
      ['client credentials', { grant_type: 'client_credentials' }, false],
      // BEdita's "first user"/"password1" is Folio's admin.
      ['password', { username: 'admin', password: 'admin-secret-1', grant_type: 'password' }, true],
    ];
    for (const [name, data, withKey] of rows) {
      test(`testAuth [${name}]`, async () => {
        const body = name === 'client credentials' ? { ...data, client_id: fx.apiKey } : data;
        const res = await s.request('POST', '/auth', { headers: { 'Content-Type': 'application/json', ...(withKey ? { 'X-Api-Key': fx.apiKey } : {}) }, raw: JSON.stringify(body) });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
        assert.ok(res.body.meta.jwt && res.body.meta.renew, 'both tokens');
        await renew(res.body.meta.renew);
      });
    }
    test('testBadToken', { skip: 'the contract decides otherwise: 401 means "not authenticated", which a refresh token that is none is (BEdita answers 403)' }, async () => {});
    test('testOauth2Flow', async () => {
      // BEdita's application 2 ("abcdef12345" / "topsecretstring"), enabled for the test.
      const enable = await s.request('PATCH', `/admin/applications/${fx.disabledApp.id}`, { token: fx.admin, body: { data: { type: 'applications', id: fx.disabledApp.id, attributes: { enabled: true } } } });
      assert.equal(enable.status, 200, enable.text);
      const { apiKey: api_key, secret: client_secret } = fx.disabledApp;
      const login = await s.request('POST', '/auth', { headers: { 'Content-Type': 'application/json' }, raw: JSON.stringify({ client_id: api_key, client_secret, grant_type: 'client_credentials' }) });
      assert.equal(login.status, 200, login.text);
      const user = await s.request('POST', '/auth', { headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${login.body.meta.jwt}` }, raw: JSON.stringify({ username: 'second.user', password: 'password2', grant_type: 'password' }) });
      assert.equal(user.status, 200, user.text);
      await renew(user.body.meta.renew);
    });
  });

  // BEdita's fixtures enable its uuid auth provider; Folio's uuid logins make accounts, so they
  // are open where signing up is (FOLIO_SIGNUP).
  describe('UuidLoginTest', () => {
    fixtures({ FOLIO_SIGNUP: '1' });
    const uuidLogin = (uuid: string) => ({ headers: { Authorization: `UUID ${uuid}`, 'X-Api-Key': fx.apiKey, 'Content-Type': 'application/json' }, raw: JSON.stringify({ auth_provider: 'uuid' }) });
    test('testLoginUuid', async () => {
      const uuid = crypto.randomUUID();
      const res = await s.request('POST', '/auth', uuidLogin(uuid));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      const payload = JSON.parse(Buffer.from(res.body.meta.jwt.split('.')[1], 'base64url').toString());
      // The same uuid logs the same user in again (BEdita: the external_auth row exists).
      const again = await s.request('POST', '/auth', uuidLogin(uuid));
      assert.equal(again.status, 200, again.text);
      assert.equal(JSON.parse(Buffer.from(again.body.meta.jwt.split('.')[1], 'base64url').toString()).id, payload.id);
    });
    test('testLoginUuidDisabled', async () => {
      // BEdita deletes its uuid provider; here: a server where signing up is off.
      const closed = await startServer();
      try {
        const uuid = crypto.randomUUID();
        const res = await closed.request('POST', '/auth', { headers: { Authorization: `UUID ${uuid}`, 'Content-Type': 'application/json' }, raw: JSON.stringify({ auth_provider: 'uuid' }) });
        assert.equal(res.status, 401, res.text);
        assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
        assert.equal(res.body.meta?.jwt, undefined);
        const users = await closed.request('GET', '/users', { token: await closed.adminToken() });
        assert.deepEqual(users.body.data.map((u: { id: string }) => u.id), ['1']);
      } finally {
        await closed.close();
      }
    });
    test('testAuthUuidFailure', async () => {
      const uuid = crypto.randomUUID();
      const res = await s.request('POST', '/roles', { headers: { Authorization: `UUID ${uuid}`, 'X-Api-Key': fx.apiKey }, body: { data: { type: 'roles', attributes: { name: 'nope' } } } });
      assert.equal(res.status, 401, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      // No account was made for that uuid: logging in with it now makes a new user.
      const users = await get('/users?page_size=100');
      const login = await s.request('POST', '/auth', uuidLogin(uuid));
      assert.equal(login.status, 200, login.text);
      const id = JSON.parse(Buffer.from(login.body.meta.jwt.split('.')[1], 'base64url').toString()).id;
      assert.ok(!users.body.data.some((u: { id: string }) => u.id === String(id)), 'no account was made for the uuid');
    });
  });

  describe('AdminResourcesTest', () => {
    fixtures();
    const rows: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
      ['apps', 'applications', { name: 'new app name', description: 'App desc' }, { description: 'New app desc', enabled: 0 }],
      ['jobs', 'async_jobs', { service: 'dummy' }, { priority: 2 }],
      ['endpoints', 'endpoints', { name: 'dummy' }, { description: 'a new endpoint description' }],
      ['config', 'config', { name: 'TestConf', context: 'test', content: 'Test Configuration' }, { content: 'Another Configuration' }],
    ];
    for (const [name, type, attributes, modified] of rows) {
      test(`testResource [${name}]`, async () => {
        const endpoint = `/admin/${type}`;
        const created = await s.request('POST', endpoint, { token: fx.admin, body: { data: { type, attributes } } });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.headers.get('content-type'), 'application/vnd.api+json');
        const location = created.headers.get('location') ?? '';
        assert.ok(location, 'a Location header');
        const id = location.slice(location.lastIndexOf('/') + 1);
        const view = await get(`${endpoint}/${id}`);
        assert.equal(view.status, 200, view.text);
        const edit = await s.request('PATCH', `${endpoint}/${id}`, { token: fx.admin, body: { data: { id, type, attributes: modified } } });
        assert.equal(edit.status, 200, edit.text);
        assert.equal(edit.headers.get('content-type'), 'application/vnd.api+json');
        const del = await s.request('DELETE', `${endpoint}/${id}`, { token: fx.admin });
        assert.equal(del.status, 204, del.text);
        assert.equal(del.text, '');
      });
    }
    test('testEndpointPermissions', async () => {
      // EndpointsFixture's auth and home, EndpointPermissionsFixture's five rows (with Folio's ids
      // of BEdita's applications 1 and 2 and roles 1 and 2), made through the API.
      const endpointId = async (name: string) => {
        const found = await get(`/admin/endpoints?filter[name]=${name}`);
        if (found.body.data?.length) return Number(found.body.data[0].id);
        const made = await s.request('POST', '/admin/endpoints', { token: fx.admin, body: { data: { type: 'endpoints', attributes: { name, description: `/${name} endpoint` } } } });
        assert.equal(made.status, 201, made.text);
        return Number(made.body.data.id);
      };
      const [auth, home] = [await endpointId('auth'), await endpointId('home')];
      const app1 = Number((await get('/admin/applications?filter[name]=First app')).body.data[0].id);
      const app2 = Number(fx.disabledApp.id);
      const role2 = Number((await get('/roles?filter[name]=second_role')).body.data[0].id);
      const rows: Record<string, unknown>[] = [
        { endpoint_id: null, application_id: null, role_id: null, read: false, write: false },
        { endpoint_id: null, application_id: app1, role_id: null, read: true, write: true },
        { endpoint_id: home, application_id: app2, role_id: 1, read: 'mine', write: 'block' },
        { endpoint_id: home, application_id: app2, role_id: role2, read: false, write: false },
        { endpoint_id: auth, application_id: app2, role_id: role2, read: 'mine', write: false },
      ];
      const ids: string[] = [];
      for (const attributes of rows) {
        const made = await s.request('POST', '/admin/endpoint_permissions', { token: fx.admin, body: { data: { type: 'endpoint_permissions', attributes } } });
        assert.equal(made.status, 201, made.text);
        ids.push(made.body.data.id);
      }
      const res = await get('/admin/endpoint_permissions');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(
        res.body.data.map((d: { id: string; type: string; attributes: object; links: object }) => ({ id: d.id, type: d.type, attributes: d.attributes, links: d.links })),
        rows.map((attributes, i) => ({ id: ids[i], type: 'endpoint_permissions', attributes, links: { self: `${s.url}/admin/endpoint_permissions/${ids[i]}` } })),
      );
    });
  });

  describe('PaginationTest', () => {
    fixtures();
    test('testOptions [default]', async () => {
      const res = await get('/objects?');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual(res.body.meta.pagination, { count: 15, page: 1, page_count: 1, page_items: 15, page_size: 20 });
    });
    for (const name of ['lower', 'low max limit', 'higher', 'increase max', 'too high', 'not too high']) {
      test(`testOptions [${name}]`, { skip: BEDITA_CONFIG('Pagination (limit, maxLimit)') }, () => {});
    }
  });

  describe('TagsCategoriesTest', () => {
    fixtures();
    const firstTag = { name: 'first-tag', labels: { default: 'First tag' }, label: 'First tag' };
    const firstCat = { name: 'first-cat', labels: { default: 'First category' }, params: '100', label: 'First category' };
    const secondCat = { name: 'second-cat', labels: { default: 'Second category' }, params: null, label: 'Second category' };
    const terms = (attributes: Record<string, unknown>, expected: Record<string, unknown>) => {
      for (const item of ['tags', 'categories']) {
        if (expected[item] === undefined) assert.ok(!(item in attributes), `no ${item}`);
        else assert.deepEqual(attributes[item], expected[item], item);
      }
    };
    // Reads of the fixtures first: BEdita reloads them for each test, the writes below change them.
    const model: [string, string[], string][] = [
      ['categories', ['1', '2', '3', '4'], '/model/categories'],
      ['tags', ['1'], '/model/tags'],
      ['single cat', ['2'], '/model/categories/2'],
      ['single tag', ['1'], '/model/tags/1'],
      // BEdita lists its object_categories/object_tags rows (ids 2 and 1); the contract lists the
      // objects: object 2 has category 2, object 4 has tag 1.
      ['obj categories', ['2'], '/model/categories/2/object_categories'],
      ['obj tags', ['4'], '/model/tags/1/object_tags'],
    ];
    for (const [name, expected, url] of model) {
      test(`testModelEndpoints [${name}]`, async () => {
        const res = await get(url);
        assert.equal(res.status, 200, res.text);
        const data = res.body.data;
        if (!Array.isArray(data)) return assert.equal(data.id, expected[0]);
        assert.deepEqual(data.map((d: { id: string }) => d.id).sort(), expected);
      });
    }
    test('testCategoriesModel', async () => {
      const res = await get('/model/categories');
      assert.equal(res.status, 200, res.text);
      const category = (id: string, name: string, label: string, parent_id: number | null, tree_left: number, tree_right: number, enabled: boolean) => ({
        id,
        type: 'categories',
        attributes: { name, labels: { default: label }, parent_id, tree_left, tree_right, enabled, object_type_name: 'documents', label },
      });
      // The contract names a category's object type `type` as well (BEdita: object_type_name only).
      assert.deepEqual(
        res.body.data.map((d: { id: string; type: string; attributes: Record<string, unknown> }) => {
          const { type: _objectType, ...attributes } = d.attributes;
          return { id: d.id, type: d.type, attributes };
        }),
        [
          category('1', 'first-cat', 'First category', null, 1, 2, true),
          category('2', 'second-cat', 'Second category', null, 3, 6, true),
          category('3', 'disabled-cat', 'Disabled category', null, 7, 8, false),
          category('4', 'child-cat-1', 'Child category', 2, 4, 5, true),
        ],
      );
    });
    const creates: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
      ['simple tag', { tags: [firstTag] }, 'profiles', { tags: [{ name: 'first-tag' }] }],
      ['no tag', { categories: [] }, 'documents', { tags: [{ name: 'first-tag' }] }],
      ['second cat', { categories: [secondCat] }, 'documents', { categories: [{ name: 'second-cat' }] }],
      ['nothing', {}, 'locations', { tags: [{ name: 'first-tag' }], categories: [{ name: 'first-cat' }] }],
    ];
    for (const [name, expected, type, attributes] of creates) {
      test(`testCreate [${name}]`, async () => {
        const res = await s.request('POST', `/${type}`, { token: fx.admin, body: { data: { type, attributes } } });
        assert.equal(res.status, 201, res.text);
        const location = res.headers.get('location') ?? '';
        const read = await get(`/${type}/${location.slice(location.lastIndexOf('/') + 1)}`);
        assert.equal(read.status, 200, read.text);
        terms(read.body.data.attributes, expected);
      });
    }
    const updates: [string, Record<string, unknown>, string, string, Record<string, unknown>][] = [
      ['no cat', { tags: [firstTag] }, 'profiles', '4', { categories: [{ name: 'first-cat' }] }],
      ['no tag', { categories: [firstCat, secondCat] }, 'documents', '2', { tags: [{ name: 'first-tag' }] }],
      ['less cat, no tag', { categories: [firstCat] }, 'documents', '2', { categories: [{ name: 'first-cat' }], tags: [{ name: 'first-tag' }] }],
      ['no cat, no tag', {}, 'locations', '8', { categories: [{ name: 'first-cat' }], tags: [{ name: 'first-tag' }] }],
    ];
    for (const [name, expected, type, id, attributes] of updates) {
      test(`testUpdate [${name}]`, async () => {
        const res = await s.request('PATCH', `/${type}/${id}`, { token: fx.admin, body: { data: { type, id, attributes } } });
        assert.equal(res.status, 200, res.text);
        const read = await get(`/${type}/${id}`);
        assert.equal(read.status, 200, read.text);
        terms(read.body.data.attributes, expected);
      });
    }
  });

  describe('AssociatedEntitiesTest', () => {
    fixtures();
    const iso = (d: string) => new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(d) || !d.includes(':') ? d : `${d.replace(' ', 'T')}Z`).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const events: [string, Record<string, unknown>, Record<string, unknown>][] = [
      [
        'moreDates',
        { title: 'My Event', date_ranges: [{ start_date: '2017-04-01T00:00:00+00:00' }, { start_date: '2017-03-01 12:12:12', end_date: '2017-04-01 12:12:12' }] },
        {},
      ],
      ['noDates', { title: 'My Event', date_ranges: [] }, { title: 'Same Event' }],
      [
        'otherDates',
        { title: 'New years eve', date_ranges: [{ start_date: '2017-12-31T23:59:59Z', end_date: '2018-01-01' }] },
        { title: 'Happy new year!', date_ranges: [{ start_date: '2017-03-08T00:00:00+00:00', end_date: '2018-01-02 10:30' }] },
      ],
    ];
    for (const [name, attributes, modified] of events) {
      test(`testEventAssoc [${name}]`, async () => {
        const created = await s.request('POST', '/events', { token: fx.admin, body: { data: { type: 'events', attributes } } });
        assert.equal(created.status, 201, created.text);
        const id = created.body.data.id;
        const view = await get(`/events/${id}`);
        assert.equal(view.status, 200, view.text);
        const expected = [...(attributes.date_ranges as Record<string, string>[])].sort((a, b) => Date.parse(iso(a.start_date)) - Date.parse(iso(b.start_date)));
        const found = view.body.data.attributes.date_ranges as Record<string, string>[];
        assert.equal(found.length, expected.length);
        expected.forEach((range, i) => {
          for (const [k, d] of Object.entries(range)) assert.equal(found[i][k], iso(d), `${k} of range ${i}`);
        });
        const edit = await s.request('PATCH', `/events/${id}`, { token: fx.admin, body: { data: { id, type: 'events', attributes: modified } } });
        assert.equal(edit.status, 200, edit.text);
        assert.equal((await s.request('DELETE', `/events/${id}`, { token: fx.admin })).status, 204);
        assert.equal((await s.request('DELETE', `/trash/${id}`, { token: fx.admin })).status, 204);
      });
    }
    const trashed = async (id: string, check: () => Promise<void>) => {
      assert.equal((await s.request('DELETE', `/documents/${id}`, { token: fx.admin })).status, 204);
      try {
        await check();
      } finally {
        assert.equal((await s.request('PATCH', `/trash/${id}`, { token: fx.admin, body: { data: { type: 'documents', id } } })).status, 204);
      }
    };
    test('testRelatedDeleted', () => trashed('3', async () => assert.equal((await get('/documents/2/test')).body.data.length, 1)));
    test('testIncludedDeleted', () => trashed('3', async () => assert.equal((await get('/documents/2?include=test')).body.included.length, 1)));
    test('testIncludedRelated', async () => {
      const relation = await s.request('POST', '/model/relations', { token: fx.admin, body: { data: { type: 'relations', attributes: { name: 'foos', inverse_name: 'oofs', label: 'Foos', inverse_label: 'Oofs' } } } });
      assert.equal(relation.status, 201, relation.text);
      const id = relation.body.data.id;
      assert.equal((await s.request('POST', `/model/relations/${id}/relationships/left_object_types`, { token: fx.admin, body: { data: [{ type: 'object_types', id: 'documents' }] } })).status, 200);
      assert.equal((await s.request('POST', `/model/relations/${id}/relationships/right_object_types`, { token: fx.admin, body: { data: [{ type: 'object_types', id: 'locations' }] } })).status, 200);
      assert.equal((await s.request('POST', '/documents/2/relationships/foos', { token: fx.admin, body: { data: [{ type: 'locations', id: '8' }] } })).status, 200);
      const res = await get('/documents/3/inverse_test?include=foos');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.included.length, 1);
      assert.equal(res.body.included[0].id, '8');
      assert.ok('coords' in res.body.included[0].attributes, 'locations carry coords');
    });
    test('testRelated', async () => {
      const res = await get('/profiles/4/inverse_test');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 2);
      assert.equal(res.body.meta.pagination.count, 2);
    });
    test('testIncludedMedia', async () => {
      const add = await s.request('POST', '/events/9/relationships/test_abstract', { token: fx.admin, body: { data: [{ id: '14', type: 'files' }] } });
      assert.equal(add.status, 200, add.text);
      const res = await get('/events/9?include=test_abstract');
      // Folio puts a media object's streams in `included` with it (decisions: Media); BEdita's
      // related media come alone. The objects included are BEdita's.
      const objects = res.body.included.filter((i: { type: string }) => i.type !== 'streams');
      assert.equal(objects.length, 1);
      assert.equal(objects[0].attributes.name, 'My other media name');
      // BEdita's media_url is its configured static host's; Folio's, its stream's download URL.
      const stream = res.body.included.find((i: { type: string }) => i.type === 'streams');
      assert.equal(stream?.attributes.file_name, 'bedita-logo-gray.gif');
      assert.equal(objects[0].meta.media_url, `${s.url}/streams/download/${stream.id}`);
    });
    // ObjectPermissionsFixture: object 2 is restricted to role 1 (admin); second user lacks it.
    const restrict = async (id: string, type: string) => {
      const res = await s.request('PATCH', `/${type}/${id}`, { token: fx.admin, body: { data: { id, type, meta: { perms: { roles: ['admin'] } } } } });
      assert.equal(res.status, 200, res.text);
    };
    test('testDeleteAssociationsForbidden', async () => {
      await restrict('2', 'documents');
      const res = await s.request('DELETE', '/profiles/4/relationships/inverse_test', { token: fx.secondUser, body: { data: [{ id: '2', type: 'documents' }] } });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.ok((await get('/profiles/4/inverse_test')).body.data.some((d: { id: string }) => d.id === '2'), 'the relation is still there');
    });
    test('testEditAssociationsForbidden', async () => {
      await restrict('2', 'documents');
      const res = await s.request('PATCH', '/profiles/4/relationships/inverse_test', {
        token: fx.secondUser,
        body: { data: [{ id: '2', type: 'documents', meta: { relation: { priority: 1, inv_priority: 2, params: { gustavo: 'supporto' } } } }] },
      });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
    });
    test('testEditAssociationsForbiddenByParent', async () => {
      await restrict('2', 'documents');
      await restrict('11', 'folders');
      const res = await s.request('PATCH', '/documents/2/relationships/parents', { token: fx.secondUser, body: { data: [{ id: '12', type: 'folders' }] } });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.headers.get('content-type'), 'application/vnd.api+json');
      assert.deepEqual((await get('/documents/2/parents')).body.data.map((d: { id: string }) => d.id), ['11']);
    });
  });

  describe('SortQueryStringTest', () => {
    fixtures();
    const rows: [string, number, string, string][] = [
      ['simpleObject', 200, '/documents', 'title'],
      ['usersSortByObjectsField', 200, '/users', 'title'],
      ['usersSortByProfilesField', 200, '/users', 'email'],
      ['notValidField', 400, '/users', 'not_valid_field'],
      ['roles', 200, '/roles', 'name'],
      ['eventsSpecialSort', 200, '/events', 'date_ranges_max_end_date'],
    ];
    for (const [name, expected, endpoint, sort] of rows) {
      test(`testSort [${name}]`, async () => {
        const token = fx.admin;
        const asc = await get(`${endpoint}?sort=${sort}`, token);
        assert.equal(asc.status, expected, asc.text);
        if (expected !== 200) {
          assert.equal((await get(`${endpoint}?sort=-${sort}`, token)).status, expected);
          return;
        }
        const values = (body: { data: { attributes: Record<string, unknown> }[] }) => body.data.map((d) => d.attributes[sort]).filter((v) => v !== undefined);
        // PHP's sort(): null before every string, strings by their bytes.
        const order = (a: unknown, b: unknown) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : String(a) < String(b) ? -1 : 1);
        const up = values(asc.body);
        assert.deepEqual(up, [...up].sort(order));
        const desc = await get(`${endpoint}?sort=-${sort}`, token);
        assert.equal(desc.status, 200, desc.text);
        assert.deepEqual(values(desc.body), [...up].sort(order).reverse());
      });
    }
  });
});
