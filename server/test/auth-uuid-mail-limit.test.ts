// `auth_provider: uuid` logins that make an account count toward FOLIO_MAIL_LIMIT for their
// address, like a signup (CONTRACT.md, Account security): past the limit 429
// `too_many_requests` and no account is made; logins into accounts already made do not count.
// Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { awayFromWindowEdge, expectError, MAIL_WINDOW_MS, startServer, type TestServer } from './helpers/server.js';

describe('uuid logins and FOLIO_MAIL_LIMIT', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_MAIL_LIMIT: '2', FOLIO_SIGNUP: 'on' });
  });
  after(() => s.close());

  const login = (uuid: string) =>
    s.request('POST', '/auth', { headers: { 'Content-Type': 'application/json', Authorization: `UUID ${uuid}` }, body: { auth_provider: 'uuid' } });
  const uuidAccounts = async () => {
    const r = await s.request('GET', '/users?page_size=100', { token: await s.adminToken() });
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((u: { attributes: { username: string } }) => u.attributes.username).filter((n: string) => n.startsWith('uuid-')).sort();
  };

  test('the third account-making uuid login from one address gets 429 and makes no account', async () => {
    const [a, b, c] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await awayFromWindowEdge(MAIL_WINDOW_MS);
    for (const uuid of [a, b]) assert.equal((await login(uuid)).status, 200);
    // Logging into an account made already makes none, and is not counted.
    assert.equal((await login(a)).status, 200);
    expectError(await login(c), 429, 'too_many_requests');
    assert.deepEqual(await uuidAccounts(), [`uuid-${a}`, `uuid-${b}`].sort());
    // The limit is the mail limit's: signups from the address are refused too.
    const signup = await s.request('POST', '/signup', { headers: { 'Content-Type': 'application/json' }, body: { username: 'late', password: 'late-secret-1', email: 'late@example.com' } });
    expectError(signup, 429, 'too_many_requests');
  });
});
