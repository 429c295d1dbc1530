// What differs between the database engines, as one small interface per concern; sqlite.ts and
// postgres.ts each implement all of them. Everything else talks to the database through kysely
// only, so the same query runs on either engine.
import { sql, type ColumnDefinitionBuilder, type Compilable, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Search documents made ahead (ObjectSearch.stageDocuments). */
export interface StagedDocuments {
  /** One reference per document, in the order of the fields given. */
  refs: string[];
  /** Removes the staged documents. */
  drop(): Promise<void>;
}

/** Full-text search of objects: title, description, body and the text values of `properties`. */
export interface ObjectSearch {
  /** Creates the index and what keeps it in step with every write to `objects` (migration 0010). */
  createIndex(db: Kysely<any>): Promise<void>;
  /** Brings what an older createIndex made up to date (migration 0091); idempotent. */
  upgrade(db: Kysely<any>): Promise<void>;
  /** A user's words as this engine's query: every word must match, the last as a prefix; null: no words. */
  expression(text: string): string | null;
  /**
   * A derived table `(search_id, search_rank)` of the matches, best first by ascending rank (title
   * weighs most). `comparable`: the ranks are compared with translationRanks' too (an engine whose
   * usual rank of one search's matches only orders them among themselves ranks as those do).
   */
  ranks(expr: string, comparable?: boolean): RawBuilder<{ search_id: number; search_rank: number }>;
  /** The ids of the matches, as a subquery for `in`. */
  ids(expr: string): RawBuilder<number>;
  /**
   * How a search's list names `column` (the object type) where it filters on it: as this engine
   * plans a search best (the column itself, or an expression that keeps it out of index choice).
   */
  typeColumn(column: string): RawBuilder<number>;
  /**
   * Makes the search documents of objects about to be inserted, outside any transaction
   * (PostgreSQL: the tokenizer is most of an insert's cost, and the write lock need not wait for
   * it), and keeps them in the database: what comes back is one reference per document, by
   * position, for `withDocuments`, and `drop()`, to call once the insert's unit of work is over
   * (committed or not). The documents never travel to the server and back. Absent where the
   * insert indexes as cheaply itself (SQLite).
   */
  stageDocuments?(db: Kysely<any>, fields: Array<{ title: string | null; description: string | null; body: string | null; properties: string | null }>): Promise<StagedDocuments>;
  /**
   * `insert` (of `objects` rows, returning them) that also writes the search documents staged for
   * some of its rows, as [uname, reference] expressions: the index trigger leaves those rows alone.
   */
  withDocuments?<R>(db: Kysely<any>, insert: Compilable<R>, documents: Array<[unknown, unknown]>): Compilable<R>;
  /** Creates the index of translations' fields and its triggers (migration 0094). */
  createTranslationIndex(db: Kysely<any>): Promise<void>;
  /**
   * Keeps each search document in its table's own pages, uncompressed, rewriting those stored
   * apart (migration 0155); idempotent. Absent where documents are not values of a table's rows
   * (SQLite's FTS5 index).
   */
  storeDocumentsInline?(db: Kysely<any>): Promise<void>;
  /**
   * Keeps more of the documents' words in the planner's statistics, then gathers them (migration
   * 0156); idempotent. Absent where the engine plans a search without them (SQLite).
   */
  widenWordStatistics?(db: Kysely<any>): Promise<void>;
  /**
   * `(search_id, search_rank)` of the objects whose translation in `lang` (`null`: in any
   * language) matches `expr` (`on` translations, and those `drafts` lets in), ranked like `ranks`
   * (a translation weighs as a body): one row per object, its best-ranked matching translation.
   */
  translationRanks(expr: string, lang: string | null, drafts: DraftTranslations): RawBuilder<{ search_id: number; search_rank: number }>;
}

/**
 * Whose translations that are not `on` a search reads: every object's, none, or those of the
 * objects a query selects (their ids).
 */
export type DraftTranslations = 'all' | 'none' | Expression<unknown>;

/** The condition DraftTranslations puts on a translation index's `status` and `object_id` (after a where). */
export const draftTranslationsWhere = (drafts: DraftTranslations) =>
  drafts === 'all' ? sql`` : drafts === 'none' ? sql` and status = 'on'` : sql` and (status = 'on' or object_id in (${drafts}))`;

/** How a value inside JSON text is compared: numbers and booleans as such, the rest as text. */
export type JsonValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'day';

/** Values inside the JSON text columns (`objects.properties`). */
export interface JsonText {
  /** The value of key `name` of the JSON object in `column`, typed by `kind` (null when absent). */
  property(column: string, name: string, kind: JsonValueKind): RawBuilder<unknown>;
  /** The JSON object in `column` without key `name`. */
  withoutProperty(column: string, name: string): RawBuilder<string | null>;
}

/** Aggregates the engines spell differently. */
export interface Aggregates {
  /** The integer values of `value` over the group, in `orderBy` order, as text `1,5,9` (null: none). */
  joinedIds(value: RawBuilder<unknown>, orderBy: RawBuilder<unknown>): RawBuilder<string | null>;
}

/** Table definitions where the engines differ (migrations). */
export interface SchemaDialect {
  /** The database as migrations write to it (column types the engine must read its own way). */
  forMigrations(db: Kysely<any>): Kysely<any>;
  /** An integer primary key numbered by the database (SQLite: autoincrement; PostgreSQL: identity). */
  generatedId(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** After rows went in with explicit ids: the numbering of `table` continues past the highest id. */
  continueIds(db: Kysely<any>, table: string): Promise<void>;
  /** A `varchar` column made longer (SQLite does not enforce lengths: nothing to do there). */
  widenVarchar(db: Kysely<any>, table: string, column: string, length: number): Promise<void>;
}

/** Errors of the driver, told apart. */
export interface DriverErrors {
  /** A write failed on a unique or other constraint (a lost race with another write). */
  isConstraintViolation(err: unknown): boolean;
  /** The database could not serve now (locked, busy, out of connections): worth a retry. */
  isBusy(err: unknown): boolean;
  /** A value the engine cannot hold as text (PostgreSQL: a NUL character): the client's mistake. */
  isUnstorableText(err: unknown): boolean;
}

/** Queue tables (jobs, webhook deliveries): how a claim passes over rows another claim holds. */
export interface RowLocks {
  /**
   * The rows a claim's subquery picks, locked for the claiming statement and skipping rows other
   * claims hold (PostgreSQL: FOR UPDATE SKIP LOCKED). SQLite runs one writing statement at a time
   * (the database lock), so the query is used as it is.
   */
  skipLocked<Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q;
}

export interface SqlDialect {
  readonly name: DialectName;
  readonly locks: RowLocks;
  readonly search: ObjectSearch;
  readonly json: JsonText;
  readonly aggregates: Aggregates;
  readonly schema: SchemaDialect;
  readonly errors: DriverErrors;
}
