// JSON API resources of objects: attributes from the type's model, meta, links and relationship
// links, `included` resources of `include=` (through the read path, so only what the viewer may
// see), and what each extension adds (parents, streams, terms…) in one batch per response.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import { parseFieldsets, relationshipLinksAt, type Resource } from '../../http/jsonapi.js';
import { outsideRequest, type ReadContext } from '../../http/read-context.js';
import type { AuthInfo } from '../../http/request.js';
import type { ObjectExtension, SerializedObject } from './extensions.js';
import { flatValues } from '../../http/query.js';
import { relationNamesOf, typeAllowedOn, typeById, typeByName, type ObjectType } from './model.js';
import { getObject, getObjectsByIds } from './read.js';
import { relatedPairs, relationCounts } from './relations.js';
import type { ObjectRow } from './rows.js';
import { parseJson } from './write.js';
import { answeredInstant } from '../../db/time.js';

/**
 * A request check: `fields[<type>]` naming a field that object type hides gives 400, as a filter
 * or sort naming it does (the field does not exist for readers); so does `fields=a,b` on the
 * endpoint of a type that hides one of them.
 */
export function hiddenFieldsetCheck(ctx: AppContext): (req: Request) => void {
  return (req) => {
    const sets = parseFieldsets(req);
    if (!sets) return;
    const byType = Object.entries(sets.byType);
    const primary = typeByName(ctx, req.path.split('/')[1] ?? '');
    if (sets.common && primary) byType.push([primary.name, sets.common]);
    for (const [typeName, named] of byType) {
      const type = typeByName(ctx, typeName);
      const hidden = type?.hidden.find((n) => named.has(n));
      if (hidden) throw badRequest(`fields${sets.common && !sets.byType[typeName] ? '' : `[${typeName}]`}: ${typeName} have no field "${hidden}"`, 'invalid_fields');
    }
  };
}

function serializeRow(rc: ReadContext, ctx: AppContext, row: ObjectRow, type: ObjectType): Resource {
  const props = (parseJson(row.properties) as Record<string, unknown> | null) ?? {};
  const attributes: Record<string, unknown> = {
    status: row.status,
    uname: row.uname,
    title: row.title,
    description: row.description,
    body: row.body,
    lang: row.lang,
    extra: parseJson(row.extra),
    publish_start: answeredInstant(row.publish_start),
    publish_end: answeredInstant(row.publish_end),
  };
  for (const p of type.properties) attributes[p.name] = props[p.name] ?? null;
  // Properties the type hides (BEdita's `hidden`) are never shown.
  for (const name of type.hidden) delete attributes[name];
  const path = `/${type.name}/${row.id}`;
  const relationships: Resource['relationships'] = {};
  for (const r of relationNamesOf(ctx, type.name)) relationships[r.name] = relationshipLinksAt(rc.base, path, r.name);
  return {
    id: String(row.id),
    type: type.name,
    attributes,
    meta: {
      locked: Boolean(row.locked),
      created: row.created,
      modified: row.modified,
      published: row.published,
      created_by: row.created_by,
      modified_by: row.modified_by,
    },
    links: { self: rc.base + path },
    relationships,
  };
}

/** Rows as JSON API resources; `include` names relations whose objects go to `included`. */
export async function serializeObjects(
  rc: ReadContext,
  ctx: AppContext,
  rows: ObjectRow[],
  opts: { include?: string[] } = {},
): Promise<{ data: Resource[]; included: Resource[] }> {
  const items: SerializedObject[] = [];
  const data: Resource[] = [];
  for (const row of rows) {
    const type = typeById(ctx, row.object_type_id)!;
    const resource = serializeRow(rc, ctx, row, type);
    data.push(resource);
    items.push({ id: row.id, type: type.name, resource, row });
  }
  const included: Resource[] = [];
  const includedIds = new Set<number>(rows.map((r) => r.id));
  const extIncludes = opts.include?.length ? (Object.assign({}, ...ctx.objects.extensions.map((ext) => ext.includes ?? {})) as NonNullable<ObjectExtension['includes']>) : {};
  for (const name of opts.include ?? []) {
    const pairs = Object.hasOwn(extIncludes, name) ? await extIncludes[name](rows, ctx) : await relatedPairs(ctx, rows, name);
    const related = await getObjectsByIds(ctx, pairs.map((p) => p.relatedId), { viewer: rc.viewer });
    const byId = new Map(related.map((r) => [r.id, r]));
    for (const item of items) {
      const rel = item.resource.relationships?.[name];
      if (!rel) continue;
      rel.data = pairs
        .filter((p) => p.objectId === item.id && byId.has(p.relatedId))
        .map((p) => ({ id: String(p.relatedId), type: typeById(ctx, byId.get(p.relatedId)!.object_type_id)!.name }));
    }
    for (const r of related) {
      if (includedIds.has(r.id)) continue;
      includedIds.add(r.id);
      const type = typeById(ctx, r.object_type_id)!;
      const resource = serializeRow(rc, ctx, r, type);
      included.push(resource);
      items.push({ id: r.id, type: type.name, resource, row: r });
    }
  }
  if (rc.query.count !== undefined) await addRelationCounts(rc, ctx, items);
  for (const ext of ctx.objects.extensions) {
    if (!ext.decorate) continue;
    const mine = items.filter((i) => typeAllowedOn(ctx, i.type, ext.types));
    // A decoration with nothing to read answers at once: awaited only when it did not.
    const decorating = mine.length ? ext.decorate(rc, ctx, mine, included) : undefined;
    if (decorating) await decorating;
  }
  return { data, included };
}

/**
 * BEdita's `count=all` or `count=<relation>,…`: `meta.count` on each named relationship of every
 * object answered (included ones too), counting the related objects the reader may see. Names
 * that are no relation of an object's type are passed over, as BEdita does.
 */
async function addRelationCounts(rc: ReadContext, ctx: AppContext, items: SerializedObject[]): Promise<void> {
  const raw = rc.query.count;
  if (raw === undefined || raw === '' || !items.length) return;
  const asked = new Set(flatValues(raw, 'count'));
  if (!asked.size) return;
  const counts = await relationCounts(ctx, ctx.db, items.map((i) => i.id), rc.viewer);
  for (const item of items) {
    const mine = counts.get(item.id) ?? {};
    for (const r of relationNamesOf(ctx, item.type)) {
      if (!asked.has('all') && !asked.has(r.name)) continue;
      const relationships = (item.resource.relationships ??= {});
      const rel = (relationships[r.name] ??= relationshipLinksAt(rc.base, `/${item.type}/${item.id}`, r.name));
      rel.meta = { ...(rel.meta ?? {}), count: mine[r.name] ?? 0 };
    }
  }
}

export async function serializeObject(rc: ReadContext, ctx: AppContext, row: ObjectRow, opts: { include?: string[] } = {}) {
  const { data, included } = await serializeObjects(rc, ctx, [row], opts);
  return { data: data[0], included };
}

/** `meta.schema` of a list: `$id` and revision of each type named. */
export function schemaMeta(base: string, ctx: AppContext, typeNames: Iterable<string>): Record<string, { $id: string; revision: number }> {
  const out: Record<string, { $id: string; revision: number }> = {};
  for (const name of typeNames) {
    const t = typeByName(ctx, name);
    if (t) out[name] = { $id: `${base}/model/schema/${name}`, revision: t.revision };
  }
  return out;
}


/**
 * An object as `GET /{type}/{id}` shows it to `viewer`, outside a request (trashed ones too, for
 * admins); links start at `base`, else the public URL, else the server's own. Null when gone or
 * not visible.
 */
export async function readObjectAs(ctx: AppContext, id: number, viewer: AuthInfo, base: string | null): Promise<Resource | null> {
  const row = await getObject(ctx, id, { trashed: viewer.isAdmin ? 'any' : false, viewer });
  if (!row) return null;
  const rc = outsideRequest(viewer, base ?? ctx.config.baseUrl ?? ctx.ownUrl ?? 'http://localhost');
  return (await serializeObject(rc, ctx, row)).data;
}
