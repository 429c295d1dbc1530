// Users and roles made through the API, as an admin would: the one place tests make accounts.
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

export interface NewUser {
  username: string;
  /** Default `${username}-secret-1`. */
  password?: string;
  /** Role ids to give (POST /users/{id}/relationships/roles). */
  roles?: string[];
  /** Further attributes (default uname the username, email `${username}@example.com`, status on). */
  attributes?: Record<string, unknown>;
}

/** The role every admin has. */
export const ADMIN_ROLE = '1';

/** POST /roles: a role with these object permissions; answers its id. */
export async function createRole(s: TestServer, adminToken: string, name: string, permissions?: unknown): Promise<string> {
  const r = await s.request('POST', '/roles', { token: adminToken, body: { data: { type: 'roles', attributes: { name, ...(permissions === undefined ? {} : { permissions }) } } } });
  assert.equal(r.status, 201, `cannot create role ${name}: ${r.text}`);
  return String(r.body.data.id);
}

/** POST /users (then its roles), and a login: answers its id and access token. */
export async function createUser(s: TestServer, adminToken: string, user: NewUser): Promise<{ id: string; jwt: string }> {
  const password = user.password ?? `${user.username}-secret-1`;
  const u = await s.request('POST', '/users', { token: adminToken, body: { data: { type: 'users', attributes: { username: user.username, password, uname: user.username, email: `${user.username}@example.com`, status: 'on', ...user.attributes } } } });
  assert.equal(u.status, 201, `cannot create user ${user.username}: ${u.text}`);
  const id = String(u.body.data.id);
  if (user.roles?.length) {
    const r = await s.request('POST', `/users/${id}/relationships/roles`, { token: adminToken, body: { data: user.roles.map((role) => ({ type: 'roles', id: role })) } });
    assert.equal(r.status, 200, `cannot give ${user.username} roles ${user.roles}: ${r.text}`);
  }
  const { jwt } = await s.login(user.username, password);
  return { id, jwt };
}

/** A user with a role of their own holding `permissions` (`${username}_role`, `-` as `_`): answers the token. */
export async function userWithPermissions(s: TestServer, adminToken: string, username: string, permissions: unknown, password?: string): Promise<string> {
  const role = await createRole(s, adminToken, `${username.replace(/-/g, '_')}_role`, permissions);
  return (await createUser(s, adminToken, { username, password, roles: [role] })).jwt;
}
