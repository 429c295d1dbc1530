// TEMP: until the lead's write pipeline notifies every observer, objects/service.ts calls this
// from its writes (lines marked "TEMP webhook hook"). Delete this file with those lines.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import type { ObjectAction, ObjectChange } from '../objects/changes.js';
import { typeById } from '../objects/model.js';
import type { WebhookService } from './index.js';

export async function tempWebhookHook(
  ctx: AppContext,
  trx: Transaction<Database>,
  action: ObjectAction,
  rows: Array<{ id: number; object_type_id: number }>,
  userId: number | null,
): Promise<void> {
  const service = ctx.services.webhooks as WebhookService | undefined;
  if (!service) return;
  const changes: ObjectChange[] = rows.map((r) => ({
    action,
    id: r.id,
    typeName: typeById(ctx, r.object_type_id)?.name ?? 'objects',
    userId,
    applicationId: null,
    changed: {},
    base: ctx.config.baseUrl,
  }));
  await service.observer.record?.(trx, changes);
  // The commit is not visible from here: the worker's first query waits for the connection,
  // so it runs after the commit (and finds nothing after a rollback).
  setImmediate(() => service.observer.afterCommit?.(changes));
}
