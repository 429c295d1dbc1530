// The parts of a create or update, as the kernel (kernel.ts) runs them: first every part is
// *planned* — it reads what it needs, resolves the objects it names as the actor reads them, and
// declares the rights it needs on each other object it will change (KernelWrite.need, checked
// against the table in rights.ts and through the write guards, once per object) — then, once every
// check of the command has passed, the kernel writes the attributes and each part *applies* its
// writes. A refusal therefore comes before anything is written, whichever part causes it.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { ApiError } from '../../http/errors.js';
import type { ResourceIdentifier } from '../../http/jsonapi.js';
import type { ObjectChange } from './changes.js';
import type { ObjectExtension } from './extensions.js';
import type { ObjectChanges, ObjectParts } from './kernel.js';
import { typeById, type ObjectType } from './model.js';
import { authorizeWrite, changeOf, type Actor, type WriteCheck } from './pipeline.js';
import { requireObject } from './read.js';
import { planLink, planRelations } from './relation-writes.js';
import { declares, type Subject } from './rights.js';
import type { ObjectRow } from './rows.js';
import { extensionsOf } from './write.js';

/** A create or update as a part handler sees it. */
export interface KernelWrite {
  ctx: AppContext;
  trx: Transaction<Database>;
  action: 'create' | 'update';
  actor: Actor;
  type: ObjectType;
  /** The object: as it was while parts are planned, as written once they apply. */
  row: ObjectRow;
  /** A related object as the actor reads it: 404 when missing or hidden, 401/403 when restricted. */
  resolve(key: string | number, opts?: { type?: string; trashed?: boolean | 'any'; member?: string }): Promise<ObjectRow>;
  /** Another object this write changed (a folder's child): recorded and versioned with it. */
  recordOther(row: ObjectRow, changed: Record<string, unknown>): void;
  /**
   * While planning: the part will change `other` as its `subject` (rights.ts PART_RIGHTS): the
   * write guards' `update` check of it (403 to refuse), once per object and command. A translation
   * passes its status before and after, for `publish`.
   */
  need(subject: Subject, other: ObjectRow, opts?: { translation?: WriteCheck['translation'] }): Promise<void>;
}

export interface PartOutcome {
  /** New values of the object's changed fields, for its change record. */
  changed?: Record<string, unknown>;
  /** What the entry point answers with (e.g. identifiers written). */
  result?: unknown;
  /** Identifiers a relationship write answers with. */
  written?: ResourceIdentifier[];
}

/** What a planned part writes once every check of the command has passed. */
export interface PartPlan {
  apply(): Promise<PartOutcome | void>;
}

/**
 * A part's handler: either a plan (the part changes or names other objects: it declares them
 * while planning) or a plain function (the part writes only the object's own data, whose one
 * right, `update` of the object, the kernel has checked): run when parts apply.
 */
export type PartHandler<V> = ((w: KernelWrite, value: V) => Promise<PartOutcome | void>) | { plan(w: KernelWrite, value: V): Promise<PartPlan> };
export type PartHandlers = { [K in keyof ObjectParts]?: PartHandler<NonNullable<ObjectParts[K]>> };

/** The part handler named `name`, from the extensions of `type`. */
function partHandler(ctx: AppContext, type: ObjectType, name: string): PartHandler<unknown> {
  for (const ext of extensionsOf(ctx, type.name)) {
    const h = (ext.parts as Record<string, PartHandler<unknown>> | undefined)?.[name];
    if (h) return h;
  }
  throw new ApiError(400, 'invalid_body', `Objects of type ${type.name} take no "${name}"`);
}

/** The parts of a command, planned: apply() writes them (in order) and merges what they answer. */
export interface PlannedParts {
  apply(row: ObjectRow): Promise<{ changed: Record<string, unknown>; results: Record<string, unknown>; written?: ResourceIdentifier[] }>;
}

/**
 * Plan every part of a create or update of `row` (see the top of this file). `others` collects
 * the change records of the other objects the parts change.
 */
export async function planParts(ctx: AppContext, trx: Transaction<Database>, action: 'create' | 'update', actor: Actor, type: ObjectType, row: ObjectRow, changes: ObjectChanges, others: ObjectChange[]): Promise<PlannedParts> {
  /** Objects already checked for `update` by this command (the target's own check came first). */
  const checked = new Set<number>([row.id]);
  const writeOf = (part: string): KernelWrite => ({
    ctx,
    trx,
    action,
    actor,
    type,
    row,
    resolve: (key, opts = {}) => requireObject(ctx, key, { viewer: actor, typeName: opts.type, trashed: opts.trashed ?? false, db: trx }),
    recordOther: (other, otherChanged) => others.push(changeOf('update', other, typeById(ctx, other.object_type_id)?.name ?? 'objects', actor, otherChanged)),
    async need(subject, other, opts = {}) {
      // The command's own object was checked first, as the target.
      if (other.id === row.id && !opts.translation) return;
      if (!declares(part, subject, 'update')) throw new Error(`The "${part}" part asks for update on the ${subject}, which rights.ts does not declare`);
      if (opts.translation) {
        await authorizeWrite(ctx, { action: 'update', actor, type: typeById(ctx, other.object_type_id)!, row: other, translation: opts.translation, trx });
        return;
      }
      if (checked.has(other.id)) return;
      checked.add(other.id);
      await authorizeWrite(ctx, { action: 'update', actor, type: typeById(ctx, other.object_type_id)!, row: other, trx });
    },
  });
  const plans: Array<{ w: KernelWrite; plan: PartPlan; name: string }> = [];
  const planned = async (name: string, plan: (w: KernelWrite) => Promise<PartPlan>) => {
    const w = writeOf(name);
    plans.push({ w, plan: await plan(w), name });
  };
  for (const rel of changes.relations ?? []) await planned('relations', (w) => planRelations(w, rel.name, rel.items, rel.mode));
  if (changes.link) {
    const link = changes.link;
    await planned('link', (w) => planLink(w, link));
  }
  for (const [name, value] of Object.entries(changes.parts ?? {})) {
    if (value === undefined) continue;
    const handler = partHandler(ctx, type, name);
    await planned(name, async (w) => (typeof handler === 'function' ? { apply: () => handler(w, value) } : handler.plan(w, value)));
  }
  return {
    async apply(written) {
      const changed: Record<string, unknown> = {};
      const results: Record<string, unknown> = {};
      let identifiers: ResourceIdentifier[] | undefined;
      for (const { w, plan, name } of plans) {
        w.row = written;
        const out = await plan.apply();
        if (out?.changed) Object.assign(changed, out.changed);
        if (out?.written) identifiers = out.written;
        else if (out?.result !== undefined) results[name] = out.result;
      }
      return { changed, results, written: identifiers };
    },
  };
}

/** The command's changes with the attributes that extensions own moved to their parts. */
export function claimAttributeParts(ctx: AppContext, type: ObjectType, changes: ObjectChanges): ObjectChanges {
  let attributes: Record<string, unknown> | undefined = changes.attributes;
  let parts = changes.parts;
  if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) return changes;
  for (const ext of extensionsOf(ctx, type.name)) {
    const claimed: ReturnType<NonNullable<ObjectExtension['attributeParts']>> = ext.attributeParts?.(type, attributes, ctx);
    if (!claimed) continue;
    attributes = claimed.attributes;
    const merged: Record<string, unknown> = { ...(parts ?? {}) };
    for (const [name, value] of Object.entries(claimed.parts)) merged[name] = { ...((merged[name] as object | undefined) ?? {}), ...(value as object) };
    parts = merged as ObjectParts;
  }
  return attributes === changes.attributes ? changes : { ...changes, attributes, parts };
}

export const hasParts = (c: ObjectChanges) => Boolean(c.relations?.length || c.link || Object.values(c.parts ?? {}).some((v) => v !== undefined));
