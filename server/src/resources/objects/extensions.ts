// What is special about a type, as hooks of the one read path and the one write pipeline. Other
// families (users, folders, media, legacy…) declare an ObjectExtension among their kernel parts
// (resources/family.ts), which the composition root assembles, instead of writing their own copy
// of object writes: they validate and complete writes of their types,
// guard and follow trash, restore and permanent delete, add to serialised objects and answer extra
// list filters.
import type { ReadContext } from '../../http/read-context.js';
import type { AliasableExpression, Expression, SqlBool, Transaction, ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../context.js';
import type { AuthInfo } from '../../identity.js';
import type { Database } from '../../db/tables.js';
import type { Resource } from '../../http/jsonapi.js';
import type { ObjectType } from './model.js';
import type { ObjectParts, PartHandlers } from './kernel.js';
import type { Actor } from './pipeline.js';
import type { ObjectRow } from './rows.js';

export interface SerializedObject {
  id: number;
  /** Concrete type name, e.g. 'images'. */
  type: string;
  resource: Resource;
  /** The row it was made from, with the extensions' `listValues` when a list page read them. */
  row?: Readonly<ObjectRow & Record<string, unknown>>;
}

/** A create or update on its way through the pipeline (write.ts). */
export interface PendingWrite {
  action: 'create' | 'update';
  type: ObjectType;
  actor: Actor;
  /** Validated attributes of the `objects` row (core columns and custom properties). */
  attributes: Record<string, unknown>;
  /**
   * Data the type's hooks own (users: username, password hash, roles…): from their `validate`,
   * or given by trusted server code as `ObjectInput.own`.
   */
  own: Record<string, unknown>;
  /** `meta` of the request (hooks act on the members they own, e.g. `perms`). */
  meta?: Record<string, unknown>;
  /** The row before an update. */
  before?: ObjectRow;
  /** The row as written, once it is. */
  row?: ObjectRow;
  /** New values of the changed fields, for the change record; hooks add theirs (never secrets). */
  changed: Record<string, unknown>;
}

export interface ObjectExtension {
  /** Name for logs and errors. */
  name: string;
  /**
   * Type names this extension applies to; abstract names cover their sub-types
   * ('objects' = every type, 'media' = images, files, audio, videos…).
   */
  types: string[];

  // ---- the write pipeline ----
  /**
   * Check a create's or update's attributes in place of the type's object schema (users have
   * their own), before any transaction (slow work such as hashing goes here). Returns the
   * attributes of the `objects` row and keeps the rest in `w.own`.
   */
  validate?(w: Omit<PendingWrite, 'attributes' | 'changed'>, attributes: Record<string, unknown>, ctx: AppContext): Promise<Record<string, unknown>>;
  /** In the transaction, before the `objects` row is written (uniqueness, invariants). */
  beforeWrite?(trx: Transaction<Database>, w: PendingWrite, ctx: AppContext): Promise<void>;
  /** In the transaction, after the `objects` row is written (own tables, placement, revocation). */
  afterWrite?(trx: Transaction<Database>, w: PendingWrite, ctx: AppContext): Promise<void>;
  /**
   * Its beforeWrite and afterWrite read and write only what belongs to the object written (no
   * check across objects, such as a unique username): creates of one unit of work may then be
   * inserted together, their hooks run before and after the one insert (kernel.ts, CreateBatch).
   */
  ownRowsOnly?: boolean;
  /**
   * Attributes of a create or update that are this extension's part, not the row's (terms:
   * `categories`, `tags`, `date_ranges` of associated types): taken out of the attributes before
   * they are validated, and handed over as parts (400 on a bad value).
   */
  attributeParts?(type: ObjectType, attributes: Record<string, unknown>, ctx: AppContext): { attributes: Record<string, unknown>; parts: ObjectParts } | undefined;
  /**
   * The parts of a command this extension owns (folders: parents and children; media: stream;
   * terms: terms), run by the kernel after the attributes, with the object read and authorised.
   */
  parts?: PartHandlers;
  /** In the transaction that moves objects to the trash, before they move (refuse with 403). */
  beforeTrash?(trx: Transaction<Database>, ids: number[], ctx: AppContext): Promise<void>;
  /** Inside the transaction that moves objects to the trash. */
  onTrash?(trx: Transaction<Database>, ids: number[], ctx: AppContext, actor: Actor): Promise<void>;
  /** Inside the transaction that restores objects from the trash. */
  onRestore?(trx: Transaction<Database>, ids: number[], ctx: AppContext, actor: Actor): Promise<void>;
  /** Inside the permanent-delete transaction, before the objects' rows are removed. */
  onPurge?(trx: Transaction<Database>, ids: number[], ctx: AppContext): Promise<void>;
  /** After the permanent delete has committed (e.g. remove files from disk). */
  afterPurge?(ids: number[], ctx: AppContext): Promise<void>;

  // ---- the read path ----
  /**
   * Add meta, relationships or included resources to a batch of serialised objects (one call per
   * response, never one per object). `included` is the response's included array.
   */
  decorate?(rc: ReadContext, ctx: AppContext, items: SerializedObject[], included: Resource[]): void | Promise<void>;
  /**
   * Names `include=` accepts beside the relations (folders: `parents`), with the related ids of a
   * batch of objects; the read path keeps those the reader may see and puts them in `included`.
   */
  includes?: Record<string, (rows: Array<Pick<ObjectRow, 'id' | 'object_type_id'>>, ctx: AppContext) => Promise<Array<{ objectId: number; relatedId: number }>>>;
  /**
   * Values `decorate` needs, read with a list page's rows in the same statement (subqueries on
   * `objects.id`), by column name (unique to the extension: they sit beside the row's columns);
   * a single GET reads them too (read.ts, `withListValues`). Items read without them (included
   * ones, written ones) have none: decorate reads those.
   */
  listValues?: Record<string, (eb: ExpressionBuilder<Database, 'objects'>, ctx: AppContext) => AliasableExpression<unknown>>;
  /**
   * Extra list filters owned by this extension, e.g. `parent` → filter[parent]=<id|uname>.
   * Return a condition on the `objects` table (alias `objects`); `viewer` reads the list (a filter
   * on what only some readers may know, such as drafts, answers by their rights).
   */
  filters?: Record<string, (values: string[], eb: ExpressionBuilder<Database, 'objects'>, ctx: AppContext, viewer: AuthInfo) => Expression<SqlBool> | Promise<Expression<SqlBool>>>;
  /**
   * The order one of `filters` gives a list when the request names no sort (folders: filter[parent]
   * lists the folder's objects by their position in it, as BEdita's findParent orders them).
   */
  filterOrders?: Record<string, (values: string[], eb: ExpressionBuilder<Database, 'objects'>, ctx: AppContext) => Promise<Expression<unknown>>>;
  /**
   * List filters with nested values (`filter[date_ranges][start_date][gt]=…`, `filter[geo][center]=…`),
   * given as parsed (400 on a bad one); `order` sorts the list when the request names no sort.
   * BEdita shows what such a filter computes (a distance) in each object's `meta.extra`.
   */
  structuredFilters?: Record<
    string,
    (raw: unknown, ctx: AppContext) => {
      where: Expression<SqlBool>;
      order?: Expression<unknown>;
      /** Values the filter computed per listed object (geo: `distance`), shown in its `meta.extra`. */
      extra?: (ids: number[]) => Promise<Map<number, Record<string, unknown>>>;
    }
  >;
  /**
   * Further sorts of object lists (`date_ranges_min_start_date`), given the request's structured
   * filters; `where` narrows the list to the objects the sort applies to.
   */
  sorts?: Record<string, (structured: Record<string, unknown>, ctx: AppContext) => { column: Expression<unknown>; where?: Expression<SqlBool> }>;
}

/** `query` (rows of `objects`) with every extension's `listValues` beside the row's columns, as list pages and single GETs read them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withListValues<Q extends SelectQueryBuilder<Database, 'objects', any>>(ctx: AppContext, query: Q): Q {
  const values = ctx.objects.extensions.flatMap((ext) => Object.entries(ext.listValues ?? {}));
  return values.length ? (query.select((e) => values.map(([name, value]) => value(e, ctx).as(name))) as unknown as Q) : query;
}

/** The names every extension adds to `include=`. */
export function extensionIncludeNames(ctx: AppContext): string[] {
  return ctx.objects.extensions.flatMap((ext) => Object.keys(ext.includes ?? {}));
}
