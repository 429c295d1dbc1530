// The write kernel's frame (kernel.ts is its one entry): the unit of work every object write runs
// in, and the three hook points later capabilities plug into. Every write of every type —
// created, updated, related, placed in folders, trashed, restored or purged, from whichever entry
// point — is a command apply() runs, which calls, in this order:
//
//   1. authorizeWrite(ctx, check)       the write guards: may this actor do this? (permissions)
//   2. … the write itself, with the type's hooks (ObjectExtension: users, folders, media…)
//   3. recordChanges(ctx, trx, changes) observers' record(): inside the same transaction (history),
//                                       once per unit of work with all its changes, as its work ends
//   4. after the commit                 observers' afterCommit(): events (webhooks), never on rollback
//
// A unit of work is one transaction: inTransaction() opens it (through group commit) or joins
// the caller's; changes recorded in it reach afterCommit once, after its commit.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import type { ObjectChange, ObjectObserver } from './changes.js';
import type { ObjectExtension } from './extensions.js';
import type { ObjectType } from './model.js';
import type { ObjectRow } from './rows.js';
import type { PermissionSet, Shown } from '../permissions/rules.js';

declare module '../../context.js' {
  interface AppContext {
    /** The write kernel's extensions, guards and observers, assembled once (createKernel), and its open units of work. */
    objects: ObjectsRuntime;
  }
}


/** Who writes. `req.auth` fits; a bare user id (or null: the system) is a non-admin actor. */
export interface Actor {
  userId: number | null;
  isAdmin: boolean;
  roles?: string[];
  /** Role ids and compiled permissions (req.auth has them; see resources/permissions). */
  roleIds?: number[];
  permissions?: PermissionSet;
  applicationId?: number | null;
  /** Whether any object permission exists (req.auth has it; unknown: assume so). */
  restrictions?: boolean;
  /** The base URL the request came in on, for links in change records (webhook payloads). */
  base?: string | null;
}
export type ActorLike = Actor | number | null;

export const toActor = (a: ActorLike): Actor => (typeof a === 'object' && a !== null ? a : { userId: a, isAdmin: false });

/**
 * What a write guard is asked: `action` on an object of `type` (the row, as it is before the
 * write, when it exists). Whether the write changes what anonymous clients see (and needs
 * `publish`) is the guard's to decide, from the states before and after.
 */
export interface WriteCheck {
  action: 'create' | 'update' | 'delete' | 'restore' | 'purge' | 'publish';
  actor: Actor;
  type: ObjectType;
  row?: ObjectRow;
  /** The object's state after a create or update (its status); absent: as `row` is. */
  after?: Shown;
  /** A write of one of the object's translations: its state before (null: new) and after (null: removed). */
  translation?: { before: Shown | null; after: Shown | null };
  trx: Transaction<Database>;
}
/** Throws an ApiError (403) to refuse a write; runs inside the transaction, before the write. */
export type WriteGuard = (check: WriteCheck) => void | Promise<void>;

/** The objects family's per-server state: type hooks, guards, observers, open units of work. */
export interface ObjectsRuntime {
  readonly extensions: readonly ObjectExtension[];
  readonly guards: readonly WriteGuard[];
  readonly observers: readonly ObjectObserver[];
  /** Changes recorded so far by the unit of work running in a transaction. */
  units: WeakMap<Transaction<Database>, ObjectChange[]>;
  /** Objects whose version the unit of work in a transaction has moved already (claimVersionMove). */
  versioned: WeakMap<Transaction<Database>, Set<number>>;
  /** Work to run after the commit of the unit of work in a transaction (whenCommitted). */
  commitHooks: WeakMap<Transaction<Database>, Array<() => void>>;
}

/** What a family adds to the write kernel: type extensions, write guards, observers. */
export interface KernelParts {
  extensions?: ObjectExtension[];
  guards?: WriteGuard[];
  observers?: ObjectObserver[];
}

/**
 * The kernel's runtime, assembled once from every family's parts, in the order given (the
 * composition root, app.ts createContext, gives them): nothing is added after it is made.
 */
export function createKernel(parts: KernelParts[]): ObjectsRuntime {
  return {
    extensions: Object.freeze(parts.flatMap((p) => p.extensions ?? [])) as ObjectExtension[],
    guards: Object.freeze(parts.flatMap((p) => p.guards ?? [])) as WriteGuard[],
    observers: Object.freeze(parts.flatMap((p) => p.observers ?? [])) as ObjectObserver[],
    units: new WeakMap(),
    versioned: new WeakMap(),
    commitHooks: new WeakMap(),
  };
}

/** Hook point 1: every write guard, in order; the first refusal wins. */
export async function authorizeWrite(ctx: AppContext, check: WriteCheck): Promise<void> {
  for (const guard of ctx.objects.guards) await guard(check);
}

/** Hook point 2: tell the observers inside the transaction; kept for afterCommit. */
export async function recordChanges(ctx: AppContext, trx: Transaction<Database>, changes: ObjectChange[]): Promise<void> {
  if (!changes.length) return;
  const unit = ctx.objects.units.get(trx);
  if (!unit) throw new Error('An object write ran outside a unit of work: open it with inTransaction()');
  unit.push(...changes);
}

/**
 * The observers' record() of a unit's changes, once, as its work ends and before the commit: 50
 * creates of one /operations request cost one history insert and one webhook lookup, not 50 of each.
 */
async function recordUnit(ctx: AppContext, trx: Transaction<Database>, changes: ObjectChange[]): Promise<void> {
  if (!changes.length) return;
  // Every recorded write moves its object's version (once per unit of work, whatever the number
  // of its changes): the strong ETag and If-Match compare it (kernel.ts).
  const done = ctx.objects.versioned.get(trx);
  const moved = [...new Set(changes.filter((c) => c.action !== 'create' && c.action !== 'remove' && !done?.has(c.id)).map((c) => c.id))];
  for (let i = 0; i < moved.length; i += 5000) {
    await trx.updateTable('objects').set((eb) => ({ version: eb('version', '+', 1) })).where('id', 'in', moved.slice(i, i + 5000)).execute();
  }
  for (const o of ctx.objects.observers) if (o.record) await o.record(trx, changes);
}

/**
 * True once per object and unit of work: the caller moves the object's version in the statement
 * that writes its row (an update of attributes that changes something), and the unit's end does
 * not move it again. False outside a unit of work (the unit's end then does it, as for any change).
 */
export function claimVersionMove(ctx: AppContext, trx: Transaction<Database>, id: number): boolean {
  const done = ctx.objects.versioned.get(trx);
  if (!done || done.has(id)) return false;
  done.add(id);
  return true;
}

/** Hook point 3: after the commit. An observer's failure is logged, never the caller's. */
function afterCommit(ctx: AppContext, changes: ObjectChange[]): void {
  if (!changes.length) return;
  for (const o of ctx.objects.observers) {
    try {
      o.afterCommit?.(changes);
    } catch (err) {
      ctx.log(`observer ${o.name} failed after commit: ${(err as Error)?.stack ?? err}`);
    }
  }
}

/**
 * Run `fn` once the unit of work `trx` belongs to has committed (never on rollback), e.g. wake a
 * queue worker for a job queued inside it. False when `trx` is no unit of work (nothing is kept).
 */
export function whenCommitted(ctx: AppContext, trx: Transaction<Database>, fn: () => void): boolean {
  const hooks = ctx.objects.commitHooks.get(trx);
  if (!hooks) return false;
  hooks.push(fn);
  return true;
}

/**
 * Run `work` as a unit of work: inside `trx` when the caller has one (its unit collects the
 * changes), else in a transaction of its own or one shared with other writes waiting at the same
 * time (group commit, see db/write-batch.ts); observers hear of the changes after the commit.
 */
export async function inTransaction<T>(
  ctx: AppContext,
  trx: Transaction<Database> | undefined,
  work: (trx: Transaction<Database>) => Promise<T>,
  opts: { alone?: boolean } = {},
): Promise<T> {
  if (trx) {
    // Every transaction that writes objects is a unit of work opened here: one opened elsewhere
    // would commit without its observers hearing of it.
    if (!ctx.objects.units.has(trx)) throw new Error('An object write joined a transaction that is no unit of work');
    return work(trx);
  }
  let changes: ObjectChange[] = [];
  let hooks: Array<() => void> = [];
  // `alone`: work with effects outside the database (moving a file into place) must not share a
  // batch, which runs its writes again when one of them fails.
  const run = opts.alone ? <R>(w: (t: Transaction<Database>) => Promise<R>) => ctx.db.transaction().execute(w) : ctx.writes.run;
  const result = await run(async (t) => {
    // A batch that failed runs each write again alone: only the last run's changes count.
    changes = [];
    hooks = [];
    ctx.objects.units.set(t, changes);
    ctx.objects.versioned.set(t, new Set());
    ctx.objects.commitHooks.set(t, hooks);
    try {
      const out = await work(t);
      await recordUnit(ctx, t, changes);
      return out;
    } finally {
      ctx.objects.units.delete(t);
      ctx.objects.versioned.delete(t);
      ctx.objects.commitHooks.delete(t);
    }
  });
  afterCommit(ctx, changes);
  for (const hook of hooks) {
    try {
      hook();
    } catch (err) {
      ctx.log(`after-commit hook failed: ${(err as Error)?.stack ?? err}`);
    }
  }
  return result;
}

/** A change record of `row` by `actor`. */
export function changeOf(
  action: ObjectChange['action'],
  row: { id: number },
  typeName: string,
  actor: Actor,
  changed: Record<string, unknown>,
): ObjectChange {
  return { action, id: row.id, typeName, userId: actor.userId, applicationId: actor.applicationId ?? null, changed, base: actor.base ?? null };
}
