// /trash: trashed objects. Admins see and manage every one; a signed-in user sees the trashed
// objects they may `delete` (their own ones with `delete:own`) and restores them (PATCH): an editor
// who moved something to the trash can always get it back. Deleting for good stays admin-only.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest, notFound } from '../../http/errors.js';
import { queryIds } from '../../http/params.js';
import type { AuthInfo } from '../../http/request.js';
import { reaches, rightsOn } from '../permissions/rules.js';
import { resourceInput, resourceUrl, sendList, sendNoContent, sendResource } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import { concreteTypeNames, typeById, typeByName } from '../objects/model.js';
import { listObjects, type ListOptions } from '../objects/list.js';
import { getObjectsByIds, requireObject } from '../objects/read.js';
import { type ObjectRow } from '../objects/rows.js';
import { serializeObject } from '../objects/serialize.js';
import { apply } from '../objects/kernel.js';
import { SYSTEM } from '../objects/kernel.js';
import { readContext } from '../../http/read-context.js';

/** The trashed objects `viewer` may take back: every one for admins, else those its `delete` right reaches. */
function mayDeleteWhere(ctx: AppContext, viewer: AuthInfo) {
  return (eb: Parameters<NonNullable<ListOptions['extraWhere']>>[0]) => {
    const all: number[] = [];
    const own: number[] = [];
    for (const name of concreteTypeNames(ctx)) {
      const type = typeByName(ctx, name)!;
      const reach = rightsOn(viewer.permissions, type).delete;
      if (reach === 'all') all.push(type.id);
      else if (reach === 'own') own.push(type.id);
    }
    const either = [];
    if (all.length) either.push(eb('objects.object_type_id', 'in', all));
    if (own.length && viewer.userId !== null) either.push(eb.and([eb('objects.object_type_id', 'in', own), eb('objects.created_by', '=', viewer.userId)]));
    return either.length ? eb.or(either) : eb.lit(false);
  };
}

export function trashRoutes(ctx: AppContext): RouteDef[] {
  /** A trashed object the request's user may take back (404 otherwise, as a missing one). */
  const trashed = async (req: Request, id: unknown) => {
    const row = await requireObject(ctx, String(id), { trashed: true, viewer: SYSTEM });
    if (req.auth.isAdmin) return row;
    const type = typeById(ctx, row.object_type_id);
    const reach = type ? rightsOn(req.auth.permissions, type).delete : null;
    if (!reaches(reach, req.auth.userId, row.created_by)) throw notFound(`No object "${id}" in the trash`);
    return row;
  };
  /** A trashed object is addressed as /trash/{id}. */
  const withTrashLink = (req: Parameters<RouteDef['handler']>[0], id: string, links?: Record<string, string | null>) =>
    links ? { ...links, self: resourceUrl(req, `/trash/${id}`) } : undefined;
  return [
    {
      method: 'get',
      path: '/trash',
      guard: 'user',
      handler: async (req, res) => {
        const list = await listObjects(readContext(req), ctx, { trashed: true, ...(req.auth.isAdmin ? {} : { extraWhere: mayDeleteWhere(ctx, req.auth) }) });
        for (const d of list.data) d.links = withTrashLink(req, d.id, d.links);
        sendList(req, res, list.data, list.page, { meta: list.meta });
      },
    },
    {
      method: 'get',
      path: '/trash/:id',
      guard: 'user',
      handler: async (req, res) => {
        const { data } = await serializeObject(readContext(req), ctx, await trashed(req, req.params.id));
        data.links = withTrashLink(req, data.id, data.links);
        sendResource(req, res, data);
      },
    },
    {
      method: 'patch',
      path: '/trash/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const row: ObjectRow = await trashed(req, req.params.id);
        resourceInput(req, ['objects', typeById(ctx, row.object_type_id)!.name], row.id);
        await apply(ctx, { action: 'restore', target: { key: row.id }, actor: req.auth });
        sendNoContent(res);
      },
    },
    {
      // BEdita's `DELETE /trash?ids=1,2`: each listed trashed object is removed for good; ids naming
      // none are passed over, as BEdita passes them over.
      method: 'delete',
      path: '/trash',
      writes: ['objects'],
      guard: 'admin',
      handler: async (req, res) => {
        const ids = queryIds(req, 'ids');
        if (!ids) throw badRequest('Missing required parameter "ids"', 'missing_parameter');
        for (const row of await getObjectsByIds(ctx, ids, { viewer: SYSTEM, trashed: true })) await apply(ctx, { action: 'purge', target: { key: row.id }, actor: req.auth });
        sendNoContent(res);
      },
    },
    {
      method: 'delete',
      path: '/trash/:id',
      writes: ['objects'],
      guard: 'admin',
      handler: async (req, res) => {
        await apply(ctx, { action: 'purge', target: { key: (await requireObject(ctx, String(req.params.id), { trashed: true, viewer: SYSTEM })).id }, actor: req.auth });
        sendNoContent(res);
      },
    },
  ];
}
