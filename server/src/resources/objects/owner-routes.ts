// `/{resource}/{id}/object` and `/{resource}/{id}/relationships/object`: the object a translation
// or an annotation belongs to, as BEdita answers them (the object as its reader reads it, and its
// identifier). `owner` resolves the resource as the caller may read it (404/401/403 otherwise) and
// names its object; the object itself is read through the caller's visibility too.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { sendResource } from '../../http/jsonapi.js';
import { readContext } from '../../http/read-context.js';
import type { Guard } from '../../http/auth.js';
import type { RouteDef } from '../../http/router.js';
import { typeById } from './model.js';
import { requireObject } from './read.js';
import { serializeObject } from './serialize.js';

export function ownerObjectRoutes(
  ctx: AppContext,
  resource: string,
  guard: Guard,
  owner: (req: Request) => Promise<{ object_id: number | string }>,
  cache = false,
): RouteDef[] {
  const object = async (req: Request) => requireObject(ctx, Number((await owner(req)).object_id), { viewer: req.auth });
  const links = (req: Request) => ({ available: `${readContext(req).base}/objects` });
  return [
    {
      method: 'get',
      path: `/${resource}/:id/object`,
      guard,
      cache,
      handler: async (req, res) => {
        const { data, included } = await serializeObject(readContext(req), ctx, await object(req));
        sendResource(req, res, data, { included: included.length ? included : undefined, links: links(req) });
      },
    },
    {
      method: 'get',
      path: `/${resource}/:id/relationships/object`,
      guard,
      cache,
      handler: async (req, res) => {
        const row = await object(req);
        const type = typeById(ctx, row.object_type_id);
        if (!type) throw new ApiError(404, 'not_found', 'Unknown object type');
        sendResource(req, res, { id: String(row.id), type: type.name }, { links: links(req) });
      },
    },
  ];
}
