// The administration family (BEdita 5's /admin/… endpoints, for admins, and /config,
// /async_jobs): configuration entries, endpoints and their permissions (enforced by a request
// check), the job queue, applications and system information. The admin UI keeps every other
// path under /admin (app.ts asks ADMIN_ENDPOINTS).
import os from 'node:os';
import type { AppContext } from '../../context.js';
import { sendMeta } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import type { Family } from '../family.js';
import { applicationRoutes } from '../applications/routes.js';
import { ownVersion, versions } from '../status/routes.js';
import { configRoutes } from './config.js';
import { endpointPermissionCheck, endpointPermissionRoutes, endpointRoutes } from './endpoints.js';
import { asyncJobRoutes, postAsyncJobRoute } from './jobs.js';

/** The names under /admin that are JSON API endpoints rather than pages of the admin UI. */
export const ADMIN_ENDPOINTS = ['applications', 'async_jobs', 'config', 'endpoints', 'endpoint_permissions', 'sysinfo'];

/** GET /admin/sysinfo: BEdita's `meta.info`, with what describes a Folio server. */
function sysinfoRoute(ctx: AppContext): RouteDef {
  return {
    method: 'get',
    path: '/admin/sysinfo',
    guard: 'admin',
    handler: (req, res) => {
      const v = versions();
      sendMeta(req, res, {
        info: {
          Version: ownVersion(),
          'Node.js': v.node,
          Libraries: Object.fromEntries(Object.entries(v).filter(([name]) => name !== 'node')),
          'Operating System': `${os.type()} ${os.release()} (${os.arch()})`,
          Database: ctx.dialect.name,
          Storage: ctx.storage.kind,
          'Memory used': process.memoryUsage().rss,
          Uptime: Math.round(process.uptime()),
        },
      });
    },
  };
}

export const adminFamily: Family = {
  name: 'admin',
  requestChecks: (ctx) => [endpointPermissionCheck(ctx)],
  routes: adminRoutes,
};

function adminRoutes(ctx: AppContext): RouteDef[] {
  return [
    ...configRoutes(ctx, '/config', 'anonymous'),
    ...configRoutes(ctx, '/admin/config', 'admin'),
    ...applicationRoutes(ctx, '/admin/applications'),
    ...endpointRoutes(ctx),
    ...endpointPermissionRoutes(ctx),
    ...asyncJobRoutes(ctx, '/async_jobs'),
    postAsyncJobRoute(ctx, '/async_jobs'),
    ...asyncJobRoutes(ctx, '/admin/async_jobs'),
    sysinfoRoute(ctx),
  ];
}
