// The families of the server, in one list: adding a family is one folder and one line here.
// Each declares its parts of the write kernel, its request checks and its routes (family.ts); the
// composition root (app.ts) assembles the kernel from them once. Which route answers a request
// follows from the routes' paths (a literal segment wins over a parameter: http/router.ts), not from
// this order; the order here is that of the kernel's guards and observers and of request checks.
import { accountsFamily } from './accounts/index.js';
import { adminFamily } from './admin/routes.js';
import { annotationsFamily } from './annotations/routes.js';
import { authRoutes } from './auth/routes.js';
import { backupsRoutes } from './backups/routes.js';
import { draftsFamily } from './drafts/routes.js';
import type { Family } from './family.js';
import { foldersFamily } from './folders/routes.js';
import { historyFamily } from './history/index.js';
import { homeRoutes } from './home/routes.js';
import { legacyRoutes } from './legacy/routes.js';
import { modelRoutes } from './model/routes.js';
import { objectsRoutes } from './objects/routes.js';
import { hiddenFieldsetCheck } from './objects/serialize.js';
import { operationsRoutes } from './operations/routes.js';
import { permissionsFamily } from './permissions/index.js';
import { statusRoutes } from './status/routes.js';
import { termsFamily } from './terms/routes.js';
import { streamsFamily } from './streams/routes.js';
import { thumbsRoutes } from './thumbs/routes.js';
import { trashRoutes } from './trash/routes.js';
import { translationsFamily } from './translations/routes.js';
import { webhooksFamily } from './webhooks/index.js';

export type { Family };

export const families: readonly Family[] = [
  { name: 'status', routes: statusRoutes },
  { name: 'home', routes: homeRoutes },
  { name: 'auth', routes: authRoutes },
  // Its request check sets the API key's application, which the endpoint permissions read.
  accountsFamily,
  adminFamily,
  // Its guard first: the rights of role and object permissions, before the accounts' own rules.
  permissionsFamily,
  { name: 'model', routes: modelRoutes },
  { name: 'trash', routes: trashRoutes },
  { name: 'backups', routes: backupsRoutes },
  foldersFamily,
  streamsFamily,
  { name: 'thumbs', routes: thumbsRoutes },
  termsFamily,
  { name: 'legacy', routes: legacyRoutes },
  { name: 'operations', routes: operationsRoutes },
  annotationsFamily,
  draftsFamily,
  historyFamily,
  translationsFamily,
  webhooksFamily,
  // A `fields[type]` naming a field its type hides is refused before any route reads it.
  { name: 'objects', requestChecks: (ctx) => [hiddenFieldsetCheck(ctx)], routes: objectsRoutes },
];
