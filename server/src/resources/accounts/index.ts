// The accounts family: users, roles, credential change, signup and applications (API keys),
// with the mailer they share. Wired in resources/index.ts right after the auth family.
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { roleRoutes } from '../roles/routes.js';
import { userRoutes } from '../users/routes.js';
import { registerAccountSchemas } from './schemas.js';

export function accountsRoutes(ctx: AppContext): RouteDef[] {
  registerAccountSchemas(ctx);
  return [...userRoutes(ctx), ...roleRoutes(ctx)];
}
