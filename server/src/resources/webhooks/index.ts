// The webhooks family: the service (an observer of the object write pipeline plus the delivery
// worker) and the /webhooks endpoints. createWebhookService is what the write pipeline wires:
// its `observer` records deliveries inside each write's transaction and wakes the worker after
// the commit.
import type { AppContext } from '../../context.js';
import type { Resource } from '../../http/jsonapi.js';
import type { Family } from '../family.js';
import type { ObjectObserver } from '../objects/changes.js';
import { isSubtypeOf } from '../objects/model.js';
import { SYSTEM } from '../objects/kernel.js';
import { whenCommitted } from '../objects/pipeline.js';
import { readObjectAs } from '../objects/serialize.js';
import { createDeliveryQueue, type DeliveryQueue } from './queue.js';
import { publicationOfChanges, schedulePublicationSweep } from './publication.js';
import { webhookRoutes } from './routes.js';

declare module '../../context.js' {
  interface AppContext {
    /** The webhook family's delivery queue once it is wired, else null (its idle() is what tests wait on). */
    webhooks: WebhookService | null;
  }
}


export interface WebhookServiceOptions {
  /** The object as GET /{type}/{id} shows it to an admin (trashed ones too); null when gone. */
  readObject: (id: number, base: string | null) => Promise<Resource | null>;
  /** Default: config.webhookRetryDelaysMs. */
  retryDelaysMs?: number[];
  /** Default: config.webhookTimeoutMs (10 s). */
  timeoutMs?: number;
  /** Longest sleep between looks at the queue (default 5 s). */
  pollMs?: number;
  /** Deliveries sent at once (default 4). */
  concurrency?: number;
}

export interface WebhookService extends Pick<DeliveryQueue, 'sendTest' | 'redeliver' | 'start' | 'stop' | 'enqueue' | 'wake' | 'idle'> {
  observer: ObjectObserver;
}

export function createWebhookService(ctx: AppContext, options: WebhookServiceOptions): WebhookService {
  const queue = createDeliveryQueue({
    db: ctx.db,
    readCache: ctx.readCache,
    dialect: ctx.dialect,
    log: ctx.log,
    retryDelaysMs: options.retryDelaysMs ?? ctx.config.webhookRetryDelaysMs,
    timeoutMs: options.timeoutMs ?? ctx.config.webhookTimeoutMs,
    pollMs: options.pollMs ?? 5000,
    concurrency: options.concurrency ?? 4,
    typeCovers: (typeName, entry) => isSubtypeOf(ctx, typeName, entry),
    readObject: options.readObject,
  });
  return {
    observer: {
      name: 'webhooks',
      async record(trx, changes) {
        // Publication events are derived in the same transaction, whatever webhooks exist: the
        // states must follow every write (see publication.ts).
        const queued = await queue.enqueue(trx, [...changes, ...(await publicationOfChanges(ctx, trx, changes))]);
        // The workers look at the queue once this commits, only when it holds something new
        // (else every write cost two more queries).
        if (queued) whenCommitted(ctx, trx, () => queue.wake());
      },
    },
    enqueue: queue.enqueue,
    wake: queue.wake,
    sendTest: queue.sendTest,
    redeliver: queue.redeliver,
    idle: queue.idle,
    start: queue.start,
    stop: queue.stop,
  };
}

export const webhooksFamily: Family = {
  name: 'webhooks',
  // The service's observer records deliveries in each write; its worker starts with the routes.
  kernel(ctx) {
    const service = createWebhookService(ctx, { readObject: (id, base) => readObjectAs(ctx, id, SYSTEM, base) });
    ctx.webhooks = service;
    return { observers: [service.observer] };
  },
  routes(ctx) {
    const service = ctx.webhooks!;
    schedulePublicationSweep(ctx, service.enqueue, service.wake);
    ctx.onClose.push(() => service.stop());
    service.start();
    return webhookRoutes(ctx, service);
  },
};
