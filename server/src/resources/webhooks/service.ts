// Webhooks (admins only): what each one listens to, its signing secret, and the deliveries made
// for it. The delivery queue itself lives in queue.ts; this module owns the rows of `webhooks`
// and the read side of `webhook_deliveries`.
import crypto from 'node:crypto';
import type { Request } from 'express';
import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest, notFound } from '../../http/errors.js';
import { resourceUrl, type Resource } from '../../http/jsonapi.js';
import { listPage, type ListQuery, type ListSpec } from '../../http/query.js';
import { typeByName } from '../objects/model.js';
import { resourceSchema, validateAgainstSchema, type PropertySchema } from '../objects/schema.js';
import type { WebhookDeliveriesTable, WebhooksTable } from './tables.js';

type Db = Kysely<Database> | Transaction<Database>;
export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export const WEBHOOK_EVENTS = ['objects.create', 'objects.update', 'objects.trash', 'objects.restore', 'objects.remove', 'objects.publish', 'objects.unpublish', 'drafts.submitted'] as const;
/** The event of POST /webhooks/{id}/test: sent only on request, never matched by `events`. */
export const TEST_EVENT = 'webhooks.test';

const SCHEMA = resourceSchema(
  {
    name: { type: 'string', minLength: 1, maxLength: 255, isMeta: false },
    url: { type: 'string', minLength: 1, maxLength: 2048, isMeta: false },
    events: { type: 'array', items: { type: 'string', enum: [...WEBHOOK_EVENTS, '*'] }, minItems: 1, maxItems: 20, uniqueItems: true, isMeta: false },
    types: { type: ['array', 'null'], items: { type: 'string', maxLength: 64 }, maxItems: 200, uniqueItems: true, isMeta: false },
    enabled: { type: 'boolean', isMeta: false },
  } satisfies Record<string, PropertySchema>,
  ['name', 'url'],
);

export interface WebhookInput {
  name?: string;
  url?: string;
  events?: string[];
  types?: string[] | null;
  enabled?: boolean;
}

/** Only http and https, with a host: anything else can never be delivered. */
function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`"url" is not a valid URL: ${url}`, 'invalid_data');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest('"url" must be an http or https URL', 'invalid_data');
  if (!parsed.hostname) throw badRequest('"url" must name a host', 'invalid_data');
}

/** Attributes of a POST (create) or PATCH: 400 naming the first bad one. */
export function validateWebhookInput(ctx: AppContext, attributes: Record<string, unknown>, create: boolean): WebhookInput {
  const input = validateAgainstSchema(ctx, 'webhooks', 1, SCHEMA, attributes, !create) as WebhookInput;
  if (input.url !== undefined) checkUrl(input.url);
  for (const name of input.types ?? []) {
    if (!typeByName(ctx, name)) throw badRequest(`"types": unknown object type "${name}"`, 'invalid_data');
  }
  return input;
}

/** A JSON array column (events, types) as strings. */
export const parseList = (text: string): string[] => {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
};

export function serializeWebhook(req: Request, w: WebhookRow): Resource {
  return {
    id: String(w.id),
    type: 'webhooks',
    attributes: { name: w.name, url: w.url, events: parseList(w.events), types: parseList(w.types), enabled: Boolean(w.enabled) },
    meta: { secret: w.secret, created: w.created, modified: w.modified },
    links: { self: resourceUrl(req, `/webhooks/${w.id}`), deliveries: resourceUrl(req, `/webhooks/${w.id}/deliveries`) },
  };
}

export async function getWebhook(db: Db, id: number): Promise<WebhookRow> {
  const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`No webhook with id ${id}`);
  return row;
}

export const newSecret = () => crypto.randomBytes(32).toString('hex');

export async function createWebhook(db: Kysely<Database>, input: WebhookInput & { name: string; url: string }): Promise<number> {
  const now = nowIso();
  const row = await db
    .insertInto('webhooks')
    .values({
      name: input.name,
      url: input.url,
      events: JSON.stringify(input.events ?? ['*']),
      types: JSON.stringify(input.types ?? []),
      enabled: input.enabled ?? true,
      secret: newSecret(),
      created: now,
      modified: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateWebhook(db: Kysely<Database>, id: number, input: WebhookInput): Promise<void> {
  const set: Updateable<WebhooksTable> = { modified: nowIso() };
  if (input.name !== undefined) set.name = input.name;
  if (input.url !== undefined) set.url = input.url;
  if (input.events !== undefined) set.events = JSON.stringify(input.events);
  if (input.types !== undefined) set.types = JSON.stringify(input.types ?? []);
  if (input.enabled !== undefined) set.enabled = input.enabled;
  const res = await db.updateTable('webhooks').set(set).where('id', '=', id).executeTakeFirst();
  if (!Number(res.numUpdatedRows)) throw notFound(`No webhook with id ${id}`);
}

/** A new secret; deliveries already built keep the signature they were first sent with. */
export async function rotateSecret(db: Kysely<Database>, id: number): Promise<void> {
  const res = await db.updateTable('webhooks').set({ secret: newSecret(), modified: nowIso() }).where('id', '=', id).executeTakeFirst();
  if (!Number(res.numUpdatedRows)) throw notFound(`No webhook with id ${id}`);
}

/** The webhook and its deliveries (pending ones are never sent). */
export async function deleteWebhook(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await getWebhook(trx, id);
    await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
    await trx.deleteFrom('webhooks').where('id', '=', id).execute();
  });
}

export const WEBHOOK_LIST_SPEC: ListSpec = {
  fields: { id: 'integer', name: 'string', enabled: 'boolean', created: 'date', modified: 'date' },
  defaultSort: 'id',
};
const WEBHOOK_COLUMNS = { id: 'webhooks.id', name: 'webhooks.name', enabled: 'webhooks.enabled', created: 'webhooks.created', modified: 'webhooks.modified' };

export async function listWebhooks(db: Kysely<Database>, q: ListQuery) {
  return listPage(db.selectFrom('webhooks').selectAll(), q, WEBHOOK_COLUMNS, 'webhooks.id');
}

// ---- deliveries (read side) ----

export function serializeDelivery(req: Request, d: DeliveryRow): Resource {
  return {
    id: d.uuid,
    type: 'webhook_deliveries',
    attributes: {
      event: d.event,
      resource_id: d.resource_id,
      status: d.status,
      attempts: d.attempts,
      delivered: d.delivered,
      created: d.created,
      last_attempt: d.last_attempt,
    },
    meta: {
      resource_type: d.resource_type,
      state: d.state,
      max_attempts: d.max_attempts,
      next_attempt: d.state === 'pending' ? new Date(Number(d.next_at)).toISOString() : null,
      error: d.error,
    },
    links: { self: resourceUrl(req, `/webhooks/${d.webhook_id}/deliveries/${d.uuid}`) },
  };
}

export const DELIVERY_LIST_SPEC: ListSpec = {
  fields: { event: 'string', resource_id: 'string', status: 'integer', attempts: 'integer', delivered: 'date', created: 'date', last_attempt: 'date', state: 'string' },
  sortable: ['id', 'created', 'last_attempt', 'delivered', 'attempts', 'status', 'event'],
  defaultSort: 'id',
};
const DELIVERY_COLUMNS = {
  id: 'webhook_deliveries.id',
  event: 'webhook_deliveries.event',
  resource_id: 'webhook_deliveries.resource_id',
  status: 'webhook_deliveries.status',
  attempts: 'webhook_deliveries.attempts',
  delivered: 'webhook_deliveries.delivered',
  created: 'webhook_deliveries.created',
  last_attempt: 'webhook_deliveries.last_attempt',
  state: 'webhook_deliveries.state',
};

export async function listDeliveries(db: Kysely<Database>, webhookId: number, q: ListQuery) {
  await getWebhook(db, webhookId);
  return listPage(db.selectFrom('webhook_deliveries').selectAll().where('webhook_deliveries.webhook_id', '=', webhookId), q, DELIVERY_COLUMNS, 'webhook_deliveries.id');
}

export async function getDelivery(db: Db, webhookId: number, uuid: string): Promise<DeliveryRow> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('uuid', '=', uuid).executeTakeFirst();
  if (!row) throw notFound(`No delivery ${uuid} of webhook ${webhookId}`);
  return row;
}
