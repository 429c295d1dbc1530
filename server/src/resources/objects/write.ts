// The write kernel's attributes step (kernel.ts runs it): the `objects` row of a create or an
// update, for objects of every type (users, folders and media included). What is special about
// a type is an ObjectExtension hook (see extensions.ts), never a second copy. Steps, in order:
//   validate (the type's schema, or the extension's validate; before the unit of work) →
//   guards (create, publish) → locked rules → beforeWrite hooks → write the `objects` row →
//   afterWrite hooks. Only kernel.ts calls these.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { prepared, type Prepared } from '../../db/prepared.js';
import { booleanInput } from '../../http/input-values.js';
import { badRequest, forbidden } from '../../http/errors.js';
import type { ObjectExtension, PendingWrite } from './extensions.js';
import { CORE_ATTRIBUTES, typeAllowedOn, type ObjectType } from './model.js';
import { authorizeWrite, claimVersionMove, type Actor } from './pipeline.js';
import { insertObjectRows, type NewObjectRow, type ObjectRow } from './rows.js';
import { validateObjectAttributes } from './schema.js';
import { generatedUname, uniqueUname } from './uname.js';

export interface ObjectInput {
  attributes?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  /** Trusted data from server code for the type's hooks (never from a request body). */
  own?: Record<string, unknown>;
}

/** The extensions that apply to objects of `typeName`, in registration order. */
export function extensionsOf(ctx: AppContext, typeName: string): ObjectExtension[] {
  return ctx.objects.extensions.filter((ext) => typeAllowedOn(ctx, typeName, ext.types));
}

export function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** `meta.locked` of a request: admins only (403 otherwise); anything else in meta is ignored. */
function lockedFromMeta(meta: Record<string, unknown> | undefined, actor: Actor): boolean | undefined {
  if (!meta || meta.locked === undefined) return undefined;
  if (!actor.isAdmin) throw forbidden('Only administrators may lock or unlock objects', 'locked_admin_only');
  const locked = booleanInput(meta.locked);
  if (locked === undefined) throw badRequest('"meta.locked" must be true or false', 'invalid_data');
  return locked;
}

/** Core columns and custom property values of validated attributes. */
function splitAttributes(attrs: Record<string, unknown>) {
  const core: Record<string, unknown> = {};
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if ((CORE_ATTRIBUTES as readonly string[]).includes(k)) core[k] = v;
    else props[k] = v;
  }
  return { core, props };
}

const withoutNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** Validated attributes: the type's object schema, or its extension's own check. */
async function validateAttributes(ctx: AppContext, w: Omit<PendingWrite, 'attributes' | 'changed'>, attributes: Record<string, unknown>) {
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) throw badRequest('attributes must be an object', 'invalid_body');
  const own = extensionsOf(ctx, w.type.name).find((e) => e.validate);
  if (own) return own.validate!(w, attributes, ctx);
  return validateObjectAttributes(ctx, w.type, attributes, w.action === 'update');
}

async function runHooks(ctx: AppContext, trx: Transaction<Database>, w: PendingWrite, hook: 'beforeWrite' | 'afterWrite') {
  for (const ext of extensionsOf(ctx, w.type.name)) await ext[hook]?.(trx, w, ctx);
}

/** A create or update's input, checked before the unit of work opens (see validateInput). */
export interface PreparedInput {
  attributes: Record<string, unknown>;
  own: Record<string, unknown>;
  meta?: Record<string, unknown>;
  locked: boolean | undefined;
}

/** Validate a create's or update's attributes and `meta.locked` (outside the transaction: hashing is slow). */
export async function validateInput(ctx: AppContext, action: 'create' | 'update', type: ObjectType, actor: Actor, input: ObjectInput): Promise<PreparedInput> {
  const locked = lockedFromMeta(input.meta, actor);
  const own = { ...(input.own ?? {}) };
  const attributes = await validateAttributes(ctx, { action, type, actor, own }, input.attributes ?? {});
  return { attributes, own, meta: input.meta, locked };
}

/** A create checked and ready to insert: its guards and beforeWrite hooks have run (stageCreate). */
export interface StagedCreate {
  type: ObjectType;
  w: PendingWrite;
  fields: NewObjectRow;
  locked: boolean | undefined;
}

/** A create's steps before its row is written: the guards (create, publish) and beforeWrite hooks. */
export async function stageCreate(ctx: AppContext, db: Transaction<Database>, type: ObjectType, actor: Actor, input: PreparedInput): Promise<StagedCreate> {
  const { attributes, own, locked } = input;
  const { core, props } = splitAttributes(attributes);
  const w: PendingWrite = { action: 'create', type, actor, attributes, own, meta: input.meta, changed: {} };
  await authorizeWrite(ctx, { action: 'create', actor, type, after: { status: (core.status as string | undefined) ?? 'draft' }, trx: db });
  await runHooks(ctx, db, w, 'beforeWrite');
  const fields: NewObjectRow = {
    status: core.status as string | undefined,
    uname: (core.uname as string | undefined) || generatedUname(type.lineage, core.title),
    title: core.title as string | null | undefined,
    description: core.description as string | null | undefined,
    body: core.body as string | null | undefined,
    lang: core.lang as string | null | undefined,
    extra: core.extra,
    ...publishWindow(core, null),
    properties: withoutNulls(props),
  };
  return { type, w, fields, locked };
}

/** A staged create's steps after its row is inserted: `meta.locked`, the afterWrite hooks. */
export async function finishCreate(ctx: AppContext, db: Transaction<Database>, staged: StagedCreate, inserted: ObjectRow): Promise<{ row: ObjectRow; changed: Record<string, unknown> }> {
  const { w, locked } = staged;
  let row = inserted;
  if (locked) {
    await db.updateTable('objects').set({ locked: true }).where('id', '=', row.id).execute();
    row = { ...row, locked: true };
  }
  w.row = row;
  w.changed = { ...withoutNulls(w.attributes), status: row.status, uname: row.uname, ...(locked ? { locked: true } : {}) };
  await runHooks(ctx, db, w, 'afterWrite');
  return { row, changed: w.changed };
}

/** Insert the `objects` row of a create (the kernel has opened the unit of work). */
export async function createRow(ctx: AppContext, db: Transaction<Database>, type: ObjectType, actor: Actor, input: PreparedInput): Promise<{ row: ObjectRow; changed: Record<string, unknown> }> {
  const staged = await stageCreate(ctx, db, type, actor, input);
  const [row] = await insertObjectRows(db, ctx.unameHints, [{ type, fields: staged.fields, actorId: actor.userId }]);
  return finishCreate(ctx, db, staged, row);
}

/**
 * The publication window a write asks for, as stored: UTC instants (`YYYY-MM-DDTHH:MM:SS+00:00`), so they compare
 * as text in SQL; an end not after its start (the row's bound where the write leaves one) is 400.
 */
function publishWindow(core: Record<string, unknown>, before: ObjectRow | null): { publish_start?: string | null; publish_end?: string | null } {
  const out: { publish_start?: string | null; publish_end?: string | null } = {};
  for (const k of ['publish_start', 'publish_end'] as const) {
    const v = core[k];
    if (v === undefined) continue;
    if (v === null || v === '') {
      out[k] = null;
      continue;
    }
    const t = typeof v === 'string' ? Date.parse(v) : NaN;
    if (Number.isNaN(t)) throw badRequest(`"${k}" must be a date-time (ISO 8601) or null`, 'invalid_data');
    out[k] = nowIso(new Date(t));
  }
  const start = out.publish_start !== undefined ? out.publish_start : (before?.publish_start ?? null);
  const end = out.publish_end !== undefined ? out.publish_end : (before?.publish_end ?? null);
  if (start && end && end <= start) throw badRequest('"publish_end" must come after "publish_start"', 'invalid_data');
  return out;
}

/** Changed values between two JSON texts of custom properties, as field → new value. */
function changedProperties(before: string | null, after: Record<string, unknown>): Record<string, unknown> {
  const old = (parseJson(before) as Record<string, unknown> | null) ?? {};
  const out: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(old), ...Object.keys(after)])) {
    if (JSON.stringify(old[key] ?? null) !== JSON.stringify(after[key] ?? null)) out[key] = after[key] ?? null;
  }
  return out;
}

/** Shapes of the update kept: each set of columns a write changes (a PATCH changes a few of about a dozen). */
const MAX_UPDATE_SHAPES = 256;
const updateStatements = new Map<string, Prepared<ObjectRow, unknown[]>>();

/**
 * The update of an object's row setting `columns` (then the id) and moving its version or not,
 * prepared per shape: building it with kysely on every write cost more than the statement (and
 * PostgreSQL parsed and planned it each time).
 */
function updateStatement(columns: string[], moveVersion: boolean): Prepared<ObjectRow, unknown[]> {
  const key = `${columns.join(',')}${moveVersion ? '+version' : ''}`;
  let statement = updateStatements.get(key);
  if (!statement) {
    statement = prepared<ObjectRow, unknown[]>((db, p) =>
      db
        .updateTable('objects')
        .set((eb) => {
          const values: Record<string, unknown> = Object.fromEntries(columns.map((c, i) => [c, p(i)]));
          return moveVersion ? { ...values, version: eb('version', '+', 1) } : values;
        })
        .where('id', '=', p(columns.length))
        .returningAll(),
    );
    if (updateStatements.size < MAX_UPDATE_SHAPES) updateStatements.set(key, statement);
  }
  return statement;
}

/**
 * Write an update's attributes to the row `before` (read, version-checked and authorised by the
 * kernel). A locked object keeps its status and uname (403 `object_locked`) unless the same
 * request unlocks it.
 */
export async function updateRow(
  ctx: AppContext,
  db: Transaction<Database>,
  type: ObjectType,
  actor: Actor,
  before: ObjectRow,
  input: PreparedInput,
): Promise<{ row: ObjectRow; changed: Record<string, unknown> }> {
  const { attributes, own, locked } = input;
  const { core, props } = splitAttributes(attributes);
  const id = before.id;
  const w: PendingWrite = { action: 'update', type, actor, attributes, own, meta: input.meta, before, changed: {} };
  const lockedNow = Boolean(before.locked) && locked !== false;
  const now = nowIso();
  const set: Record<string, unknown> = { modified: now, modified_by: actor.userId };
  const changed: Record<string, unknown> = {};
  if (core.status !== undefined && core.status !== before.status) {
    if (lockedNow) throw forbidden('The object is locked: its status cannot change', 'object_locked');
    set.status = changed.status = core.status;
    if (core.status === 'on') set.published = changed.published = now;
  }
  if (core.uname !== undefined && core.uname !== before.uname) {
    if (lockedNow) throw forbidden('The object is locked: its uname cannot change', 'object_locked');
    set.uname = changed.uname = await uniqueUname(db, ctx.unameHints, core.uname as string, type.singular, id);
  }
  const window = publishWindow(core, before);
  for (const k of ['publish_start', 'publish_end'] as const) {
    if (window[k] !== undefined && window[k] !== before[k]) set[k] = changed[k] = window[k];
  }
  for (const k of ['title', 'description', 'body', 'lang'] as const) {
    if (core[k] !== undefined && core[k] !== before[k]) set[k] = changed[k] = core[k];
  }
  if (core.extra !== undefined) {
    const text = core.extra === null ? null : JSON.stringify(core.extra);
    if (text !== before.extra) {
      set.extra = text;
      changed.extra = core.extra;
    }
  }
  if (Object.keys(props).length) {
    const merged = withoutNulls({ ...((parseJson(before.properties) as Record<string, unknown>) ?? {}), ...props });
    set.properties = Object.keys(merged).length ? JSON.stringify(merged) : null;
    Object.assign(changed, changedProperties(before.properties, merged));
  }
  if (locked !== undefined && locked !== Boolean(before.locked)) set.locked = changed.locked = locked;
  w.changed = changed;
  await runHooks(ctx, db, w, 'beforeWrite');
  // Every value sent is the object's already: nothing is written, as BEdita saves an entity that
  // is not dirty (`modified` and `modified_by` stay; no version, history or data version moves).
  // Unless fields the extensions write after the row were sent (a user's own fields, object
  // permissions): what they change is known only then, and the row's `modified` goes with it.
  if (!Object.keys(w.changed).length && !Object.keys(own).length && w.meta?.perms === undefined) {
    w.row = before;
    return { row: before, changed: w.changed };
  }
  // A change to record moves the version here, in the same statement (once per unit of work).
  const moveVersion = Object.keys(w.changed).length > 0 && claimVersionMove(ctx, db, id);
  const columns = Object.keys(set);
  const [row] = await updateStatement(columns, moveVersion)(db, ...columns.map((c) => set[c]), id);
  if (!row) throw new Error(`object ${id} vanished under the write lock`);
  w.row = row;
  await runHooks(ctx, db, w, 'afterWrite');
  return { row, changed: w.changed };
}
