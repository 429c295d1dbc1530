// Translations of objects (BEdita 5's /translations, CONTRACT.md "Translations"): one row per
// object and language, holding the translated text fields. Writing one is an update of its
// object: the kernel's `translations` part (rights, history, webhooks, the object's version); its
// rows go with the object to the trash (hidden while it is there) and for good (purge).
// Reading one needs reading its object, and for anonymous clients the translation's status `on`.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { relationshipLinksAt, type Resource } from '../../http/jsonapi.js';
import type { ReadContext } from '../../http/read-context.js';
import type { KernelWrite, PartHandler } from '../objects/kernel.js';
import type { Shown } from '../permissions/rules.js';
import { translatableField, typeById, visibleProperties, type ObjectType } from '../objects/model.js';
import { everyStatusWhere, visibleObjectsTable, type Viewer } from '../objects/read.js';
import type { TranslationsTable } from './tables.js';

type Db = Kysely<Database> | Transaction<Database>;
export type TranslationRow = Selectable<TranslationsTable>;

export const STATUSES = ['on', 'draft', 'off'] as const;

/** A BCP 47 language tag as BEdita accepts it (`it`, `en-GB`, `zh-Hant-TW`), at most 64 characters. */
const LANG_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

export function checkLang(value: unknown, field = 'lang'): string {
  if (typeof value !== 'string' || value.length > 64 || !LANG_TAG.test(value)) throw badRequest(`"${field}" must be a language tag such as "it" or "en-GB"`, 'invalid_data');
  return value;
}

export function checkStatus(value: unknown): string {
  if (typeof value !== 'string' || !(STATUSES as readonly string[]).includes(value)) throw badRequest('"status" must be on, draft or off', 'invalid_data');
  return value;
}

/**
 * The fields of `type` a translation may hold: its text attributes (title, description, body)
 * and text custom properties it shows, each unless its `translation_rules` say `false`; none
 * when the type is not translatable (`is_translatable: false`).
 */
export function translatableFields(type: ObjectType): string[] {
  const texts = ['title', 'description', 'body', ...visibleProperties(type).filter((p) => p.type === 'string' || p.type === 'text').map((p) => p.name)];
  return texts.filter((f) => !type.hidden.includes(f) && translatableField(type, f, true));
}

/** `translated_fields` of a request for an object of `type`: text (or null) per translatable field. */
export function checkFields(type: ObjectType, value: unknown): Record<string, string | null> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('"translated_fields" must be an object of field → text', 'invalid_data');
  if (!type.isTranslatable) throw badRequest(`Objects of type ${type.name} are not translatable`, 'not_translatable');
  const allowed = new Set(translatableFields(type));
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!allowed.has(k)) throw badRequest(`"translated_fields.${k}": objects of type ${type.name} translate only ${[...allowed].join(', ')}`, 'invalid_data');
    if (v !== null && typeof v !== 'string') throw badRequest(`"translated_fields.${k}" must be text or null`, 'invalid_data');
    if (typeof v === 'string' && v.length > 1_000_000) throw badRequest(`"translated_fields.${k}" is too long`, 'invalid_data');
    out[k] = v;
  }
  return out;
}

export const parseFields = (text: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

/** What a command does to one of an object's translations. */
export type TranslationChange =
  | { create: { lang: string; status: string; fields: Record<string, string | null> } }
  | { update: { id: number; status?: string; fields?: Record<string, string | null> } }
  | { remove: { id: number } };

/**
 * What a command does to an object's translations (the translations extension's part): one
 * change, or several in one write (`each`: a draft's translations, published together).
 */
export type TranslationsPart = TranslationChange | { each: TranslationChange[] };

declare module '../objects/kernel.js' {
  interface ObjectParts {
    translations?: TranslationsPart;
  }
}

/** A translation of `objectId` by id, in the unit of work (404 when it is another object's). */
async function ownTranslation(db: Db, objectId: number, id: number): Promise<TranslationRow> {
  const row = await db.selectFrom('translations').selectAll().where('id', '=', id).where('object_id', '=', objectId).executeTakeFirst();
  if (!row) throw notFound(`No translation ${id}`);
  return row;
}

/**
 * The translations part of a command (the object is read, version-checked and authorised as an
 * update by the kernel). Its change record names the language: `{translations: {<lang>: {status,
 * translated_fields}}}` (null when removed); its result is the translation's id.
 */
export const translationsPart: PartHandler<TranslationsPart> = {
  async plan(w, part) {
    if (!('each' in part)) return planChange(w, part);
    const plans: Array<Awaited<ReturnType<typeof planChange>>> = [];
    for (const change of part.each) plans.push(await planChange(w, change));
    return {
      async apply() {
        const translations: Record<string, unknown> = {};
        const result: number[] = [];
        for (const p of plans) {
          const done = await p.apply();
          Object.assign(translations, done.changed.translations);
          result.push(done.result);
        }
        return { changed: plans.length ? { translations } : {}, result };
      },
    };
  },
};

/** One translation's change, planned: applied, its change record (by language) and its id. */
async function planChange(w: KernelWrite, part: TranslationChange): Promise<{ apply(): Promise<{ changed: { translations: Record<string, unknown> }; result: number }> }> {
  {
    const { trx, row, actor } = w;
    const now = nowIso();
    // The translation's own status, before and after, for the guards (`publish` to or from `on`).
    const need = (before: Shown | null, after: Shown | null) => w.need('translation', row, { translation: { before, after } });
    if ('create' in part) {
      const { lang, status, fields } = part.create;
      await need(null, { status });
      const taken = await trx.selectFrom('translations').select('id').where('object_id', '=', row.id).where('lang', '=', lang).executeTakeFirst();
      if (taken) throw badRequest(`Object ${row.id} already has a translation in "${lang}"`, 'translation_exists');
      return {
        async apply() {
          const created = await trx
            .insertInto('translations')
            .values({ object_id: row.id, lang, status, translated_fields: JSON.stringify(fields), created: now, modified: now, created_by: actor.userId, modified_by: actor.userId })
            .returning('id')
            .executeTakeFirstOrThrow();
          return { changed: { translations: { [lang]: { status, translated_fields: fields } } }, result: Number(created.id) };
        },
      };
    }
    if ('update' in part) {
      const before = await ownTranslation(trx, row.id, part.update.id);
      const fields = part.update.fields === undefined ? parseFields(before.translated_fields) : { ...parseFields(before.translated_fields), ...part.update.fields };
      const status = part.update.status ?? before.status;
      await need(before, { status });
      return {
        async apply() {
          await trx.updateTable('translations').set({ status, translated_fields: JSON.stringify(fields), modified: now, modified_by: actor.userId }).where('id', '=', before.id).execute();
          return { changed: { translations: { [before.lang]: { status, translated_fields: fields } } }, result: before.id };
        },
      };
    }
    const gone = await ownTranslation(trx, row.id, part.remove.id);
    await need(gone, null);
    return {
      async apply() {
        await trx.deleteFrom('translations').where('id', '=', gone.id).execute();
        return { changed: { translations: { [gone.lang]: null } }, result: gone.id };
      },
    };
  }
}

/**
 * Translations `viewer` may read: of active objects it may read; only `on` ones unless it reads
 * the object in every status (`read` on its type, everyStatusWhere): anonymous clients,
 * application tokens and users without that right never see draft or `off` translations.
 */
export function readableTranslations(ctx: AppContext, viewer: Viewer, db: Db = ctx.db) {
  return db
    .selectFrom('translations')
    .innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.id', 'translations.object_id')
    .where((eb) => {
      // Anonymous clients and applications (the public site's reads): `on` ones, plainly.
      if (!viewer.isAdmin && viewer.userId === null) return eb('translations.status', '=', 'on');
      const drafts = everyStatusWhere(ctx, viewer, eb);
      return drafts ? eb.or([eb('translations.status', '=', 'on'), drafts]) : eb.lit(true);
    });
}

/** The translations in `lang` of objects `ids` that `viewer` may read, by object id. */
export async function translationsIn(ctx: AppContext, viewer: Viewer, ids: number[], lang: string): Promise<Map<number, TranslationRow>> {
  if (!ids.length) return new Map();
  const rows = await readableTranslations(ctx, viewer).selectAll('translations').where('translations.object_id', 'in', ids).where('translations.lang', '=', lang).execute();
  return new Map(rows.map((r) => [Number(r.object_id), r]));
}

/** Every translation of object `objectId`, in every status, by language (a draft's are laid over them). */
export async function translationsByLang(db: Db, objectId: number): Promise<Map<string, TranslationRow>> {
  const rows = await db.selectFrom('translations').selectAll().where('object_id', '=', objectId).execute();
  return new Map(rows.map((r) => [r.lang, r]));
}

/** Every readable translation of objects `ids` (the legacy `languages`), by object id. */
export async function translationsOf(ctx: AppContext, viewer: Viewer, ids: number[]): Promise<Map<number, TranslationRow[]>> {
  const out = new Map<number, TranslationRow[]>();
  if (!ids.length) return out;
  const rows = await readableTranslations(ctx, viewer).selectAll('translations').where('translations.object_id', 'in', ids).orderBy('translations.lang').execute();
  for (const r of rows) out.set(Number(r.object_id), [...(out.get(Number(r.object_id)) ?? []), r]);
  return out;
}

/** A translation's fields as readers see them: those its object's type hides left out. */
export function shownFields(ctx: AppContext, row: Pick<TranslationRow, 'translated_fields'>, objectTypeId: number): Record<string, unknown> {
  const fields = parseFields(row.translated_fields);
  for (const name of typeById(ctx, objectTypeId)?.hidden ?? []) delete fields[name];
  return fields;
}

/** A translation as JSON API; `objectTypeId`: the type of its object (whose hidden fields it leaves out). */
export function serializeTranslation(rc: ReadContext, ctx: AppContext, row: TranslationRow, objectTypeId: number): Resource {
  const path = `/translations/${row.id}`;
  return {
    id: String(row.id),
    type: 'translations',
    attributes: { object_id: Number(row.object_id), lang: row.lang, status: row.status, translated_fields: shownFields(ctx, row, objectTypeId) },
    meta: { created: row.created, modified: row.modified, created_by: row.created_by, modified_by: row.modified_by },
    links: { self: rc.base + path },
    relationships: { object: relationshipLinksAt(rc.base, path, 'object') },
  };
}

/** The concrete type of an object row (404 when the model no longer has it). */
export function typeOfRow(ctx: AppContext, objectTypeId: number): ObjectType {
  const type = typeById(ctx, objectTypeId);
  if (!type) throw new ApiError(404, 'not_found', 'Unknown object type');
  return type;
}
