// The API's endpoints and who may call them (BEdita 5's /admin/endpoints and
// /admin/endpoint_permissions, EndpointPermissionsTable and EndpointPolicy). An endpoint is the
// first segment of a request path; a permission names an endpoint, an application and a role
// (each null: any) and what it grants for reads (GET, HEAD) and writes: true, false, 'mine' or
// 'block'. Enforced on every request of a non-admin (a request check): where permissions concern
// the request, it passes only if they grant it (401 anonymous, 403 otherwise); a disabled
// endpoint answers 404. Where none concern it, Folio's own rules decide alone.
import type { Request } from 'express';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { crudRoutes, pagedList, byNumericId } from '../../http/crud.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { onlyAttributes, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { listPage, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import type { EndpointPermissionsTable, EndpointsTable } from './tables.js';

type EndpointRow = Selectable<EndpointsTable>;
type PermissionRow = Selectable<EndpointPermissionsTable>;

/** BEdita's EndpointPermission encoding: two bits per access, read at bit 0, write at bit 2. */
const PERM = { no: 0b00, mine: 0b01, block: 0b10, yes: 0b11 } as const;
const READ_SHIFT = 0;
const WRITE_SHIFT = 2;

type Grant = boolean | 'mine' | 'block';

function decode(bits: number): Grant {
  if (bits === PERM.yes) return true;
  if (bits === PERM.mine) return 'mine';
  if (bits === PERM.block) return 'block';
  return false;
}

function encode(value: unknown, name: string): number {
  if (value === true || value === 'true') return PERM.yes;
  if (value === false || value === 'false') return PERM.no;
  if (value === 'mine') return PERM.mine;
  if (value === 'block') return PERM.block;
  throw badRequest(`Invalid data: "${name}" must be true, false, "mine" or "block"`, 'invalid_data');
}

const RESOURCE_NAME = /^[a-z][a-z0-9_]{0,254}$/;

// ---------------------------------------------------------------------------------------------
// The request check.

interface PermissionTable {
  endpoints: Map<string, { id: number; enabled: boolean }>;
  permissions: PermissionRow[];
}

/** Requests that sign in by their body: the policy applies once the caller is known (as in BEdita). */
const SIGN_IN = new Set(['/auth', '/auth/optout']);

/** What the permissions grant for this access: BEdita's EndpointPolicy::checkPermissions. */
function granted(rows: PermissionRow[], shift: number): Grant {
  let result: number = PERM.no;
  for (const row of rows) {
    const bits = (row.permission >> shift) & PERM.yes;
    if (bits === PERM.block) return false;
    result |= bits;
  }
  return decode(result);
}

/** What the endpoint permissions say of a call: it may go on, the endpoint is disabled, or it is denied. */
export type EndpointAccess = 'allowed' | 'disabled' | 'denied';

/**
 * The endpoint policy as a function of the caller, the endpoint (a path's first segment) and the
 * method: the request check below and /home (which lists only what the caller may call) share it.
 */
const PERMISSIONS_KEY = 'endpoint-permissions';

export function endpointAccess(ctx: AppContext) {
  const load = () =>
    ctx.readCache.get<PermissionTable>(PERMISSIONS_KEY, async () => {
      const endpoints = await ctx.db.selectFrom('endpoints').select(['id', 'name', 'enabled']).execute();
      const permissions = await ctx.db.selectFrom('endpoint_permissions').selectAll().execute();
      return { endpoints: new Map(endpoints.map((e) => [e.name, { id: e.id, enabled: Boolean(e.enabled) }])), permissions };
    }, 'settings');
  const judge = (req: Request, name: string, method: string, table: PermissionTable): EndpointAccess => {
    const endpoint = table.endpoints.get(name);
    if (endpoint && !endpoint.enabled) return 'disabled';
    if (!table.permissions.length) return 'allowed';
    const appId = req.auth.applicationId;
    const concerning = table.permissions.filter(
      (p) => (p.application_id === null || p.application_id === appId) && (p.endpoint_id === null || p.endpoint_id === endpoint?.id),
    );
    if (!concerning.length) return 'allowed';
    const anonymous = req.auth.userId === null;
    const read = method === 'GET' || method === 'HEAD';
    // BEdita's strict mode: an anonymous write needs a permission naming this endpoint and application.
    const strict = anonymous && !read;
    const roleIds = req.auth.roleIds ?? [];
    const matching = concerning.filter(
      (p) =>
        (!strict || (p.application_id !== null && p.endpoint_id !== null)) &&
        (p.role_id === null || (!anonymous && roleIds.includes(p.role_id))),
    );
    let allowed = granted(matching, read ? READ_SHIFT : WRITE_SHIFT);
    if (!matching.length && !endpoint) allowed = !strict;
    return allowed === true || allowed === 'mine' ? 'allowed' : 'denied';
  };
  // Answered at once when the table is held (every request of a non-admin asks).
  return (req: Request, name: string, method: string): EndpointAccess | Promise<EndpointAccess> => {
    if (req.auth.isAdmin || method === 'OPTIONS') return 'allowed';
    const table = ctx.readCache.peek<PermissionTable>(PERMISSIONS_KEY, 'settings');
    return table ? judge(req, name, method, table) : load().then((t) => judge(req, name, method, t));
  };
}

export function endpointPermissionCheck(ctx: AppContext) {
  const access = endpointAccess(ctx);
  const enforce = (req: Request, verdict: EndpointAccess) => {
    if (verdict === 'disabled') throw notFound('Not found');
    if (verdict === 'denied') {
      throw req.auth.userId === null ? unauthorized('This endpoint needs a permission that anonymous clients do not have') : forbidden('No endpoint permission allows this request');
    }
  };
  // A promise only when the permissions must be read first.
  return (req: Request): void | Promise<void> => {
    if (req.method === 'POST' && SIGN_IN.has(req.path.replace(/\/+$/, ''))) return;
    const verdict = access(req, req.path.split('/').find(Boolean) ?? '', req.method);
    if (typeof verdict === 'string') return enforce(req, verdict);
    return verdict.then((v) => enforce(req, v));
  };
}

// ---------------------------------------------------------------------------------------------
// /admin/endpoints and /admin/endpoint_permissions.

const ENDPOINT_SPEC: ListSpec = { fields: { id: 'integer', name: 'string', enabled: 'boolean', created: 'date', modified: 'date' }, defaultSort: 'id' };
const ENDPOINT_COLUMNS = { id: 'endpoints.id', name: 'endpoints.name', enabled: 'endpoints.enabled', created: 'endpoints.created', modified: 'endpoints.modified' };
const PERMISSION_SPEC: ListSpec = {
  fields: { id: 'integer', endpoint_id: 'integer', application_id: 'integer', role_id: 'integer', created: 'date', modified: 'date' },
  defaultSort: 'id',
};
const PERMISSION_COLUMNS = {
  id: 'endpoint_permissions.id',
  endpoint_id: 'endpoint_permissions.endpoint_id',
  application_id: 'endpoint_permissions.application_id',
  role_id: 'endpoint_permissions.role_id',
  created: 'endpoint_permissions.created',
  modified: 'endpoint_permissions.modified',
};

export function endpointRoutes(ctx: AppContext): RouteDef[] {
  const get = async (id: number): Promise<EndpointRow> => {
    const row = await ctx.db.selectFrom('endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No endpoint with id ${id}`);
    return row;
  };
  const input = async (attributes: Record<string, unknown>, create: boolean, excludeId?: number) => {
    onlyAttributes(attributes, ['name', 'description', 'enabled']);
    const { name, description, enabled } = attributes;
    const out: { name?: string; description?: string | null; enabled?: boolean } = {};
    if (name !== undefined || create) {
      if (typeof name !== 'string' || !RESOURCE_NAME.test(name)) throw badRequest('Invalid data: "name" must be lower snake case', 'invalid_data');
      let q = ctx.db.selectFrom('endpoints').select('id').where('name', '=', name);
      if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
      if (await q.executeTakeFirst()) throw badRequest(`An endpoint named "${name}" already exists`, 'endpoint_exists');
      out.name = name;
    }
    if (description !== undefined) {
      if (description !== null && typeof description !== 'string') throw badRequest('Invalid data: "description" must be a string or null', 'invalid_data');
      out.description = description;
    }
    if (enabled !== undefined) {
      if (typeof enabled !== 'boolean') throw badRequest('Invalid data: "enabled" must be true or false', 'invalid_data');
      out.enabled = enabled;
    }
    return out;
  };
  const serialize = (req: Request, e: EndpointRow): Resource => ({
    id: String(e.id),
    type: 'endpoints',
    attributes: { name: e.name, description: e.description, enabled: Boolean(e.enabled) },
    meta: { created: e.created, modified: e.modified },
    links: { self: resourceUrl(req, `/admin/endpoints/${e.id}`) },
  });
  return crudRoutes<EndpointRow>({
    path: '/admin/endpoints',
    type: 'endpoints',
    writes: ['endpoints', 'endpoint_permissions'],
    list: pagedList(ENDPOINT_SPEC, (q) => listPage(ctx.db.selectFrom('endpoints').selectAll(), q, ENDPOINT_COLUMNS, 'endpoints.id'), serialize),
    find: byNumericId(get),
    idOf: (row) => row.id,
    async create(attributes) {
      const values = await input(attributes, true);
      const now = nowIso();
      const row = await ctx.db
        .insertInto('endpoints')
        .values({ name: values.name!, description: values.description ?? null, enabled: values.enabled ?? true, created: now, modified: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row };
    },
    async update(row, attributes) {
      await ctx.db.updateTable('endpoints').set({ ...(await input(attributes, false, row.id)), modified: nowIso() }).where('id', '=', row.id).execute();
      return get(row.id);
    },
    async remove(row) {
      await ctx.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('endpoint_permissions').where('endpoint_id', '=', row.id).execute();
        await trx.deleteFrom('endpoints').where('id', '=', row.id).execute();
      });
    },
    serialize,
  });
}

export function endpointPermissionRoutes(ctx: AppContext): RouteDef[] {
  const get = async (id: number): Promise<PermissionRow> => {
    const row = await ctx.db.selectFrom('endpoint_permissions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No endpoint permission with id ${id}`);
    return row;
  };
  const references = { endpoint_id: 'endpoints', application_id: 'applications', role_id: 'roles' } as const;
  /** The row's columns from attributes: each reference null or an existing row (400 otherwise). */
  const input = async (attributes: Record<string, unknown>, before?: PermissionRow) => {
    onlyAttributes(attributes, [...Object.keys(references), 'read', 'write']);
    const out: Partial<Pick<PermissionRow, 'endpoint_id' | 'application_id' | 'role_id' | 'permission'>> = {};
    for (const [field, table] of Object.entries(references) as Array<[keyof typeof references, (typeof references)[keyof typeof references]]>) {
      const v = attributes[field];
      if (v === undefined) continue;
      if (v !== null && !(Number.isSafeInteger(v) && (await ctx.db.selectFrom(table).select('id').where('id', '=', v as number).executeTakeFirst()))) {
        throw badRequest(`Invalid data: "${field}" names no row of ${table}`, 'invalid_data');
      }
      out[field] = v as number | null;
    }
    const old = before?.permission ?? 0;
    const read = attributes.read === undefined ? (old >> READ_SHIFT) & PERM.yes : encode(attributes.read, 'read');
    const write = attributes.write === undefined ? (old >> WRITE_SHIFT) & PERM.yes : encode(attributes.write, 'write');
    out.permission = (read << READ_SHIFT) | (write << WRITE_SHIFT);
    return out;
  };
  const serialize = (req: Request, p: PermissionRow): Resource => ({
    id: String(p.id),
    type: 'endpoint_permissions',
    attributes: {
      endpoint_id: p.endpoint_id,
      application_id: p.application_id,
      role_id: p.role_id,
      read: decode((p.permission >> READ_SHIFT) & PERM.yes),
      write: decode((p.permission >> WRITE_SHIFT) & PERM.yes),
    },
    meta: { created: p.created, modified: p.modified },
    links: { self: resourceUrl(req, `/admin/endpoint_permissions/${p.id}`) },
  });
  return crudRoutes<PermissionRow>({
    path: '/admin/endpoint_permissions',
    type: 'endpoint_permissions',
    writes: ['endpoint_permissions'],
    list: pagedList(PERMISSION_SPEC, (q) => listPage(ctx.db.selectFrom('endpoint_permissions').selectAll(), q, PERMISSION_COLUMNS, 'endpoint_permissions.id'), serialize),
    find: byNumericId(get),
    idOf: (row) => row.id,
    async create(attributes) {
      const values = await input(attributes);
      const now = nowIso();
      const row = await ctx.db
        .insertInto('endpoint_permissions')
        .values({ endpoint_id: null, application_id: null, role_id: null, permission: 0, ...values, created: now, modified: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row };
    },
    async update(row, attributes) {
      await ctx.db.updateTable('endpoint_permissions').set({ ...(await input(attributes, row)), modified: nowIso() }).where('id', '=', row.id).execute();
      return get(row.id);
    },
    async remove(row) {
      await ctx.db.deleteFrom('endpoint_permissions').where('id', '=', row.id).execute();
    },
    serialize,
  });
}
