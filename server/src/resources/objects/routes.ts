// The generic object endpoints: /objects (every type) and /{objectTypeName} for each enabled,
// concrete type of the model (no restart needed after adding one), with their relationships.
// Mounted last: more specific families (users, folders, media…) answer their paths first.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { queryIds } from '../../http/params.js';
import { inTransaction } from './pipeline.js';
import { identifiersInput, resourceInput, resourceUrl, sendLinks, sendList, sendNoContent, sendResource } from '../../http/jsonapi.js';
import { parseListQuery } from '../../http/query.js';
import { acceptsLegacy } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';
import { concreteTypeNames, isLeafType, isSubtypeOf, reloadModel, relationNamesOf, typeById } from './model.js';
import { listRelated } from './relations.js';
import { extensionIncludeNames } from './extensions.js';
import { typeOfPath, typeRoute } from './type-routes.js';
import { listObjects, type ObjectList } from './list.js';
import { getObject, getObjectsByIds, objectPath, requireObject } from './read.js';
import { type ObjectRow } from './rows.js';
import { serializeObject } from './serialize.js';
import { objectWriteInput } from './schema.js';
import { expectedVersion } from '../../http/if-match.js';
import { apply, SYSTEM } from './kernel.js';
import { readContext } from '../../http/read-context.js';
import { confirmByRefresh, readAlongOf } from '../../db/read-along.js';

/** include= of a single object: names of its type's relations. */
function includeOf(req: Request, ctx: AppContext, row: ObjectRow): string[] {
  // No query string, nothing to include (most reads): the list query's parser is not asked.
  if (!req.url.includes('?')) return [];
  const names = [...relationNamesOf(ctx, typeById(ctx, row.object_type_id)!.name).map((r) => r.name), ...extensionIncludeNames(ctx)];
  return parseListQuery(req, { fields: {}, includes: names }).include;
}

/** One object as the request's reader sees it, with its strong ETag (Concurrent edits). */
export async function sendObject(req: Request, res: Response, ctx: AppContext, row: ObjectRow, status = 200, headers?: Record<string, string>) {
  const { data, included } = await serializeObject(readContext(req), ctx, row, { include: includeOf(req, ctx, row) });
  sendResource(req, res, data, { status, headers, included: included.length ? included : undefined, version: row.version });
}

/**
 * The answer to a write (create, update): the object as its writer reads it after the write,
 * ETag and all; when the writer may no longer read it (a draft written without `read`), its
 * identifier alone, as /operations answers.
 */
export async function sendWritten(req: Request, res: Response, ctx: AppContext, id: number, status = 200, headers?: Record<string, string>) {
  const row = await getObject(ctx, id, { viewer: req.auth, withListValues: true });
  if (row) return sendObject(req, res, ctx, row, status, headers);
  const written = await requireObject(ctx, id, { viewer: SYSTEM });
  sendResource(req, res, { id: String(id), type: typeById(ctx, written.object_type_id)?.name ?? 'objects' }, { status, headers });
}

/**
 * BEdita's `DELETE /{type}?ids=1,2` (and `/objects?ids=…`): the listed objects of that type the
 * caller sees go to the trash in one unit of work, all or none (a right missing on one refuses
 * them all); ids naming none of them are passed over, as BEdita passes them over.
 */
async function trashListed(req: Request, ctx: AppContext, typeName?: string): Promise<void> {
  const ids = queryIds(req, 'ids');
  if (!ids) throw badRequest('Missing required parameter "ids"', 'missing_parameter');
  const rows = await getObjectsByIds(ctx, ids, { viewer: req.auth, typeName });
  await inTransaction(ctx, undefined, async (trx) => {
    for (const row of rows) await apply(ctx, { action: 'trash', target: { key: row.id, type: typeName }, actor: req.auth }, trx);
  });
}

/** Every enabled concrete media type (images, files, audio, videos and custom ones). */
const mediaTypeNames = (ctx: AppContext) => concreteTypeNames(ctx).filter((n) => isSubtypeOf(ctx, n, 'media'));

function sendObjectList(req: Request, res: Response, list: ObjectList) {
  sendList(req, res, list.data, list.page, { meta: list.meta, included: list.included.length ? list.included : undefined });
}

export function objectsRoutes(ctx: AppContext): Promise<RouteDef[]> {
  const typeOf = (req: Request) => typeOfPath(ctx, req);
  const theType = (req: Request) => {
    const t = typeOf(req);
    if (!t) throw notFound('Unknown object type');
    return t;
  };
  const findTyped = (req: Request, answered = false) =>
    requireObject(ctx, String(req.params.id), { typeName: theType(req).name, viewer: req.auth, withListValues: answered, along: answered ? readAlongOf(req) : undefined });

  // The legacy layout answers reads of /objects… asked with its Accept (legacy/read-routes.ts).
  const jsonApi = (req: Request) => !acceptsLegacy(req);
  const routes: RouteDef[] = [
    { method: 'get', path: '/objects', guard: 'anonymous', when: jsonApi, cache: true, handler: async (req, res) => sendObjectList(req, res, await listObjects(readContext(req), ctx)) },
    {
      method: 'get',
      path: '/objects/:id',
      guard: 'anonymous',
      when: jsonApi,
      cache: true,
      handler: async (req, res) => sendObject(req, res, ctx, await requireObject(ctx, String(req.params.id), { viewer: req.auth, withListValues: true })),
    },
    {
      method: 'delete',
      path: '/objects',
      writes: ['objects'],
      guard: 'user',
      when: jsonApi,
      handler: async (req, res) => {
        await trashListed(req, ctx);
        sendNoContent(res);
      },
    },
    {
      method: 'delete',
      path: '/objects/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        await apply(ctx, { action: 'trash', target: { key: String(req.params.id) }, actor: req.auth, expectedVersion: expectedVersion(req) });
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/objects/:id/:relation',
      guard: 'anonymous',
      when: jsonApi,
      cache: true,
      handler: async (req, res) => {
        const row = await requireObject(ctx, String(req.params.id), { viewer: req.auth });
        sendObjectList(req, res, await listRelated(readContext(req), ctx, row, String(req.params.relation)));
      },
    },
    // BEdita's /media: every media object of any media type, read-only (writes go to its type).
    { method: 'get', path: '/media', guard: 'anonymous', cache: true, handler: async (req, res) => sendObjectList(req, res, await listObjects(readContext(req), ctx, { types: mediaTypeNames(ctx) })) },
    {
      method: 'get',
      path: '/media/:id',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => sendObject(req, res, ctx, await requireObject(ctx, String(req.params.id), { viewer: req.auth, typeName: 'media', withListValues: true })),
    },
    {
      method: 'get',
      path: '/:type',
      guard: 'anonymous',
      cache: true,
      // A type's list, as a read by id: answered without walking express's stack, and the data
      // version read along with the page's rows (db/read-along.ts, ListOptions.along).
      direct: true,
      readsAlong: true,
      handler: async (req, res) => {
        const along = readAlongOf(req);
        const list = await listObjects(readContext(req), ctx, { types: [theType(req).name], along });
        // The page came from the cache, had no rows, or was read without the version: read it.
        if (along) await confirmByRefresh(ctx.dataVersion, along);
        sendObjectList(req, res, list);
      },
    },
    {
      method: 'post',
      path: '/:type',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const type = theType(req);
        const input = objectWriteInput(ctx, req, type);
        const { row } = await apply(ctx, { action: 'create', type: type.name, actor: req.auth, changes: input });
        await sendWritten(req, res, ctx, row.id, 201, { Location: resourceUrl(req, objectPath(ctx, row)) });
      },
    },
    {
      method: 'delete',
      path: '/:type',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        await trashListed(req, ctx, theType(req).name);
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/:type/:id',
      guard: 'anonymous',
      cache: true,
      direct: true,
      // The data version comes with the object's read (db/read-along.ts): findTyped confirms it.
      readsAlong: true,
      handler: async (req, res) => {
        const row = await findTyped(req, true);
        const along = readAlongOf(req);
        if (along) await confirmByRefresh(ctx.dataVersion, along);
        await sendObject(req, res, ctx, row);
      },
    },
    {
      method: 'patch',
      path: '/:type/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const type = theType(req);
        const key = String(req.params.id);
        if (!/^\d{1,15}$/.test(key) || !isLeafType(ctx, type)) {
          const row = await findTyped(req);
          const input = objectWriteInput(ctx, req, type, row.id);
          await apply(ctx, { action: 'update', target: { key: row.id, type: type.name, peeked: row }, actor: req.auth, changes: input, expectedVersion: expectedVersion(req) });
          return sendWritten(req, res, ctx, row.id);
        }
        // An id of a type nothing extends: the kernel reads the object once, in its unit of work
        // (a round trip less on PostgreSQL). A refusal that comes before that read (the body, its
        // validation) gives way to what the read says first: a missing or hidden object.
        const id = Number(key);
        try {
          await apply(ctx, { action: 'update', target: { key: id, type: type.name, typed: true }, actor: req.auth, changes: objectWriteInput(ctx, req, type, id), expectedVersion: expectedVersion(req) });
        } catch (err) {
          if (err instanceof ApiError && err.status !== 404) await findTyped(req);
          throw err;
        }
        await sendWritten(req, res, ctx, id);
      },
    },
    {
      method: 'delete',
      path: '/:type/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        await apply(ctx, { action: 'trash', target: { key: String(req.params.id), type: theType(req).name }, actor: req.auth, expectedVersion: expectedVersion(req) });
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/:type/:id/:relation',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        sendObjectList(req, res, await listRelated(readContext(req), ctx, await findTyped(req), String(req.params.relation)));
      },
    },
  ];
  const writes = { post: 'add', patch: 'replace', delete: 'remove' } as const;
  for (const [method, mode] of Object.entries(writes) as Array<[keyof typeof writes, (typeof writes)[keyof typeof writes]]>) {
    routes.push({
      method,
      path: '/:type/:id/relationships/:relation',
      guard: 'user',
      writes: ['objects'],
      handler: async (req, res) => {
        const relation = { name: String(req.params.relation), items: identifiersInput(req), mode };
        const { written } = await apply(ctx, { action: 'update', target: { key: String(req.params.id), type: theType(req).name }, actor: req.auth, changes: { relations: [relation] } });
        sendLinks(req, res, 200, { data: written ?? [] });
      },
    });
  }
  return reloadModel(ctx).then(() => routes.map((r) => (r.path.startsWith('/:type') ? typeRoute(ctx, r) : r)));
}
