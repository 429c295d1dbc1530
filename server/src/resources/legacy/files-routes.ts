// /files/{object_type}/{file_name} (upload tokens), /posters and /poster: legacy layout only.
import type { AppContext } from '../../context.js';
import { acceptsLegacy } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';
import { legacyRoute, sendLegacy } from './envelope.js';
import { posterEntries, posterIds, posterSize } from './posters.js';
import { findReachable, findVisible, isReachable, openReader, type ObjectRow } from './reader.js';
import { acceptUpload } from '../streams/upload-tokens.js';
import { assertWritable, resolveTypeName } from './types.js';

export function legacyFilesRoutes(ctx: AppContext): RouteDef[] {
  return [
    legacyRoute(
      'files',
      {
        method: 'post',
        path: '/files/:objectType/:fileName',
        writes: ['streams', 'upload_tokens'],
        guard: 'user',
        body: 'raw',
        handler: async (req, res) => {
          const typeName = resolveTypeName(ctx, String(req.params.objectType));
          assertWritable(ctx, typeName);
          const token = await acceptUpload(ctx, req, typeName, String(req.params.fileName));
          sendLegacy(req, res, { upload_token: token });
        },
      },
      // /files/upload/{file_name} with a JSON API Accept is the media family's one-step upload.
      (req) => acceptsLegacy(req) || req.params.objectType !== 'upload',
    ),
  ];
}

const posterRoute = (ctx: AppContext, path: string, api: string): RouteDef =>
  legacyRoute(
    api,
    {
      method: 'get',
      path,
      guard: 'anonymous',
      handler: async (req, res) => {
        const size = posterSize(req);
        const r = await openReader(ctx, req);
        const object = await findReachable(r, String(req.params.id));
        const [entry] = await posterEntries(ctx, req, r, [object], size);
        sendLegacy(req, res, entry);
      },
    },
    () => true,
  );

export function legacyPosterRoutes(ctx: AppContext): RouteDef[] {
  return [
    legacyRoute(
      'posters',
      {
        method: 'get',
        path: '/posters',
        guard: 'anonymous',
        handler: async (req, res) => {
          const wanted = posterIds(req);
          const size = posterSize(req);
          const r = await openReader(ctx, req);
          // Ids that are unknown or not reachable are left out; the others keep the order asked.
          const objects: ObjectRow[] = [];
          for (const id of wanted) {
            const row = await findVisible(r, id);
            if (row && !objects.some((o) => o.id === row.id) && (await isReachable(r, row.id))) objects.push(row);
          }
          sendLegacy(req, res, await posterEntries(ctx, req, r, objects, size));
        },
      },
      () => true,
    ),
    posterRoute(ctx, '/posters/:id', 'posters'),
    posterRoute(ctx, '/poster/:id', 'poster'),
  ];
}
