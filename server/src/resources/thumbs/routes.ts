// /media/thumbs: thumbnail entries of media objects, and the thumbnail files at their urls
// (long-lived cache headers when anyone may read them: a thumbnail's name is a hash of its
// options, so it never changes).
import type { AppContext } from '../../context.js';
import { notFound } from '../../http/errors.js';
import { sendMeta } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { sendStored } from '../../http/send-stored.js';
import { thumbFile } from '../../storage/storage.js';
import { parseMediaIds, parseThumbQuery } from './service.js';

const SERVED_NAME = /^[0-9a-f]{24}\.(jpg|png|webp)$/;

export function thumbsRoutes(ctx: AppContext): RouteDef[] {
  const streams = ctx.streams;
  const thumbs = ctx.thumbs;
  const entries: RouteDef['handler'] = async (req, res) => {
    const { ids, preset, options } = req.query as Record<string, unknown>;
    const mediaIds = parseMediaIds(req.params.id as string | undefined, ids);
    const request = parseThumbQuery({ preset, options }, ctx.config.thumbsAllowAny);
    const thumbnails = await thumbs.thumbnailsOf(req.auth, mediaIds, request, baseUrl(req));
    sendMeta(req, res, { thumbnails });
  };
  return [
    { method: 'get', path: '/media/thumbs', guard: 'anonymous', handler: entries },
    { method: 'get', path: '/media/thumbs/:id', guard: 'anonymous', handler: entries },
    {
      method: 'get',
      path: '/media/thumbs/:uuid/:name',
      guard: 'anonymous',
      produces: 'any',
      handler: async (req, res) => {
        const name = String(req.params.name);
        const stream = await streams.readableStream(req.auth, String(req.params.uuid));
        if (!SERVED_NAME.test(name)) throw notFound('No such thumbnail');
        // Bytes anonymous clients may not read never go to shared caches, nor stay a year in the
        // browser of someone who may lose the right to read them.
        // A publication window that ends caps how long (no `immutable` then).
        const seconds = await streams.publicSeconds(req.auth, stream, 31536000);
        res.setHeader('Cache-Control', seconds === null ? 'private, no-cache' : seconds === 31536000 ? 'public, max-age=31536000, immutable' : `public, max-age=${seconds}`);
        await sendStored(req, res, ctx.storage, thumbFile(stream.uuid, name));
      },
    },
  ];
}
