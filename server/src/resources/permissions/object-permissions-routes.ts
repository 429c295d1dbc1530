// /object_permissions (BEdita 5's ObjectPermissionsController): the same restrictions as an
// object's `meta.perms`, one resource per (object, role) pair, for admins. Every write is a
// command of the write kernel on the object (an update of its `meta.perms`): history, webhooks
// and the object's version follow, exactly as a PATCH of `meta.perms` would.
//
// The resource id is `<object_id>-<role_id>` (Folio keeps a restriction per object and its roles,
// not a numbered row per pair); clients use it as BEdita's opaque id.
import type { Request } from 'express';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { resourceInput, resourceUrl, sendList, sendNoContent, sendResource, type Resource } from '../../http/jsonapi.js';
import { applyFilters, applySort, parseListQuery, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { apply, SYSTEM } from '../objects/kernel.js';
import { inTransaction } from '../objects/pipeline.js';
import { requireObject } from '../objects/read.js';

const TYPE = 'object_permissions';
type Trx = Transaction<Database>;
type Db = Kysely<Database> | Trx;

interface PermissionRow {
  object_id: number;
  role_id: number;
  role_name: string;
  created: string;
  created_by: number | null;
}

const LIST_SPEC: ListSpec = {
  fields: { object_id: 'integer', role_id: 'integer', created: 'date', created_by: 'integer' },
  sortable: ['object_id', 'role_id', 'created'],
  defaultSort: 'object_id',
};
const COLUMNS = {
  object_id: 'object_perm_roles.object_id',
  role_id: 'object_perm_roles.role_id',
  created: 'object_perms.created',
  created_by: 'object_perms.created_by',
};

const idOf = (r: Pick<PermissionRow, 'object_id' | 'role_id'>) => `${r.object_id}-${r.role_id}`;

function serialize(req: Request, r: PermissionRow): Resource {
  return {
    id: idOf(r),
    type: TYPE,
    attributes: { object_id: r.object_id, role_id: r.role_id },
    meta: { created: r.created, created_by: r.created_by, role_name: r.role_name },
    links: { self: resourceUrl(req, `/${TYPE}/${idOf(r)}`) },
  };
}

/** A positive integer attribute (ids arrive as numbers or strings). */
function idAttribute(attributes: Record<string, unknown>, name: string): number {
  const v = attributes[name];
  if ((typeof v === 'number' && Number.isInteger(v) && v > 0) || (typeof v === 'string' && /^\d{1,15}$/.test(v))) return Number(v);
  throw badRequest(`"${name}" must be an id`, 'invalid_data');
}

export function objectPermissionsRoutes(ctx: AppContext): RouteDef[] {
  const select = () =>
    ctx.db
      .selectFrom('object_perm_roles')
      .innerJoin('object_perms', 'object_perms.object_id', 'object_perm_roles.object_id')
      .innerJoin('roles', 'roles.id', 'object_perm_roles.role_id')
      .select(['object_perm_roles.object_id', 'object_perm_roles.role_id', 'roles.name as role_name', 'object_perms.created', 'object_perms.created_by']);

  async function find(key: string): Promise<PermissionRow> {
    const m = /^(\d{1,15})-(\d{1,15})$/.exec(key);
    const row = m ? await select().where('object_perm_roles.object_id', '=', Number(m[1])).where('object_perm_roles.role_id', '=', Number(m[2])).executeTakeFirst() : undefined;
    if (!row) throw notFound(`No object permission ${key}`);
    return row;
  }

  /** Role names restricting `objectId` now (its own restriction, not an inherited one). */
  const rolesOf = async (db: Db, objectId: number) =>
    (await db.selectFrom('object_perm_roles').innerJoin('roles', 'roles.id', 'object_perm_roles.role_id').select('roles.name').where('object_perm_roles.object_id', '=', objectId).execute()).map((r) => r.name);

  /** The object's restriction set to `roles`: a kernel update of its meta.perms. */
  const restrict = (req: Request, trx: Trx, objectId: number, roles: string[]) =>
    apply(ctx, { action: 'update', target: { key: objectId }, actor: req.auth, changes: { meta: { perms: { roles } } } }, trx);

  /** Each write is one unit of work: the restriction read and rewritten together. */
  const add = (req: Request, objectId: number, roleId: number, trx?: Trx) =>
    inTransaction(ctx, trx, async (db) => {
      await requireObject(ctx, objectId, { viewer: SYSTEM, db }).catch(() => {
        throw badRequest(`"object_id": no object ${objectId}`, 'invalid_data');
      });
      const role = await db.selectFrom('roles').select(['id', 'name']).where('id', '=', roleId).executeTakeFirst();
      if (!role) throw badRequest(`"role_id": no role ${roleId}`, 'invalid_data');
      const roles = await rolesOf(db, objectId);
      if (roles.includes(role.name)) throw new ApiError(409, 'already_exists', `Object ${objectId} is already restricted to role ${role.name}`);
      await restrict(req, db, objectId, [...roles, role.name]);
    });

  const remove = (req: Request, row: PermissionRow, trx?: Trx) =>
    inTransaction(ctx, trx, async (db) => {
      await restrict(req, db, row.object_id, (await rolesOf(db, row.object_id)).filter((n) => n !== row.role_name));
    });

  return [
    {
      method: 'get',
      path: `/${TYPE}`,
      guard: 'admin',
      handler: async (req, res) => {
        const q = parseListQuery(req, LIST_SPEC);
        const filtered = applyFilters(select(), q.filters, COLUMNS);
        const count = await applyFilters(ctx.db.selectFrom('object_perm_roles').innerJoin('object_perms', 'object_perms.object_id', 'object_perm_roles.object_id').select((eb) => eb.fn.countAll<number>().as('n')), q.filters, COLUMNS).executeTakeFirstOrThrow();
        const rows = await applySort(filtered, q.sort, COLUMNS, 'object_perm_roles.role_id').limit(q.pageSize).offset(q.offset).execute();
        sendList(req, res, rows.map((r) => serialize(req, r)), { count: Number(count.n), page: q.page, pageSize: q.pageSize });
      },
    },
    {
      method: 'post',
      path: `/${TYPE}`,
      writes: ['object_perms', 'object_perm_roles'],
      guard: 'admin',
      handler: async (req, res) => {
        const { attributes } = resourceInput(req, TYPE);
        const objectId = idAttribute(attributes, 'object_id');
        const roleId = idAttribute(attributes, 'role_id');
        const unknown = Object.keys(attributes).find((k) => k !== 'object_id' && k !== 'role_id');
        if (unknown) throw badRequest(`Unknown attribute "${unknown}"`, 'invalid_data');
        await add(req, objectId, roleId);
        const row = await find(`${objectId}-${roleId}`);
        sendResource(req, res, serialize(req, row), { status: 201, headers: { Location: resourceUrl(req, `/${TYPE}/${idOf(row)}`) } });
      },
    },
    { method: 'get', path: `/${TYPE}/:id`, guard: 'admin', handler: async (req, res) => sendResource(req, res, serialize(req, await find(String(req.params.id)))) },
    {
      method: 'patch',
      path: `/${TYPE}/:id`,
      writes: ['object_perms', 'object_perm_roles'],
      guard: 'admin',
      handler: async (req, res) => {
        const row = await find(String(req.params.id));
        const { attributes } = resourceInput(req, TYPE, idOf(row));
        const objectId = attributes.object_id === undefined ? row.object_id : idAttribute(attributes, 'object_id');
        const roleId = attributes.role_id === undefined ? row.role_id : idAttribute(attributes, 'role_id');
        if (objectId !== row.object_id || roleId !== row.role_id) {
          // One unit of work: the old pair goes and the new one comes, or neither.
          await inTransaction(ctx, undefined, async (trx) => {
            await remove(req, row, trx);
            await add(req, objectId, roleId, trx);
          });
        }
        sendResource(req, res, serialize(req, await find(`${objectId}-${roleId}`)));
      },
    },
    {
      method: 'delete',
      path: `/${TYPE}/:id`,
      writes: ['object_perms', 'object_perm_roles'],
      guard: 'admin',
      handler: async (req, res) => {
        await remove(req, await find(String(req.params.id)));
        sendNoContent(res);
      },
    },
  ];
}
