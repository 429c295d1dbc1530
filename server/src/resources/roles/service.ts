// Roles: reading, serialisation, writes, and the roles_users links (either side).
import type { Request } from 'express';
import type { Kysely, Transaction } from 'kysely';
import type { Database, RolesTable } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { transact } from '../../db/transaction.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { listPage, type ListQuery, type ListSpec } from '../../http/query.js';
import { containsText } from '../accounts/search.js';
import { parsePermissions, type RolePermissions } from '../permissions/rules.js';
import type { Selectable } from 'kysely';

type Db = Kysely<Database> | Transaction<Database>;
export type RoleRow = Selectable<RolesTable>;

export function serializeRole(req: Request, r: RoleRow): Resource {
  const path = `/roles/${r.id}`;
  return {
    id: String(r.id),
    type: 'roles',
    attributes: { name: r.name, description: r.description, permissions: parsePermissions(r.permissions) },
    meta: { unchangeable: Boolean(r.unchangeable), created: r.created, modified: r.modified },
    links: { self: resourceUrl(req, path) },
    relationships: { users: relationshipLinks(req, path, 'users') },
  };
}

export async function rolesOfUser(db: Db, userId: number): Promise<RoleRow[]> {
  return db
    .selectFrom('roles')
    .innerJoin('roles_users', 'roles_users.role_id', 'roles.id')
    .selectAll('roles')
    .where('roles_users.user_id', '=', userId)
    .orderBy('roles.id')
    .execute();
}

export const ADMIN_ROLE_ID = 1;

export async function getRole(db: Db, id: number): Promise<RoleRow> {
  const role = await db.selectFrom('roles').selectAll().where('id', '=', id).executeTakeFirst();
  if (!role) throw notFound(`No role with id ${id}`);
  return role;
}

async function assertNameFree(db: Db, name: string, excludeId?: number) {
  let q = db.selectFrom('roles').select('id').where('name', '=', name);
  if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
  if (await q.executeTakeFirst()) throw badRequest(`A role named "${name}" already exists`, 'role_exists');
}

export interface RoleInput {
  name?: string;
  description?: string | null;
  /** Checked already (permissions/rules.ts validatePermissions). */
  permissions?: RolePermissions;
}

export async function createRole(db: Kysely<Database>, input: RoleInput & { name: string }): Promise<number> {
  return transact(db, async (trx) => {
    await assertNameFree(trx, input.name);
    const now = nowIso();
    const row = await trx
      .insertInto('roles')
      .values({
        name: input.name,
        description: input.description ?? null,
        permissions: JSON.stringify(input.permissions ?? {}),
        unchangeable: false,
        created: now,
        modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
}

export function assertChangeable(role: RoleRow) {
  if (Boolean(role.unchangeable)) throw forbidden(`The role "${role.name}" is unchangeable`, 'unchangeable_role');
}

export async function updateRole(db: Kysely<Database>, id: number, changes: RoleInput): Promise<void> {
  await transact(db, async (trx) => {
    assertChangeable(await getRole(trx, id));
    if (changes.name !== undefined) await assertNameFree(trx, changes.name, id);
    const { permissions, ...rest } = changes;
    await trx
      .updateTable('roles')
      .set({ ...rest, ...(permissions !== undefined ? { permissions: JSON.stringify(permissions) } : {}), modified: nowIso() })
      .where('id', '=', id)
      .execute();
  });
}

export async function deleteRole(db: Kysely<Database>, id: number): Promise<void> {
  await transact(db, async (trx) => {
    assertChangeable(await getRole(trx, id));
    await trx.deleteFrom('roles').where('id', '=', id).execute();
  });
}

export const ROLE_LIST_SPEC: ListSpec = {
  fields: { id: 'integer', name: 'string', unchangeable: 'boolean', created: 'date', modified: 'date' },
  special: ['query'],
  includes: ['users'],
  defaultSort: 'id',
};

const ROLE_COLUMNS: Record<string, string> = {
  id: 'roles.id',
  name: 'roles.name',
  unchangeable: 'roles.unchangeable',
  created: 'roles.created',
  modified: 'roles.modified',
};

export async function listRoles(db: Db, q: ListQuery, scope: { ids?: number[]; userId?: number } = {}): Promise<{ rows: RoleRow[]; count: number }> {
  let base = db.selectFrom('roles').selectAll('roles');
  if (scope.ids) base = base.where('roles.id', 'in', scope.ids.length ? scope.ids : [-1]);
  if (scope.userId !== undefined) base = base.where('roles.id', 'in', db.selectFrom('roles_users').select('role_id').where('user_id', '=', scope.userId));
  const words = q.special.query?.[0]?.trim();
  if (words) base = base.where(containsText(['roles.name', 'roles.description'], words));
  return listPage(base, q, ROLE_COLUMNS, 'roles.id');
}

/** Roles of many users at once (for include=roles on a page of users). */
export async function rolesByUser(db: Db, userIds: number[]): Promise<Map<number, RoleRow[]>> {
  const out = new Map<number, RoleRow[]>(userIds.map((id) => [id, []]));
  if (!userIds.length) return out;
  const rows = await db
    .selectFrom('roles')
    .innerJoin('roles_users', 'roles_users.role_id', 'roles.id')
    .selectAll('roles')
    .select('roles_users.user_id as member_id')
    .where('roles_users.user_id', 'in', userIds)
    .orderBy('roles.id')
    .execute();
  for (const { member_id, ...role } of rows) out.get(member_id)?.push(role);
  return out;
}

/** How many users have the role. */
export async function usersOfRole(db: Db, id: number): Promise<number> {
  const row = await db.selectFrom('roles_users').select((e) => e.fn.countAll().as('n')).where('role_id', '=', id).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Every role, by id. */
export const allRoles = (db: Db): Promise<RoleRow[]> => db.selectFrom('roles').selectAll().orderBy('id').execute();
