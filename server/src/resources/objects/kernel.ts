// The write kernel: the one entry every object write of every type goes through. An entry point
// (type endpoints, /objects, /users, /folders, /operations, relationships, stream links, the
// legacy writer, uploads, history restore, trash) builds a *command* — action, target, actor,
// changes, expected version — and hands it to apply() (or, for many creates in one unit of work,
// to a CreateBatch, which runs the same steps and inserts the plain ones together). The kernel, in
// this order:
//
//   1. opens the unit of work (or joins the caller's), loads the target once, as the actor would
//      read it: hidden by rights → 404 exactly like a missing id; restricted by an object
//      permission → 401/403 (never a success, nothing of the object in the answer);
//   2. checks the expected version (If-Match) → 412 `precondition_failed`;
//   3. runs the rights check of the object itself (create, update, delete…, through the write
//      guards; `publish` too when anonymous clients' view of it changes);
//   4. plans every other part of the change (kernel-parts.ts): each part resolves the objects it
//      names as the actor reads them (404 when hidden) and declares the rights it needs on the
//      other objects it changes — the folder, the child, the translation — from the one table
//      in rights.ts, checked through the same guards once per object, before anything is
//      written; then writes the attributes, and each part applies its writes (relations here;
//      folders own parents and children, media own streams, terms own terms);
//   5. records the change once (history, webhooks) and moves the object's version.
//
// Only the kernel's modules (KERNEL_MODULES in db/owners.ts, the registry of who writes which
// table) write the `objects` and `object_relations` tables; server/test/structure-owners.test.ts
// fails when anything else does. A backup restore stays a bulk load outside it (no history, no
// webhooks).
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { ExpectedVersion } from '../../http/if-match.js';
import type { ResourceIdentifier } from '../../http/jsonapi.js';
import type { ObjectChange } from './changes.js';
import type { ObjectExtension } from './extensions.js';
import { CORE_ATTRIBUTES, isLeafType, typeById, typeByName, type ObjectType } from './model.js';
import { authorizeWrite, changeOf, inTransaction, recordChanges, type Actor } from './pipeline.js';
import { requireObject } from './read.js';
import type { RelationshipItem } from './relation-writes.js';
import { claimAttributeParts, hasParts, planParts } from './kernel-parts.js';
import { insertObjectRows, searchFields, type ObjectRow } from './rows.js';
import { purgeRows, restoreRows, trashRows } from './trash.js';
import { createRow, extensionsOf, finishCreate, stageCreate, updateRow, validateInput, type ObjectInput, type StagedCreate } from './write.js';

/** Acting or reading as the server itself (defined with the read path: one definition). */
export { SYSTEM } from './read.js';

export type { ExpectedVersion };
export type { KernelWrite, PartHandler, PartHandlers, PartOutcome, PartPlan } from './kernel-parts.js';

export interface RelationChange {
  name: string;
  items: RelationshipItem[];
  mode: 'add' | 'replace' | 'remove';
}

/** Priority and params of one existing link (the legacy PUT /objects/{id}/relations/{name}/{related_id}). */
export interface LinkChange {
  name: string;
  relatedId: number;
  priority?: number;
  params?: unknown;
}

/**
 * The parts of a change that extensions own, keyed by part name. Extensions add theirs with
 * declaration merging (`declare module '../objects/kernel.js' { interface ObjectParts { … } }`) and
 * a handler in their ObjectExtension's `parts`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ObjectParts {}

export interface ObjectChanges extends ObjectInput {
  relations?: RelationChange[];
  link?: LinkChange;
  parts?: ObjectParts;
}

/** Which object a command acts on: an id or uname, of a type (or any) when given. */
export interface Target {
  key: string | number;
  /** The object must be of this type or one of its sub-types (404 otherwise). */
  type?: string;
  /** An update may reach a trashed object too ('any'); by default only active ones. */
  trashed?: 'any';
  /**
   * The target as the command's actor has just read it (same key, type and trash state): an
   * update takes its type from it instead of reading it again before the unit of work (which
   * reads it anyway, and checks everything on that read).
   */
  peeked?: ObjectRow;
  /**
   * An update by id (`key` a number) of a type no other type extends (`type`): the type is known,
   * and the object is read once, inside the unit of work. Its caller answers first what a read
   * before the unit of work would have refused (a missing or hidden object) when the update is
   * refused before its read (routes.ts, PATCH /{type}/{id}).
   */
  typed?: true;
}

export type ObjectCommand =
  | { action: 'create'; type: string; actor: Actor; changes: ObjectChanges }
  | { action: 'update'; target: Target; actor: Actor; changes: ObjectChanges; expectedVersion?: ExpectedVersion }
  | { action: 'trash' | 'restore' | 'purge'; target: Target; actor: Actor; expectedVersion?: ExpectedVersion };

/** What a command leaves: the object as written and what its parts answered (relations: identifiers). */
export interface Applied {
  row: ObjectRow;
  written?: ResourceIdentifier[];
  results: Record<string, unknown>;
}

/** An If-Match version that is not the object's: 412, nothing changed. */
function checkVersion(row: ObjectRow, expected: ExpectedVersion | undefined): void {
  if (expected === undefined || expected === null || expected === '*') return;
  if (Number(row.version) !== expected) {
    throw new ApiError(412, 'precondition_failed', `The object was changed since version ${expected} (it is at version ${row.version}): reload it, or send the write again without If-Match to overwrite`, 'Precondition Failed');
  }
}

/** The row a command targets, as its actor reads it (trashed ones for restore and purge). */
function loadTarget(ctx: AppContext, trx: Transaction<Database>, target: Target, actor: Actor, trashed: boolean | 'any' = false): Promise<ObjectRow> {
  return requireObject(ctx, target.key, { viewer: actor, typeName: target.type, trashed, db: trx });
}

/**
 * Apply one command as one unit of work (or inside the caller's: /operations, the legacy writer
 * and cascades put many commands in one transaction). See the top of this file for the steps.
 */
export async function apply(ctx: AppContext, command: ObjectCommand, trx?: Transaction<Database>): Promise<Applied> {
  const { actor } = command;
  switch (command.action) {
    case 'create': {
      const type = typeByName(ctx, command.type);
      if (!type || type.isAbstract) throw notFound(`Unknown object type "${command.type}"`, 'unknown_type');
      const changes = claimAttributeParts(ctx, type, command.changes);
      const prepared = await validateInput(ctx, 'create', type, actor, changes);
      return inTransaction(ctx, trx, async (db) => {
        const others: ObjectChange[] = [];
        // The create's own check comes before its insert; its parts are planned (and checked) on
        // the new row before any of them writes.
        const created = await createRow(ctx, db, type, actor, prepared);
        const planned = hasParts(changes) ? await planParts(ctx, db, 'create', actor, type, created.row, changes, others) : undefined;
        const parts = await planned?.apply(created.row);
        await recordChanges(ctx, db, [changeOf('create', created.row, type.name, actor, { ...created.changed, ...(parts?.changed ?? {}) }), ...others]);
        return { row: created.row, written: parts?.written, results: parts?.results ?? {} };
      });
    }
    case 'update': {
      // The type decides the validation, which runs before any transaction (users hash passwords
      // there): read it first (unless the target names it: Target.typed), then everything again
      // inside the unit of work.
      const { target } = command;
      const named = target.typed && typeof target.key === 'number' && target.type ? typeByName(ctx, target.type) : undefined;
      const peek = target.peeked ?? (named && isLeafType(ctx, named) ? undefined : await requireObject(ctx, target.key, { viewer: actor, typeName: target.type, trashed: target.trashed ?? false, db: trx }));
      const type = peek ? typeById(ctx, peek.object_type_id)! : named!;
      const key = peek ? peek.id : (target.key as number);
      const changes = claimAttributeParts(ctx, type, command.changes);
      const prepared = await validateInput(ctx, 'update', type, actor, changes);
      return inTransaction(ctx, trx, async (db) => {
        const before = await loadTarget(ctx, db, { key, type: type.name }, actor, target.trashed ?? false);
        checkVersion(before, command.expectedVersion);
        await authorizeWrite(ctx, { action: 'update', actor, type, row: before, after: { status: (prepared.attributes.status as string | undefined) ?? before.status }, trx: db });
        const others: ObjectChange[] = [];
        // Every part declares and checks what it needs before anything is written (rights.ts).
        const planned = hasParts(changes) ? await planParts(ctx, db, 'update', actor, type, before, changes, others) : undefined;
        // Parts alone (relations, folders, a stream…) leave the row's attributes as they are.
        const attributesSent = changes.attributes !== undefined || changes.own !== undefined || changes.meta !== undefined;
        const updated = attributesSent ? await updateRow(ctx, db, type, actor, before, prepared) : { row: before, changed: {} };
        const parts = await planned?.apply(updated.row);
        const changed = { ...updated.changed, ...(parts?.changed ?? {}) };
        // A write that changes nothing is no change to record (its `modified` aside).
        await recordChanges(ctx, db, [...(Object.keys(changed).length ? [changeOf('update', updated.row, type.name, actor, changed)] : []), ...others]);
        return { row: updated.row, written: parts?.written, results: parts?.results ?? {} };
      });
    }
    case 'trash':
    case 'restore':
    case 'purge': {
      const trashed = command.action !== 'trash';
      const run = async (db: Transaction<Database>) => {
        const row = await loadTarget(ctx, db, command.target, actor, trashed);
        checkVersion(row, command.expectedVersion);
        if (command.action === 'trash') await trashRows(ctx, db, [row], actor);
        else if (command.action === 'restore') await restoreRows(ctx, db, [row], actor);
        return row;
      };
      if (command.action === 'purge') {
        // Files leave storage after the commit (purgeRows runs its own unit of work).
        const row = await loadTarget(ctx, trx ?? (ctx.db as unknown as Transaction<Database>), command.target, actor, true);
        checkVersion(row, command.expectedVersion);
        await purgeRows(ctx, [row], actor);
        return { row, results: {} };
      }
      return { row: await inTransaction(ctx, trx, run), results: {} };
    }
  }
}

type CreateCommand = Extract<ObjectCommand, { action: 'create' }>;

/**
 * Search documents staged ahead (ObjectSearch.stageDocuments), by the tag of the create they were
 * made for, with the fields they were made of.
 */
export interface SearchDocuments {
  byTag: Map<number, { fields: SearchFields; ref: string }>;
  drop(): Promise<void>;
}
type SearchFields = ReturnType<typeof searchFields>;
const sameSearchFields = (a: SearchFields, b: SearchFields) => a.title === b.title && a.description === b.description && a.body === b.body && a.properties === b.properties;

/** A create of a CreateBatch: its row once written (at the batch's flush, or at once when it ran alone). */
export interface BatchedCreate {
  row?: ObjectRow;
}

/**
 * Whether every write hook of a type's extensions touches only the object written: kept per
 * server (its extensions are registered at its start) and type (a model reload makes new ones).
 */
const batchableTypes = new WeakMap<AppContext['objects'], WeakMap<ObjectType, boolean>>();
function batchable(ctx: AppContext, type: ObjectType): boolean {
  let types = batchableTypes.get(ctx.objects);
  if (!types) batchableTypes.set(ctx.objects, (types = new WeakMap()));
  let known = types.get(type);
  if (known === undefined) types.set(type, (known = extensionsOf(ctx, type.name).every((e) => e.ownRowsOnly || !(e.beforeWrite || e.afterWrite))));
  return known;
}

/**
 * Creates applied in order within one unit of work (the caller's transaction), the plain ones
 * written together: /operations' 50 creates cost one insert statement, not 50 round trips. A
 * create with no parts and no `meta.locked`, of a type whose extensions' write hooks each touch
 * only the object written (ObjectExtension.ownRowsOnly), is validated, authorised and past its
 * beforeWrite hooks at create(), inserted with the others at flush(), then its afterWrite hooks
 * run and its change is recorded, in the order given. Any other create flushes what is staged
 * and runs as apply() runs it. Errors of a staged create at flush() go through `failed(tag, err)`
 * (the caller names the operation); the unit of work rolls back as for any failed write.
 */
export class CreateBatch {
  private staged: Array<{ staged: StagedCreate; out: BatchedCreate; tag: number }> = [];
  /** Errors flush() reported through `failed`: already naming their create. */
  private readonly reported = new WeakSet<object>();

  constructor(
    private readonly ctx: AppContext,
    private readonly trx: Transaction<Database>,
    private readonly failed: (tag: number, err: unknown) => unknown,
    /** Search documents staged before the unit of work (CreateBatch.searchDocuments). */
    private readonly documents?: SearchDocuments,
  ) {}

  /**
   * The search documents of the creates about to be applied, made before the unit of work opens,
   * where the engine takes them (PostgreSQL: its tokenizer was two thirds of a bulk insert's time
   * under the write lock), and kept in the database until `drop()`, which the caller owes once
   * the unit of work is over. From the attributes as sent, by the tag the caller will give each
   * create (create()): a create whose stored fields turn out different (validation changed them,
   * custom properties) is indexed by the insert as usual.
   */
  static async searchDocuments(ctx: AppContext, attributes: Map<number, unknown>): Promise<SearchDocuments> {
    const search = ctx.dialect.search;
    const byTag: SearchDocuments['byTag'] = new Map();
    const none: SearchDocuments = { byTag, drop: async () => {} };
    if (!search.stageDocuments || !search.withDocuments) return none;
    const text = (v: unknown) => typeof v === 'string' || v === null || v === undefined;
    const fields = new Map<number, SearchFields>();
    for (const [tag, a] of attributes) {
      if (!a || typeof a !== 'object' || Array.isArray(a)) continue;
      const given = a as Record<string, unknown>;
      if (!Object.keys(given).every((k) => (CORE_ATTRIBUTES as readonly string[]).includes(k))) continue;
      if (!text(given.title) || !text(given.description) || !text(given.body)) continue;
      fields.set(tag, searchFields({ title: given.title as string | undefined, description: given.description as string | undefined, body: given.body as string | undefined }));
    }
    if (!fields.size) return none;
    const staged = await search.stageDocuments(ctx.db, [...fields.values()]);
    [...fields].forEach(([tag, f], i) => byTag.set(tag, { fields: f, ref: staged.refs[i] }));
    return { byTag, drop: () => staged.drop() };
  }

  /** Apply `command` (a create), staged when it can be: its row is there after flush(). */
  async create(command: CreateCommand, tag: number): Promise<BatchedCreate> {
    const { ctx, trx } = this;
    const type = typeByName(ctx, command.type);
    const changes = type && !type.isAbstract ? claimAttributeParts(ctx, type, command.changes) : command.changes;
    if (!type || type.isAbstract || hasParts(changes) || changes.meta?.locked !== undefined || !batchable(ctx, type)) {
      await this.flush();
      return { row: (await apply(ctx, command, trx)).row };
    }
    const prepared = await validateInput(ctx, 'create', type, command.actor, changes);
    const out: BatchedCreate = {};
    this.staged.push({ staged: await stageCreate(ctx, trx, type, command.actor, prepared), out, tag });
    return out;
  }

  /** The staged search document of create `tag`, if it was made of the fields stored. */
  private documentOf(tag: number, fields: StagedCreate['fields']): string | undefined {
    const made = this.documents?.byTag.get(tag);
    return made && sameSearchFields(made.fields, searchFields(fields)) ? made.ref : undefined;
  }

  /** Whether `err` is one flush() reported for a staged create (a later create's flush may throw it). */
  reports(err: unknown): boolean {
    return typeof err === 'object' && err !== null && this.reported.has(err);
  }

  /** Write the staged creates (see above); nothing when none are. */
  async flush(): Promise<void> {
    const { ctx, trx } = this;
    const batch = this.staged;
    if (!batch.length) return;
    this.staged = [];
    const rows = await insertObjectRows(
      trx,
      ctx.unameHints,
      batch.map(({ staged, tag }) => ({ type: staged.type, fields: staged.fields, actorId: staged.w.actor.userId, document: this.documentOf(tag, staged.fields) })),
      ctx.dialect.search,
    );
    const changes: ObjectChange[] = [];
    for (const [k, { staged, out, tag }] of batch.entries()) {
      try {
        const created = await finishCreate(ctx, trx, staged, rows[k]);
        out.row = created.row;
        changes.push(changeOf('create', created.row, staged.type.name, staged.w.actor, created.changed));
      } catch (err) {
        const named = this.failed(tag, err);
        if (typeof named === 'object' && named) this.reported.add(named);
        throw named;
      }
    }
    await recordChanges(ctx, trx, changes);
  }
}

/**
 * Trash or restore objects that a write the kernel already checked takes along (a folder's
 * sub-folders): no read check of their own, the same actor, recorded and versioned.
 */
export async function cascade(ctx: AppContext, trx: Transaction<Database>, action: 'trash' | 'restore', ids: number[], actor: Actor): Promise<void> {
  if (!ids.length) return;
  const rows = await trx.selectFrom('objects').selectAll().where('id', 'in', ids).where('deleted', '=', action === 'restore').execute();
  if (rows.length !== new Set(ids).size) throw notFound('Object not found');
  if (action === 'trash') await trashRows(ctx, trx, rows, actor);
  else await restoreRows(ctx, trx, rows, actor);
}

/**
 * A model change, not an object write: a removed custom property's stored values go from every
 * object of the types that had it (no history entry, no version: the objects' own data is the
 * same as every reader saw it after the property went).
 */
export async function dropPropertyValues(ctx: AppContext, trx: Transaction<Database>, typeIds: number[], name: string): Promise<void> {
  if (!typeIds.length) return;
  await trx.updateTable('objects').set({ properties: ctx.dialect.json.withoutProperty('properties', name) }).where('object_type_id', 'in', typeIds).where('properties', 'is not', null).execute();
}

export type { Actor };
export type { ObjectExtension };
