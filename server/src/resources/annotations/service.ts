// Annotations (BEdita 5's `/annotations`): a user's note on an object. Reading one needs reading
// its object (else 404, as a missing one); any signed-in user who may read an object may
// annotate it; only its author (or an admin) changes or deletes it. An annotation follows its
// object: hidden while the object is in the trash (the read joins active objects only), back on
// restore, deleted on purge (the extension below).
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { sql, type Selectable, type Transaction } from 'kysely';
import { nowIso } from '../../db/time.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { onlyAttributes, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { listPage, type ListQuery, type ListSpec } from '../../http/query.js';
import type { AuthInfo } from '../../identity.js';
import type { ObjectExtension } from '../objects/extensions.js';
import { getObject, requireObject, visibleObjectsTable } from '../objects/read.js';
import type { AnnotationsTable } from './tables.js';

export type AnnotationRow = Selectable<AnnotationsTable>;

export const ANNOTATION_LIST_SPEC: ListSpec = {
  fields: { id: 'integer', object_id: 'integer', user_id: 'integer', created: 'date', modified: 'date' },
  // `q=` / `filter[query]=`: BEdita searches annotations' description.
  special: ['query'],
  defaultSort: 'id',
};

/** Words of a search, at most this many (each one a LIKE over the description). */
const MAX_SEARCH_WORDS = 16;

const COLUMNS: Record<string, string> = {
  id: 'annotations.id',
  object_id: 'annotations.object_id',
  user_id: 'annotations.user_id',
  created: 'annotations.created',
  modified: 'annotations.modified',
};

/** `username`: the author's, shown next to the note (non-admins cannot read other users). */
export function serializeAnnotation(req: Request, a: AnnotationRow, username?: string | null): Resource {
  return {
    id: String(a.id),
    type: 'annotations',
    attributes: { object_id: a.object_id, description: a.description, params: a.params === null ? null : JSON.parse(a.params) },
    meta: { user_id: a.user_id, username: username ?? null, created: a.created, modified: a.modified },
    links: { self: resourceUrl(req, `/annotations/${a.id}`) },
  };
}

/** Annotations on active objects the viewer may read, a page at a time. */
export function listAnnotations(ctx: AppContext, viewer: AuthInfo, q: ListQuery) {
  let base = ctx.db
    .selectFrom('annotations')
    .innerJoin(visibleObjectsTable(ctx, viewer, ctx.db), 'objects.id', 'annotations.object_id')
    .selectAll('annotations');
  // Every word of the search, anywhere in the description, whatever its case.
  const words = (q.special.query?.[0] ?? '').toLowerCase().split(/\s+/).filter(Boolean).slice(0, MAX_SEARCH_WORDS);
  for (const word of words) {
    const pattern = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where(sql<boolean>`lower(annotations.description) like ${pattern} escape '\\'`);
  }
  return listPage(base, q, COLUMNS, 'annotations.id');
}

/** The annotation, if the viewer may read its object; 404 otherwise, as for a missing one. */
export async function getAnnotation(ctx: AppContext, viewer: AuthInfo, id: number): Promise<AnnotationRow> {
  const row = await ctx.db.selectFrom('annotations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || !(await getObject(ctx, row.object_id, { viewer }))) throw notFound(`No annotation with id ${id}`);
  return row;
}

export interface AnnotationInput {
  object_id?: number;
  description?: string | null;
  /** As JSON text (null: none). */
  params?: string | null;
}

const ATTRIBUTES = ['object_id', 'description', 'params'];

/** The attributes of a POST or PATCH, checked: 400 naming what is wrong. */
export function annotationInput(attributes: Record<string, unknown>, create: boolean): AnnotationInput {
  onlyAttributes(attributes, ATTRIBUTES);
  const input: AnnotationInput = {};
  const objectId = attributes.object_id;
  if (objectId !== undefined) {
    const n = typeof objectId === 'string' && /^\d{1,15}$/.test(objectId) ? Number(objectId) : objectId;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw badRequest('Invalid data: "object_id" must be an object id', 'invalid_data');
    input.object_id = n;
  } else if (create) throw badRequest('Invalid data: "object_id" is required', 'invalid_data');
  const description = attributes.description;
  if (description !== undefined) {
    if (description !== null && typeof description !== 'string') throw badRequest('Invalid data: "description" must be a string or null', 'invalid_data');
    input.description = description;
  }
  if (attributes.params !== undefined) input.params = attributes.params === null ? null : JSON.stringify(attributes.params);
  return input;
}

/** A new annotation by `author` on an object it may read (404, 401 or 403 as a read of the object answers). */
export async function createAnnotation(ctx: AppContext, author: AuthInfo, input: AnnotationInput): Promise<AnnotationRow> {
  await requireObject(ctx, input.object_id!, { viewer: author });
  const now = nowIso();
  return ctx.db
    .insertInto('annotations')
    .values({ object_id: input.object_id!, user_id: author.userId!, description: input.description ?? null, params: input.params ?? null, created: now, modified: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Only the author or an admin changes or deletes an annotation (403); its object stays the same. */
function assertAuthor(viewer: AuthInfo, row: AnnotationRow): void {
  if (!viewer.isAdmin && row.user_id !== viewer.userId) throw forbidden(`Annotation ${row.id} belongs to another user`);
}

export async function updateAnnotation(ctx: AppContext, viewer: AuthInfo, row: AnnotationRow, input: AnnotationInput): Promise<AnnotationRow> {
  assertAuthor(viewer, row);
  if (input.object_id !== undefined && input.object_id !== row.object_id) throw forbidden('The object of an annotation cannot change');
  const { object_id: _o, ...set } = input;
  return ctx.db.updateTable('annotations').set({ ...set, modified: nowIso() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteAnnotation(ctx: AppContext, viewer: AuthInfo, row: AnnotationRow): Promise<void> {
  assertAuthor(viewer, row);
  await ctx.db.deleteFrom('annotations').where('id', '=', row.id).execute();
}

/** Ids per statement, far below the databases' variable limits. */
const CHUNK = 5000;

/** Purged objects (users included) take their annotations with them. */
export const annotationsExtension: ObjectExtension = {
  name: 'annotations',
  types: ['objects'],
  async onPurge(trx: Transaction<Database>, ids: number[]) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      await trx.deleteFrom('annotations').where((eb) => eb.or([eb('object_id', 'in', chunk), eb('user_id', 'in', chunk)])).execute();
    }
  },
};
