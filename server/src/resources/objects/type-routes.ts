// The /{type} namespace: every family that declares a path under an object type's endpoint
// (objects: /{type}, /{type}/{id}, relations; folders: /{type}/{id}/parents; media:
// /{type}/upload/{name}, /{type}/{id}/streams; history: /{type}/{id}/history) declares it with
// typeRoute, so one predicate decides which first segments are type endpoints (enabled, concrete,
// not users), whichever family answers. Families mount in resources/index.ts order: the specific
// sub-paths (folders, media, history) before the objects family's generic /{type}/{id}/{relation}.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { endpointType, type ObjectType } from './model.js';

/** The type endpoint named by the first path segment, if it is one. */
export const typeOfPath = (ctx: AppContext, req: Request): ObjectType | undefined => endpointType(ctx, req.path.split('/')[1]);

/** A route under /{type} (its path starts with '/:type'), taken only for type endpoints and `when`. */
export function typeRoute(ctx: AppContext, def: RouteDef): RouteDef {
  if (!def.path.startsWith('/:type')) throw new Error(`typeRoute: ${def.path} is not under /:type`);
  const extra = def.when;
  return { ...def, when: (req) => !!typeOfPath(ctx, req) && (!extra || extra(req)) };
}
