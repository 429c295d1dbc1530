// /history (admins), /{type}/{id}/history and /objects/{id}/history (signed-in users who may read
// the object; trashed objects for admins only), and restoring a version with
// POST …/history/{historyId}/restore. Mounted before the objects family, whose
// /{type}/{id}/{relation} would otherwise take these paths.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/errors.js';
import { relationshipLinks, sendList, sendResource, type Resource } from '../../http/jsonapi.js';
import { findUserById, serializeUser } from '../users/service.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { pathId } from '../../http/params.js';
import { typeById, typeByName, type ObjectType } from '../objects/model.js';
import { getObject, readsEveryStatus, requireObject } from '../objects/read.js';
import type { ObjectRow } from '../objects/rows.js';
import { serializeObject } from '../objects/serialize.js';
import { readContext } from '../../http/read-context.js';
import {
  HISTORY_LIST_SPEC,
  OBJECT_HISTORY_LIST_SPEC,
  getEntry,
  hideUnpublishedTranslations,
  hideUnreadableIds,
  listHistory,
  restoreVersion,
  serializeEntry,
  valuesBefore,
  writerNames,
} from './service.js';

/** The concrete, enabled type named by the first path segment (users and folders included). */
function pathType(ctx: AppContext, req: Request): ObjectType | undefined {
  const t = typeByName(ctx, req.path.split('/')[1] ?? '');
  return t && !t.isAbstract && t.enabled ? t : undefined;
}

export function historyRoutes(ctx: AppContext): RouteDef[] {
  /** The users who wrote `entries` (its `relationships.user` names each one's), for `included`. */
  const writersOf = async (req: Request, entries: Resource[]): Promise<Resource[]> => {
    const ids = [...new Set(entries.map((e) => e.attributes?.user_id).filter((id): id is number => typeof id === 'number'))];
    const users = new Map<number, Resource>();
    for (const id of ids) {
      const user = await findUserById(ctx, req.auth, ctx.db, id);
      if (user) users.set(id, serializeUser(ctx, req, user));
    }
    for (const e of entries) {
      const id = e.attributes?.user_id as number | null;
      const user = id === null ? undefined : users.get(id);
      e.relationships = { ...(e.relationships ?? {}), user: { ...relationshipLinks(req, `/history/${e.id}`, 'user'), data: user ? { id: user.id, type: user.type } : null } };
    }
    return [...users.values()];
  };

  const isTypePath = (req: Request) => !!pathType(ctx, req);

  /** The object of the path as the caller may read it; trashed ones only for admins. */
  const objectOf = (req: Request, trashedToo: boolean) =>
    requireObject(ctx, String(req.params.id), {
      viewer: req.auth,
      typeName: pathType(ctx, req)?.name,
      trashed: trashedToo && req.auth.isAdmin ? 'any' : false,
    });

  const sendObjectHistory = async (req: Request, res: Response, row: ObjectRow) => {
    const q = parseListQuery(req, OBJECT_HISTORY_LIST_SPEC);
    const { rows, count } = await listHistory(ctx.db, q, row.id);
    const [names, before] = await Promise.all([writerNames(ctx.db, rows), valuesBefore(ctx.db, row.id, rows)]);
    const data = rows.map((r) => serializeEntry(req, ctx, r, { username: r.user_id === null ? null : names.get(r.user_id), before: before.get(r.id) ?? null }));
    const type = typeById(ctx, row.object_type_id)!;
    await hideUnreadableIds(ctx, req.auth, type.name, data);
    if (!readsEveryStatus(req.auth, type, row)) await hideUnpublishedTranslations(ctx.db, row.id, data);
    sendList(req, res, data, { count, page: q.page, pageSize: q.pageSize });
  };

  const restore = async (req: Request, res: Response) => {
    const row = await objectOf(req, false);
    if (!req.auth.isAdmin && typeById(ctx, row.object_type_id)?.name === 'users') throw forbidden('Only administrators may restore versions of users');
    const entry = await getEntry(ctx.db, pathId(req, 'historyId'));
    await restoreVersion(ctx, row, entry, req.auth);
    // As the writer reads it after the restore: its identifier alone when it may no longer.
    const now = await getObject(ctx, row.id, { viewer: req.auth });
    const data = now ? (await serializeObject(readContext(req), ctx, now)).data : { id: String(row.id), type: typeById(ctx, row.object_type_id)!.name };
    sendResource(req, res, data, { meta: { restored_from: String(entry.id) }, version: now?.version });
  };

  return [
    {
      method: 'get',
      path: '/history',
      guard: 'admin',
      handler: async (req, res) => {
        const q = parseListQuery(req, { ...HISTORY_LIST_SPEC, includes: ['user'] });
        const { rows, count } = await listHistory(ctx.db, q);
        const names = await writerNames(ctx.db, rows);
        const data = rows.map((r) => serializeEntry(req, ctx, r, { username: r.user_id === null ? null : names.get(r.user_id) }));
        // include=user (BEdita's Manager asks it): the writers, as admins (the only readers here) see them.
        const included = q.include.includes('user') ? await writersOf(req, data) : undefined;
        sendList(req, res, data, { count, page: q.page, pageSize: q.pageSize }, { included });
      },
    },
    {
      method: 'get',
      path: '/history/:id',
      guard: 'admin',
      handler: async (req, res) => {
        const row = await getEntry(ctx.db, pathId(req));
        const [names, before] = await Promise.all([writerNames(ctx.db, [row]), valuesBefore(ctx.db, row.resource_id, [row])]);
        sendResource(req, res, serializeEntry(req, ctx, row, { username: row.user_id === null ? null : names.get(row.user_id), before: before.get(row.id) ?? null }));
      },
    },
    { method: 'get', path: '/objects/:id/history', guard: 'user', handler: async (req, res) => sendObjectHistory(req, res, await objectOf(req, true)) },
    { method: 'get', path: '/:type/:id/history', guard: 'user', when: isTypePath, handler: async (req, res) => sendObjectHistory(req, res, await objectOf(req, true)) },
    { method: 'post', path: '/objects/:id/history/:historyId/restore', guard: 'user', writes: ['objects'], handler: restore },
    { method: 'post', path: '/:type/:id/history/:historyId/restore', guard: 'user', when: isTypePath, writes: ['objects'], handler: restore },
  ];
}
