// Answers of /users, /roles and /applications: rows serialised with an optional included
// relation (include=roles / include=users), and single resources with meta.schema (and Location
// when created).
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { resourceUrl, sendResource, type Resource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { schemaMeta, type AccountSchemaType } from './schemas.js';

export interface IncludableRelation<T extends { id: number }> {
  name: string;
  type: string;
  /** Related rows of many owners at once, by owner id. */
  load(ownerIds: number[]): Promise<Map<number, T[]>>;
  serialize(req: Request, row: T): Resource;
}

export async function serializeWithIncluded<R extends { id: number }, T extends { id: number }>(
  req: Request,
  rows: R[],
  serialize: (req: Request, row: R) => Resource,
  include: string[],
  relation: IncludableRelation<T>,
): Promise<{ resources: Resource[]; included?: Resource[] }> {
  const resources = rows.map((r) => serialize(req, r));
  if (!include.includes(relation.name)) return { resources };
  const byOwner = await relation.load(rows.map((r) => r.id));
  const included = new Map<number, Resource>();
  resources.forEach((resource, i) => {
    const related = byOwner.get(rows[i].id) ?? [];
    resource.relationships![relation.name].data = related.map((t) => ({ id: String(t.id), type: relation.type }));
    for (const t of related) included.set(t.id, relation.serialize(req, t));
  });
  return { resources, included: [...included.values()] };
}

/** One resource with `meta.schema`; a 201 also gets `Location`. */
export function sendAccountResource(
  ctx: AppContext,
  req: Request,
  res: Response,
  type: AccountSchemaType,
  resource: Resource,
  opts: { status?: number; included?: Resource[]; version?: number } = {},
): void {
  const status = opts.status ?? 200;
  const headers = status === 201 ? { Location: resourceUrl(req, `/${type}/${resource.id}`) } : undefined;
  sendResource(req, res, resource, { status, included: opts.included, headers, meta: { schema: schemaMeta(ctx, type, baseUrl(req)) }, version: opts.version });
}
