// Drafts: at most one per object, the pending changes of its attributes, relations, place in
// folders and translations, kept in the `drafts` table beside the live object, which stays as it is until the
// draft is published (publish.ts). Only users who may `update` an object see or change its draft:
// anyone else is answered as a plain read of the object answers (404 when its rights hide the
// object or its draft, 401/403 when an object permission restricts it). A draft lives and goes
// with its object: hidden while the object is in the trash (reads join active objects only), back
// on restore, deleted on purge (the extension below, and the foreign key's cascade).
import { createHash } from 'node:crypto';
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { identifiersOf, isPlainObject, type Resource, type ResourceInput } from '../../http/jsonapi.js';
import type { ListQuery, ListSpec } from '../../http/query.js';
import { listPage } from '../../http/query.js';
import type { ReadContext } from '../../http/read-context.js';
import type { AuthInfo } from '../../identity.js';
import type { ObjectExtension } from '../objects/extensions.js';
import { claimAttributeParts } from '../objects/kernel-parts.js';
import { yesNo } from '../objects/list.js';
import type { ObjectChanges } from '../objects/kernel.js';
import { model, relationNamesOf, typeById, typeByName, type ObjectType } from '../objects/model.js';
import type { Actor } from '../objects/pipeline.js';
import { requireObject, visibleObjectsTable } from '../objects/read.js';
import { relatedPairs } from '../objects/relations.js';
import type { ObjectRow } from '../objects/rows.js';
import { validateObjectAttributes } from '../objects/schema.js';
import { serializeObject } from '../objects/serialize.js';
import { reaches, rightsOn } from '../permissions/rules.js';
import { checkFields, checkLang, checkStatus, parseFields, serializeTranslation, translationsByLang, type TranslationChange, type TranslationRow } from '../translations/service.js';
import type { DraftsTable } from './tables.js';
import { writerNames } from '../history/service.js';

export type DraftRow = Selectable<DraftsTable>;
type Identifier = { id: string; type: string; meta: Record<string, unknown> };

/** An object with its draft (or none yet), as the one who asked may see it. */
export interface Drafted {
  row: ObjectRow;
  type: ObjectType;
  draft: DraftRow | undefined;
}

/**
 * Whether `actor` may `update` the object (role permissions; admins always). Object permissions
 * were checked by the read that found the row. Users' accounts have no drafts.
 */
export function mayUpdate(actor: Actor, type: ObjectType, row: Pick<ObjectRow, 'created_by'>): boolean {
  if (type.name === 'users') return false;
  return actor.isAdmin || reaches(rightsOn(actor.permissions, type).update, actor.userId, row.created_by);
}

const noDraft = (id: number | string) => notFound(`No draft of object ${id}`);

/** The object `key` and its draft, for a user who may update it; 404/401/403 as a read otherwise. */
export async function editable(ctx: AppContext, viewer: AuthInfo, key: string | number, db = ctx.db): Promise<Drafted> {
  const row = await requireObject(ctx, key, { viewer, db });
  const type = typeById(ctx, row.object_type_id)!;
  if (!mayUpdate(viewer, type, row)) throw noDraft(key);
  const draft = await db.selectFrom('drafts').selectAll().where('object_id', '=', row.id).executeTakeFirst();
  return { row, type, draft };
}

/** Like editable(), with a draft: 404 when the object has none. */
export async function requireDraft(ctx: AppContext, viewer: AuthInfo, key: string | number, db = ctx.db): Promise<Drafted & { draft: DraftRow }> {
  const found = await editable(ctx, viewer, key, db);
  if (!found.draft) throw noDraft(key);
  return found as Drafted & { draft: DraftRow };
}

export const attributesOf = (d: Pick<DraftRow, 'attributes'>) => JSON.parse(d.attributes) as Record<string, unknown>;
export const relationshipsOf = (d: Pick<DraftRow, 'relationships'>) => JSON.parse(d.relationships) as Record<string, Identifier[]>;
export const translationsOf = (d: Pick<DraftRow, 'translations'>) => JSON.parse(d.translations || '{}') as DraftTranslations;

/** A draft's translation changes: per language, the status and fields it sets, or null (removed). */
export type DraftTranslation = { status?: string; translated_fields?: Record<string, string | null> } | null;
export type DraftTranslations = Record<string, DraftTranslation>;

/**
 * The draft's strong ETag: the live object's version and a digest of the draft as stored (its
 * changes, review and schedule, `modified`): `"d<version>-<digest>"`. If-Match on PATCH and
 * DELETE of the draft compares the digest (the draft holds changes only: a write of the live
 * object alone does not refuse saving it); publishing compares the live object's version.
 */
export function draftTag(row: Pick<ObjectRow, 'version'>, draft: DraftRow): string {
  return `"d${row.version}-${draftDigest(draft)}"`;
}

function draftDigest(draft: DraftRow): string {
  const { attributes, relationships, translations, modified, modified_by, submitted, publish_at, created } = draft;
  return createHash('sha1').update(JSON.stringify([created, modified, modified_by, attributes, relationships, translations, submitted, publish_at])).digest('base64url').slice(0, 16);
}

/**
 * If-Match on a write of the draft: `*` or the draft's ETag (as GET /drafts/{id} answers it) pass;
 * any other tag, or one when there is no draft yet but `*`, is 412 and nothing changes.
 */
export function checkDraftIfMatch(header: string | undefined, draft: DraftRow | undefined): void {
  if (header === undefined || header.trim() === '') return;
  const tags = header.split(',').map((t) => t.trim());
  if (draft && tags.includes('*')) return;
  const digest = draft && draftDigest(draft);
  if (digest && tags.some((t) => /^"d\d{1,15}-([A-Za-z0-9_-]+)"$/.exec(t)?.[1] === digest)) return;
  throw new ApiError(
    412,
    'precondition_failed',
    draft ? 'The draft was changed since you read it (If-Match names another version of it): reload it, or send the change again without If-Match' : 'The object has no draft (If-Match names one)',
    'Precondition Failed',
  );
}

/** The relationships a draft of `type` may hold: its relations, and `parents` (folders' place). */
function draftRelationNames(ctx: AppContext, type: ObjectType): Set<string> {
  const names = new Set(relationNamesOf(ctx, type.name).map((r) => r.name));
  if (type.name !== 'folders') names.add('parents');
  return names;
}

/**
 * A PATCH body's changes, checked as a PATCH of the object checks its attributes (an attribute
 * the type lacks or hides: 400 `unknown_attribute`; a bad value: 400 `invalid_data`) and its
 * relationships (a relation the type lacks: 400; identifiers well formed). Rights on the objects
 * they name, and everything a write checks beyond that, are checked when the draft is published.
 */
export function draftInput(ctx: AppContext, type: ObjectType, input: ResourceInput): { attributes: Record<string, unknown>; relationships: Record<string, Identifier[]>; translations: DraftTranslations } {
  const given = input.attributes;
  // Attributes that extensions take as parts of a write (categories, tags, date ranges) are kept
  // as sent; the rest is validated against the type's schema.
  const claimed = claimAttributeParts(ctx, type, { attributes: given });
  validateObjectAttributes(ctx, type, claimed.attributes ?? {}, true);
  const names = draftRelationNames(ctx, type);
  const relationships: Record<string, Identifier[]> = {};
  for (const [name, value] of Object.entries(input.relationships)) {
    if (!names.has(name)) throw badRequest(`Invalid data: ${type.name} have no relation "${name}"`, 'invalid_data');
    if (!isPlainObject(value) || !('data' in value)) throw badRequest(`relationships.${name} must be an object with "data"`, 'invalid_body');
    relationships[name] = value.data === null ? [] : identifiersOf(value.data).map(({ id, type: t, meta }) => ({ id, type: t, meta: meta ?? {} }));
  }
  return { attributes: given, relationships, translations: draftTranslationsInput(type, input.meta.translations) };
}

/**
 * `meta.translations` of a draft's PATCH: {<lang>: {status?, translated_fields?} | null}, checked as
 * /translations checks a translation (a language tag, on/draft/off, the type's translatable text
 * fields only: else 400 and nothing saved).
 */
function draftTranslationsInput(type: ObjectType, value: unknown): DraftTranslations {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw badRequest('"meta.translations" must be an object of language → translation (or null to remove it)', 'invalid_body');
  const out: DraftTranslations = {};
  for (const [lang, t] of Object.entries(value)) {
    checkLang(lang, `meta.translations.${lang}`);
    if (t === null) {
      out[lang] = null;
      continue;
    }
    if (!isPlainObject(t)) throw badRequest(`"meta.translations.${lang}" must be {status, translated_fields} or null`, 'invalid_body');
    const unknown = Object.keys(t).find((k) => k !== 'status' && k !== 'translated_fields');
    if (unknown) throw badRequest(`"meta.translations.${lang}.${unknown}": a translation takes only status and translated_fields`, 'invalid_data');
    out[lang] = {
      ...(t.status !== undefined ? { status: checkStatus(t.status) } : {}),
      ...(t.translated_fields !== undefined ? { translated_fields: checkFields(type, t.translated_fields) } : {}),
    };
  }
  return out;
}

/** `changes` over `before`, language by language: fields merge, null removes, a language after null starts anew. */
function mergeTranslations(before: DraftTranslations, changes: DraftTranslations): DraftTranslations {
  const out = { ...before };
  for (const [lang, t] of Object.entries(changes)) {
    const was = out[lang];
    out[lang] = t === null || !was ? t : { ...was, ...t, ...(was.translated_fields || t.translated_fields ? { translated_fields: { ...was.translated_fields, ...t.translated_fields } } : {}) };
  }
  return out;
}

/** Create the draft of `found`, or merge `changes` into it (later values win, field by field). */
export async function saveDraft(ctx: AppContext, actor: AuthInfo, found: Drafted, changes: ReturnType<typeof draftInput>, db: Kysely<Database> | Transaction<Database> = ctx.db): Promise<void> {
  const now = nowIso();
  const { draft, row } = found;
  const attributes = JSON.stringify({ ...(draft ? attributesOf(draft) : {}), ...changes.attributes });
  const relationships = JSON.stringify({ ...(draft ? relationshipsOf(draft) : {}), ...changes.relationships });
  const translations = JSON.stringify(mergeTranslations(draft ? translationsOf(draft) : {}, changes.translations));
  await db
    .insertInto('drafts')
    .values({ object_id: row.id, attributes, relationships, translations, created: now, modified: now, created_by: actor.userId, modified_by: actor.userId, submitted: null, publish_at: null, publish_by: null })
    .onConflict((oc) => oc.column('object_id').doUpdateSet({ attributes, relationships, translations, modified: now, modified_by: actor.userId }))
    .execute();
}

export async function discardDraft(ctx: AppContext, objectId: number, db: Kysely<Database> | Transaction<Database> = ctx.db): Promise<void> {
  await db.deleteFrom('drafts').where('object_id', '=', objectId).execute();
}

/**
 * The object `key` and its draft for a write of the draft in `trx` with If-Match `ifMatch`: the
 * draft's row is locked first (PostgreSQL: a concurrent writer waits), then compared (412).
 */
export async function editableIfMatch(ctx: AppContext, viewer: AuthInfo, key: string | number, ifMatch: string | undefined, trx: Transaction<Database>): Promise<Drafted> {
  const found = await editable(ctx, viewer, key, trx);
  if (ifMatch === undefined) return found;
  await trx.updateTable('drafts').set((eb) => ({ modified: eb.ref('modified') })).where('object_id', '=', found.row.id).execute();
  const draft = await trx.selectFrom('drafts').selectAll().where('object_id', '=', found.row.id).executeTakeFirst();
  checkDraftIfMatch(ifMatch, draft);
  return { ...found, draft };
}

/**
 * A draft as the kernel's update command of its object (publish.ts), read in the unit of work:
 * each translation change becomes a create, an update or a removal of the live one as it is then
 * (its fields checked again against the type as it is then).
 */
export async function draftChanges(found: Drafted & { draft: DraftRow }, trx: Transaction<Database>): Promise<ObjectChanges> {
  const { draft, type } = found;
  const { parents, ...relations } = relationshipsOf(draft);
  const live = await translationsByLang(trx, found.row.id);
  const each: TranslationChange[] = [];
  for (const [lang, t] of Object.entries(translationsOf(draft))) {
    const was = live.get(lang);
    const fields = t?.translated_fields && checkFields(type, t.translated_fields);
    if (t === null) {
      if (was) each.push({ remove: { id: was.id } });
    } else if (was) each.push({ update: { id: was.id, status: t.status, fields } });
    else each.push({ create: { lang, status: t.status ?? 'draft', fields: fields ?? {} } });
  }
  const parts = {
    ...(parents ? { parents: { mode: 'replace' as const, items: parents.map((p) => ({ id: p.id })) } } : {}),
    ...(each.length ? { translations: { each } } : {}),
  };
  return {
    attributes: attributesOf(draft),
    relations: Object.entries(relations).map(([name, items]) => ({ name, items, mode: 'replace' as const })),
    ...(Object.keys(parts).length ? { parts } : {}),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The object as it will be once the draft is published: the live object as `rc` reads it with the
 * draft's attributes and relationships over it, and `meta.draft` (what differs, who, when).
 */
export async function draftView(rc: ReadContext, ctx: AppContext, found: Drafted & { draft: DraftRow }): Promise<Resource> {
  return (await draftDocument(rc, ctx, found)).data;
}

/**
 * The draft's document: the object as it will be (draftView) and what a read includes; with
 * `lang`, the translation in that language as it will be (a pending new one has the id
 * `draft-<lang>`; each shown with draft values carries `meta.draft: true`).
 */
export async function draftDocument(rc: ReadContext, ctx: AppContext, found: Drafted & { draft: DraftRow }): Promise<{ data: Resource; included: Resource[] }> {
  const { data, included } = await serializeObject(rc, ctx, found.row);
  const attributes = attributesOf(found.draft);
  const relationships = relationshipsOf(found.draft);
  const changed = Object.keys(attributes).filter((k) => !same(data.attributes?.[k], attributes[k]));
  data.attributes = { ...data.attributes, ...attributes };
  for (const [name, items] of Object.entries(relationships)) {
    const before = data.relationships?.[name];
    const ids = (list: unknown) => ([] as Array<{ id: string }>).concat((list as Array<{ id: string }> | null) ?? []).map((i) => String(i.id)).sort();
    // Relations are answered as links: their ids are read (`parents` come with the object).
    const live = before?.data !== undefined ? ids(before.data) : (await relatedPairs(ctx, [found.row], name)).map((p) => String(p.relatedId)).sort();
    if (!same(live, ids(items))) changed.push(name);
    const links = before?.links ?? { self: `${rc.base}/${found.type.name}/${found.row.id}/relationships/${name}`, related: `${rc.base}/${found.type.name}/${found.row.id}/${name}` };
    // Each item's `meta` as saved (a link's params), so a client that sends the list back keeps it.
    const linked = items.map(({ id, type, meta }) => ({ id, type, ...(meta && Object.keys(meta).length ? { meta } : {}) }));
    data.relationships = { ...(data.relationships ?? {}), [name]: { ...(before ?? {}), links, data: linked } };
  }
  const d = found.draft;
  const translations = translationsOf(d);
  const live = await translationsByLang(ctx.db, found.row.id);
  const changedLangs = Object.entries(translations).filter(([lang, t]) => {
    const was = live.get(lang);
    if (t === null || !was) return !!was !== (t !== null);
    const fields = parseFields(was.translated_fields);
    return (t.status !== undefined && t.status !== was.status) || Object.entries(t.translated_fields ?? {}).some(([k, v]) => !same(fields[k], v));
  });
  if (changedLangs.length) changed.push('translations');
  if (rc.lang && Object.hasOwn(translations, rc.lang)) overlayTranslation(rc, ctx, found, data, included, live.get(rc.lang), translations[rc.lang]);
  // Who changed it last, by name: whoever may see the draft may see that (as history's meta.username).
  const names = await writerNames(ctx.db, [{ user_id: d.modified_by }]);
  data.meta = {
    ...(data.meta ?? {}),
    draft: { created: d.created, modified: d.modified, created_by: d.created_by, modified_by: d.modified_by, modified_by_name: d.modified_by === null ? null : (names.get(d.modified_by) ?? null), changed, translations, submitted: d.submitted, publish_at: d.publish_at },
  };
  return { data, included };
}

/** The draft's translation in `rc.lang` in place of the live one, in `included` and `relationships.translations`. */
function overlayTranslation(rc: ReadContext, ctx: AppContext, found: Drafted, data: Resource, included: Resource[], was: TranslationRow | undefined, t: DraftTranslation) {
  const at = was ? included.findIndex((r) => r.type === 'translations' && r.id === String(was.id)) : -1;
  if (at >= 0) included.splice(at, 1);
  const rels = (data.relationships ??= {});
  if (t === null) {
    rels.translations = { ...(rels.translations ?? {}), data: [] };
    return;
  }
  const now = found.draft!.modified;
  const base: TranslationRow = was ?? { id: 0, object_id: found.row.id, lang: rc.lang!, status: 'draft', translated_fields: '{}', created: now, modified: now, created_by: null, modified_by: null };
  const row: TranslationRow = { ...base, status: t.status ?? base.status, translated_fields: JSON.stringify({ ...parseFields(base.translated_fields), ...t.translated_fields }) };
  const resource = serializeTranslation(rc, ctx, row, found.row.object_type_id);
  if (!was) {
    resource.id = `draft-${rc.lang}`;
    delete resource.links;
  }
  resource.meta = { ...(resource.meta ?? {}), draft: true };
  included.push(resource);
  rels.translations = { ...(rels.translations ?? {}), data: [{ type: 'translations', id: resource.id }] };
}

export const DRAFT_LIST_SPEC: ListSpec = {
  fields: { id: 'integer', modified_by: 'integer', created: 'date', modified: 'date' },
  special: ['type', 'submitted'],
  defaultSort: 'id',
};

const COLUMNS: Record<string, string> = {
  id: 'drafts.object_id',
  modified_by: 'drafts.modified_by',
  created: 'drafts.created',
  modified: 'drafts.modified',
};

const draftableTypes = (ctx: AppContext) => [...model(ctx).types.values()].filter((t) => !t.isAbstract && t.name !== 'users');

/**
 * The objects whose drafts `viewer` may see, as a condition on `objects`: those of the types whose
 * `update` reaches every object, and the viewer's own where it reaches its own (admins: all).
 */
function updatableWhere(ctx: AppContext, viewer: AuthInfo, eb: ExpressionBuilder<Database, 'objects'>): Expression<SqlBool> {
  const types = draftableTypes(ctx);
  const all = types.filter((t) => viewer.isAdmin || rightsOn(viewer.permissions, t).update === 'all').map((t) => t.id);
  const own = viewer.isAdmin ? [] : types.filter((t) => rightsOn(viewer.permissions, t).update === 'own').map((t) => t.id);
  return eb.or([
    ...(all.length ? [eb('objects.object_type_id', 'in', all)] : []),
    ...(own.length && viewer.userId !== null ? [eb.and([eb('objects.object_type_id', 'in', own), eb('objects.created_by', '=', viewer.userId)])] : []),
    eb.lit(false),
  ]);
}

/**
 * `filter[has_draft]=1|true` on object lists: the objects with a draft the reader may see;
 * `0|false` the others. A reader who may update nothing is told of no draft (1: none, 0: all).
 */
function hasDraftFilter(values: string[], eb: ExpressionBuilder<Database, 'objects'>, ctx: AppContext, viewer: AuthInfo): Expression<SqlBool> {
  const wanted = yesNo(values, 'has_draft');
  const drafted = eb.and([eb.exists(eb.selectFrom('drafts').select('drafts.object_id').whereRef('drafts.object_id', '=', 'objects.id')), updatableWhere(ctx, viewer, eb)]);
  return wanted ? drafted : eb.not(drafted);
}

/**
 * The drafts of active objects the viewer may update, a page at a time: every type's where the
 * viewer's `update` reaches all objects, the own ones where it reaches its own.
 */
export async function listDrafts(ctx: AppContext, viewer: AuthInfo, q: ListQuery): Promise<{ rows: Array<DraftRow & { object_type_id: number }>; count: number }> {
  const types = draftableTypes(ctx);
  let base = ctx.db
    .selectFrom('drafts')
    // Active objects the viewer reads (a trashed object's draft is not listed).
    .innerJoin(visibleObjectsTable(ctx, viewer, ctx.db), 'objects.id', 'drafts.object_id')
    .selectAll('drafts')
    .select('objects.object_type_id')
    .where((eb) => updatableWhere(ctx, viewer, eb as unknown as ExpressionBuilder<Database, 'objects'>));
  const typeFilter = q.special.type;
  if (typeFilter?.length) {
    const ids = typeFilter.flatMap((n) => {
      const t = typeByName(ctx, n);
      if (!t) throw badRequest(`filter[type]: unknown object type "${n}"`, 'invalid_filter');
      return types.filter((c) => c.lineage.includes(t.name)).map((c) => c.id);
    });
    base = base.where('objects.object_type_id', 'in', ids.length ? ids : [-1]);
  }
  const submitted = q.special.submitted;
  if (submitted?.length) {
    const v = submitted[0];
    if (!['true', 'false', '1', '0'].includes(v)) throw badRequest('filter[submitted] must be true or false', 'invalid_filter');
    base = base.where('drafts.submitted', v === 'true' || v === '1' ? 'is not' : 'is', null);
  }
  return listPage(base, q, COLUMNS, 'drafts.object_id');
}

/** Ids per statement, far below the databases' variable limits. */
const CHUNK = 5000;

/** Purged objects take their drafts with them (beside the foreign key's cascade). */
export const draftsExtension: ObjectExtension = {
  name: 'drafts',
  types: ['objects'],
  filters: { has_draft: hasDraftFilter },
  async onPurge(trx: Transaction<Database>, ids: number[]) {
    for (let i = 0; i < ids.length; i += CHUNK) await trx.deleteFrom('drafts').where('object_id', 'in', ids.slice(i, i + CHUNK)).execute();
  },
};
