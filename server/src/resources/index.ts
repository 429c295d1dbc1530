// The families of endpoints, in mounting order: adding a family is one folder and one line here.
// Specific paths come before the generic /{objectTypeName} routes of the objects family.
import type { AppContext } from '../context.js';
import type { RouteDef } from '../http/router.js';
import { accountsRoutes } from './accounts/index.js';
import { adminRoutes } from './admin/routes.js';
import { annotationsRoutes } from './annotations/routes.js';
import { authRoutes } from './auth/routes.js';
import { backupsRoutes } from './backups/routes.js';
import { foldersRoutes } from './folders/routes.js';
import { historyFamily } from './history/index.js';
import { homeRoutes } from './home/routes.js';
import { legacyRoutes } from './legacy/routes.js';
import { modelRoutes } from './model/routes.js';
import { objectsRoutes } from './objects/routes.js';
import { operationsRoutes } from './operations/routes.js';
import { permissionsFamily } from './permissions/index.js';
import { statusRoutes } from './status/routes.js';
import { termsRoutes } from './terms/routes.js';
import { streamsRoutes } from './streams/routes.js';
import { thumbsRoutes } from './thumbs/routes.js';
import { trashRoutes } from './trash/routes.js';
import { translationsRoutes } from './translations/routes.js';
import { webhooksFamily } from './webhooks/index.js';

export type Family = (ctx: AppContext) => RouteDef[] | Promise<RouteDef[]>;

export const families: Family[] = [
  statusRoutes,
  homeRoutes,
  authRoutes,
  accountsRoutes,
  // After accounts: its endpoint permission check needs the application of an API key.
  adminRoutes,
  permissionsFamily,
  modelRoutes,
  trashRoutes,
  backupsRoutes,
  foldersRoutes,
  streamsRoutes,
  thumbsRoutes,
  termsRoutes,
  legacyRoutes,
  operationsRoutes,
  annotationsRoutes,
  // Before objects: /{type}/{id}/history must win over the objects family's /{type}/{id}/{relation}.
  historyFamily,
  // Before objects: /{type}/{id}/translations wins over the generic /{type}/{id}/{relation}.
  translationsRoutes,
  // Before objects: its worker starts once every object extension (folders, media) is registered.
  webhooksFamily,
  objectsRoutes,
];
