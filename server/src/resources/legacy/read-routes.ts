// The legacy read family on /objects… (answered when Accept names text/javascript).
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest, notFound } from '../../http/errors.js';
import { baseUrl } from '../../http/links.js';
import { flatValues, parsePaging } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { legacyPaging, legacyRoute, sendLegacy } from './envelope.js';
import { formatObjects } from './format.js';
import {
  childPosition,
  findReachable,
  listChildren,
  listDescendants,
  listRelated,
  listSiblings,
  openReader,
  relationCounts,
  relationDetail,
  relationSide,
  type ChildKind,
  type ListResult,
  type Reader,
} from './reader.js';
import { resolveTypeName } from './types.js';

/** page, page_size and filter[object_type] of a legacy list (anything else in filter: 400). */
async function listParams(ctx: AppContext, req: Request) {
  const query = req.query as Record<string, unknown>;
  const page = parsePaging(query, { overMax: 'refuse' });
  let types: string[] | null = null;
  if (query.filter !== undefined) {
    if (typeof query.filter !== 'object' || query.filter === null || Array.isArray(query.filter)) {
      throw badRequest('filter must be given as filter[object_type]=<types>', 'invalid_filter');
    }
    for (const [key, raw] of Object.entries(query.filter)) {
      if (key !== 'object_type') throw badRequest(`Unknown filter "${key}"; filterable: object_type`, 'invalid_filter');
      const names = flatValues(Array.isArray(raw) || typeof raw === 'string' ? raw : Object.values(raw as object), 'filter[object_type]');
      types = names.map((n) => resolveTypeName(ctx, n));
    }
  }
  return { page, types };
}

async function sendList(r: Reader, req: Request, res: Response, page: { page: number; pageSize: number }, list: ListResult) {
  const objects = await formatObjects(r, req, list.rows);
  sendLegacy(req, res, { objects }, { paging: legacyPaging(page.page, page.pageSize, list.total, objects.length) });
}

export async function sendObject(r: Reader, req: Request, res: Response, row: Reader['publication'], status = 200, headers?: Record<string, string>) {
  const [object] = await formatObjects(r, req, [row]);
  sendLegacy(req, res, { object }, { status, headers });
}

const childRoute = (ctx: AppContext, path: string, kind: ChildKind): RouteDef =>
  legacyRoute('objects', {
    method: 'get',
    path: `/objects/:id/${path}`,
    guard: 'anonymous',
    handler: async (req, res) => {
      const { page, types } = await listParams(ctx, req);
      const r = await openReader(ctx, req);
      const folder = await findReachable(r, String(req.params.id));
      await sendList(r, req, res, page, await listChildren(r, folder, kind, page, types));
    },
  });

export function legacyReadRoutes(ctx: AppContext): RouteDef[] {
  return [
    legacyRoute('objects', {
      method: 'get',
      path: '/objects',
      guard: 'anonymous',
      handler: async (req, res) => {
        const { page, types } = await listParams(ctx, req);
        const r = await openReader(ctx, req);
        await sendList(r, req, res, page, await listDescendants(r, r.publication, page, types));
      },
    }),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id',
      guard: 'anonymous',
      handler: async (req, res) => {
        const r = await openReader(ctx, req);
        await sendObject(r, req, res, await findReachable(r, String(req.params.id)));
      },
    }),
    childRoute(ctx, 'children', 'all'),
    childRoute(ctx, 'sections', 'sections'),
    childRoute(ctx, 'contents', 'contents'),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/descendants',
      guard: 'anonymous',
      handler: async (req, res) => {
        const { page, types } = await listParams(ctx, req);
        const r = await openReader(ctx, req);
        const folder = await findReachable(r, String(req.params.id));
        await sendList(r, req, res, page, await listDescendants(r, folder, page, types));
      },
    }),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/siblings',
      guard: 'anonymous',
      handler: async (req, res) => {
        const { page, types } = await listParams(ctx, req);
        const r = await openReader(ctx, req);
        const object = await findReachable(r, String(req.params.id));
        await sendList(r, req, res, page, await listSiblings(r, object, page, types));
      },
    }),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/relations',
      guard: 'anonymous',
      handler: async (req, res) => {
        const r = await openReader(ctx, req);
        const object = await findReachable(r, String(req.params.id));
        const counts = (await relationCounts(r, [object.id])).get(object.id) ?? {};
        const base = baseUrl(req);
        sendLegacy(
          req,
          res,
          Object.fromEntries(Object.entries(counts).map(([name, count]) => [name, { count, url: `${base}/objects/${object.id}/relations/${name}` }])),
        );
      },
    }),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/relations/:name',
      guard: 'anonymous',
      handler: async (req, res) => {
        const page = parsePaging(req.query as Record<string, unknown>, { overMax: 'refuse' });
        const r = await openReader(ctx, req);
        const object = await findReachable(r, String(req.params.id));
        const rel = relationSide(r.ctx, String(req.params.name));
        await sendList(r, req, res, page, await listRelated(r, object.id, rel, page));
      },
    }),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/relations/:name/:relatedId',
      guard: 'anonymous',
      handler: async (req, res) => {
        const r = await openReader(ctx, req);
        const object = await findReachable(r, String(req.params.id));
        const rel = relationSide(r.ctx, String(req.params.name));
        const related = await findReachable(r, String(req.params.relatedId));
        sendLegacy(req, res, await relationDetail(r, object.id, rel, related.id));
      },
    }),
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/children/:childId',
      guard: 'anonymous',
      handler: async (req, res) => {
        const r = await openReader(ctx, req);
        const folder = await findReachable(r, String(req.params.id));
        const child = await findReachable(r, String(req.params.childId));
        sendLegacy(req, res, { priority: await childPosition(r, folder, child.id) });
      },
    }),
    // Anything else below an object is no legacy endpoint: a legacy 404, not a JSON API answer.
    legacyRoute('objects', {
      method: 'get',
      path: '/objects/:id/*rest',
      guard: 'anonymous',
      handler: (req) => {
        throw notFound(`No legacy endpoint ${req.path}`, 'route_not_found');
      },
    }),
  ];
}
