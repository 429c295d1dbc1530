// /streams: upload (raw body streamed to the file store), read, list, download the bytes, link
// to a media object, delete. Every read follows the linked media object's visibility.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import { identifiersInput, requestData, sendList, sendLinks, sendNoContent, sendResource } from '../../http/jsonapi.js';
import { flatValues, listPage, parseListQuery, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { sendStored } from '../../http/send-stored.js';
import { streamFile } from '../../storage/storage.js';
import type { Family } from '../family.js';
import { mediaExtensions, mediaObjectRoutes } from './media-objects.js';
import { scheduleOrphanSweep } from './orphans.js';
import { serializeStream } from './serialize.js';
import type { StreamService } from './service.js';
import { uploadInput } from './upload-input.js';
import { scheduleUploadPurge } from './upload-tokens.js';

const LIST: ListSpec = {
  fields: { file_name: 'string', mime_type: 'string', file_size: 'integer', width: 'integer', height: 'integer', created: 'date', modified: 'date' },
  defaultSort: 'created',
};
const COLUMNS: Record<string, string> = {
  file_name: 'streams.file_name',
  mime_type: 'streams.mime_type',
  file_size: 'streams.file_size',
  width: 'streams.width',
  height: 'streams.height',
  created: 'streams.created',
  modified: 'streams.modified',
};

async function listStreams(req: Request, res: Response, streams: StreamService) {
  if (req.query.id !== undefined) {
    const found = await streams.streamsByUuid(req.auth, flatValues(req.query.id, 'id'));
    const data = found.map((s) => serializeStream(req, s));
    return sendList(req, res, data, { count: data.length, page: 1, pageSize: Math.max(1, data.length) });
  }
  const q = parseListQuery(req, LIST);
  const { rows, count } = await listPage(streams.visibleQuery(req.auth), q, COLUMNS, 'streams.uuid');
  const data = rows.map((r) => serializeStream(req, streams.toView(r)));
  sendList(req, res, data, { count: Number(count), page: q.page, pageSize: q.pageSize });
}

async function download(req: Request, res: Response, ctx: AppContext) {
  const streams = ctx.streams;
  const s = await streams.readableStream(req.auth, String(req.params.uuid));
  res.attachment(s.file_name);
  res.setHeader('Content-Type', s.mime_type);
  // Uploaded HTML or SVG must never run as a page of this origin.
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  const seconds = await streams.publicSeconds(req.auth, s, 3600);
  res.setHeader('Cache-Control', seconds === null ? 'private, no-cache' : `public, max-age=${seconds}`);
  // A strong validator from the content hash: the same on every server, stable across restores.
  res.setHeader('ETag', `"${s.hash_sha1}"`);
  await sendStored(req, res, ctx.storage, streamFile(s.uuid), { etag: false });
}

export const streamsFamily: Family = {
  name: 'streams',
  kernel: (ctx) => ({ extensions: mediaExtensions(ctx.streams) }),
  routes: streamsRoutes,
};

function streamsRoutes(ctx: AppContext): RouteDef[] {
  const streams = ctx.streams;
  const mediaRoutes = mediaObjectRoutes(ctx, streams);
  scheduleUploadPurge(ctx);
  scheduleOrphanSweep(ctx);
  return [
    {
      method: 'post',
      path: '/streams/upload/:file_name',
      writes: ['streams'],
      guard: 'user',
      body: 'raw',
      handler: async (req, res) => {
        const s = await streams.storeStream(req, uploadInput(req, String(req.params.file_name)), req.auth.userId);
        const resource = serializeStream(req, s);
        sendResource(req, res, resource, { status: 201, headers: { Location: resource.links!.self! } });
      },
    },
    {
      method: 'post',
      path: '/streams/clone/:uuid',
      writes: ['streams'],
      guard: 'user',
      body: 'none',
      handler: async (req, res) => {
        const resource = serializeStream(req, await streams.cloneStream(req.auth, String(req.params.uuid)));
        sendResource(req, res, resource, { status: 201, headers: { Location: resource.links!.self! } });
      },
    },
    { method: 'get', path: '/streams', guard: 'anonymous', handler: (req, res) => listStreams(req, res, streams) },
    {
      method: 'get',
      path: '/streams/download/:uuid',
      guard: 'anonymous',
      produces: 'any',
      handler: (req, res) => download(req, res, ctx),
    },
    {
      method: 'get',
      path: '/streams/:uuid',
      guard: 'anonymous',
      handler: async (req, res) => sendResource(req, res, serializeStream(req, await streams.readableStream(req.auth, String(req.params.uuid)))),
    },
    {
      method: 'patch',
      path: '/streams/:uuid/relationships/object',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const data = requestData(req);
        if (Array.isArray(data)) throw badRequest('"data" must be one media object identifier or null', 'invalid_body');
        const target = data === null ? null : identifiersInput(req)[0];
        await streams.linkStream(String(req.params.uuid), target, req.auth);
        sendLinks(req, res);
      },
    },
    {
      method: 'delete',
      path: '/streams/:uuid',
      writes: ['streams'],
      guard: 'user',
      handler: async (req, res) => {
        await streams.readableStream(req.auth, String(req.params.uuid));
        await streams.deleteStreamAs(String(req.params.uuid), req.auth);
        sendNoContent(res);
      },
    },
    ...mediaRoutes,
  ];
}
