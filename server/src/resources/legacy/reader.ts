// What the legacy layout reads, as a view over the services: the publication (a root folder),
// reachability, the lists (descendants, children, sections, contents, siblings), positions and
// relations come from the folders family (folders/publication.ts), the relations service
// (objects/relations.ts) and the read path (objects/read.ts), which decides visibility. This
// module only adds the legacy names (`type_name`, `singular`) and the legacy errors; no SQL.
import type { Request } from 'express';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import type { AuthInfo } from '../../http/request.js';
import {
  childCounts,
  childrenOnTree,
  descendantsOnTree,
  findRootFolder,
  isReachableFrom,
  positionOnTree,
  siblingsOnTree,
  type TreeList,
  type TreePage,
} from '../folders/publication.js';
import { FOLDERS } from '../folders/service.js';
import { concreteTypeNames, typeById } from '../objects/model.js';
import { canSee, findObjectByIdOrUname, visibleIds } from '../objects/read.js';
import { relatedPage, relationByName, relationCounts as countRelations, relationLink, type RelationSide } from '../objects/relations.js';
import type { ObjectRow as StoredRow } from '../objects/rows.js';

type Db = Kysely<Database> | Transaction<Database>;

/** An active object with its type's name and singular, as the legacy layout names it. */
export type ObjectRow = StoredRow & { type_name: string; singular: string };

export interface Reader {
  ctx: AppContext;
  db: Db;
  publication: ObjectRow;
  /** Who reads (and, in the writer, who writes). */
  viewer: AuthInfo;
}

export const FOLDER_TYPE = FOLDERS;
export type { RelationSide };
export type Page = TreePage;
export interface ListResult {
  rows: ObjectRow[];
  total: number;
}

/** A stored row with its legacy type names (from the in-memory model). */
export function withTypeNames(ctx: AppContext, row: StoredRow): ObjectRow {
  const type = typeById(ctx, row.object_type_id)!;
  return { ...row, type_name: type.name, singular: type.singular };
}

const named = (ctx: AppContext, list: TreeList): ListResult => ({ rows: list.rows.map((r) => withTypeNames(ctx, r)), total: list.total });

/**
 * The publication (root folder named by FOLIO_PUBLICATION, else the first root folder by id).
 * Anonymous callers get 401 when they may not read it; applications 403.
 */
export async function openReader(ctx: AppContext, req: Request, db: Db = ctx.db): Promise<Reader> {
  const publication = await findRootFolder(ctx, db, ctx.config.publication);
  if (!publication) throw notFound('The publication does not exist', 'publication_not_found');
  if (!canSee(ctx, req.auth, publication) || !(await visibleIds(ctx, req.auth, [publication.id], db)).has(publication.id)) {
    if (req.auth.userId === null && req.auth.applicationId === null) throw unauthorized('The publication is protected: log in to read it');
    throw forbidden('The publication is protected');
  }
  return { ctx, db, publication: withTypeNames(ctx, publication), viewer: req.auth };
}

/** The object with this id or uname, when the caller may see it and it is reachable; else 404. */
export async function findReachable(r: Reader, idOrName: string): Promise<ObjectRow> {
  const row = await findVisible(r, idOrName);
  if (!row || !(await isReachable(r, row.id))) throw notFound(`Object ${idOrName} not found`);
  return row;
}

export async function findVisible(r: Reader, idOrName: string | number): Promise<ObjectRow | undefined> {
  const row = await findObjectByIdOrUname(r.ctx, idOrName, { viewer: r.viewer, db: r.db });
  return row && withTypeNames(r.ctx, row);
}

/** On the publication tree, or related (either side) to an object on it. */
export const isReachable = (r: Reader, id: number) => isReachableFrom(r.ctx, r.db, r.publication.id, id, r.viewer);

function assertSection(folder: ObjectRow): void {
  if (folder.type_name !== FOLDER_TYPE) throw badRequest(`Object ${folder.id} is not a section or the publication`, 'not_a_section');
}

export type ChildKind = 'all' | 'sections' | 'contents';

function kindTypes(ctx: AppContext, kind: ChildKind, filterTypes: string[] | null): string[] | null {
  if (kind === 'all') return filterTypes;
  if (kind === 'sections') return filterTypes ? filterTypes.filter((t) => t === FOLDER_TYPE) : [FOLDER_TYPE];
  return (filterTypes ?? concreteTypeNames(ctx)).filter((t) => t !== FOLDER_TYPE);
}

/** Children of a section or the publication, in their position order. */
export async function listChildren(r: Reader, folder: ObjectRow, kind: ChildKind, page: Page, filterTypes: string[] | null): Promise<ListResult> {
  assertSection(folder);
  return named(r.ctx, await childrenOnTree(r.ctx, r.db, r.publication.id, folder.id, page, kindTypes(r.ctx, kind, filterTypes), r.viewer));
}

/** Every object below a section or the publication, in tree order. */
export async function listDescendants(r: Reader, folder: ObjectRow, page: Page, filterTypes: string[] | null): Promise<ListResult> {
  assertSection(folder);
  return named(r.ctx, await descendantsOnTree(r.ctx, r.db, r.publication.id, folder.id, page, filterTypes, r.viewer));
}

/** The other children of the object's parent on the publication tree (the first placement). */
export async function listSiblings(r: Reader, object: ObjectRow, page: Page, filterTypes: string[] | null): Promise<ListResult> {
  return named(r.ctx, await siblingsOnTree(r.ctx, r.db, r.publication.id, object.id, page, filterTypes, r.viewer));
}

/** Position (1-based, in tree order) of `childId` among the children of `folder`; 404 when not a child. */
export async function childPosition(r: Reader, folder: ObjectRow, childId: number): Promise<number> {
  assertSection(folder);
  return positionOnTree(r.db, r.publication.id, folder.id, childId);
}

/** Children counts of folders (visible sections and contents), one query per page. */
export const childrenCounts = (r: Reader, folderIds: number[]) => childCounts(r.ctx, r.db, folderIds, r.viewer);

/** A relation by name or inverse name; 400 when no relation has that name. */
export const relationSide = (ctx: AppContext, name: string): RelationSide => relationByName(ctx, name);

export async function listRelated(r: Reader, objectId: number, rel: RelationSide, page: Page): Promise<ListResult> {
  return named(r.ctx, await relatedPage(r.ctx, r.db, objectId, rel, page, r.viewer));
}

export const relationDetail = (r: Reader, objectId: number, rel: RelationSide, relatedId: number) => relationLink(r.ctx, r.db, objectId, rel, relatedId, r.viewer);

/** Visible related counts per relation name (from both sides) for a page of objects. */
export const relationCounts = (r: Reader, ids: number[]) => countRelations(r.ctx, r.db, ids, r.viewer);
