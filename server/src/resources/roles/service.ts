// Roles: reading and serialisation (the accounts family adds the writes).
import type { Request } from 'express';
import type { Kysely, Transaction } from 'kysely';
import type { Database, RolesTable } from '../../db/tables.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import type { Selectable } from 'kysely';

type Db = Kysely<Database> | Transaction<Database>;
export type RoleRow = Selectable<RolesTable>;

export function serializeRole(req: Request, r: RoleRow): Resource {
  const path = `/roles/${r.id}`;
  return {
    id: String(r.id),
    type: 'roles',
    attributes: { name: r.name, description: r.description },
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
