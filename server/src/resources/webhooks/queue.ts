// The delivery queue of webhooks, kept in `webhook_deliveries`. `enqueue` writes one row per
// matching enabled webhook inside the object write's transaction; the worker claims due rows
// with a lease (jobs/lease.ts, shared with the job queue: two instances never send the same
// attempt) in the worker loop of jobs/worker-loop.ts, builds the
// body once at the first attempt and keeps it, so every retry sends the same bytes and
// signature. Failed attempts are retried after each delay of the schedule, then given up.
import crypto from 'node:crypto';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { SqlDialect } from '../../db/dialect/dialect.js';
import type { ReadCache } from '../../db/read-cache.js';
import type { Database } from '../../db/tables.js';
import { claimDue, createPruner, nextLook, nonePending } from '../../jobs/lease.js';
import { createWorkerLoop } from '../../jobs/worker-loop.js';
import { nowIso } from '../../db/time.js';
import type { Resource } from '../../http/jsonapi.js';
import type { DraftEvent, ObjectChange, PublicationAction } from '../objects/changes.js';
import { sendDelivery, type SendResult } from './send.js';
import { prepared } from '../../db/prepared.js';
import { parseList, TEST_EVENT, type DeliveryRow } from './service.js';
import type { WebhookDeliveriesTable } from './tables.js';

export interface QueueOptions {
  db: Kysely<Database>;
  /** Keeps the list of enabled webhooks between writes (read-cache.ts, scope 'settings'). */
  readCache: ReadCache;
  dialect: SqlDialect;
  log: (line: string) => void;
  /** Waits before the 2nd, 3rd… attempt; its length + 1 is the number of tries. */
  retryDelaysMs: number[];
  /** Longest wait for a receiver's answer. */
  timeoutMs: number;
  /** Longest sleep of the worker between looks at the queue (other instances' rows, expired leases). */
  pollMs: number;
  /** Deliveries sent at once by this instance. */
  concurrency: number;
  /** Whether a change of type `typeName` falls under a webhook's `types` entry (abstract names cover sub-types). */
  typeCovers: (typeName: string, entry: string) => boolean;
  /** `data` of an event: the object as an admin reads it (null when it no longer exists). */
  readObject: (id: number, base: string | null) => Promise<Resource | null>;
}

/** What a delivery is queued for: an object's change, a publication event or a draft's event. */
export type QueuedEvent = Omit<ObjectChange, 'action'> & { action: ObjectChange['action'] | PublicationAction | DraftEvent };

/** The event name a webhook lists: `objects.<action>`, or a draft's event as it is named. */
const eventName = (action: QueuedEvent['action']) => (action.includes('.') ? action : `objects.${action}`);

export interface DeliveryQueue {
  /** Inside the write's transaction: a delivery row per matching enabled webhook and change. */
  /** Resolves with the number of deliveries written (none: no enabled webhook listens). */
  enqueue(trx: Transaction<Database>, changes: QueuedEvent[]): Promise<number>;
  /** Look at the queue now (after a commit that enqueued something). */
  wake(): void;
  /** Send a test event to one webhook now, once, whatever its `enabled` and `events`; answers the delivery as it ended. */
  sendTest(webhook: { id: number; name: string; url: string; events: string[]; types: string[] }, userId: number | null): Promise<DeliveryRow>;
  /** Queue a delivery again from its first attempt's bytes (a fresh set of tries). */
  redeliver(webhookId: number, uuid: string): Promise<boolean>;
  /**
   * Resolves when no delivery is pending (waiting retries and attempts under way included): every
   * delivery queued so far has been sent, its outcome written, or given up.
   */
  idle(): Promise<void>;
  start(): void;
  /** Stop claiming; attempts under way get up to the answer timeout, then are abandoned (not counted) and released. */
  stop(): Promise<void>;
}

/** Longest a claim holds a row past the answer timeout (a crashed worker's rows return then). */
const LEASE_MARGIN_MS = 30_000;
/** Rows per INSERT (SQLite allows 32,766 bound values; a row binds about 12). */
const INSERT_CHUNK = 500;

interface Listener {
  id: number;
  events: string[];
  types: string[];
}

/** Every object write asks this, once per settings version (prepared). */
const enabledWebhooks = prepared<{ id: number; events: string; types: string }, []>((db) =>
  db.selectFrom('webhooks').select(['id', 'events', 'types']).where('enabled', '=', true),
);

export function createDeliveryQueue(opts: QueueOptions): DeliveryQueue {
  const { db, log } = opts;
  const owner = crypto.randomUUID(); // this worker, in lease_owner: releases only touch its own claims
  const leaseMs = opts.timeoutMs + LEASE_MARGIN_MS;
  const maxAttempts = opts.retryDelaysMs.length + 1;

  const inFlight = new Set<AbortController>();
  const attempts = new Set<Promise<void>>();

  const matches = (l: Listener, c: Pick<QueuedEvent, 'typeName' | 'action'>) =>
    (l.events.includes('*') || l.events.includes(eventName(c.action))) && (!l.types.length || l.types.some((t) => opts.typeCovers(c.typeName, t)));

  async function enqueue(trx: Transaction<Database>, changes: QueuedEvent[]): Promise<number> {
    if (!changes.length) return 0;
    // Read through the write's transaction, kept until a write to `webhooks` (a settings table).
    // No unit of work writes webhooks and objects together, so what is read here is committed.
    const enabled = await opts.readCache.get('webhooks:enabled', () => enabledWebhooks(trx), 'settings');
    const listeners: Listener[] = enabled.map((w) => ({
      id: w.id,
      events: parseList(w.events),
      types: parseList(w.types),
    }));
    if (!listeners.length) return 0;
    const created = nowIso();
    const now = Date.now();
    const rows: Insertable<WebhookDeliveriesTable>[] = [];
    for (const c of changes) {
      for (const l of listeners) {
        if (!matches(l, c)) continue;
        rows.push({
          uuid: crypto.randomUUID(),
          webhook_id: l.id,
          event: eventName(c.action),
          resource_type: c.typeName,
          resource_id: String(c.id),
          user_id: c.userId,
          base: c.base,
          body: null,
          created,
          state: 'pending',
          max_attempts: maxAttempts,
          next_at: now,
        });
      }
    }
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) await trx.insertInto('webhook_deliveries').values(rows.slice(i, i + INSERT_CHUNK)).execute();
    return rows.length;
  }

  /** The exact bytes of a delivery: built from the object as it reads now, once. */
  async function buildBody(d: DeliveryRow): Promise<string> {
    const data = d.event === 'objects.remove' ? null : await opts.readObject(Number(d.resource_id), d.base);
    return JSON.stringify({
      id: d.uuid,
      event: d.event,
      created: d.created,
      resource: { type: d.resource_type, id: d.resource_id },
      user_id: d.user_id === null ? null : String(d.user_id),
      data,
    });
  }

  const mineOnly = (id: number) => db.updateTable('webhook_deliveries').where('id', '=', id).where('lease_owner', '=', owner);

  /** One attempt of a claimed row; stop() waits for every attempt under way. */
  function attempt(id: number): Promise<void> {
    const p = attemptOnce(id).finally(() => attempts.delete(p));
    attempts.add(p);
    return p;
  }

  /** The row's outcome is written before this resolves. */
  async function attemptOnce(id: number): Promise<void> {
    const d = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    const hook = d && (await db.selectFrom('webhooks').select(['url', 'secret']).where('id', '=', d.webhook_id).executeTakeFirst());
    if (!d || !hook) return; // deleted meanwhile, with its webhook
    const ac = new AbortController();
    inFlight.add(ac);
    try {
      let body = d.body;
      let result: SendResult;
      try {
        if (body === null) {
          body = await buildBody(d);
          await mineOnly(id).set({ body }).execute();
        }
      } catch (err) {
        // Counted as a failed try, so a body that cannot be built is not attempted forever.
        body = null;
        log(`webhook delivery ${d.uuid}: the event could not be built: ${(err as Error)?.stack ?? err}`);
      }
      if (body === null) result = { status: null, ok: false, error: 'The event could not be built (see the server log)' };
      else result = await sendDelivery({ url: hook.url, body, event: d.event, deliveryId: d.uuid, secret: hook.secret }, opts.timeoutMs, ac.signal);
      if (ac.signal.aborted) {
        // Shutting down: the attempt does not count; another start (or instance) sends it again.
        await mineOnly(id).set({ lease_until: null, lease_owner: null }).execute();
        return;
      }
      const attempts = d.attempts + 1;
      const now = nowIso();
      const common = { attempts, status: result.status, last_attempt: now, lease_until: null, lease_owner: null };
      if (result.ok) {
        await mineOnly(id).set({ ...common, state: 'delivered', delivered: now, error: null }).execute();
      } else if (attempts >= d.max_attempts) {
        await mineOnly(id).set({ ...common, state: 'failed', error: result.error }).execute();
        log(`webhook ${d.webhook_id}: delivery ${d.uuid} (${d.event}) given up after ${attempts} attempt(s): ${result.error}`);
      } else {
        const delay = opts.retryDelaysMs[Math.min(attempts - 1, opts.retryDelaysMs.length - 1)] ?? 0;
        await mineOnly(id).set({ ...common, error: result.error, next_at: Date.now() + delay }).execute();
      }
    } finally {
      inFlight.delete(ac);
    }
  }

  const pruneOld = createPruner(db, 'webhook_deliveries');

  async function drain(stopping: () => boolean): Promise<void> {
    await pruneOld();
    while (!stopping()) {
      const ids = await claimDue(db, opts.dialect, { table: 'webhook_deliveries', owner, leaseMs, limit: opts.concurrency });
      if (!ids.length) break;
      await Promise.all(ids.map((id) => attempt(id).catch((err) => log(`webhook delivery ${id} failed: ${(err as Error)?.stack ?? err}`))));
    }
  }

  const loop = createWorkerLoop({ name: 'webhook queue', log, pollMs: opts.pollMs, drain, nextLook: () => nextLook(db, 'webhook_deliveries', opts.pollMs) });
  const wake = () => loop.wake();

  return {
    enqueue,
    wake,
    async sendTest(webhook, userId) {
      const uuid = crypto.randomUUID();
      const created = nowIso();
      const body = JSON.stringify({
        id: uuid,
        event: TEST_EVENT,
        created,
        resource: { type: 'webhooks', id: String(webhook.id) },
        user_id: userId === null ? null : String(userId),
        data: { id: String(webhook.id), type: 'webhooks', attributes: { name: webhook.name, url: webhook.url, events: webhook.events, types: webhook.types } },
      });
      // Inserted already claimed by this worker, so the queue never sends it a second time.
      const row = await db
        .insertInto('webhook_deliveries')
        .values({
          uuid,
          webhook_id: webhook.id,
          event: TEST_EVENT,
          resource_type: 'webhooks',
          resource_id: String(webhook.id),
          user_id: userId,
          base: null,
          body,
          created,
          state: 'pending',
          max_attempts: 1,
          next_at: Date.now(),
          lease_until: Date.now() + leaseMs,
          lease_owner: owner,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await attempt(Number(row.id));
      return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', Number(row.id)).executeTakeFirstOrThrow();
    },
    async redeliver(webhookId, uuid) {
      const res = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          state: 'pending',
          next_at: Date.now(),
          // A test event gets one more try; an object event a fresh schedule.
          max_attempts: eb.case().when('event', '=', TEST_EVENT).then(eb('attempts', '+', 1)).else(eb('attempts', '+', maxAttempts)).end(),
          delivered: null,
        }))
        .where('webhook_id', '=', webhookId)
        .where('uuid', '=', uuid)
        .where('state', '!=', 'pending')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows)) wake();
      return Number(res.numUpdatedRows) === 1;
    },
    idle: () => nonePending(db, 'webhook_deliveries', wake),
    start: () => loop.start(),
    async stop() {
      // Attempts under way may finish (as requests in flight do) for up to the answer timeout;
      // those still waiting then are abandoned, not counted, and sent again after a restart.
      const abandon = setTimeout(() => {
        for (const ac of inFlight) ac.abort();
      }, opts.timeoutMs);
      await loop.stop();
      await Promise.allSettled([...attempts]);
      clearTimeout(abandon);
    },
  };
}
