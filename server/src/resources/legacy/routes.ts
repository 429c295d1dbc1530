// The legacy envelope family: /objects… for legacy clients (Accept: text/javascript), /files
// upload tokens and /posters. Also shows categories, tags, geo tags and date items in the JSON API.
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { registerObjectExtension } from '../objects/extensions.js';
import { termsExtension } from './extension.js';
import { legacyFilesRoutes, legacyPosterRoutes } from './files-routes.js';
import { legacyReadRoutes } from './read-routes.js';
import { scheduleUploadPurge } from './uploads.js';
import { legacyWriteRoutes } from './write-routes.js';

export function legacyRoutes(ctx: AppContext): RouteDef[] {
  registerObjectExtension(ctx, termsExtension(ctx));
  scheduleUploadPurge(ctx);
  return [...legacyReadRoutes(), ...legacyWriteRoutes(), ...legacyFilesRoutes(), ...legacyPosterRoutes()];
}
