// Configuration entries (BEdita 5's `config` resources): `name`, `context`, `content` (text,
// usually JSON) and `application_id` (null: global). Admins manage them at /config and
// /admin/config; an application (its API key or token) reads at /config its own entries and the
// global ones, as BEdita's ConfigTable::findMine.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { Selectable } from 'kysely';
import { nowIso } from '../../db/time.js';
import { crudRoutes, pagedList } from '../../http/crud.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { onlyAttributes, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { pathId } from '../../http/params.js';
import { listPage, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import type { ConfigTable } from './tables.js';

type ConfigRow = Selectable<ConfigTable>;

const LIST_SPEC: ListSpec = {
  fields: { id: 'integer', name: 'string', context: 'string', application_id: 'integer', created: 'date', modified: 'date' },
  defaultSort: 'id',
};
const COLUMNS = { id: 'config.id', name: 'config.name', context: 'config.context', application_id: 'config.application_id', created: 'config.created', modified: 'config.modified' };

/** BEdita's AppConfigTable::DEFAULT_CONTEXT: what /config writes when no context is sent. */
const DEFAULT_CONTEXT = 'app';
const NAME = /^[A-Za-z0-9_-]{1,255}$/;

/** Which entries the caller reads: every one (admins), an application's own and the global ones, or none (401/403). */
function readScope(req: Request): { applicationId: number | null } | 'all' {
  if (req.auth.isAdmin) return 'all';
  if (req.auth.applicationId !== null) return { applicationId: req.auth.applicationId };
  throw req.auth.userId === null ? unauthorized('Configuration is read by administrators and applications') : forbidden('Configuration is read by administrators and applications');
}

function scoped(ctx: AppContext, req: Request) {
  const scope = readScope(req);
  const q = ctx.db.selectFrom('config').selectAll();
  return scope === 'all' ? q : q.where((eb) => eb.or([eb('application_id', 'is', null), eb('application_id', '=', scope.applicationId)]));
}

interface ConfigInput {
  name?: string;
  context?: string;
  content?: string;
  application_id?: number | null;
}

const ATTRIBUTES = ['name', 'context', 'content', 'application_id'];

async function configInput(ctx: AppContext, attributes: Record<string, unknown>, create: boolean): Promise<ConfigInput> {
  onlyAttributes(attributes, ATTRIBUTES);
  const { name, context, content, application_id: applicationId } = attributes;
  const input: ConfigInput = {};
  if (name !== undefined || create) {
    if (typeof name !== 'string' || !NAME.test(name)) throw badRequest('Invalid data: "name" must be letters, digits, "_" or "-"', 'invalid_data');
    input.name = name;
  }
  if (context !== undefined) {
    if (typeof context !== 'string' || !context.trim() || context.length > 255) throw badRequest('Invalid data: "context" must be a non-empty string', 'invalid_data');
    input.context = context;
  } else if (create) input.context = DEFAULT_CONTEXT;
  if (content !== undefined || create) {
    if (typeof content !== 'string' || !content) throw badRequest('Invalid data: "content" must be a non-empty string', 'invalid_data');
    input.content = content;
  }
  if (applicationId !== undefined && applicationId !== null) {
    const exists = Number.isSafeInteger(applicationId) && (await ctx.db.selectFrom('applications').select('id').where('id', '=', applicationId as number).executeTakeFirst());
    if (!exists) throw badRequest(`Invalid data: no application with id ${String(applicationId)}`, 'invalid_data');
    input.application_id = applicationId as number;
  } else if (applicationId === null || create) input.application_id = null;
  return input;
}

/** One entry per name, context and application. */
async function assertFree(ctx: AppContext, row: { name: string; context: string; application_id: number | null }, excludeId?: number) {
  let q = ctx.db.selectFrom('config').select('id').where('name', '=', row.name).where('context', '=', row.context);
  q = row.application_id === null ? q.where('application_id', 'is', null) : q.where('application_id', '=', row.application_id);
  if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
  if (await q.executeTakeFirst()) throw badRequest(`A config entry "${row.name}" already exists in context "${row.context}" for this application`, 'config_exists');
}

/** The routes of `path` (/config or /admin/config): read by `read`, written by admins. */
export function configRoutes(ctx: AppContext, path: string, read: 'anonymous' | 'admin'): RouteDef[] {
  const serialize = (req: Request, c: ConfigRow): Resource => ({
    id: String(c.id),
    type: 'config',
    attributes: { name: c.name, context: c.context, content: c.content, application_id: c.application_id },
    meta: { created: c.created, modified: c.modified },
    links: { self: resourceUrl(req, `${path}/${c.id}`) },
  });
  const get = async (id: number) => {
    const row = await ctx.db.selectFrom('config').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No config entry with id ${id}`);
    return row;
  };
  return crudRoutes<ConfigRow>({
    path,
    type: 'config',
    writes: ['config'],
    guards: { read, write: 'admin' },
    list: pagedList(LIST_SPEC, (q, req) => listPage(scoped(ctx, req), q, COLUMNS, 'config.id'), serialize),
    async find(_key, req) {
      const row = await scoped(ctx, req).where('id', '=', pathId(req)).executeTakeFirst();
      if (!row) throw notFound(`No config entry with id ${pathId(req)}`);
      return row;
    },
    idOf: (row) => row.id,
    async create(attributes) {
      const input = (await configInput(ctx, attributes, true)) as Required<ConfigInput>;
      await assertFree(ctx, input);
      const now = nowIso();
      const row = await ctx.db.insertInto('config').values({ ...input, created: now, modified: now }).returningAll().executeTakeFirstOrThrow();
      return { row };
    },
    async update(row, attributes) {
      const input = await configInput(ctx, attributes, false);
      await assertFree(ctx, { ...row, ...input }, row.id);
      await ctx.db.updateTable('config').set({ ...input, modified: nowIso() }).where('id', '=', row.id).execute();
      return get(row.id);
    },
    async remove(row) {
      await ctx.db.deleteFrom('config').where('id', '=', row.id).execute();
    },
    serialize,
  });
}
