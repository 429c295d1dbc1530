// Media objects (images, files, audio, videos and their sub-types) as the objects family serves
// them, extended here: their streams in relationships.streams.data and `included`, the main
// file's url in meta.media_url; trash keeps the files, permanent delete removes them. Also the
// one-step upload (stream + media object), /{mediaType}/{id}/streams, /streams/{uuid}/object and
// the streams schema at /model/schema/streams.
import type { AppContext } from '../../context.js';
import { badRequest, notFound } from '../../http/errors.js';
import { relationshipLinks, relationshipLinksAt, resourceUrl, sendList, sendResource } from '../../http/jsonapi.js';
import { readContext } from '../../http/read-context.js';
import { baseUrl } from '../../http/links.js';
import { acceptsLegacy } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';
import type { ObjectExtension } from '../objects/extensions.js';
import { endpointType } from '../objects/model.js';
import { registerResourceSchema, resourceSchema } from '../objects/schema.js';
import { objectPath, requireObject } from '../objects/read.js';
import { serializeObject } from '../objects/serialize.js';
import { apply, SYSTEM } from '../objects/kernel.js';
import { downloadPath, serializeStream } from './serialize.js';
import { assertAccepts, mediaRootOf } from './media-types.js';
import { mayDownload, type StreamService, type StreamView } from './service.js';
import { uploadInput } from './upload-input.js';
import { typeRoute } from '../objects/type-routes.js';
import { sendWritten } from '../objects/routes.js';

/** Legacy clients (Accept naming text/javascript) get the legacy /files endpoints instead. */

const STREAM_SCHEMA = resourceSchema(
  {
    file_name: { type: 'string', maxLength: 255, isMeta: false },
    mime_type: { type: 'string', maxLength: 255, isMeta: false },
    private_url: { type: 'boolean', isMeta: false },
    file_size: { type: 'integer', isMeta: true },
    hash_md5: { type: 'string', maxLength: 32, isMeta: true },
    hash_sha1: { type: 'string', maxLength: 40, isMeta: true },
    width: { type: ['integer', 'null'], isMeta: true },
    height: { type: ['integer', 'null'], isMeta: true },
    url: { type: 'string', format: 'uri', isMeta: true },
    created: { type: 'string', format: 'date-time', isMeta: true },
    modified: { type: 'string', format: 'date-time', isMeta: true },
  },
  ['file_name', 'mime_type'],
);

/** The media type named in the path, or 404 (unknown, abstract, disabled) / 400 (not media). */
function mediaTypeOf(ctx: AppContext, name: string) {
  const type = endpointType(ctx, name);
  if (!type) throw notFound(`Unknown object type "${name}"`, 'unknown_type');
  const root = mediaRootOf(ctx, type.name);
  if (!root) throw badRequest(`${type.name} is not a media type: files go to images, files, audio, videos…`, 'not_media');
  return { type, root };
}

/** The stream part of object writes, media objects' streams in reads, and their files on purge. */
export function mediaExtensions(streams: StreamService): ObjectExtension[] {
  // The stream part answers for every type: one that is not media says so (400 not_media).
  const links: ObjectExtension = { name: 'stream-links', types: ['objects'], parts: { stream: (w, part) => streams.applyStreamPart(w, part) } };
  return [links, {
    name: 'media-streams',
    types: ['media'],
    async decorate(rc, _ctx, items, included) {
      const byObject = await streams.streamsOfObjects(items.map((i) => i.id));
      // A private stream's metadata only for readers who may download it: others see that it exists.
      const shown = (s: StreamView) => mayDownload(rc.viewer, s);
      const seen = new Set(included.filter((r) => r.type === 'streams').map((r) => r.id));
      for (const item of items) {
        const list = byObject.get(item.id) ?? [];
        const r = item.resource;
        const rel = r.relationships?.streams ?? relationshipLinksAt(rc.base, `/${item.type}/${item.id}`, 'streams');
        rel.data = list.map((s) => ({ id: s.uuid, type: 'streams' }));
        r.relationships = { ...(r.relationships ?? {}), streams: rel };
        r.meta = { ...(r.meta ?? {}), media_url: list.length && shown(list[0]) ? rc.base + downloadPath(list[0].uuid) : null };
        for (const s of list) {
          if (seen.has(s.uuid) || !shown(s)) continue;
          seen.add(s.uuid);
          included.push(serializeStream(rc, s));
        }
      }
    },
    onPurge: (trx, ids) => streams.onPurge(trx, ids),
    afterPurge: (ids) => streams.afterPurge(ids),
  }];
}

export function mediaObjectRoutes(ctx: AppContext, streams: StreamService): RouteDef[] {
  registerResourceSchema(ctx, 'streams', { schema: () => STREAM_SCHEMA, revision: () => 1 });

  return [
    {
      method: 'get',
      path: '/streams/:uuid/object',
      guard: 'anonymous',
      handler: async (req, res) => {
        const s = await streams.readableStream(req.auth, String(req.params.uuid));
        if (s.object_id === null) return sendResource(req, res, null);
        const { data, included } = await serializeObject(readContext(req), ctx, await requireObject(ctx, s.object_id, { viewer: req.auth }));
        sendResource(req, res, data, { included: included.length ? included : undefined });
      },
    },
    typeRoute(ctx, {
      method: 'post',
      path: '/:type/upload/:file_name',
      writes: ['objects', 'streams'],
      guard: 'user',
      body: 'raw',
      // /files/upload/… with the legacy Accept is the legacy /files endpoint.
      when: (req) => !acceptsLegacy(req),
      handler: async (req, res) => {
        const { type, root } = mediaTypeOf(ctx, String(req.params.type));
        const p = await streams.prepareUpload(req, uploadInput(req, String(req.params.file_name)));
        try {
          assertAccepts(type.name, root, p.mimeType);
        } catch (err) {
          await streams.discard(p);
          throw err;
        }
        const id = await streams.storeWith(p, async (trx) => {
          const command = { action: 'create', type: type.name, actor: req.auth, changes: { attributes: { title: p.fileName }, parts: { stream: { upload: p } } } } as const;
          return (await apply(ctx, command, trx)).row.id;
        });
        const row = await requireObject(ctx, id, { viewer: SYSTEM });
        await sendWritten(req, res, ctx, id, 201, { Location: resourceUrl(req, objectPath(ctx, row)) });
      },
    }),
    typeRoute(ctx, {
      method: 'get',
      path: '/:type/:id/streams',
      guard: 'anonymous',
      when: (req) => mediaRootOf(ctx, String(req.params.type)) !== null,
      handler: async (req, res) => {
        const row = await requireObject(ctx, String(req.params.id), { viewer: req.auth, typeName: String(req.params.type) });
        const list = (await streams.streamsOfObjects([row.id], req.auth)).get(row.id) ?? [];
        sendList(req, res, list.map((s) => serializeStream(req, s)), { count: list.length, page: 1, pageSize: Math.max(1, list.length) });
      },
    }),
  ];
}
