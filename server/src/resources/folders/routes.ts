// /folders: the declarations of the folder tree's endpoints — folders as objects, their parent
// and children relationships, `parents` of every object. Parse, call folders/writes.ts (each a unit
// of work) or the read path, serialise. What folders add to every object (relationships, list
// filters, tree hooks) is folders/extension.ts. Mounted before the objects family.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { identifiersInput, requestData, resourceInput, resourceUrl, sendLinks, sendList, sendNoContent, sendResource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import type { Family } from '../family.js';
import { listObjects } from '../objects/list.js';
import { findObjectByIdOrUname, getObject, requireObject } from '../objects/read.js';
import { typeById, typeByName } from '../objects/model.js';
import { objectWriteInput } from '../objects/schema.js';
import type { ObjectRow } from '../objects/rows.js';
import { serializeObject } from '../objects/serialize.js';
import { typeRoute } from '../objects/type-routes.js';
import { sendWritten } from '../objects/routes.js';
import { expectedVersion } from '../../http/if-match.js';
import { apply } from '../objects/kernel.js';
import { foldersExtension } from './extension.js';
import { childPositionSql, childrenCondition, FOLDERS, nodeOfFolder, parentsCondition, parsePosition, placementMeta, placementsIn, type FolderPlacement } from './service.js';
import { folderNode, nodeIn } from './tree.js';
import { addFolderChildren, createFolder, removeFolderChildren, removeFolderParent, setFolderParent, writeObjectParents } from './writes.js';
import { readContext } from '../../http/read-context.js';
import { booleanInput } from '../../http/input-values.js';

/** `data` of a to-one folder relationship: {type: 'folders', id} or null. */
function folderIdentifier(req: Request, allowNull: boolean): { id: string; meta: Record<string, unknown> } | null {
  // No parent: `null`, or `[]` as BEdita's Manager (PHP) sends it.
  const data = requestData(req);
  if (allowNull && (data === null || (Array.isArray(data) && data.length === 0))) return null;
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
  if (rel.data === null || (Array.isArray(rel.data) && rel.data.length === 0)) return null;
  const d = rel.data as { type?: unknown; id?: unknown };
  if (typeof d !== 'object' || (typeof d.id !== 'string' && typeof d.id !== 'number')) {
    throw badRequest('"relationships.parent.data" must be {type: "folders", id}', 'invalid_body');
  }
  if (d.type !== FOLDERS) throw new ApiError(409, 'type_mismatch', 'A parent must be of type "folders"');
  return String(d.id);
}

/** `meta.relation` of an identifier in a write: position, menu and params. */
function placementOf(meta: Record<string, unknown>, i: number): FolderPlacement {
  const relation = (meta.relation ?? {}) as Record<string, unknown>;
  if (typeof relation !== 'object' || Array.isArray(relation)) throw badRequest(`data[${i}].meta.relation must be an object`, 'invalid_body');
  const [menu, canonical] = [relation.menu, relation.canonical].map((v) => (v === undefined ? undefined : booleanInput(v)));
  if (relation.menu !== undefined && menu === undefined) throw badRequest(`data[${i}].meta.relation.menu must be true or false`, 'invalid_body');
  if (relation.canonical !== undefined && canonical === undefined) throw badRequest(`data[${i}].meta.relation.canonical must be true or false`, 'invalid_body');
  const params = relation.params;
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    throw new ApiError(400, 'invalid_params', `data[${i}].meta.relation.params must be an object`, undefined, { fields: ['params'] });
  }
  return {
    position: parsePosition(relation.position, `data[${i}].meta.relation.position`),
    menu,
    ...(canonical !== undefined ? { canonical } : {}),
    ...(params !== undefined ? { params: params as Record<string, unknown> | null } : {}),
  };
}

/** A folder's own tree node as `meta.relation` of its parent. */
function relationMeta(node: NonNullable<Awaited<ReturnType<typeof nodeOfFolder>>>) {
  const { params, ...rest } = node;
  return { ...rest, menu: Boolean(node.menu), canonical: Boolean(node.canonical), params: params ? (JSON.parse(params) as unknown) : null };
}

export const foldersFamily: Family = {
  name: 'folders',
  kernel: (ctx) => ({ extensions: [foldersExtension(ctx)] }),
  routes: foldersRoutes,
};

function foldersRoutes(ctx: AppContext): RouteDef[] {

  const requireFolder = (req: Request, key = String(req.params.id)) => requireObject(ctx, key, { typeName: FOLDERS, viewer: req.auth });

  /** A written folder, as its writer reads it after the write (objects/routes.ts, sendWritten). */
  const sendFolder = (req: Request, res: Response, id: number, status = 200) =>
    sendWritten(req, res, ctx, id, status, status === 201 ? { Location: resourceUrl(req, `/folders/${id}`) } : undefined);

  /** Where each of `ids` is placed in `folderId`, as `meta.relation` (positions kept until a write). */
  async function placementMetas(folderId: number, ids: number[]) {
    const placements = await ctx.readCache.get(`folder-placements:${folderId}`, () => placementsIn(ctx.db, folderId));
    const out = new Map<number, ReturnType<typeof placementMeta>>();
    for (const id of ids) {
      const p = placements.get(id);
      if (p) out.set(id, placementMeta(p));
    }
    return out;
  }

  /** Parent folders of an object, as a list, each with the object's placement there in `meta.relation`. */
  async function sendParents(req: Request, res: Response, row: ObjectRow) {
    const list = await listObjects(readContext(req), ctx, {
      types: [FOLDERS],
      extraWhere: (eb) => parentsCondition(eb, row.id),
    });
    for (const item of list.data) {
      const relation = (await placementMetas(Number(item.id), [row.id])).get(row.id);
      if (relation) item.meta = { ...(item.meta ?? {}), relation };
    }
    sendList(req, res, list.data, list.page, { meta: list.meta });
  }

  const writes = { post: 'add', patch: 'replace', delete: 'remove' } as const;
  const parentsWrites: RouteDef[] = (Object.keys(writes) as Array<keyof typeof writes>).map((method) => typeRoute(ctx, {
    method,
    path: '/:type/:id/relationships/parents',
    guard: 'user',
    writes: ['objects'],
    handler: async (req, res) => {
      const row = await requireObject(ctx, String(req.params.id), { typeName: String(req.params.type), viewer: req.auth });
      const items = method === 'patch' && requestData(req) === null ? [] : identifiersInput(req);
      const parents = items.map((item, i) => {
        if (item.type !== FOLDERS) throw new ApiError(409, 'type_mismatch', `data[${i}]: parents are of type "folders"`);
        return { id: item.id, ...placementOf(item.meta, i) };
      });
      await writeObjectParents(ctx, row.id, String(req.params.type), parents, writes[method], req.auth);
      sendLinks(req, res, 200, { data: items.map(({ id, type }) => ({ id, type })) });
    },
  }));

  /**
   * GET /trees/{id or uname}/…/{id or uname} (BEdita's TreesController): the object at that
   * folder path — a root folder, then each folder below it, the last segment the object placed
   * there — as GET /{type}/{id} shows it, with `meta.uname_path` and `meta.menu`. Any segment
   * missing, hidden from the reader or not placed where the path says: 404 "Invalid path".
   */
  const treePath: RouteDef = {
    method: 'get',
    path: '/trees/*path',
    guard: 'anonymous',
    cache: true,
    handler: async (req, res) => {
      const segments = ([] as string[]).concat(req.params.path as unknown as string[]).filter(Boolean);
      const invalid = () => new ApiError(404, 'not_found', 'Invalid path');
      if (!segments.length || segments.length > 100) throw invalid();
      const rows: ObjectRow[] = [];
      for (const key of segments) {
        const row = await findObjectByIdOrUname(ctx, key, { viewer: req.auth });
        if (!row) throw invalid();
        rows.push(row);
      }
      const last = rows[rows.length - 1];
      if (rows.slice(0, -1).some((r) => typeById(ctx, r.object_type_id)?.name !== FOLDERS)) throw invalid();
      // Each folder sits under the one before it; the first is a root.
      const root = await folderNode(ctx.db, rows[0].id);
      if (!root || root.parent_id !== null) throw invalid();
      let node = root;
      for (let i = 1; i < rows.length; i++) {
        const next = await nodeIn(ctx.db, rows[i - 1].id, rows[i].id);
        if (!next) throw invalid();
        node = next;
      }
      const { data, included } = await serializeObject(readContext(req), ctx, last, { include: [] });
      data.meta = { ...(data.meta ?? {}), uname_path: `/${rows.map((r) => r.uname).join('/')}`, menu: Boolean(node.menu) };
      sendResource(req, res, data, { included: included.length ? included : undefined, version: last.version });
    },
  };

  return [
    treePath,
    ...parentsWrites,
    {
      method: 'get',
      path: '/folders',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const list = await listObjects(readContext(req), ctx, { types: [FOLDERS] });
        sendList(req, res, list.data, list.page, { meta: list.meta, included: list.included.length ? list.included : undefined });
      },
    },
    {
      method: 'post',
      path: '/folders',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const input = objectWriteInput(ctx, req, typeByName(ctx, FOLDERS)!);
        const parentKey = parentOfInput(input.relationships);
        const id = await createFolder(ctx, input, parentKey, req.auth);
        await sendFolder(req, res, id, 201);
      },
    },
    {
      method: 'get',
      path: '/folders/:id',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const row = await requireFolder(req);
        const { data, included } = await serializeObject(readContext(req), ctx, row);
        sendResource(req, res, data, { included: included.length ? included : undefined, version: row.version });
      },
    },
    {
      method: 'patch',
      path: '/folders/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const input = objectWriteInput(ctx, req, typeByName(ctx, FOLDERS)!, folder.id);
        if (!Object.keys(input.attributes).length && input.meta.locked === undefined && input.meta.perms === undefined) {
          throw badRequest('"data.attributes" must name at least one attribute to change', 'invalid_body');
        }
        await apply(ctx, { action: 'update', target: { key: folder.id, type: FOLDERS }, actor: req.auth, changes: input, expectedVersion: expectedVersion(req) });
        await sendFolder(req, res, folder.id);
      },
    },
    {
      method: 'delete',
      path: '/folders/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        await apply(ctx, { action: 'trash', target: { key: String(req.params.id), type: FOLDERS }, actor: req.auth, expectedVersion: expectedVersion(req) });
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
        const { data } = await serializeObject(readContext(req), ctx, parent);
        data.meta = { ...(data.meta ?? {}), relation: relationMeta(node) };
        sendResource(req, res, data, { links });
      },
    },
    {
      method: 'patch',
      path: '/folders/:id/relationships/parent',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const target = folderIdentifier(req, true);
        const placement = target ? placementOf(target.meta, 0) : {};
        await setFolderParent(ctx, folder.id, target?.id ?? null, placement, req.auth, expectedVersion(req));
        sendLinks(req, res, 200);
      },
    },
    {
      method: 'delete',
      path: '/folders/:id/relationships/parent',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const parentKey = folderIdentifier(req, false)!.id;
        await removeFolderParent(ctx, folder.id, parentKey, req.auth);
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
        const list = await listObjects(readContext(req), ctx, {
          extraWhere: (eb) => childrenCondition(eb, nodeId),
          sorts: { position: childPositionSql(nodeId) },
          defaultSort: 'position',
        });
        // Positions count every active child (1,000 rows for a big folder): kept until a write.
        const metas = await placementMetas(folder.id, list.data.map((item) => Number(item.id)));
        for (const item of list.data) {
          const relation = metas.get(Number(item.id));
          if (relation) item.meta = { ...(item.meta ?? {}), relation };
        }
        sendList(req, res, list.data, list.page, {
          meta: list.meta,
          included: list.included.length ? list.included : undefined,
          links: { available: `${baseUrl(req)}/objects` },
        });
      },
    },
    ...(['post', 'patch'] as const).map(
      (method): RouteDef => ({
        method,
        path: '/folders/:id/relationships/children',
        writes: ['objects'],
        guard: 'user',
        // POST adds (or moves) children; PATCH makes them the folder's children (BEdita's replace).
        handler: async (req, res) => {
          const folder = await requireFolder(req);
          const items = method === 'patch' && requestData(req) === null ? [] : identifiersInput(req);
          const inputs = items.map((item, i) => {
            if (item.type === 'users') throw badRequest('Users cannot be placed in folders', 'invalid_child');
            return { id: item.id, type: item.type, ...placementOf(item.meta, i) };
          });
          await addFolderChildren(ctx, folder.id, inputs, req.auth, method === 'patch' ? 'replace' : 'add');
          sendLinks(req, res, 200, { data: items.map(({ id, type }) => ({ id, type })) });
        },
      }),
    ),
    {
      method: 'delete',
      path: '/folders/:id/relationships/children',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const folder = await requireFolder(req);
        const items = identifiersInput(req);
        await removeFolderChildren(ctx, folder.id, items, req.auth);
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
    typeRoute(ctx, {
      method: 'get',
      path: '/:type/:id/parents',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) =>
        sendParents(req, res, await requireObject(ctx, String(req.params.id), { typeName: String(req.params.type), viewer: req.auth })),
    }),
  ];
}
