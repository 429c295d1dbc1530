// The legacy envelope family: /objects… for legacy clients (Accept: text/javascript), /files
// upload tokens and /posters. A view: it reads and writes through the other families' services.
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { legacyFilesRoutes, legacyPosterRoutes } from './files-routes.js';
import { legacyReadRoutes } from './read-routes.js';
import { legacyWriteRoutes } from './write-routes.js';

export function legacyRoutes(ctx: AppContext): RouteDef[] {
  return [...legacyReadRoutes(ctx), ...legacyWriteRoutes(ctx), ...legacyFilesRoutes(ctx), ...legacyPosterRoutes(ctx)];
}
