// /trash: trashed objects, for administrators only — list, read, restore (PATCH), delete for good.
import type { AppContext } from '../../context.js';
import { resourceInput, resourceUrl, sendList, sendNoContent, sendResource } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import { typeById } from '../objects/model.js';
import { listObjects } from '../objects/list.js';
import { requireObject } from '../objects/read.js';
import { type ObjectRow } from '../objects/rows.js';
import { serializeObject } from '../objects/serialize.js';
import { apply } from '../objects/kernel.js';
import { SYSTEM } from '../objects/kernel.js';
import { readContext } from '../../http/read-context.js';

export function trashRoutes(ctx: AppContext): RouteDef[] {
  const trashed = (id: unknown) => requireObject(ctx, String(id), { trashed: true, viewer: SYSTEM });
  /** A trashed object is addressed as /trash/{id}. */
  const withTrashLink = (req: Parameters<RouteDef['handler']>[0], id: string, links?: Record<string, string | null>) =>
    links ? { ...links, self: resourceUrl(req, `/trash/${id}`) } : undefined;
  return [
    {
      method: 'get',
      path: '/trash',
      guard: 'admin',
      handler: async (req, res) => {
        const list = await listObjects(readContext(req), ctx, { trashed: true });
        for (const d of list.data) d.links = withTrashLink(req, d.id, d.links);
        sendList(req, res, list.data, list.page, { meta: list.meta });
      },
    },
    {
      method: 'get',
      path: '/trash/:id',
      guard: 'admin',
      handler: async (req, res) => {
        const { data } = await serializeObject(readContext(req), ctx, await trashed(req.params.id));
        data.links = withTrashLink(req, data.id, data.links);
        sendResource(req, res, data);
      },
    },
    {
      method: 'patch',
      path: '/trash/:id',
      writes: ['objects'],
      guard: 'admin',
      handler: async (req, res) => {
        const row: ObjectRow = await trashed(req.params.id);
        resourceInput(req, ['objects', typeById(ctx, row.object_type_id)!.name], row.id);
        await apply(ctx, { action: 'restore', target: { key: row.id }, actor: req.auth });
        sendNoContent(res);
      },
    },
    {
      method: 'delete',
      path: '/trash/:id',
      writes: ['objects'],
      guard: 'admin',
      handler: async (req, res) => {
        await apply(ctx, { action: 'purge', target: { key: (await trashed(req.params.id)).id }, actor: req.auth });
        sendNoContent(res);
      },
    },
  ];
}
