// /webhooks (admins only): CRUD of webhooks, their deliveries, a test event, a new secret and
// sending a finished delivery again.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { conflict } from '../../http/errors.js';
import { resourceUrl, sendList, sendResource } from '../../http/jsonapi.js';
import { byNumericId, crudRoutes, pagedList } from '../../http/crud.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { pathId } from '../../http/params.js';
import type { WebhookService } from './index.js';
import {
  DELIVERY_LIST_SPEC,
  WEBHOOK_LIST_SPEC,
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  rotateSecret,
  serializeDelivery,
  serializeWebhook,
  updateWebhook,
  validateWebhookInput,
  type DeliveryRow,
  type WebhookRow,
  type WebhookInput,
} from './service.js';

const deliveryUuid = (req: Request) => String(req.params.uuid);

export function webhookRoutes(ctx: AppContext, service: WebhookService): RouteDef[] {
  const sendWebhook = async (req: Request, res: Parameters<RouteDef['handler']>[1], id: number, status = 200) => {
    const resource = serializeWebhook(req, await getWebhook(ctx.db, id));
    sendResource(req, res, resource, status === 201 ? { status, headers: { Location: resourceUrl(req, `/webhooks/${id}`) } } : {});
  };
  /** A single delivery also shows the exact body sent (once built). */
  const deliveryWithBody = (req: Request, d: DeliveryRow) => {
    const resource = serializeDelivery(req, d);
    resource.meta = { ...resource.meta, body: d.body === null ? null : JSON.parse(d.body) };
    return resource;
  };

  return [
    ...crudRoutes<WebhookRow>({
      path: '/webhooks',
      type: 'webhooks',
      writes: ['webhooks'],
      list: pagedList(WEBHOOK_LIST_SPEC, (q) => listWebhooks(ctx.db, q), serializeWebhook),
      find: byNumericId((id) => getWebhook(ctx.db, id)),
      idOf: (row) => row.id,
      async create(attributes) {
        const id = await createWebhook(ctx.db, validateWebhookInput(ctx, attributes, true) as WebhookInput & { name: string; url: string });
        return { row: await getWebhook(ctx.db, id) };
      },
      async update(row, attributes) {
        await updateWebhook(ctx.db, row.id, validateWebhookInput(ctx, attributes, false));
        return getWebhook(ctx.db, row.id);
      },
      remove: (row) => deleteWebhook(ctx.db, row.id),
      serialize: serializeWebhook,
    }),
    {
      method: 'post',
      path: '/webhooks/:id/secret',
      writes: ['webhooks'],
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        await rotateSecret(ctx.db, id);
        await sendWebhook(req, res, id);
      },
    },
    {
      method: 'post',
      path: '/webhooks/:id/test',
      writes: ['webhook_deliveries'],
      guard: 'admin',
      handler: async (req, res) => {
        const w = serializeWebhook(req, await getWebhook(ctx.db, pathId(req)));
        const a = w.attributes as { name: string; url: string; events: string[]; types: string[] };
        const d = await service.sendTest({ id: Number(w.id), ...a }, req.auth.userId);
        sendResource(req, res, deliveryWithBody(req, d), { status: 201, headers: { Location: resourceUrl(req, `/webhooks/${w.id}/deliveries/${d.uuid}`) } });
      },
    },
    {
      method: 'get',
      path: '/webhooks/:id/deliveries',
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        const q = parseListQuery(req, DELIVERY_LIST_SPEC);
        const { rows, count } = await listDeliveries(ctx.db, id, q);
        sendList(req, res, rows.map((d) => serializeDelivery(req, d)), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    {
      method: 'get',
      path: '/webhooks/:id/deliveries/:uuid',
      guard: 'admin',
      handler: async (req, res) => sendResource(req, res, deliveryWithBody(req, await getDelivery(ctx.db, pathId(req), deliveryUuid(req)))),
    },
    {
      method: 'post',
      path: '/webhooks/:id/deliveries/:uuid/redeliver',
      writes: ['webhook_deliveries'],
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        const uuid = deliveryUuid(req);
        await getDelivery(ctx.db, id, uuid);
        if (!(await service.redeliver(id, uuid))) throw conflict('The delivery is still waiting to be sent', 'delivery_pending');
        sendResource(req, res, deliveryWithBody(req, await getDelivery(ctx.db, id, uuid)), { status: 202 });
      },
    },
  ];
}
