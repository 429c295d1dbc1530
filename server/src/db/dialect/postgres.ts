// The rest of PostgreSQL's SqlDialect: full-text search (tsvector + GIN), JSON values, column
// types as SQLite reads them, driver errors and row locks. The connection side (pool, write lock,
// data version, upkeep) is postgres-driver.ts.
import { randomUUID } from 'node:crypto';
import {
  ColumnNode,
  DataTypeNode,
  OrderByItemNode,
  RawNode,
  OperationNodeTransformer,
  sql,
  type CreateIndexNode,
  type Kysely,
  type KyselyPlugin,
  type QueryId,
  type Compilable,
  type InsertQueryBuilder,
} from 'kysely';
import { draftTranslationsWhere, type Aggregates, type DriverErrors, type JsonText, type ObjectSearch, type RowLocks, type SchemaDialect, type SqlDialect } from './dialect.js';
import { searchWords } from './search-words.js';

// ---- Full-text search of objects (tsvector + GIN) ----
// objects_search holds one document per object, kept in step by a trigger on `objects` in the
// same transaction as the write (deleted with the object by its foreign key). Weights: title A,
// description B, the text values of `properties` C, body D. Words are split as SQLite's unicode61
// tokenizer splits them (punctuation separates; e-mail addresses and URLs are words too), folded
// to lower case and stripped of accents (the `unaccent` extension, when the server has it).

/** The widest row a search table keeps whole (toast_tuple_target's largest value): storeDocumentsInline. */
const INLINE_ROW_BYTES = 8160;

/** The statistics target of the search documents' column: 3,000 most common words (see widenWordStatistics). */
const WORD_STATISTICS = 300;

/** Rank weights of D, C, B, A (body, properties, description, title): SQLite's bm25 ratios. */
const WEIGHTS = '{0.1, 0.2, 0.3, 1.0}';

/**
 * The search document of an object's fields. PL/pgSQL, not SQL: a SQL function called from the
 * trigger is planned again on every call (0.18 ms of a 0.66 ms insert with a 1.7 kB body); a
 * PL/pgSQL one keeps its plans for the session. Migration 0091 replaces the first (SQL) version.
 */
const SEARCH_DOCUMENT_FUNCTION = `create or replace function folio_search_document(title text, description text, body text, properties text)
  returns tsvector stable language plpgsql as $$
  begin
    return setweight(to_tsvector('folio_search', folio_search_words(title)), 'A')
      || setweight(to_tsvector('folio_search', folio_search_words(description)), 'B')
      || setweight(to_tsvector('folio_search', folio_search_words((
           select string_agg(value #>> '{}', ' ') from jsonb_each(
             case when jsonb_typeof(properties::jsonb) = 'object' then properties::jsonb else '{}'::jsonb end)
           where jsonb_typeof(value) = 'string'))), 'C')
      || setweight(to_tsvector('folio_search', folio_search_words(body)), 'D');
  end $$`;

/**
 * The trigger function that keeps an object's search document in step. An insert that brought its
 * document along (`withDocuments`: computed before the write lock was taken) has its row in
 * objects_search already when the trigger fires, at the end of the statement: nothing to compute.
 */
const OBJECTS_SEARCH_TRIGGER_FUNCTION = `create or replace function folio_objects_search() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' and exists (select 1 from objects_search where id = new.id) then
      return null;
    end if;
    insert into objects_search (id, document) values (new.id, folio_search_document(new.title, new.description, new.body, new.properties))
      on conflict (id) do update set document = excluded.document;
    return null;
  end $$`;

const search: ObjectSearch = {
  async upgrade(db) {
    await sql.raw(SEARCH_DOCUMENT_FUNCTION).execute(db);
    // Migration 0128: documents made ahead of an insert (stageDocuments), until it is over.
    await sql`create unlogged table if not exists folio_search_staged (ref text primary key, document tsvector not null, made timestamptz not null default now())`.execute(db);
    // Migration 0126 (the trigger's skip); before migration 0010 made objects_search there is no trigger to replace.
    const table = await sql<{ t: string | null }>`select to_regclass('objects_search')::text as t`.execute(db);
    if (table.rows[0]?.t) {
      await sql.raw(OBJECTS_SEARCH_TRIGGER_FUNCTION).execute(db);
    }
  },

  async stageDocuments(db, fields) {
    // Outside any transaction: the tokenizer runs without the write lock, beside other writes.
    // The documents stay in the database, in an unlogged table (no WAL; nothing that outlives a
    // crash is needed), under references unique to this call.
    const prefix = `${randomUUID()}:`;
    const column = (k: 'title' | 'description' | 'body' | 'properties') => fields.map((f) => f[k]);
    await sql`insert into folio_search_staged (ref, document)
      select ${prefix} || n, folio_search_document(t, d, b, p)
      from unnest(${column('title')}::text[], ${column('description')}::text[], ${column('body')}::text[], ${column('properties')}::text[])
        with ordinality as u(t, d, b, p, n)`.execute(db);
    const refs = fields.map((_, i) => `${prefix}${i + 1}`);
    return { refs, drop: async () => void (await sql`delete from folio_search_staged where ref = any(${refs}::text[])`.execute(db)) };
  },

  withDocuments<R>(db: Kysely<any>, insert: Compilable<R>, documents: Array<[unknown, unknown]>): Compilable<R> {
    const given = sql`(values ${sql.join(documents.map(([uname, ref]) => sql`(${uname}::text, ${ref}::text)`))}) as given (uname, ref)`;
    return db
      .with('inserted', () => insert as unknown as InsertQueryBuilder<any, any, any>)
      .with('searched', (qc) =>
        (qc as unknown as Kysely<any>)
          .insertInto('objects_search')
          .columns(['id', 'document'])
          .expression(sql`select inserted.id, staged.document from inserted join ${given} on given.uname = inserted.uname
            join folio_search_staged staged on staged.ref = given.ref`),
      )
      .selectFrom('inserted')
      .selectAll() as unknown as Compilable<R>;
  },

  async createIndex(db) {
    // unaccent ships with Debian's server package; creating it needs the CREATE right (it is trusted).
    const unaccent = await sql<{ ok: boolean }>`select exists (select 1 from pg_extension where extname = 'unaccent')
      or (exists (select 1 from pg_available_extensions where name = 'unaccent')
          and ((select rolsuper from pg_roles where rolname = current_user) or has_database_privilege(current_database(), 'CREATE'))) as ok`.execute(db);
    const withUnaccent = Boolean(unaccent.rows[0]?.ok);
    await sql`create text search configuration folio_search (copy = simple)`.execute(db);
    if (withUnaccent) {
      await sql`create extension if not exists unaccent`.execute(db);
      await sql`alter text search configuration folio_search alter mapping for asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart with unaccent, simple`.execute(db);
    }
    await sql.raw(`create function folio_search_words(t text) returns text immutable language sql as $$
      select regexp_replace(coalesce(t, ''), '[[:punct:]]+', ' ', 'g') $$`).execute(db);
    await sql.raw(SEARCH_DOCUMENT_FUNCTION).execute(db);
    await sql`create table objects_search (id bigint primary key references objects (id) on delete cascade, document tsvector not null)`.execute(db);
    await sql`create index objects_search_document on objects_search using gin (document)`.execute(db);
    await sql.raw(OBJECTS_SEARCH_TRIGGER_FUNCTION).execute(db);
    await sql`create trigger objects_search after insert or update of title, description, body, properties on objects
      for each row execute function folio_objects_search()`.execute(db);
    await sql`insert into objects_search (id, document) select id, folio_search_document(title, description, body, properties) from objects`.execute(db);
  },

  expression(text) {
    const words = searchWords(text);
    if (!words.length) return null;
    // Quoted operands: a word is never read as an operator. Underscores split it into a phrase.
    return words.map((w, i) => `'${w}'${i === words.length - 1 ? ':*' : ''}`).join(' & ');
  },

  // A document (about 4.4 kB for 3 kB of text: a tsvector keeps every word's positions) is wider
  // than PostgreSQL's 2 kB threshold for moving values out of the row, and did not compress: each
  // one lay in the TOAST table, and every match a search tested (`@@`, read backwards along the
  // key) or ranked (`ts_rank`) was fetched from there through its index, chunk by chunk. Kept in
  // the row itself (rows of up to 8,160 bytes, the most a page holds, are left whole; wider ones
  // are still compressed, then moved), a match's document is read with its row. Measured on the
  // bench's 20,000 documents, the window's statements of the search row's 159 words: 1,633-1,699
  // -> 797-892 ms, the dearest word 51-64 -> 27-29 ms; the table's size the same.
  async storeDocumentsInline(db) {
    for (const [table, index] of [
      ['objects_search', sql`create index objects_search_document on objects_search using gin (document)`],
      ['translations_search', sql`create index translations_search_document on translations_search using gin (document)`],
    ] as const) {
      const found = await sql<{ options: string[] | null }>`select reloptions as options from pg_class where oid = to_regclass(${table})`.execute(db);
      if (!found.rows.length || found.rows[0].options?.includes(`toast_tuple_target=${INLINE_ROW_BYTES}`)) continue;
      await sql`alter table ${sql.table(table)} set (toast_tuple_target = ${sql.lit(INLINE_ROW_BYTES)})`.execute(db);
      await sql`alter table ${sql.table(table)} alter column document set storage main`.execute(db);
      // Documents stored before keep their place until written again: each is written once more
      // (a new value: an unchanged one would keep its pointer), with its GIN index made afresh
      // after them rather than updated for every word of every row (about 0.4 ms per object of the
      // bench's text at 20,000, most of a migration at a million), with more memory for the build
      // than PostgreSQL's default, for this transaction only.
      await sql`set local maintenance_work_mem = '256MB'`.execute(db);
      await sql`drop index ${sql.table(`${table}_document`)}`.execute(db);
      await sql`update ${sql.table(table)} set document = document || ''::tsvector`.execute(db);
      await index.execute(db);
    }
  },

  // PostgreSQL estimates how many documents hold a word from the column's most common elements:
  // default_statistics_target (100) keeps 1,000 of them. The bench's text has more words than that
  // in over 4% of its documents, so a word in 7% of them (27,700 of 405,000) was estimated at
  // PostgreSQL's default, 0.5%, whether or not it ended in a prefix. For such a word the planner
  // read and ranked every match (300 ms) instead of reading the newest rows until the window was full. With
  // 3,000 elements (down to about 1.4% of the documents) both plans are chosen from the word's own
  // frequency. Measured on a million documents, the search row's 159 words, each statement alone:
  // 8.0-9.2 s -> 5.2-5.4 s, the dearest 433-539 -> 149-165 ms; ANALYZE of objects_search 0.9 ->
  // 2.3 s. 10,000 elements (a target of 1,000) gave no more (5.6-5.7 s) and analyzed in 13.6 s.
  async widenWordStatistics(db) {
    for (const table of ['objects_search', 'translations_search']) {
      const found = await sql<{ target: number }>`select attstattarget as target from pg_attribute where attrelid = to_regclass(${table}) and attname = 'document'`.execute(db);
      if (!found.rows.length || Number(found.rows[0].target) === WORD_STATISTICS) continue;
      await sql`alter table ${sql.table(table)} alter column document set statistics ${sql.lit(WORD_STATISTICS)}`.execute(db);
      await sql`analyze ${sql.table(table)}`.execute(db);
    }
  },

  // ts_rank is higher for better matches: negated, ascending order puts the best first as bm25 does.
  ranks: (expr) =>
    sql`(select id as search_id, -ts_rank(${sql.lit(WEIGHTS)}::real[], document, to_tsquery('folio_search', ${expr})) as search_rank
      from objects_search where document @@ to_tsquery('folio_search', ${expr}))`,

  ids: (expr) => sql<number>`(select id from objects_search where document @@ to_tsquery('folio_search', ${expr}))`,

  // The column itself: PostgreSQL estimates its rows from the column's statistics. Behind a unary
  // + (SQLite's way) it guessed 0.5% of the rows per type asked, 7% of the visible objects for
  // every type, and for a frequent word then ranked every match instead of reading the newest
  // (20,000 documents, the search row's 159 words, the window's statement alone: 4,794 -> 1,570 ms,
  // the dearest word 129 -> 48 ms).
  typeColumn: (column) => sql<number>`${sql.ref(column)}`,

  // A translation's document is built with its language's text search configuration (stemming,
  // stop words: `english` for `en`, `en-GB`…, `italian` for `it`), `simple` where PostgreSQL has
  // none; queries use the same configuration, so words match in their language's forms.
  async createTranslationIndex(db) {
    await sql.raw(`create function folio_ts_config(lang text) returns regconfig stable language plpgsql as $$
      declare
        name text := case lower(split_part(coalesce(lang, ''), '-', 1))
          when 'ar' then 'arabic' when 'hy' then 'armenian' when 'eu' then 'basque' when 'ca' then 'catalan'
          when 'da' then 'danish' when 'nl' then 'dutch' when 'en' then 'english' when 'fi' then 'finnish'
          when 'fr' then 'french' when 'de' then 'german' when 'el' then 'greek' when 'hi' then 'hindi'
          when 'hu' then 'hungarian' when 'id' then 'indonesian' when 'ga' then 'irish' when 'it' then 'italian'
          when 'lt' then 'lithuanian' when 'ne' then 'nepali' when 'no' then 'norwegian' when 'nb' then 'norwegian'
          when 'nn' then 'norwegian' when 'pt' then 'portuguese' when 'ro' then 'romanian' when 'ru' then 'russian'
          when 'sr' then 'serbian' when 'es' then 'spanish' when 'sv' then 'swedish' when 'ta' then 'tamil'
          when 'tr' then 'turkish' when 'yi' then 'yiddish' else 'simple' end;
        found regconfig;
      begin
        select oid::regconfig into found from pg_ts_config where cfgname = name;
        return coalesce(found, 'simple'::regconfig);
      end $$`).execute(db);
    await sql`create table translations_search (id bigint primary key references translations (id) on delete cascade,
      object_id bigint not null, lang varchar(64) not null, status varchar(16) not null, document tsvector not null)`.execute(db);
    await sql`create index translations_search_document on translations_search using gin (document)`.execute(db);
    await sql`create index translations_search_lang on translations_search (lang)`.execute(db);
    await sql.raw(`create function folio_translations_search() returns trigger language plpgsql as $$
      begin
        insert into translations_search (id, object_id, lang, status, document) values (new.id, new.object_id, new.lang, new.status,
          to_tsvector(folio_ts_config(new.lang), folio_search_words((
            select string_agg(value #>> '{}', ' ') from jsonb_each(
              case when jsonb_typeof(new.translated_fields::jsonb) = 'object' then new.translated_fields::jsonb else '{}'::jsonb end)
            where jsonb_typeof(value) = 'string'))))
          on conflict (id) do update set object_id = excluded.object_id, lang = excluded.lang, status = excluded.status, document = excluded.document;
        return null;
      end $$`).execute(db);
    await sql`create trigger translations_search after insert or update on translations
      for each row execute function folio_translations_search()`.execute(db);
  },

  // In any language (`lang` null): the query parsed once per language present, each with its
  // configuration, so that each language's matches are still found through the index.
  translationRanks: (expr, lang, drafts) =>
    sql`(select search_id, min(search_rank) as search_rank from ${
      lang === null
        ? sql`(select object_id as search_id, -ts_rank(document, q.query) * 0.1 as search_rank
      from (select lang, to_tsquery(folio_ts_config(lang), ${expr}) as query from (select distinct lang from translations_search) as l) as q
      join translations_search as t on t.lang = q.lang and t.document @@ q.query
      where true${draftTranslationsWhere(drafts)})`
        : sql`(select object_id as search_id, -ts_rank(document, to_tsquery(folio_ts_config(${lang}), ${expr})) * 0.1 as search_rank
      from translations_search where lang = ${lang}${draftTranslationsWhere(drafts)}
      and document @@ to_tsquery(folio_ts_config(${lang}), ${expr}))`
    } as t group by search_id)`,
};

/** What a stored date-time / date must look like before PostgreSQL is asked to read it. */
const DATE_TIME = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])[T ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|z|[+-]\\d{2}(:?\\d{2})?)?$';
const DAY = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])';

const aggregates: Aggregates = {
  joinedIds: (value, orderBy) => sql<string | null>`string_agg((${value})::text, ',' order by ${orderBy})`,
};

const json: JsonText = {
  property(column, name, kind) {
    const value = sql`(${sql.ref(column)}::jsonb -> ${name}::text)`;
    const text = sql`(${sql.ref(column)}::jsonb ->> ${name}::text)`;
    // Typed as SQLite's json_extract gives them, so comparisons and sorting agree.
    if (kind === 'integer' || kind === 'number') return sql`(case when jsonb_typeof(${value}) = 'number' then ${text}::numeric end)`;
    if (kind === 'boolean') return sql`(case when jsonb_typeof(${value}) = 'boolean' then ${value}::boolean end)`;
    // Dates compare as instants (any offset, as UTC text) or calendar days, as on SQLite; values
    // that are no date (the schema lets none in) read as null instead of failing the cast.
    if (kind === 'date') {
      return sql`(case when ${text} ~ ${DATE_TIME} then to_char((${text})::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"') end)`;
    }
    if (kind === 'day') return sql`(case when ${text} ~ ${DAY} then substr(${text}, 1, 10) end)`;
    return text;
  },
  withoutProperty: (column, name) => sql<string | null>`(${sql.ref(column)}::jsonb - ${name}::text)::text`,
};

/**
 * Column types as SQLite reads them. `integer` becomes `bigint`: SQLite's integers are 64-bit, so
 * an id or integer filter of 15 digits is a lookup that finds nothing there, never an out-of-range
 * error. `varchar(n)` becomes `text`: SQLite enforces no length, so a value SQLite keeps must not
 * be a 500 here (lengths are the API's to check).
 */
class SqliteLikeTypes extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    if (node.dataType === 'integer') return DataTypeNode.create('bigint');
    if (/^varchar\(\d+\)$/.test(node.dataType)) return DataTypeNode.create('text');
    return node;
  }

  /**
   * Index columns keep nulls where SQLite sorts them (first ascending, last descending), the order
   * lists ask for (http/query.ts, applySort): PostgreSQL's opposite default would leave a sorted
   * page unable to walk the index. Ids are never null: they keep the plain order, as lists sort them.
   */
  protected override transformCreateIndex(node: CreateIndexNode, queryId?: QueryId): CreateIndexNode {
    const columns = node.columns?.map((c) => {
      if (ColumnNode.is(c)) {
        if (c.column.name === 'id') return c;
        return OrderByItemNode.cloneWith(OrderByItemNode.create(c, RawNode.createWithSql('asc')), { nulls: 'first' });
      }
      if (OrderByItemNode.is(c)) {
        const desc = RawNode.is(c.direction!) && c.direction.sqlFragments.join('').trim().toLowerCase() === 'desc';
        return OrderByItemNode.cloneWith(c, { nulls: desc ? 'last' : 'first' });
      }
      return c;
    });
    return super.transformCreateIndex({ ...node, columns }, queryId);
  }
}

const sqliteLikeTypes: KyselyPlugin = {
  transformQuery: (args) => new SqliteLikeTypes().transformNode(args.node),
  transformResult: async (args) => args.result,
};

const schema: SchemaDialect = {
  forMigrations: (db) => db.withPlugin(sqliteLikeTypes),
  generatedId: (c) => c.generatedByDefaultAsIdentity(),
  async continueIds(db, table) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(db);
  },
  async widenVarchar(db, table, column, length) {
    await db.schema.alterTable(table).alterColumn(column, (c) => c.setDataType(sql.raw(`varchar(${length})`))).execute();
  },
};

const sqlState = (err: unknown) => String((err as { code?: unknown })?.code ?? '');

const errors: DriverErrors = {
  // Class 23: integrity constraint violation (unique, foreign key, not null, check).
  isConstraintViolation: (err) => /^23\d{3}$/.test(sqlState(err)),
  // Serialization failure, deadlock, lock not available, too many connections, cannot connect now.
  isBusy: (err) => ['40001', '40P01', '55P03', '53300', '57P03'].includes(sqlState(err)),
  // A NUL character in a text value (22021) or in JSON text (22P05): PostgreSQL's text cannot hold it.
  isUnstorableText: (err) => ['22021', '22P05'].includes(sqlState(err)),
};

const locks: RowLocks = { skipLocked: (query) => query.forUpdate().skipLocked() as typeof query };

export const postgresDialect: SqlDialect = { name: 'postgres', search, json, aggregates, schema, errors, locks };
