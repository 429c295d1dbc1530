// /folders: the folder tree through the API — folders as objects, their parent and children
// relationships — plus `parents` of every object and the tree filters (parent, ancestor,
// roots) on every object list. Mounted before the objects family, so /folders is answered here.
import type { Request, Response } from 'express';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { ApiError, badRequest } from '../../http/errors.js';
import {
  identifiersInput,
  relationshipLinks,
  requestData,
  resourceInput,
  resourceUrl,
  sendLinks,
  sendList,
  sendNoContent,
  sendResource,
} from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { registerObjectExtension } from '../objects/extensions.js';
import { endpointType } from '../objects/model.js';
import { listObjects } from '../objects/list.js';
import { findObjectByIdOrUname, getObject, getObjectsByIds, requireObject } from '../objects/read.js';
import { type ObjectRow } from '../objects/rows.js';
import { serializeObject } from '../objects/serialize.js';
import { trashObjects } from '../objects/trash.js';
import { createObject, updateObject } from '../objects/write.js';
import {
  addChildren,
  FOLDERS,
  detachFolder,
  nodeOfFolder,
  parentsOf,
  parsePosition,
  pathsOf,
  placementsIn,
  removeChildren,
  removeFromTree,
  restoreSubfolders,
  trashSubfolders,
  writeParents,
  type ChildInput,
  type ParentInput,
} from './service.js';
import type { Position } from './tree.js';
import { placeNewFolder } from './service.js';
import { inTransaction } from '../objects/pipeline.js';

const MAX_FILTER_FOLDERS = 100;
const noMatch = sql<SqlBool>`1 = 0`;

/** Active folders named by id or uname in a filter value (unknown ones match nothing). */
async function foldersOfFilter(ctx: AppContext, name: string, values: string[]): Promise<number[]> {
  if (!values.length) throw badRequest(`filter[${name}] needs a folder id or uname`, 'invalid_filter');
  if (values.length > MAX_FILTER_FOLDERS) throw badRequest(`filter[${name}] takes at most ${MAX_FILTER_FOLDERS} folders`, 'invalid_filter');
  const rows = await Promise.all(values.map((v) => findObjectByIdOrUname(ctx, v, { typeName: FOLDERS })));
  return rows.filter((r): r is ObjectRow => !!r).map((r) => r.id);
}

type ObjectsEb = ExpressionBuilder<Database, 'objects'>;

const treeFilters = {
  /** Objects placed directly in one of the folders. */
  async parent(values: string[], eb: ObjectsEb, ctx: AppContext): Promise<Expression<SqlBool>> {
    const ids = await foldersOfFilter(ctx, 'parent', values);
    if (!ids.length) return noMatch;
    return eb('objects.id', 'in', eb.selectFrom('trees').select('trees.object_id').where('trees.parent_id', 'in', ids));
  },
  /** Objects anywhere below one of the folders, not counting what sits in trashed sub-folders. */
  async ancestor(values: string[], eb: ObjectsEb, ctx: AppContext): Promise<Expression<SqlBool>> {
    const ids = await foldersOfFilter(ctx, 'ancestor', values);
    if (!ids.length) return noMatch;
    return eb(
      'objects.id',
      'in',
      eb
        .selectFrom('trees as t')
        .innerJoin('trees as a', (join) =>
          join.onRef('a.root_id', '=', 't.root_id').onRef('a.tree_left', '<', 't.tree_left').onRef('a.tree_right', '>', 't.tree_right'),
        )
        .innerJoin('objects as p', 'p.id', 't.parent_id')
        .select('t.object_id')
        .where('a.object_id', 'in', ids)
        .where('p.deleted', '=', false),
    );
  },
  /** Root folders (filter[roots], filter[roots]=true); filter[roots]=false: everything else. */
  async roots(values: string[], eb: ObjectsEb): Promise<Expression<SqlBool>> {
    const v = values.join(',');
    if (!['', 'true', '1', 'false', '0'].includes(v)) throw badRequest('filter[roots] takes no value, or true / false', 'invalid_filter');
    const roots = eb.selectFrom('trees').select('trees.object_id').where('trees.parent_id', 'is', null);
    return v === 'false' || v === '0' ? eb('objects.id', 'not in', roots) : eb('objects.id', 'in', roots);
  },
};

/** `data` of a to-one folder relationship: {type: 'folders', id} or null. */
function folderIdentifier(req: Request, allowNull: boolean): { id: string; meta: Record<string, unknown> } | null {
  if (allowNull && requestData(req) === null) return null;
  const items = identifiersInput(req);
  if (items.length !== 1) throw badRequest('"data" must be one folder identifier', 'invalid_body');
  if (items[0].type !== FOLDERS) throw new ApiError(409, 'type_mismatch', 'A parent must be of type "folders"');
  return items[0];
}

/** `relationships.parent` of a create body, if given. */
function parentOfInput(relationships: Record<string, unknown>): string | null {
  const rel = relationships.parent as { data?: unknown } | undefined;
  if (rel === undefined || rel === null) return null;
  if (typeof rel !== 'object' || !('data' in rel)) throw badRequest('"relationships.parent" must hold "data"', 'invalid_body');
  if (rel.data === null) return null;
  const d = rel.data as { type?: unknown; id?: unknown };
  if (typeof d !== 'object' || (typeof d.id !== 'string' && typeof d.id !== 'number')) {
    throw badRequest('"relationships.parent.data" must be {type: "folders", id}', 'invalid_body');
  }
  if (d.type !== FOLDERS) throw new ApiError(409, 'type_mismatch', 'A parent must be of type "folders"');
  return String(d.id);
}

/** `meta.relation` of an identifier in a write: position and menu. */
function placementOf(meta: Record<string, unknown>, i: number): { position?: Position; menu?: boolean } {
  const relation = (meta.relation ?? {}) as Record<string, unknown>;
  if (typeof relation !== 'object' || Array.isArray(relation)) throw badRequest(`data[${i}].meta.relation must be an object`, 'invalid_body');
  if (relation.menu !== undefined && typeof relation.menu !== 'boolean') throw badRequest(`data[${i}].meta.relation.menu must be true or false`, 'invalid_body');
  return { position: parsePosition(relation.position, `data[${i}].meta.relation.position`), menu: relation.menu as boolean | undefined };
}

/** The child's tree node as `meta.relation` (all numbers, menu as boolean). */
function relationMeta(node: NonNullable<Awaited<ReturnType<typeof nodeOfFolder>>>) {
  return { ...node, menu: Boolean(node.menu) };
}

export function foldersRoutes(ctx: AppContext): RouteDef[] {
  registerObjectExtension(ctx, {
    name: 'folders',
    types: ['objects'],
    async decorate(req, _ctx, items) {
      // Parent folders the reader may not see are left out (the read path decides; admins see all).
      const parents = await parentsOf(ctx.db, items.map((i) => i.id));
      const parentIds = [...new Set([...parents.values()].flat())];
      if (!req.auth.isAdmin && parentIds.length) {
        const shown = new Set((await getObjectsByIds(ctx, parentIds, { viewer: req.auth })).map((r) => r.id));
        for (const [id, list] of parents) parents.set(id, list.filter((p) => shown.has(p)));
      }
      const folders = items.filter((i) => i.type === FOLDERS);
      const paths = await pathsOf(ctx.db, folders.map((f) => f.id));
      for (const item of items) {
        const path = `/${item.type}/${item.id}`;
        const ids = (parents.get(item.id) ?? []).map((id) => ({ id: String(id), type: FOLDERS }));
        const relationships = (item.resource.relationships ??= {});
        relationships.parents = { ...relationshipLinks(req, path, 'parents'), data: ids };
        if (item.type !== FOLDERS) continue;
        relationships.parent = { ...relationshipLinks(req, path, 'parent'), data: ids[0] ?? null };
        relationships.children = relationshipLinks(req, path, 'children');
        item.resource.meta = { ...(item.resource.meta ?? {}), path: paths.get(item.id) ?? null };
      }
    },
    filters: treeFilters,
    onTrash: (trx, ids, _ctx, actor) => trashSubfolders(ctx, trx, ids, actor),
    onRestore: (trx, ids, _ctx, actor) => restoreSubfolders(ctx, trx, ids, actor),
    onPurge: (trx, ids) => removeFromTree(ctx, trx, ids),
    // Every new folder has its place in the tree: under `own.parentId`, or a root.
    async afterWrite(trx, w) {
      if (w.action === 'create' && w.type.lineage.includes(FOLDERS)) await placeNewFolder(trx, w.row!.id, (w.own.parentId as number | null | undefined) ?? null);
    },
  });

  const requireFolder = (req: Request, key = String(req.params.id)) => requireObject(ctx, key, { typeName: FOLDERS, viewer: req.auth });

  async function sendFolder(req: Request, res: Response, id: number, status = 200) {
    const { data } = await serializeObject(req, ctx, await requireObject(ctx, id, { typeName: FOLDERS }));
    sendResource(req, res, data, status === 201 ? { status, headers: { Location: resourceUrl(req, `/folders/${id}`) } } : {});
  }

  /** Parent folders of an object, as a list. */
  async function sendParents(req: Request, res: Response, row: ObjectRow) {
    const list = await listObjects(req, ctx, {
      types: [FOLDERS],
      extraWhere: (eb) => eb('objects.id', 'in', eb.selectFrom('trees').select('trees.parent_id').where('trees.object_id', '=', row.id) as never),
    });
    sendList(req, res, list.data, list.page, { meta: list.meta });
  }

  const isTypePath = (req: Request) => !!endpointType(ctx, req.path.split('/')[1]);
  const writes = { post: 'add', patch: 'replace', delete: 'remove' } as const;
  const parentsWrites: RouteDef[] = (Object.keys(writes) as Array<keyof typeof writes>).map((method) => ({
    method,
    path: '/:type/:id/relationships/parents',
    guard: 'user',
    when: isTypePath,
    handler: async (req, res) => {
      const row = await requireObject(ctx, String(req.params.id), { typeName: String(req.params.type), viewer: req.auth });
      const items = method === 'patch' && requestData(req) === null ? [] : identifiersInput(req);
      const parents = items.map((item, i) => {
        if (item.type !== FOLDERS) throw new ApiError(409, 'type_mismatch', `data[${i}]: parents are of type "folders"`);
        return { item, ...placementOf(item.meta, i) };
      });
      await inTransaction(ctx, undefined, async (trx) => {
        const inputs: ParentInput[] = [];
        for (const p of parents) {
          const folder = await requireObject(ctx, p.item.id, { typeName: FOLDERS, db: trx });
          inputs.push({ folderId: folder.id, position: p.position, menu: p.menu });
        }
        await writeParents(ctx, trx, row, inputs, writes[method], req.auth);
      });
      sendLinks(req, res, 200, { data: items.map(({ id, type }) => ({ id, type })) });
    },
  }));

  return [
    ...parentsWrites,
    {
      method: 'get',
      path: '/folders',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const list = await listObjects(req, ctx, { types: [FOLDERS] });
        sendList(req, res, list.data, list.page, { meta: list.meta, included: list.included.length ? list.included : undefined });
      },
    },
    {
      method: 'post',
      path: '/folders',
      guard: 'user',
      handler: async (req, res) => {
        const input = resourceInput(req, FOLDERS);
        const parentKey = parentOfInput(input.relationships);
        const id = await inTransaction(ctx, undefined, async (trx) => {
          const parent = parentKey === null ? null : await requireObject(ctx, parentKey, { typeName: FOLDERS, db: trx });
          return createObject(ctx, FOLDERS, { ...input, own: { parentId: parent?.id ?? null } }, req.auth, trx);
        });
        await sendFolder(req, res, id, 201);
      },
    },
    {
      method: 'get',
      path: '/folders/:id',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const { data, included } = await serializeObject(req, ctx, await requireFolder(req));
        sendResource(req, res, data, { included: included.length ? included : undefined });
      },
    },
    {
      method: 'patch',
      path: '/folders/:id',
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const input = resourceInput(req, FOLDERS, folder.id);
        if (!Object.keys(input.attributes).length && input.meta.locked === undefined && input.meta.perms === undefined) {
          throw badRequest('"data.attributes" must name at least one attribute to change', 'invalid_body');
        }
        await updateObject(ctx, folder.id, input, req.auth, { typeName: FOLDERS });
        await sendFolder(req, res, folder.id);
      },
    },
    {
      method: 'delete',
      path: '/folders/:id',
      guard: 'user',
      handler: async (req, res) => {
        await trashObjects(ctx, [(await requireFolder(req)).id], req.auth);
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/folders/:id/parent',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const node = await nodeOfFolder(ctx.db, folder.id);
        const links = { available: `${baseUrl(req)}/folders` };
        const parent = node?.parent_id ? await getObject(ctx, node.parent_id, { typeName: FOLDERS, viewer: req.auth }) : undefined;
        if (!node || !parent) return sendResource(req, res, null, { links });
        const { data } = await serializeObject(req, ctx, parent);
        data.meta = { ...(data.meta ?? {}), relation: relationMeta(node) };
        sendResource(req, res, data, { links });
      },
    },
    {
      method: 'patch',
      path: '/folders/:id/relationships/parent',
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const target = folderIdentifier(req, true);
        const placement = target ? placementOf(target.meta, 0) : {};
        await inTransaction(ctx, undefined, async (trx) => {
          if (!target) return detachFolder(ctx, trx, folder, req.auth);
          const parent = await requireObject(ctx, target.id, { typeName: FOLDERS, db: trx });
          await addChildren(ctx, trx, parent.id, [{ row: folder, ...placement }], req.auth);
        });
        sendLinks(req, res, 200);
      },
    },
    {
      method: 'delete',
      path: '/folders/:id/relationships/parent',
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const parentKey = folderIdentifier(req, false)!.id;
        await inTransaction(ctx, undefined, async (trx) => {
          const node = await nodeOfFolder(trx, folder.id);
          if (node?.parent_id !== null && String(node?.parent_id) === parentKey) await detachFolder(ctx, trx, folder, req.auth);
        });
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/folders/:id/children',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const node = await nodeOfFolder(ctx.db, folder.id);
        const nodeId = node?.id ?? 0;
        const list = await listObjects(req, ctx, {
          extraWhere: (eb) => eb('objects.id', 'in', eb.selectFrom('trees').select('trees.object_id').where('trees.parent_node_id', '=', nodeId)),
          sorts: { position: sql`(select t.tree_left from trees t where t.parent_node_id = ${nodeId} and t.object_id = objects.id)` },
          defaultSort: 'position',
        });
        // Positions count every active child (1,000 rows for a big folder): kept until a write.
        const placements = await ctx.readCache.get(`folder-placements:${folder.id}`, () => placementsIn(ctx.db, folder.id));
        for (const item of list.data) {
          const p = placements.get(Number(item.id));
          if (p) item.meta = { ...(item.meta ?? {}), relation: { position: p.position, menu: Boolean(p.node.menu), depth_level: p.node.depth_level } };
        }
        sendList(req, res, list.data, list.page, {
          meta: list.meta,
          included: list.included.length ? list.included : undefined,
          links: { available: `${baseUrl(req)}/objects` },
        });
      },
    },
    {
      method: 'post',
      path: '/folders/:id/relationships/children',
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const items = identifiersInput(req);
        const inputs = items.map((item, i) => {
          if (item.type === 'users') throw badRequest('Users cannot be placed in folders', 'invalid_child');
          return { item, ...placementOf(item.meta, i) };
        });
        await inTransaction(ctx, undefined, async (trx) => {
          const children: ChildInput[] = [];
          for (const { item, position, menu } of inputs) {
            children.push({ row: await requireObject(ctx, item.id, { typeName: item.type, db: trx }), position, menu });
          }
          await addChildren(ctx, trx, folder.id, children, req.auth);
        });
        sendLinks(req, res, 200, { data: items.map(({ id, type }) => ({ id, type })) });
      },
    },
    {
      method: 'delete',
      path: '/folders/:id/relationships/children',
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const items = identifiersInput(req);
        await inTransaction(ctx, undefined, async (trx) => {
          const rows: ObjectRow[] = [];
          for (const item of items) rows.push(await requireObject(ctx, item.id, { typeName: item.type, trashed: 'any', db: trx }));
          await removeChildren(ctx, trx, folder.id, rows, req.auth);
        });
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/objects/:id/parents',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => sendParents(req, res, await requireObject(ctx, String(req.params.id), { viewer: req.auth })),
    },
    {
      method: 'get',
      path: '/:type/:id/parents',
      guard: 'anonymous',
      cache: true,
      when: isTypePath,
      handler: async (req, res) =>
        sendParents(req, res, await requireObject(ctx, String(req.params.id), { typeName: String(req.params.type), viewer: req.auth })),
    },
  ];
}
