// /files/{object_type}/{file_name} (upload tokens) and /posters, /poster — legacy layout only.
import { acceptsLegacy } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';
import { legacyRoute, sendLegacy } from './envelope.js';
import { acceptUpload } from './uploads.js';

export function legacyFilesRoutes(): RouteDef[] {
  return [
    legacyRoute(
      'files',
      {
        method: 'post',
        path: '/files/:objectType/:fileName',
        guard: 'user',
        body: 'raw',
        handler: async (req, res, ctx) => {
          const token = await acceptUpload(ctx, req, String(req.params.objectType), String(req.params.fileName));
          sendLegacy(req, res, { upload_token: token });
        },
      },
      // /files/upload/{file_name} with a JSON API Accept is the media family's one-step upload.
      (req) => acceptsLegacy(req) || req.params.objectType !== 'upload',
    ),
  ];
}
