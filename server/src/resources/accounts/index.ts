// The accounts family: users, roles, credential change, signup and applications (API keys),
// with the mailer they share. Wired in resources/index.ts right after the auth family.
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { roleRoutes } from '../roles/routes.js';
import { userRoutes } from '../users/routes.js';
import { apiKeyCheck } from '../applications/api-key.js';
import { applicationRoutes } from '../applications/routes.js';
import { credentialChangeRoutes } from '../auth/change.js';
import { signupRoutes } from '../signup/routes.js';
import { registerAccountSchemas } from './schemas.js';
import { registerObjectExtension } from '../objects/extensions.js';
import { usersExtension, usersWriteGuard } from '../users/service.js';
import { rolesPart } from './memberships.js';

export function accountsRoutes(ctx: AppContext): RouteDef[] {
  registerAccountSchemas(ctx);
  registerObjectExtension(ctx, usersExtension);
  // A user's roles are a part of its updates (accounts/memberships.ts).
  registerObjectExtension(ctx, { name: 'memberships', types: ['users'], parts: { roles: rolesPart } });
  ctx.objects.guards.push(usersWriteGuard);
  const mailer = ctx.mailer;
  ctx.requestChecks.push(apiKeyCheck(ctx));
  return [
    ...userRoutes(ctx),
    ...roleRoutes(ctx),
    ...credentialChangeRoutes(ctx, mailer),
    ...signupRoutes(ctx, mailer),
    ...applicationRoutes(ctx),
  ];
}
