// /annotations (JSON API, `type: annotations`; signed-in users): list (`filter[object_id]`,
// `filter[user_id]`), create, read, change and delete, by the rules of ./service.ts; the annotated
// object at `/annotations/{id}/object` and `/annotations/{id}/relationships/object`.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { resourceInput, resourceUrl, sendList, sendNoContent, sendResource } from '../../http/jsonapi.js';
import { pathId } from '../../http/params.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { writerNames } from '../history/service.js';
import type { Family } from '../family.js';
import { ownerObjectRoutes } from '../objects/owner-routes.js';
import {
  ANNOTATION_LIST_SPEC,
  annotationInput,
  annotationsExtension,
  createAnnotation,
  deleteAnnotation,
  getAnnotation,
  listAnnotations,
  serializeAnnotation,
  updateAnnotation,
  type AnnotationRow,
} from './service.js';

export const annotationsFamily: Family = {
  name: 'annotations',
  kernel: () => ({ extensions: [annotationsExtension] }),
  routes: annotationsRoutes,
};

function annotationsRoutes(ctx: AppContext): RouteDef[] {
  const send = async (req: Request, res: Response, row: AnnotationRow, status = 200) =>
    sendResource(req, res, serializeAnnotation(req, row, (await writerNames(ctx.db, [row])).get(row.user_id)), { status, headers: status === 201 ? { Location: resourceUrl(req, `/annotations/${row.id}`) } : undefined });
  const item = (req: Request) => getAnnotation(ctx, req.auth, pathId(req));
  return [
    {
      method: 'get',
      path: '/annotations',
      guard: 'user',
      handler: async (req, res) => {
        const q = parseListQuery(req, ANNOTATION_LIST_SPEC);
        const { rows, count } = await listAnnotations(ctx, req.auth, q);
        const names = await writerNames(ctx.db, rows);
        sendList(req, res, rows.map((r) => serializeAnnotation(req, r, names.get(r.user_id))), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    {
      method: 'post',
      path: '/annotations',
      writes: ['annotations'],
      guard: 'user',
      handler: async (req, res) => send(req, res, await createAnnotation(ctx, req.auth, annotationInput(resourceInput(req, 'annotations').attributes, true)), 201),
    },
    { method: 'get', path: '/annotations/:id', guard: 'user', handler: async (req, res) => send(req, res, await item(req)) },
    ...ownerObjectRoutes(ctx, 'annotations', 'user', item),
    {
      method: 'patch',
      path: '/annotations/:id',
      writes: ['annotations'],
      guard: 'user',
      handler: async (req, res) => {
        const row = await item(req);
        const input = annotationInput(resourceInput(req, 'annotations', row.id).attributes, false);
        await send(req, res, await updateAnnotation(ctx, req.auth, row, input));
      },
    },
    {
      method: 'delete',
      path: '/annotations/:id',
      writes: ['annotations'],
      guard: 'user',
      handler: async (req, res) => {
        await deleteAnnotation(ctx, req.auth, await item(req));
        sendNoContent(res);
      },
    },
  ];
}
