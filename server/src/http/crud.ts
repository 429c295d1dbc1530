// The repeated shape of a collection of plain resources (not objects): GET list, POST, GET one,
// PATCH, DELETE under one path, each declared once here. A family gives what differs — how to
// list, read, create, update, delete and serialise — and gets the five RouteDefs. Object types
// have their own routes (objects/routes.ts): they go through the write pipeline.
import type { Request } from 'express';
import type { Guard } from './auth.js';
import { pathId } from './params.js';
import { resourceInput, resourceUrl, sendList, sendNoContent, sendResource, type Resource } from './jsonapi.js';
import { parseListQuery, type ListQuery, type ListSpec } from './query.js';
import type { RouteDef } from './router.js';

export interface CrudSpec<Row> {
  /** Collection path, e.g. '/applications'; items are `${path}/:id`. */
  path: string;
  /** JSON API type of the resources. */
  type: string;
  /** Who may read and who may write (default: admins for both). */
  guards?: { read?: Guard; write?: Guard };
  listSpec: ListSpec;
  list(q: ListQuery, req: Request): Promise<{ rows: Row[]; count: number }>;
  /** The row, or a 404 ApiError. */
  get(id: number): Promise<Row>;
  /** Creates from the body's attributes; `shown` is passed to serialize once (e.g. a secret shown at creation). */
  create(attributes: Record<string, unknown>, req: Request): Promise<{ id: number; shown?: unknown }>;
  update(id: number, attributes: Record<string, unknown>, req: Request): Promise<void>;
  remove(id: number, req: Request): Promise<void>;
  serialize(req: Request, row: Row, shown?: unknown): Resource;
  /** `meta` of every answer (e.g. meta.schema). */
  meta?(req: Request): Record<string, unknown>;
}

export function crudRoutes<Row>(spec: CrudSpec<Row>): RouteDef[] {
  const read = spec.guards?.read ?? 'admin';
  const write = spec.guards?.write ?? 'admin';
  const item = `${spec.path}/:id`;
  const sendOne = async (req: Request, res: Parameters<RouteDef['handler']>[1], id: number, status = 200, shown?: unknown) => {
    const resource = spec.serialize(req, await spec.get(id), shown);
    const headers = status === 201 ? { Location: resourceUrl(req, `${spec.path}/${id}`) } : undefined;
    sendResource(req, res, resource, { status, headers, meta: spec.meta?.(req) });
  };
  return [
    {
      method: 'get',
      path: spec.path,
      guard: read,
      handler: async (req, res) => {
        const q = parseListQuery(req, spec.listSpec);
        const { rows, count } = await spec.list(q, req);
        sendList(req, res, rows.map((r) => spec.serialize(req, r)), { count, page: q.page, pageSize: q.pageSize }, { meta: spec.meta?.(req) });
      },
    },
    {
      method: 'post',
      path: spec.path,
      guard: write,
      handler: async (req, res) => {
        const { id, shown } = await spec.create(resourceInput(req, spec.type).attributes, req);
        await sendOne(req, res, id, 201, shown);
      },
    },
    { method: 'get', path: item, guard: read, handler: (req, res) => sendOne(req, res, pathId(req)) },
    {
      method: 'patch',
      path: item,
      guard: write,
      handler: async (req, res) => {
        const id = pathId(req);
        await spec.get(id);
        await spec.update(id, resourceInput(req, spec.type, id).attributes, req);
        await sendOne(req, res, id);
      },
    },
    {
      method: 'delete',
      path: item,
      guard: write,
      handler: async (req, res) => {
        await spec.remove(pathId(req), req);
        sendNoContent(res);
      },
    },
  ];
}
