// What the legacy layout reads: the publication, which objects are reachable from it, the lists
// (descendants, children, sections, contents, siblings), children positions and relations.
// Visibility follows the contract: anonymous callers see `on` objects only, users every status.
import type { Request } from 'express';
import { sql, type Kysely, type Selectable, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database, ObjectsTable } from '../../db/tables.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import type { AuthInfo } from '../../http/request.js';

type Db = Kysely<Database> | Transaction<Database>;

/** An active `objects` row with its type's name and singular, as the legacy reads select it. */
export type ObjectRow = Omit<Selectable<ObjectsTable>, 'deleted'> & { type_name: string; singular: string };

export interface Reader {
  ctx: AppContext;
  db: Db;
  publication: ObjectRow;
  /** Statuses the caller may see. */
  statuses: string[];
  /** Who reads (and, in the writer, who writes). */
  viewer: AuthInfo;
}

export const FOLDER_TYPE = 'folders';

export function selectObjects(db: Db) {
  return db
    .selectFrom('objects')
    .innerJoin('object_types', 'object_types.id', 'objects.object_type_id')
    .select([
      'objects.id',
      'objects.object_type_id',
      'object_types.name as type_name',
      'object_types.singular',
      'objects.status',
      'objects.uname',
      'objects.title',
      'objects.description',
      'objects.body',
      'objects.lang',
      'objects.extra',
      'objects.properties',
      'objects.locked',
      'objects.published',
      'objects.created',
      'objects.modified',
      'objects.created_by',
      'objects.modified_by',
    ])
    .where('objects.deleted', '=', false);
}

/** Statuses the caller may read: anonymous clients and applications `on` only. */
export const visibleStatuses = (req: Request) => (req.auth.userId === null ? ['on'] : ['on', 'draft', 'off']);

/**
 * The publication (root folder named by FOLIO_PUBLICATION, else the first root folder by id).
 * Anonymous callers get 401 when it is not `on`; applications 403.
 */
export async function openReader(ctx: AppContext, req: Request, db: Db = ctx.db): Promise<Reader> {
  let q = selectObjects(db)
    .where('object_types.name', '=', FOLDER_TYPE)
    .where((eb) => eb.exists(eb.selectFrom('trees').select('trees.id').whereRef('trees.object_id', '=', 'objects.id').where('trees.parent_id', 'is', null)));
  q = ctx.config.publication ? q.where('objects.uname', '=', ctx.config.publication) : q.orderBy('objects.id').limit(1);
  const publication = (await q.executeTakeFirst()) as ObjectRow | undefined;
  if (!publication) throw notFound('The publication does not exist', 'publication_not_found');
  const statuses = visibleStatuses(req);
  if (!statuses.includes(publication.status)) {
    if (req.auth.applicationId === null) throw unauthorized('The publication is protected: log in to read it');
    throw forbidden('The publication is protected');
  }
  return { ctx, db, publication, statuses, viewer: req.auth };
}

/**
 * A tree node none of whose folders above is in the trash (trashing a folder trashes its
 * sub-folders but leaves their contents placed there, out of reach).
 */
const underLiveFolders = sql<boolean>`not exists (select 1 from trees a join objects ao on ao.id = a.object_id
  where a.root_id = trees.root_id and a.tree_left < trees.tree_left and a.tree_right > trees.tree_right and ao.deleted = ${true})`;

/** Live tree nodes of the publication's tree (root_id = publication). */
function onTree(r: Reader) {
  return r.db.selectFrom('trees').select('trees.object_id').where('trees.root_id', '=', r.publication.id).where(underLiveFolders);
}

/** The object with this id or uname, when the caller may see it and it is reachable; else 404. */
export async function findReachable(r: Reader, idOrName: string): Promise<ObjectRow> {
  const row = await findVisible(r, idOrName);
  if (!row || !(await isReachable(r, row.id))) throw notFound(`Object ${idOrName} not found`);
  return row;
}

export async function findVisible(r: Reader, idOrName: string | number): Promise<ObjectRow | undefined> {
  let q = selectObjects(r.db).where('objects.status', 'in', r.statuses);
  const key = String(idOrName);
  q = /^\d{1,15}$/.test(key) ? q.where('objects.id', '=', Number(key)) : q.where('objects.uname', '=', key);
  return (await q.executeTakeFirst()) as ObjectRow | undefined;
}

/** On the publication tree, or related (either side) to an object on it. */
export async function isReachable(r: Reader, id: number): Promise<boolean> {
  if (id === r.publication.id) return true;
  const tree = await onTree(r).where('trees.object_id', '=', id).executeTakeFirst();
  if (tree) return true;
  const other = await r.db
    .selectFrom('object_relations')
    .select(sql<number>`case when left_id = ${id} then right_id else left_id end`.as('other'))
    .where((eb) => eb.or([eb('left_id', '=', id), eb('right_id', '=', id)]))
    .execute();
  const ids = other.map((o) => Number(o.other));
  if (!ids.length) return false;
  const hit = await onTree(r)
    .innerJoin('objects', 'objects.id', 'trees.object_id')
    .where('trees.object_id', 'in', ids)
    .where('objects.deleted', '=', false)
    .where('objects.status', 'in', r.statuses)
    .executeTakeFirst();
  return Boolean(hit);
}

export interface Page {
  page: number;
  pageSize: number;
  offset: number;
}

export interface ListResult {
  rows: ObjectRow[];
  total: number;
}

type IdQuery = SelectQueryBuilder<Database, 'trees', { object_id: number; pos: number }>;

/** Page through the objects of an (object_id, pos) query, visible ones only, ordered by pos. */
async function pageObjects(r: Reader, ids: IdQuery, page: Page, types: string[] | null): Promise<ListResult> {
  const grouped = r.db
    .selectFrom(ids.as('n'))
    .innerJoin('objects', 'objects.id', 'n.object_id')
    .innerJoin('object_types', 'object_types.id', 'objects.object_type_id')
    .where('objects.deleted', '=', false)
    .where('objects.status', 'in', r.statuses)
    .$if(types !== null, (q) => q.where('object_types.name', 'in', types!.length ? types! : ['']))
    .groupBy('n.object_id')
    .select(['n.object_id', sql<number>`min(n.pos)`.as('pos')]);
  const totalRow = await r.db.selectFrom(grouped.as('g')).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const pageIds = await grouped.orderBy('pos').orderBy('n.object_id').limit(page.pageSize).offset(page.offset).execute();
  const rows = await loadRows(r.db, pageIds.map((p) => p.object_id));
  return { rows, total: Number(totalRow.n) };
}

/** Rows of `ids`, in that order. */
export async function loadRows(db: Db, ids: number[]): Promise<ObjectRow[]> {
  if (!ids.length) return [];
  const rows = (await selectObjects(db).where('objects.id', 'in', ids).execute()) as ObjectRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)).filter((row): row is ObjectRow => Boolean(row));
}

/** The tree node of a folder (section or publication) of the publication's tree; 400 for contents. */
async function folderNode(r: Reader, folder: ObjectRow) {
  if (folder.type_name !== FOLDER_TYPE) throw badRequest(`Object ${folder.id} is not a section or the publication`, 'not_a_section');
  const node = await r.db.selectFrom('trees').selectAll().where('object_id', '=', folder.id).where('root_id', '=', r.publication.id).where(underLiveFolders).executeTakeFirst();
  if (!node) throw notFound(`Object ${folder.id} not found`);
  return node;
}

export type ChildKind = 'all' | 'sections' | 'contents';

function kindTypes(kind: ChildKind, filterTypes: string[] | null, allTypes: () => Promise<string[]>): Promise<string[] | null> | string[] | null {
  if (kind === 'all') return filterTypes;
  if (kind === 'sections') return filterTypes ? filterTypes.filter((t) => t === FOLDER_TYPE) : [FOLDER_TYPE];
  return (async () => (filterTypes ?? (await allTypes())).filter((t) => t !== FOLDER_TYPE))();
}

async function concreteTypes(db: Db): Promise<string[]> {
  return (await db.selectFrom('object_types').select('name').where('is_abstract', '=', false).execute()).map((t) => t.name);
}

/** Children of a section or the publication, in their position order. */
export async function listChildren(r: Reader, folder: ObjectRow, kind: ChildKind, page: Page, filterTypes: string[] | null): Promise<ListResult> {
  await folderNode(r, folder);
  const ids = r.db.selectFrom('trees').select(['trees.object_id', 'trees.tree_left as pos']).where('trees.parent_id', '=', folder.id) as IdQuery;
  return pageObjects(r, ids, page, await kindTypes(kind, filterTypes, () => concreteTypes(r.db)));
}

/** Every object below a section or the publication, in tree order. */
export async function listDescendants(r: Reader, folder: ObjectRow, page: Page, filterTypes: string[] | null): Promise<ListResult> {
  const node = await folderNode(r, folder);
  const ids = r.db
    .selectFrom('trees')
    .select(['trees.object_id', 'trees.tree_left as pos'])
    .where('trees.root_id', '=', node.root_id)
    .where('trees.tree_left', '>', node.tree_left)
    .where('trees.tree_right', '<', node.tree_right)
    .where(underLiveFolders) as IdQuery;
  return pageObjects(r, ids, page, filterTypes);
}

/** The other children of the object's parent on the publication tree (the first placement). */
export async function listSiblings(r: Reader, object: ObjectRow, page: Page, filterTypes: string[] | null): Promise<ListResult> {
  const node = await r.db
    .selectFrom('trees')
    .select(['parent_id'])
    .where('object_id', '=', object.id)
    .where('root_id', '=', r.publication.id)
    .where('parent_id', 'is not', null)
    .where(underLiveFolders)
    .orderBy('tree_left')
    .executeTakeFirst();
  if (!node) return { rows: [], total: 0 };
  const ids = r.db
    .selectFrom('trees')
    .select(['trees.object_id', 'trees.tree_left as pos'])
    .where('trees.parent_id', '=', node.parent_id)
    .where('trees.object_id', '!=', object.id) as IdQuery;
  return pageObjects(r, ids, page, filterTypes);
}

/** Position (1-based, in tree order) of `childId` among the children of `folder`; 404 when not a child. */
export async function childPosition(r: Reader, folder: ObjectRow, childId: number): Promise<number> {
  await folderNode(r, folder);
  const child = await r.db.selectFrom('trees').select('tree_left').where('parent_id', '=', folder.id).where('object_id', '=', childId).executeTakeFirst();
  if (!child) throw notFound(`Object ${childId} is not a child of ${folder.id}`);
  // Positions count the children that are not in the trash, as the folders family places them.
  const before = await r.db
    .selectFrom('trees')
    .innerJoin('objects', 'objects.id', 'trees.object_id')
    .select(sql<number>`count(*)`.as('n'))
    .where('trees.parent_id', '=', folder.id)
    .where('trees.tree_left', '<', child.tree_left)
    .where('objects.deleted', '=', false)
    .executeTakeFirstOrThrow();
  return Number(before.n) + 1;
}

/** Children counts of folders (all visible children, sections, contents), one query per page. */
export async function childrenCounts(r: Reader, folderIds: number[]): Promise<Map<number, { sections: number; contents: number }>> {
  const out = new Map<number, { sections: number; contents: number }>(folderIds.map((id) => [id, { sections: 0, contents: 0 }]));
  if (!folderIds.length) return out;
  const rows = await r.db
    .selectFrom('trees')
    .innerJoin('objects', 'objects.id', 'trees.object_id')
    .innerJoin('object_types', 'object_types.id', 'objects.object_type_id')
    .select(['trees.parent_id', sql<number>`sum(case when object_types.name = ${FOLDER_TYPE} then 1 else 0 end)`.as('sections'), sql<number>`count(*)`.as('n')])
    .where('trees.parent_id', 'in', folderIds)
    .where('objects.deleted', '=', false)
    .where('objects.status', 'in', r.statuses)
    .groupBy('trees.parent_id')
    .execute();
  for (const row of rows) out.set(Number(row.parent_id), { sections: Number(row.sections), contents: Number(row.n) - Number(row.sections) });
  return out;
}

export interface RelationSide {
  relationId: number;
  name: string;
  /** The object is on the left side (name) or the right side (inverse name). */
  side: 'left' | 'right';
}

/** A relation by name or inverse name; 400 when no relation has that name. */
export async function relationSide(db: Db, name: string): Promise<RelationSide> {
  const rel = await db
    .selectFrom('relations')
    .select(['id', 'name', 'inverse_name'])
    .where((eb) => eb.or([eb('name', '=', name), eb('inverse_name', '=', name)]))
    .executeTakeFirst();
  if (!rel) throw badRequest(`Unknown relation "${name}"`, 'unknown_relation');
  return { relationId: rel.id, name, side: rel.name === name ? 'left' : 'right' };
}

/** The related ids of `objectId` through `rel`, with their priority and params, in priority order. */
function relatedLinks(r: Reader, objectId: number, rel: RelationSide) {
  const [self, other, prio] = rel.side === 'left' ? (['left_id', 'right_id', 'priority'] as const) : (['right_id', 'left_id', 'inv_priority'] as const);
  return r.db
    .selectFrom('object_relations')
    .innerJoin('objects', 'objects.id', `object_relations.${other}`)
    .select([`object_relations.${other} as related_id`, `object_relations.${prio} as priority`, 'object_relations.params'])
    .where(`object_relations.${self}`, '=', objectId)
    .where('object_relations.relation_id', '=', rel.relationId)
    .where('objects.deleted', '=', false)
    .where('objects.status', 'in', r.statuses);
}

export async function listRelated(r: Reader, objectId: number, rel: RelationSide, page: Page): Promise<ListResult> {
  const base = relatedLinks(r, objectId, rel);
  const total = await r.db.selectFrom(base.as('l')).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const links = await base.orderBy('priority').orderBy('related_id').limit(page.pageSize).offset(page.offset).execute();
  return { rows: await loadRows(r.db, links.map((l) => Number(l.related_id))), total: Number(total.n) };
}

export async function relationDetail(r: Reader, objectId: number, rel: RelationSide, relatedId: number) {
  const link = await relatedLinks(r, objectId, rel).where(`objects.id`, '=', relatedId).executeTakeFirst();
  if (!link) throw notFound(`Object ${relatedId} is not related to ${objectId} by ${rel.name}`);
  return { priority: link.priority === null ? null : Number(link.priority), params: parseParams(link.params) };
}

export function parseParams(text: string | null): unknown {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Visible related counts per relation name (from both sides) for a page of objects. */
export async function relationCounts(r: Reader, ids: number[]): Promise<Map<number, Record<string, number>>> {
  const out = new Map<number, Record<string, number>>(ids.map((id) => [id, {}]));
  if (!ids.length) return out;
  const count = async (self: 'left_id' | 'right_id', other: 'left_id' | 'right_id', nameCol: 'relations.name' | 'relations.inverse_name') => {
    const rows = await r.db
      .selectFrom('object_relations')
      .innerJoin('relations', 'relations.id', 'object_relations.relation_id')
      .innerJoin('objects', 'objects.id', `object_relations.${other}`)
      .select([`object_relations.${self} as object_id`, `${nameCol} as name`, sql<number>`count(*)`.as('n')])
      .where(`object_relations.${self}`, 'in', ids)
      .where('objects.deleted', '=', false)
      .where('objects.status', 'in', r.statuses)
      .groupBy([`object_relations.${self}`, nameCol])
      .execute();
    for (const row of rows) out.get(Number(row.object_id))![row.name] = Number(row.n);
  };
  await count('left_id', 'right_id', 'relations.name');
  await count('right_id', 'left_id', 'relations.inverse_name');
  return out;
}
