// The legacy write family: create and update objects (with parents, relations, categories, tags,
// geo tags, date items and an upload token), write relations with priority and params, and place
// children at positions. Each write is one transaction through the objects and folders services.
import type { Request } from 'express';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest, notFound } from '../../http/errors.js';
import { parentsOnTree } from '../folders/publication.js';
import { parentsOf } from '../folders/service.js';
import { folderNode, nodeIn, type Position } from '../folders/tree.js';
import { apply, type RelationChange } from '../objects/kernel.js';
import { getObjectsByIds } from '../objects/read.js';
import { relationOfType } from '../objects/relations.js';
import { mediaRootOf } from '../streams/media-types.js';
import { findReachable, findVisible, FOLDER_TYPE, isReachable, relationSide, type ObjectRow, type Reader } from './reader.js';
import { namesTerms, parseTermsInput } from '../terms/service.js';
import { assertWritable, resolveTypeName } from './types.js';
import { consumeUploadToken } from '../streams/upload-tokens.js';
import { inTransaction } from '../objects/pipeline.js';

type Data = Record<string, unknown>;
const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `data` of a legacy write body: an object (or, where allowed, an array of objects). */
export function legacyData(req: Request, allowArray = false): Data[] {
  const body = req.body as { data?: unknown } | undefined;
  const data = isObject(body) ? body.data : undefined;
  if (isObject(data)) return [data];
  if (allowArray && Array.isArray(data) && data.length && data.every(isObject)) return data as Data[];
  throw badRequest(allowArray ? '"data" must be an object or a non-empty array of objects' : '"data" must be an object', 'invalid_body');
}

/** Legacy fields that are not attributes: handled separately, or read-only and ignored. */
const NOT_ATTRIBUTES = new Set([
  'id', 'object_type', 'object_type_id', 'parents', 'relations', 'categories', 'tags', 'geo_tags', 'date_items', 'upload_token',
  'nickname', 'custom_properties', 'created', 'modified', 'publication_date', 'valid', 'authorized', 'free_access', 'languages',
  'children', 'name', 'original_name', 'mime_type', 'uri', 'file_size', 'width', 'height', 'created_by', 'modified_by',
]);

/** The object attributes of a legacy body: core fields, `nickname` as uname, custom properties. */
function attributesOf(data: Data): Record<string, unknown> {
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (!NOT_ATTRIBUTES.has(k)) attrs[k] = v;
  if (data.nickname !== undefined) attrs.uname = data.nickname;
  if (data.custom_properties !== undefined && data.custom_properties !== null) {
    if (!isObject(data.custom_properties)) throw badRequest('"custom_properties" must be an object', 'invalid_body');
    Object.assign(attrs, data.custom_properties);
  }
  return attrs;
}

function idOf(value: unknown, field: string): number {
  if ((typeof value === 'number' && Number.isInteger(value) && value > 0) || (typeof value === 'string' && /^\d{1,15}$/.test(value))) return Number(value);
  throw badRequest(`${field} must be an object id`, 'invalid_body');
}

function optPriority(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1) throw badRequest(`${field} must be a positive integer`, 'invalid_body');
  return value as number;
}

function optParams(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw badRequest(`${field} must be an object`, 'invalid_body');
  return value;
}

/** The tree node of a section or the publication that the caller may write under; 400 otherwise. */
async function parentNode(r: Reader, id: number, field: string) {
  const parent = await findVisible(r, id);
  if (!parent || parent.type_name !== FOLDER_TYPE || !(await isReachable(r, parent.id))) {
    throw badRequest(`${field}: ${id} is not a section of the publication`, 'invalid_parent');
  }
  const node = await folderNode(r.db, parent.id);
  if (!node || node.root_id !== r.publication.id) throw badRequest(`${field}: ${id} is not a section of the publication`, 'invalid_parent');
  return node;
}

interface RelationItem {
  relatedId: number;
  priority?: number;
  params?: Record<string, unknown>;
}

function relationItems(list: unknown, field: string): RelationItem[] {
  const items = Array.isArray(list) ? list : [list];
  return items.map((item, i) => {
    if (!isObject(item)) throw badRequest(`${field}[${i}] must be an object with related_id`, 'invalid_body');
    return {
      relatedId: idOf(item.related_id, `${field}[${i}].related_id`),
      priority: optPriority(item.priority, `${field}[${i}].priority`),
      params: optParams(item.params, `${field}[${i}].params`),
    };
  });
}

/** Relation changes of `row` through `name` (add or update each): related objects must be reachable on the publication. */
async function relationChange(r: Reader, row: ObjectRow | { type_name: string }, name: string, items: RelationItem[], mode: 'add' | 'replace'): Promise<RelationChange> {
  relationSide(r.ctx, name);
  if (!relationOfType(r.ctx, row.type_name, name)) throw badRequest(`Objects of type ${row.type_name} have no relation "${name}"`, 'invalid_relation');
  const targets: Array<{ id: string; type: string; meta: Record<string, unknown> }> = [];
  for (const [i, item] of items.entries()) {
    const target = await findVisible(r, item.relatedId);
    if (!target || !(await isReachable(r, target.id))) throw badRequest(`relations.${name}[${i}]: object ${item.relatedId} is not reachable`, 'invalid_relation');
    const relation: Record<string, unknown> = {};
    if (item.priority !== undefined) relation.priority = item.priority;
    if (item.params !== undefined) relation.params = item.params;
    targets.push({ id: String(target.id), type: target.type_name, meta: { relation } });
  }
  return { name, items: targets, mode };
}

function parseRelations(value: unknown): Array<[string, RelationItem[]]> {
  if (!isObject(value)) throw badRequest('"relations" must be an object of relation name to a list of {related_id}', 'invalid_body');
  return Object.entries(value).map(([name, list]) => [name, relationItems(list, `relations.${name}`)]);
}

/** POST /objects without data.id: create; returns the new id. */
export async function createLegacyObject(ctx: AppContext, req: Request, reader: (db: Transaction<Database>) => Promise<Reader>, data: Data): Promise<number> {
  if (typeof data.object_type !== 'string' || !data.object_type) throw badRequest('"object_type" is required', 'missing_parameter');
  const typeName = resolveTypeName(ctx, data.object_type);
  assertWritable(ctx, typeName);
  const hasParents = data.parents !== undefined && data.parents !== null;
  const hasRelations = data.relations !== undefined && data.relations !== null;
  if (!hasParents && !hasRelations) throw badRequest('"parents" or "relations" is required', 'missing_parameter');
  const parents = hasParents ? parentIds(data.parents) : [];
  if (typeName === FOLDER_TYPE && parents.length !== 1) throw badRequest('A section needs exactly one parent', 'invalid_parent');
  const relations = hasRelations ? parseRelations(data.relations) : [];
  const terms = parseTermsInput(data);
  const mediaRoot = mediaRootOf(ctx, typeName);
  if (data.upload_token !== undefined && !mediaRoot) throw badRequest(`Objects of type "${data.object_type}" take no file`, 'not_media');
  const userId = req.auth.userId!;
  return inTransaction(ctx, undefined, async (trx) => {
    const r = await reader(trx);
    const nodes = [];
    for (const [i, id] of parents.entries()) nodes.push(await parentNode(r, id, `parents[${i}]`));
    const section = typeName === FOLDER_TYPE ? { parent: nodes[0].object_id } : undefined;
    const changes: RelationChange[] = [];
    for (const [name, items] of relations) changes.push(await relationChange(r, { type_name: typeName }, name, items, 'add'));
    const token = data.upload_token === undefined ? undefined : await consumeUploadToken(trx, data.upload_token, userId, typeName);
    const stream = token && { link: token.uuid };
    const placed = typeName !== FOLDER_TYPE && nodes.length ? { mode: 'add' as const, items: nodes.map((n) => ({ id: n.object_id })) } : undefined;
    const command = {
      action: 'create' as const,
      type: typeName,
      actor: req.auth,
      changes: { attributes: attributesOf(data), relations: changes, parts: { parents: placed, folderParent: section, terms: namesTerms(terms) ? terms : undefined, stream } },
    };
    const { row } = await apply(ctx, command, trx);
    await token?.usedBy(row.id);
    return row.id;
  });
}

function parentIds(value: unknown): number[] {
  if (!Array.isArray(value) || !value.length) throw badRequest('"parents" must be a non-empty array of ids', 'invalid_body');
  return [...new Set(value.map((v, i) => idOf(v, `parents[${i}]`)))];
}

/** POST /objects with data.id: update what the body names; omitted fields keep their values. */
export async function updateLegacyObject(ctx: AppContext, req: Request, reader: (db: Transaction<Database>) => Promise<Reader>, data: Data): Promise<number> {
  const id = idOf(data.id, 'data.id');
  if (data.upload_token !== undefined) throw badRequest('The file of an existing object cannot be changed', 'invalid_upload_token');
  const terms = parseTermsInput(data);
  const relations = data.relations !== undefined && data.relations !== null ? parseRelations(data.relations) : [];
  const parents = data.parents !== undefined && data.parents !== null ? parentIds(data.parents) : null;
  await inTransaction(ctx, undefined, async (trx) => {
    const r = await reader(trx);
    const row = await findReachable(r, String(id));
    if (typeof data.object_type === 'string' && resolveTypeName(ctx, data.object_type) !== row.type_name) {
      throw badRequest(`Object ${id} is not of type ${data.object_type}`, 'type_mismatch');
    }
    assertWritable(ctx, row.type_name);
    const attrs = attributesOf(data);
    const changes: RelationChange[] = [];
    for (const [name, items] of relations) changes.push(await relationChange(r, row, name, items, 'replace'));
    const placed = parents ? await parentsOnPublication(r, row, parents) : undefined;
    // One command for everything the body names: attributes, folders, relations and terms are
    // all an update of the object (a reader without `update` changes nothing, terms included).
    const command = {
      action: 'update' as const,
      target: { key: id },
      actor: req.auth,
      changes: { attributes: Object.keys(attrs).length ? attrs : undefined, relations: changes, parts: { parents: placed, terms: namesTerms(terms) ? terms : undefined } },
    };
    await apply(ctx, command, trx);
  });
  return id;
}

/**
 * The object's folders once `parents` are its exact places on the publication tree: its places
 * on other trees stay; a section moves to its one parent.
 */
async function parentsOnPublication(r: Reader, row: ObjectRow, parents: number[]) {
  const nodes = [];
  for (const [i, id] of parents.entries()) nodes.push(await parentNode(r, id, `parents[${i}]`));
  if (row.type_name === FOLDER_TYPE && nodes.length !== 1) throw badRequest('A section needs exactly one parent', 'invalid_parent');
  const onTree = new Set(await parentsOnTree(r.db, r.publication.id, row.id));
  const elsewhere = ((await parentsOf(r.db, [row.id])).get(row.id) ?? []).filter((p) => !onTree.has(p));
  // Those the writer may not read are not named: a replace keeps them anyway.
  const keep = row.type_name === FOLDER_TYPE ? [] : (await getObjectsByIds(r.ctx, elsewhere, { viewer: r.viewer, db: r.db })).map((f) => f.id);
  return { mode: 'replace' as const, items: [...keep, ...parents].map((id) => ({ id })) };
}

/** POST /objects/{id}/relations/{name}: add or update each related object. */
export async function addLegacyRelations(ctx: AppContext, reader: (db: Transaction<Database>) => Promise<Reader>, objectId: string, name: string, items: Data[]) {
  const parsed = relationItems(items, 'data');
  return inTransaction(ctx, undefined, async (trx) => {
    const r = await reader(trx);
    const row = await findReachable(r, objectId);
    assertWritable(ctx, row.type_name);
    const relation = await relationChange(r, row, name, parsed, 'add');
    await apply(ctx, { action: 'update', target: { key: row.id }, actor: r.viewer, changes: { relations: [relation] } }, trx);
    return row.id;
  });
}

/** PUT /objects/{id}/relations/{name}/{related_id}: set priority and params of one relation. */
export async function putLegacyRelation(ctx: AppContext, reader: (db: Transaction<Database>) => Promise<Reader>, objectId: string, name: string, relatedId: string, data: Data) {
  if (data.priority === undefined && data.params === undefined) throw badRequest('"priority" or "params" is required', 'missing_parameter');
  const priority = optPriority(data.priority, 'priority');
  const params = optParams(data.params, 'params');
  return inTransaction(ctx, undefined, async (trx) => {
    const r = await reader(trx);
    const row = await findReachable(r, objectId);
    const related = await findReachable(r, relatedId);
    assertWritable(ctx, row.type_name);
    const rel = relationSide(ctx, name);
    await apply(ctx, { action: 'update', target: { key: row.id }, actor: r.viewer, changes: { link: { name, relatedId: related.id, priority, params } } }, trx);
    return { row, related, rel };
  });
}

/** POST /objects/{id}/children: place each child (at `priority`, else last); moves existing ones. */
export async function addLegacyChildren(ctx: AppContext, reader: (db: Transaction<Database>) => Promise<Reader>, folderId: string, items: Data[]) {
  const parsed = items.map((item, i) => ({ childId: idOf(item.child_id, `data[${i}].child_id`), priority: optPriority(item.priority, `data[${i}].priority`) }));
  return inTransaction(ctx, undefined, async (trx) => {
    const r = await reader(trx);
    const folder = await findReachable(r, folderId);
    if (folder.type_name !== FOLDER_TYPE) throw badRequest(`Object ${folder.id} is not a section or the publication`, 'not_a_section');
    await parentNode(r, folder.id, 'object');
    const items = [];
    for (const [i, item] of parsed.entries()) {
      const child = await findVisible(r, item.childId);
      if (!child || child.id === folder.id || !(await isReachable(r, child.id))) throw badRequest(`data[${i}].child_id: object ${item.childId} not found`, 'invalid_child');
      assertWritable(ctx, child.type_name);
      items.push({ id: String(child.id), position: item.priority });
    }
    await placeChildren(r, folder.id, items);
    return folder;
  });
}

/** PUT /objects/{id}/children/{child_id}: move a child to `priority`. */
export async function putLegacyChild(ctx: AppContext, reader: (db: Transaction<Database>) => Promise<Reader>, folderId: string, childId: string, data: Data) {
  const priority = optPriority(data.priority, 'priority');
  if (priority === undefined) throw badRequest('"priority" is required', 'missing_parameter');
  return inTransaction(ctx, undefined, async (trx) => {
    const r = await reader(trx);
    const folder = await findReachable(r, folderId);
    await parentNode(r, folder.id, 'object');
    const child = await findReachable(r, childId);
    if (!(await nodeIn(trx, folder.id, child.id))) throw notFound(`Object ${child.id} is not a child of ${folder.id}`);
    await placeChildren(r, folder.id, [{ id: String(child.id), position: priority }]);
    return { folder, child };
  });
}

/** Place children in the folder `folderId` at their positions: a command updating the folder. */
async function placeChildren(r: Reader, folderId: number, items: Array<{ id: string; position?: Position }>) {
  const children = { mode: 'add' as const, items };
  await apply(r.ctx, { action: 'update', target: { key: folderId }, actor: r.viewer, changes: { parts: { children } } }, r.db as Transaction<Database>);
}
