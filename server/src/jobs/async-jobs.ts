// Jobs as BEdita 5's /async_jobs writes them: a client queues a job of a service for an outside
// runner (Folio runs only its own kinds, jobs/queue.ts), changes a waiting one, or removes one.
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { nowIso } from '../db/time.js';

/** What a client sets on a job (already validated). */
export interface AsyncJobInput {
  service?: string;
  payload?: unknown;
  priority?: number;
  max_attempts?: number;
  /** Not before this instant (ISO 8601); null: now. */
  scheduled_from?: string | null;
  expires?: string | null;
}

const nextAt = (scheduled: string | null | undefined) => (scheduled ? Date.parse(scheduled) : Date.now());

export async function createAsyncJob(db: Kysely<Database>, input: AsyncJobInput & { service: string }): Promise<number> {
  const row = await db
    .insertInto('jobs')
    .values({
      kind: input.service,
      payload: input.payload === undefined ? null : JSON.stringify(input.payload),
      dedupe_key: null,
      state: 'pending',
      created: nowIso(),
      next_at: nextAt(input.scheduled_from),
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      ...(input.max_attempts !== undefined ? { max_attempts: input.max_attempts } : {}),
      expires: input.expires ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateAsyncJob(db: Kysely<Database>, id: number, input: AsyncJobInput): Promise<void> {
  const set: Record<string, unknown> = {};
  if (input.service !== undefined) set.kind = input.service;
  if (input.payload !== undefined) set.payload = input.payload === null ? null : JSON.stringify(input.payload);
  if (input.priority !== undefined) set.priority = input.priority;
  if (input.max_attempts !== undefined) set.max_attempts = input.max_attempts;
  if (input.scheduled_from !== undefined) set.next_at = nextAt(input.scheduled_from);
  if (input.expires !== undefined) set.expires = input.expires;
  if (Object.keys(set).length) await db.updateTable('jobs').set(set).where('id', '=', id).execute();
}

export async function deleteAsyncJob(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', id).execute();
}
