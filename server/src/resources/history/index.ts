// The history family: an observer of the object write pipeline that records every change in the
// write's own transaction, and the history endpoints. Wired in resources/index.ts before the
// objects family (its /{type}/{id}/history must win over /{type}/{id}/{relation}).
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { historyRoutes } from './routes.js';
import { historyObserver } from './service.js';

export function historyFamily(ctx: AppContext): RouteDef[] {
  ctx.objects.observers.push(historyObserver);
  return historyRoutes(ctx);
}
