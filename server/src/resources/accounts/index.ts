// The accounts family: users, roles, credential change, signup and applications (API keys),
// with the mailer they share; in the kernel, the users' extension, the authors' names on objects
// (`author_names=1`) and the accounts' write guard.
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { roleRoutes } from '../roles/routes.js';
import { userRoutes } from '../users/routes.js';
import { apiKeyCheck } from '../applications/api-key.js';
import { applicationRoutes } from '../applications/routes.js';
import { credentialChangeRoutes } from '../auth/change.js';
import { signupRoutes } from '../signup/routes.js';
import { registerAccountSchemas } from './schemas.js';
import type { Family } from '../family.js';
import { usersExtension, usersWriteGuard } from '../users/service.js';
import { rolesPart } from './memberships.js';
import { authorNamesExtension } from '../users/author-names.js';

export const accountsFamily: Family = {
  name: 'accounts',
  // A user's roles are a part of its updates (accounts/memberships.ts).
  kernel: () => ({ extensions: [usersExtension, { name: 'memberships', types: ['users'], parts: { roles: rolesPart } }, authorNamesExtension], guards: [usersWriteGuard] }),
  // The API key's application, which later checks (endpoint permissions) need.
  requestChecks: (ctx) => [apiKeyCheck(ctx)],
  routes: accountsRoutes,
};

function accountsRoutes(ctx: AppContext): RouteDef[] {
  registerAccountSchemas(ctx);
  const mailer = ctx.mailer;
  return [
    ...userRoutes(ctx),
    ...roleRoutes(ctx),
    ...credentialChangeRoutes(ctx, mailer),
    ...signupRoutes(ctx, mailer),
    ...applicationRoutes(ctx),
  ];
}
