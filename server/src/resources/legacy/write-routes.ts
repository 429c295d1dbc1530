// The legacy write family on /objects… (authentication required; the type must be writable).
import type { Request } from 'express';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { ApiError } from '../../http/errors.js';
import { baseUrl } from '../../http/links.js';
import { parsePaging } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { legacyPaging, legacyRoute, sendLegacy } from './envelope.js';
import { formatObjects, legacyTypeName } from './format.js';
import { sendObject } from './read-routes.js';
import { childPosition, findReachable, listChildren, listRelated, openReader, relationDetail, relationSide, withTypeNames } from './reader.js';
import { requireObject } from '../objects/read.js';
import { SYSTEM } from '../objects/kernel.js';
import { addLegacyChildren, addLegacyRelations, createLegacyObject, legacyData, putLegacyChild, putLegacyRelation, updateLegacyObject } from './writer.js';

const readerIn = (ctx: AppContext, req: Request) => (trx: Transaction<Database>) => openReader(ctx, req, trx);

export function legacyWriteRoutes(ctx: AppContext): RouteDef[] {
  return [
    legacyRoute('objects', {
      method: 'post',
      path: '/objects',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const [data] = legacyData(req);
        const creating = data.id === undefined || data.id === null;
        const id = creating ? await createLegacyObject(ctx, req, readerIn(ctx, req), data) : await updateLegacyObject(ctx, req, readerIn(ctx, req), data);
        const r = await openReader(ctx, req);
        const status = creating ? 201 : 200;
        const headers = creating ? { Location: `${baseUrl(req)}/objects/${id}` } : undefined;
        // As the writer reads it after the write; one it may no longer read: its id and type alone.
        const row = await findReachable(r, String(id)).catch((err) => {
          if (err instanceof ApiError && err.status === 404) return undefined;
          throw err;
        });
        if (row) await sendObject(r, req, res, row, status, headers);
        else sendLegacy(req, res, { object: { id, object_type: legacyTypeName(withTypeNames(ctx, await requireObject(ctx, id, { viewer: SYSTEM })), r.publication.id) } }, { status, headers });
      },
    }),
    legacyRoute('objects', {
      method: 'post',
      path: '/objects/:id/relations/:name',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const items = legacyData(req, true);
        const name = String(req.params.name);
        const objectId = await addLegacyRelations(ctx, readerIn(ctx, req), String(req.params.id), name, items);
        const r = await openReader(ctx, req);
        const page = parsePaging({});
        const list = await listRelated(r, objectId, relationSide(r.ctx, name), page);
        const objects = await formatObjects(r, req, list.rows);
        sendLegacy(req, res, { objects }, {
          status: 201,
          paging: legacyPaging(page.page, page.pageSize, list.total, objects.length),
          headers: { Location: `${baseUrl(req)}/objects/${objectId}/relations/${encodeURIComponent(name)}` },
        });
      },
    }),
    legacyRoute('objects', {
      method: 'put',
      path: '/objects/:id/relations/:name/:relatedId',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const [data] = legacyData(req);
        const { row, related, rel } = await putLegacyRelation(ctx, readerIn(ctx, req), String(req.params.id), String(req.params.name), String(req.params.relatedId), data);
        const r = await openReader(ctx, req);
        sendLegacy(req, res, await relationDetail(r, row.id, rel, related.id));
      },
    }),
    legacyRoute('objects', {
      method: 'post',
      path: '/objects/:id/children',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const folder = await addLegacyChildren(ctx, readerIn(ctx, req), String(req.params.id), legacyData(req, true));
        const r = await openReader(ctx, req);
        const page = parsePaging({});
        const list = await listChildren(r, folder, 'all', page, null);
        const objects = await formatObjects(r, req, list.rows);
        sendLegacy(req, res, { objects }, { paging: legacyPaging(page.page, page.pageSize, list.total, objects.length) });
      },
    }),
    legacyRoute('objects', {
      method: 'put',
      path: '/objects/:id/children/:childId',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const body = req.body as Record<string, unknown>;
        // `priority` may come at the top level or inside `data`.
        const data = body && typeof body.data === 'object' && body.data !== null ? (body.data as Record<string, unknown>) : body;
        const { folder, child } = await putLegacyChild(ctx, readerIn(ctx, req), String(req.params.id), String(req.params.childId), data ?? {});
        const r = await openReader(ctx, req);
        sendLegacy(req, res, { priority: await childPosition(r, folder, child.id) });
      },
    }),
  ];
}
