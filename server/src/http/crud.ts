// The repeated shape of a collection of plain resources (not objects): GET list, POST, GET one,
// PATCH, DELETE under one path, each declared once here. A family gives what differs — how to
// list, find, create, update, delete and serialise — and gets the five RouteDefs. Used by
// /applications, /webhooks and the model's /model/object_types, /model/properties and
// /model/relations. Object types have their own routes (objects/routes.ts): they go through the
// write pipeline.
import type { Request, Response } from 'express';
import type { Guard } from './auth.js';
import { resourceInput, resourceUrl, sendList, sendNoContent, sendResource, type Resource } from './jsonapi.js';
import { pathId } from './params.js';
import { badRequest } from './errors.js';
import { flatValues, parseListQuery, type ListQuery, type ListSpec } from './query.js';
import type { RouteDef } from './router.js';

export interface CrudSpec<Row> {
  /** Collection path, e.g. '/applications'; an item is `${path}/:${key}`. */
  path: string;
  /** Name of the item's path parameter (default 'id'). */
  key?: string;
  /** JSON API type of the resources. */
  type: string;
  /** Who may read and who may write (default: admins for both). */
  guards?: { read?: Guard; write?: Guard };
  /** GET of the collection (see pagedList for a list read from the database). */
  list(req: Request, res: Response): Promise<void> | void;
  /** The row the path names (its id, or a name where the family allows one); a 404 ApiError otherwise. */
  find(key: string, req: Request): Promise<Row> | Row;
  /** Id of a row (for `data.id` checks and Location): numeric, or a string key (static properties' UUIDs). */
  idOf(row: Row): number | string;
  /** From the body's attributes; `shown` goes to serialize once (e.g. a secret shown at creation). */
  create(attributes: Record<string, unknown>, req: Request): Promise<{ row: Row; shown?: unknown }>;
  /** Answers the row as changed. */
  update(row: Row, attributes: Record<string, unknown>, req: Request): Promise<Row>;
  remove(row: Row, req: Request): Promise<void>;
  serialize(req: Request, row: Row, shown?: unknown): Resource;
  /** `meta` of the single-resource answers (e.g. meta.schema). */
  meta?(req: Request): Record<string, unknown>;
  /** The tables its POST, PATCH and DELETE write (RouteDef.writes). */
  writes: readonly string[];
  /** Names `include=` takes on a GET of one row, with the related resources of a row. */
  includes?: RelatedResources<Row>;
}

/** Related resources by relationship name (`include=` of plain resources). */
export type RelatedResources<Row> = Record<string, (req: Request, row: Row) => Resource[]>;

/** The `include=` names of a request, each one of `allowed` (else 400). */
export function includeNames(req: Request, allowed: readonly string[]): string[] {
  if (req.query.include === undefined) return [];
  const names = flatValues(req.query.include, 'include');
  for (const name of names) if (!allowed.includes(name)) throw badRequest(`Cannot include "${name}"`, 'invalid_include');
  return names;
}

/**
 * `include=names` of plain resources: each resource's `relationships.<name>.data` names its related
 * resources, and each of those is once in the answer's `included` (undefined when none was asked).
 */
export function includeRelated<Row>(req: Request, items: Array<[Row, Resource]>, related: RelatedResources<Row>, names: string[]): Resource[] | undefined {
  if (!names.length) return undefined;
  const included = new Map<string, Resource>();
  for (const [row, resource] of items) {
    for (const name of names) {
      const found = related[name](req, row);
      const relationships = (resource.relationships ??= {});
      const base = relationships[name] ?? { links: { related: `${resource.links?.self ?? ''}/${name}`, self: `${resource.links?.self ?? ''}/relationships/${name}` } };
      relationships[name] = { ...base, data: found.map((r) => ({ id: r.id, type: r.type })) };
      for (const r of found) included.set(`${r.type}:${r.id}`, r);
    }
  }
  return [...included.values()];
}

export function crudRoutes<Row>(spec: CrudSpec<Row>): RouteDef[] {
  const read = spec.guards?.read ?? 'admin';
  const write = spec.guards?.write ?? 'admin';
  const key = spec.key ?? 'id';
  const item = `${spec.path}/:${key}`;
  const found = (req: Request) => spec.find(String(req.params[key]), req);
  const send = (req: Request, res: Response, row: Row, status = 200, shown?: unknown) => {
    const headers = status === 201 ? { Location: resourceUrl(req, `${spec.path}/${spec.idOf(row)}`) } : undefined;
    const resource = spec.serialize(req, row, shown);
    const included = req.method === 'GET' && spec.includes ? includeRelated(req, [[row, resource]], spec.includes, includeNames(req, Object.keys(spec.includes))) : undefined;
    sendResource(req, res, resource, { status, headers, meta: spec.meta?.(req), included });
  };
  return [
    { method: 'get', path: spec.path, guard: read, handler: (req, res) => spec.list(req, res) },
    {
      method: 'post',
      path: spec.path,
      guard: write,
      writes: spec.writes,
      handler: async (req, res) => {
        const { row, shown } = await spec.create(resourceInput(req, spec.type).attributes, req);
        send(req, res, row, 201, shown);
      },
    },
    { method: 'get', path: item, guard: read, handler: async (req, res) => send(req, res, await found(req)) },
    {
      method: 'patch',
      path: item,
      guard: write,
      writes: spec.writes,
      handler: async (req, res) => {
        const row = await found(req);
        // `data.id` is the row's id, or the URL's key as given (BEdita compares the two strings:
        // PATCH /model/object_types/documents with `"id": "documents"`).
        const given = String(req.params[key]);
        const sent = (req.body as { data?: { id?: unknown } } | undefined)?.data?.id;
        send(req, res, await spec.update(row, resourceInput(req, spec.type, sent === given ? given : spec.idOf(row)).attributes, req));
      },
    },
    {
      method: 'delete',
      path: item,
      guard: write,
      writes: spec.writes,
      handler: async (req, res) => {
        await spec.remove(await found(req), req);
        sendNoContent(res);
      },
    },
  ];
}

/** A collection's GET read from the database a page at a time (listPage in the family's service). */
export function pagedList<Row>(
  listSpec: ListSpec,
  list: (q: ListQuery, req: Request) => Promise<{ rows: Row[]; count: number }>,
  serialize: (req: Request, row: Row) => Resource,
  meta?: (req: Request) => Record<string, unknown>,
): CrudSpec<Row>['list'] {
  return async (req, res) => {
    const q = parseListQuery(req, listSpec);
    const { rows, count } = await list(q, req);
    sendList(req, res, rows.map((r) => serialize(req, r)), { count, page: q.page, pageSize: q.pageSize }, { meta: meta?.(req) });
  };
}

/** `find` of a collection keyed by numeric ids only. */
export const byNumericId =
  <Row>(get: (id: number) => Promise<Row>) =>
  (_key: string, req: Request): Promise<Row> =>
    get(pathId(req));
