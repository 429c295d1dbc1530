// Search documents without the fields a type hides (object_types.hidden, a JSON list): the words
// of a hidden field must find nothing, in objects' documents and their translations' alike. The
// database makes the documents (SQLite: triggers filling objects_fts and translations_fts;
// PostgreSQL: trigger functions filling objects_search and translations_search), so what keeps
// them in step reads the type's `hidden` list, one primary-key lookup per written row. Installed
// by migration 0129 (after the column exists, migration 0100); a type whose `hidden` changes has
// its objects' and translations' documents made again (reindexTypes, in the model write).
// Search documents staged ahead of an /operations insert (PostgreSQL) need nothing: a create
// never stores a hidden field (it is an unknown attribute), and a staged document is used only
// when the stored fields are the ones it was made from.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { SqlDialect } from './dialect.js';

// ---- SQLite ----

/** The `hidden` list of object type `typeId` (an SQL expression): JSON text, '[]' when none. */
const hiddenOfType = (typeId: string) => `coalesce((select hidden from object_types where id = ${typeId}), '[]')`;
/** Column `col` of row `r`, null when the row's type hides it. */
const shownColumn = (r: string, col: string) => `case when exists (select 1 from json_each(${hiddenOfType(`${r}.object_type_id`)}) where value = '${col}') then null else ${r}.${col} end`;
/** The text values of a JSON object column, but those under a key of `hidden` (a JSON list expression). */
const shownTexts = (column: string, hidden: string) =>
  `(select group_concat(value, ' ') from json_each(case when json_valid(${column}) then ${column} else '{}' end) where type = 'text' and key not in (select value from json_each(${hidden})))`;
/** An objects_fts row of object row `r`: title, description, body, the text properties. */
const objectRow = (r: string) => `${r}.id, ${shownColumn(r, 'title')}, ${shownColumn(r, 'description')}, ${shownColumn(r, 'body')}, ${shownTexts(`${r}.properties`, hiddenOfType(`${r}.object_type_id`))}`;
/** A translations_fts row of translation row `t`. */
const translationRow = (t: string) =>
  `${t}.id, ${shownTexts(`${t}.translated_fields`, `coalesce((select ot.hidden from objects as o join object_types as ot on ot.id = o.object_type_id where o.id = ${t}.object_id), '[]')`)}, ${t}.lang, ${t}.status, ${t}.object_id`;

async function sqliteInstall(db: Kysely<any>): Promise<void> {
  for (const trigger of ['objects_fts_insert', 'objects_fts_update', 'translations_fts_insert', 'translations_fts_update']) await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  await sql.raw(`create trigger objects_fts_insert after insert on objects begin
    insert into objects_fts(rowid, title, description, body, props) values (${objectRow('new')}); end`).execute(db);
  await sql.raw(`create trigger objects_fts_update after update of title, description, body, properties on objects begin
    delete from objects_fts where rowid = old.id;
    insert into objects_fts(rowid, title, description, body, props) values (${objectRow('new')}); end`).execute(db);
  await sql.raw(`create trigger translations_fts_insert after insert on translations begin
    insert into translations_fts(rowid, fields, lang, status, object_id) values (${translationRow('new')}); end`).execute(db);
  await sql.raw(`create trigger translations_fts_update after update on translations begin
    delete from translations_fts where rowid = old.id;
    insert into translations_fts(rowid, fields, lang, status, object_id) values (${translationRow('new')}); end`).execute(db);
}

async function sqliteReindex(db: Kysely<any>, typeIds: RawBuilder<unknown>): Promise<void> {
  await sql`delete from objects_fts where rowid in (select id from objects where object_type_id in (${typeIds}))`.execute(db);
  await sql`insert into objects_fts(rowid, title, description, body, props) select ${sql.raw(objectRow('o'))} from objects as o where o.object_type_id in (${typeIds})`.execute(db);
  const translations = sql`select t.id from translations as t join objects as o on o.id = t.object_id where o.object_type_id in (${typeIds})`;
  await sql`delete from translations_fts where rowid in (${translations})`.execute(db);
  await sql`insert into translations_fts(rowid, fields, lang, status, object_id) select ${sql.raw(translationRow('t'))} from translations as t where t.id in (${translations})`.execute(db);
}

/** SQLite: every object's objects_fts row made from its row, as the triggers make it (migration 0152, an index made again). */
export async function refillObjectsIndex(db: Kysely<any>): Promise<void> {
  await sql`insert into objects_fts(rowid, title, description, body, props) select ${sql.raw(objectRow('o'))} from objects as o`.execute(db);
}

// ---- PostgreSQL ----

/** The `hidden` list of a type as jsonb ('[]' when none or not a list). */
const PG_HIDDEN_FUNCTION = `create or replace function folio_hidden_fields(type_id bigint) returns jsonb stable language plpgsql as $$
  declare found jsonb;
  begin
    select case when jsonb_typeof(t.hidden::jsonb) = 'array' then t.hidden::jsonb end into found from object_types t where t.id = type_id;
    return coalesce(found, '[]'::jsonb);
  end $$`;

/** An object's document (folio_search_document) without the fields its type hides. */
const PG_OBJECT_DOCUMENT_FUNCTION = `create or replace function folio_object_search_document(type_id bigint, title text, description text, body text, properties text)
  returns tsvector stable language plpgsql as $$
  declare hidden jsonb := folio_hidden_fields(type_id);
  begin
    if hidden = '[]'::jsonb then
      return folio_search_document(title, description, body, properties);
    end if;
    return folio_search_document(
      case when hidden ? 'title' then null else title end,
      case when hidden ? 'description' then null else description end,
      case when hidden ? 'body' then null else body end,
      case when jsonb_typeof(properties::jsonb) = 'object' then (properties::jsonb - array(select jsonb_array_elements_text(hidden)))::text end);
  end $$`;

/** A translation's document (as folio_translations_search made it) without the fields its object's type hides. */
const PG_TRANSLATION_DOCUMENT_FUNCTION = `create or replace function folio_translation_search_document(object_id bigint, lang text, fields text)
  returns tsvector stable language plpgsql as $$
  declare hidden jsonb := folio_hidden_fields((select o.object_type_id from objects o where o.id = object_id));
  begin
    return to_tsvector(folio_ts_config(lang), folio_search_words((
      select string_agg(value #>> '{}', ' ') from jsonb_each(
        case when jsonb_typeof(fields::jsonb) = 'object' then fields::jsonb else '{}'::jsonb end)
      where jsonb_typeof(value) = 'string' and not hidden ? key)));
  end $$`;

/** The trigger functions of dialect/postgres.ts, each making its document through the functions above. */
const PG_OBJECTS_TRIGGER_FUNCTION = `create or replace function folio_objects_search() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' and exists (select 1 from objects_search where id = new.id) then
      return null;
    end if;
    insert into objects_search (id, document) values (new.id, folio_object_search_document(new.object_type_id, new.title, new.description, new.body, new.properties))
      on conflict (id) do update set document = excluded.document;
    return null;
  end $$`;
const PG_TRANSLATIONS_TRIGGER_FUNCTION = `create or replace function folio_translations_search() returns trigger language plpgsql as $$
  begin
    insert into translations_search (id, object_id, lang, status, document)
      values (new.id, new.object_id, new.lang, new.status, folio_translation_search_document(new.object_id, new.lang, new.translated_fields))
      on conflict (id) do update set object_id = excluded.object_id, lang = excluded.lang, status = excluded.status, document = excluded.document;
    return null;
  end $$`;

async function postgresInstall(db: Kysely<any>): Promise<void> {
  for (const text of [PG_HIDDEN_FUNCTION, PG_OBJECT_DOCUMENT_FUNCTION, PG_TRANSLATION_DOCUMENT_FUNCTION, PG_OBJECTS_TRIGGER_FUNCTION, PG_TRANSLATIONS_TRIGGER_FUNCTION]) {
    await sql.raw(text).execute(db);
  }
}

async function postgresReindex(db: Kysely<any>, typeIds: RawBuilder<unknown>): Promise<void> {
  await sql`update objects_search s set document = folio_object_search_document(o.object_type_id, o.title, o.description, o.body, o.properties)
    from objects o where o.id = s.id and o.object_type_id in (${typeIds})`.execute(db);
  await sql`update translations_search s set document = folio_translation_search_document(t.object_id, t.lang, t.translated_fields)
    from translations t join objects o on o.id = t.object_id where t.id = s.id and o.object_type_id in (${typeIds})`.execute(db);
}

// ---- both ----

/** Migration 0129: what keeps the documents in step leaves hidden fields out; documents of types that hide fields are made again. */
export async function leaveOutHiddenFields(db: Kysely<any>, d: Pick<SqlDialect, 'name'>): Promise<void> {
  const hiding = sql`select id from object_types where hidden is not null and hidden <> '[]'`;
  if (d.name === 'sqlite') {
    await sqliteInstall(db);
    await sqliteReindex(db, hiding);
  } else {
    await postgresInstall(db);
    await postgresReindex(db, hiding);
  }
}

/** The search documents of the objects of these types, and of their translations, made again (their `hidden` changed). */
export async function reindexHiddenFields(db: Kysely<any>, d: Pick<SqlDialect, 'name'>, typeIds: number[]): Promise<void> {
  if (!typeIds.length) return;
  const ids = sql.join(typeIds);
  await (d.name === 'sqlite' ? sqliteReindex(db, ids) : postgresReindex(db, ids));
}
