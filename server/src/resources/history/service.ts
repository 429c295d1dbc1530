// The change history of objects: the observer that writes one row per change inside the write's
// transaction, the lists of /history and /{type}/{id}/history, the state of an object at an entry
// (the fold of `changed` from its creation up to that entry) and restoring that state through the
// write pipeline (a normal update, so it is recorded as a new entry).
import type { Request } from 'express';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest, notFound } from '../../http/errors.js';
import { resourceUrl, type Resource } from '../../http/jsonapi.js';
import { applyFilters, applySort, type ListQuery, type ListSpec } from '../../http/query.js';
import type { ObjectAction, ObjectChange, ObjectObserver } from '../objects/changes.js';
import { relationNamesOf, typeById, typeByName } from '../objects/model.js';
import { getObjectsByIds, type Viewer } from '../objects/read.js';
import type { Actor } from '../objects/pipeline.js';
import type { ObjectRow } from '../objects/rows.js';
import { objectTypeSchema, resourceSchemaContribution, type ResourceSchema } from '../objects/schema.js';
import { apply } from '../objects/kernel.js';
import type { HistoryTable } from './tables.js';

type Db = Kysely<Database> | Transaction<Database>;
export type HistoryRow = Selectable<HistoryTable>;

export const USER_ACTIONS: readonly ObjectAction[] = ['create', 'update', 'trash', 'restore', 'remove'];

// ---- recording ----

/**
 * Keys that never reach the history, whatever a type's hook put in `changed`: passwords and
 * password hashes (the pipeline already leaves them out; this is the second line).
 */
const SECRET_KEY = /password|passwd|(^|_)hash$/i;

function changedText(changed: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changed)) if (v !== undefined && !SECRET_KEY.test(k)) out[k] = v;
  return JSON.stringify(out);
}

type Values = [number, string, number | null, number | null, string, string, string];
/** The one statement a single change costs (prepared: built and compiled once). */
const insertEntry = prepared<never, Values>((db, p) =>
  db.insertInto('history').values({
    resource_id: p(0),
    resource_type: 'objects',
    object_type: p(1),
    user_id: p(2),
    application_id: p(3),
    user_action: p(4),
    changed: p(5),
    created: p(6),
  }),
);

/** Rows per multi-row insert (8 values a row stays far below SQLite's parameter limit). */
const CHUNK = 500;

/** Write the entries of `changes` in the write's transaction (one row each). */
export async function recordHistory(trx: Transaction<Database>, changes: ObjectChange[]): Promise<void> {
  const created = nowIso();
  if (changes.length === 1) {
    const c = changes[0];
    await insertEntry(trx, c.id, c.typeName, c.userId, c.applicationId, c.action, changedText(c.changed), created);
    return;
  }
  for (let i = 0; i < changes.length; i += CHUNK) {
    const rows = changes.slice(i, i + CHUNK).map((c) => ({
      resource_id: c.id,
      resource_type: 'objects',
      object_type: c.typeName,
      user_id: c.userId,
      application_id: c.applicationId,
      user_action: c.action,
      changed: changedText(c.changed),
      created,
    }));
    await trx.insertInto('history').values(rows).execute();
  }
}

export const historyObserver: ObjectObserver = { name: 'history', record: recordHistory };

// ---- reading ----

const COLUMNS = {
  id: 'history.id',
  resource_id: 'history.resource_id',
  user_id: 'history.user_id',
  application_id: 'history.application_id',
  user_action: 'history.user_action',
  resource_type: 'history.resource_type',
  created: 'history.created',
};

/** GET /history: filters and sorts (anything else gives 400). */
export const HISTORY_LIST_SPEC: ListSpec = {
  // resource_type: BEdita clients filter by it (`objects` is the only one Folio records).
  fields: { resource_id: 'integer', resource_type: 'string', user_id: 'integer', application_id: 'integer', user_action: 'string', created: 'date' },
  sortable: ['id', 'created', 'resource_id', 'user_id', 'user_action'],
  defaultSort: 'id',
};

/** GET /{type}/{id}/history: the same, the resource being given by the path. */
export const OBJECT_HISTORY_LIST_SPEC: ListSpec = {
  fields: { user_id: 'integer', application_id: 'integer', user_action: 'string', created: 'date' },
  sortable: ['id', 'created', 'user_id', 'user_action'],
  defaultSort: 'id',
};

function checkActions(q: ListQuery): void {
  for (const f of q.filters) {
    if (f.field !== 'user_action') continue;
    const bad = f.values.find((v) => !USER_ACTIONS.includes(v as ObjectAction));
    if (bad !== undefined) throw badRequest(`filter[user_action] must be one of ${USER_ACTIONS.join(', ')}`, 'invalid_filter');
  }
}

/** A page of entries (of one object when `resourceId` is given), oldest first unless sorted. */
export async function listHistory(db: Db, q: ListQuery, resourceId?: number): Promise<{ rows: HistoryRow[]; count: number }> {
  checkActions(q);
  const scoped = () => {
    const base = db.selectFrom('history');
    return resourceId === undefined ? base : base.where('history.resource_id', '=', resourceId);
  };
  const counted = await applyFilters(scoped().select((eb) => eb.fn.countAll<number>().as('n')), q.filters, COLUMNS).executeTakeFirst();
  const rows = await applySort(applyFilters(scoped().selectAll(), q.filters, COLUMNS), q.sort, COLUMNS, 'history.id')
    .limit(q.pageSize)
    .offset(q.offset)
    .execute();
  return { rows, count: Number(counted?.n ?? 0) };
}

export async function getEntry(db: Db, id: number): Promise<HistoryRow> {
  const row = await db.selectFrom('history').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`No history entry ${id}`);
  return row;
}

const parseChanged = (text: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

/** Entries of one object up to `lastId` (included), oldest first: what the folds read. */
async function entriesUpTo(db: Db, resourceId: number, lastId: number) {
  const rows = await db
    .selectFrom('history')
    .select(['id', 'user_action', 'changed'])
    .where('resource_id', '=', resourceId)
    .where('id', '<=', lastId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, action: r.user_action, changed: parseChanged(r.changed) }));
}

/**
 * For each entry of `page` (all of one object): the values its changed fields had just before it,
 * from the fold of the earlier entries (null when unset, or when the history does not reach back
 * that far); null for a create (nothing was there before).
 */
export async function valuesBefore(db: Db, resourceId: number, page: HistoryRow[]): Promise<Map<number, Record<string, unknown> | null>> {
  const out = new Map<number, Record<string, unknown> | null>();
  if (!page.length) return out;
  const wanted = new Set(page.map((r) => r.id));
  const state: Record<string, unknown> = {};
  for (const e of await entriesUpTo(db, resourceId, Math.max(...wanted))) {
    if (wanted.has(e.id)) {
      out.set(e.id, e.action === 'create' ? null : Object.fromEntries(Object.keys(e.changed).map((k) => [k, state[k] ?? null])));
    }
    Object.assign(state, e.changed);
    if (e.action === 'create') state.deleted ??= false;
  }
  return out;
}

/** Usernames of the writers of `rows` (trashed users too: their past writes keep a name). */
export async function writerNames(db: Db, rows: Array<Pick<HistoryRow, 'user_id'>>): Promise<Map<number, string>> {
  const ids = [...new Set(rows.map((r) => r.user_id).filter((id): id is number => id !== null))];
  if (!ids.length) return new Map();
  // Names only: a writer's name goes with each record, whoever reads it (no object of theirs is shown).
  const users = await db.selectFrom('users').select(['users.id', 'users.username']).where('users.id', 'in', ids).execute();
  return new Map(users.map((u) => [u.id, u.username]));
}

/**
 * An object's history shows only the related ids its reader may read: in the relation fields
 * and `parents` of `changed` and `meta.before`, ids of objects the viewer may not read (drafts
 * without `read`, restricted ones, trashed ones) are left out, as in the object's relationships.
 */
export async function hideUnreadableIds(ctx: AppContext, viewer: Viewer, typeName: string, entries: Resource[]): Promise<void> {
  if (viewer.isAdmin) return;
  const fields = new Set(['parents', ...relationNamesOf(ctx, typeName).map((r) => r.name)]);
  const holders = entries.flatMap((e) => [e.attributes?.changed, e.meta?.before]).filter((h): h is Record<string, unknown> => typeof h === 'object' && h !== null);
  const named = new Set<number>();
  for (const h of holders) for (const f of fields) if (Array.isArray(h[f])) for (const id of h[f] as unknown[]) if (/^\d{1,15}$/.test(String(id))) named.add(Number(id));
  if (!named.size) return;
  const readable = new Set((await getObjectsByIds(ctx, [...named], { viewer })).map((r) => String(r.id)));
  for (const h of holders) for (const f of fields) if (Array.isArray(h[f])) h[f] = (h[f] as unknown[]).filter((id) => readable.has(String(id)));
}

/**
 * Translations in an object's history for a reader who does not read the object in every status
 * (readsEveryStatus): only what anonymous clients could see, as everywhere else. In `changed`, a
 * translation is kept when it is `on` after the entry, or removed (null) while it was `on` (its
 * status before, from the fold of the object's earlier entries); in `meta.before`, only `on` ones.
 * `translations` goes when nothing of it is left.
 */
export async function hideUnpublishedTranslations(db: Db, resourceId: number, entries: Resource[]): Promise<void> {
  const translationsOf = (holder: unknown) => {
    const t = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>).translations : undefined;
    return typeof t === 'object' && t !== null ? (t as Record<string, { status?: unknown } | null>) : undefined;
  };
  if (!entries.some((e) => translationsOf(e.attributes?.changed) || translationsOf(e.meta?.before))) return;
  // Each language's status just before each entry of the page.
  const wanted = new Set(entries.map((e) => Number(e.id)));
  const statusBefore = new Map<number, Map<string, unknown>>();
  const status = new Map<string, unknown>();
  for (const e of await entriesUpTo(db, resourceId, Math.max(...wanted))) {
    if (wanted.has(Number(e.id))) statusBefore.set(Number(e.id), new Map(status));
    for (const [lang, t] of Object.entries(translationsOf(e.changed) ?? {})) status.set(lang, t?.status ?? null);
  }
  const prune = (holder: unknown, keep: (lang: string, t: { status?: unknown } | null) => boolean) => {
    const translations = translationsOf(holder);
    if (!translations) return;
    for (const [lang, t] of Object.entries(translations)) if (!keep(lang, t)) delete translations[lang];
    if (!Object.keys(translations).length) delete (holder as Record<string, unknown>).translations;
  };
  for (const e of entries) {
    const before = statusBefore.get(Number(e.id));
    prune(e.attributes?.changed, (lang, t) => (t === null ? before?.get(lang) === 'on' : t.status === 'on'));
    prune(e.meta?.before, (_lang, t) => t?.status === 'on');
  }
}

/** `fields` without those the object type hides, its translations' included (its history shows them nowhere). */
function withoutHidden(ctx: AppContext, typeName: string, fields: Record<string, unknown>): Record<string, unknown> {
  const hidden = typeByName(ctx, typeName)?.hidden ?? [];
  if (!hidden.length) return fields;
  for (const name of hidden) delete fields[name];
  const translations = fields.translations;
  if (translations && typeof translations === 'object') {
    fields.translations = Object.fromEntries(
      Object.entries(translations).map(([lang, t]) => {
        const translated = (t as { translated_fields?: unknown } | null)?.translated_fields;
        if (!translated || typeof translated !== 'object') return [lang, t];
        return [lang, { ...t, translated_fields: Object.fromEntries(Object.entries(translated).filter(([k]) => !hidden.includes(k))) }];
      }),
    );
  }
  return fields;
}

export function serializeEntry(req: Request, ctx: AppContext, row: HistoryRow, extra: { username?: string | null; before?: Record<string, unknown> | null } = {}): Resource {
  const fields = {
    resource_id: String(row.resource_id),
    resource_type: row.resource_type,
    user_id: row.user_id,
    application_id: row.application_id,
    user_action: row.user_action,
    changed: withoutHidden(ctx, row.object_type, parseChanged(row.changed)),
    created: row.created,
  };
  // BEdita shows a record's fields in `meta` (they are read-only there); Folio also in `attributes`.
  const meta: Record<string, unknown> = { ...fields, object_type: row.object_type, username: extra.username ?? null };
  if (extra.before !== undefined) meta.before = extra.before && withoutHidden(ctx, row.object_type, { ...extra.before });
  return {
    id: String(row.id),
    type: 'history',
    attributes: { ...fields },
    meta,
    links: { self: resourceUrl(req, `/history/${row.id}`) },
  };
}

// ---- restoring a version ----

/** The served schema of an object type (a family's contribution, e.g. users, else the model's). */
function schemaOf(ctx: AppContext, typeName: string, fallback: () => ResourceSchema): ResourceSchema {
  return resourceSchemaContribution(ctx, typeName)?.schema(ctx) ?? fallback();
}

/** Attributes a client may write on the type, with the value a field has when never set. */
function writableAttributes(schema: ResourceSchema): Map<string, { unset: unknown } | null> {
  const out = new Map<string, { unset: unknown } | null>();
  for (const [name, p] of Object.entries(schema.properties)) {
    if (p.isMeta || p.readOnly || p.writeOnly) continue;
    const types = ([] as unknown[]).concat(p.type ?? []);
    // A field never set reads as its default, else null; one that cannot be null and has no
    // default cannot be "unset" by a restore (null when nothing fits).
    const unset = 'default' in p ? { unset: p.default } : !types.length || types.includes('null') ? { unset: null } : null;
    out.set(name, unset);
  }
  return out;
}

/**
 * The attributes that bring `row` back to its state at `entry`: the fold of `changed` up to the
 * entry, limited to attributes of the type's schema (meta, relations, parents, stream and
 * `deleted` are not versioned attributes). A field set only after the entry goes back to unset
 * when the history starts with the object's creation (else its earlier value is unknown and it
 * is left alone).
 */
export async function attributesAt(ctx: AppContext, db: Db, row: ObjectRow, entry: HistoryRow): Promise<Record<string, unknown>> {
  if (entry.resource_id !== row.id) throw badRequest(`History entry ${entry.id} is not of object ${row.id}`, 'invalid_history_entry');
  const type = typeById(ctx, row.object_type_id);
  if (!type) throw notFound(`No object ${row.id}`);
  const writable = writableAttributes(schemaOf(ctx, type.name, () => objectTypeSchema(type)));
  const all = await entriesUpTo(db, row.id, Number.MAX_SAFE_INTEGER);
  const fromCreation = all[0]?.action === 'create';
  const state: Record<string, unknown> = {};
  const later = new Set<string>();
  for (const e of all) {
    if (e.id <= entry.id) Object.assign(state, e.changed);
    else for (const k of Object.keys(e.changed)) later.add(k);
  }
  const attributes: Record<string, unknown> = {};
  for (const [name, unset] of writable) {
    if (name in state) attributes[name] = state[name];
    else if (fromCreation && later.has(name) && unset) attributes[name] = unset.unset;
  }
  return attributes;
}

/** Write `row` back to its state at `entry` as an update by `actor` (a new history entry when anything changes). */
export async function restoreVersion(ctx: AppContext, row: ObjectRow, entry: HistoryRow, actor: Actor): Promise<ObjectRow> {
  const attributes = await attributesAt(ctx, ctx.db, row, entry);
  const type = typeById(ctx, row.object_type_id)!;
  return (await apply(ctx, { action: 'update', target: { key: row.id, type: type.name }, actor, changes: { attributes } })).row;
}
