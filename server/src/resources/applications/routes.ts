// /applications (admins only): API keys of client applications; the client secret appears once,
// in the answer to POST.
import type { AppContext } from '../../context.js';
import { crudRoutes } from '../../http/crud.js';
import { baseUrl } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import {
  APPLICATION_LIST_SPEC,
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  serializeApplication,
  updateApplication,
  type ApplicationInput,
  type ApplicationRow,
} from './service.js';

export function applicationRoutes(ctx: AppContext): RouteDef[] {
  return crudRoutes<ApplicationRow>({
    path: '/applications',
    type: 'applications',
    listSpec: APPLICATION_LIST_SPEC,
    list: (q) => listApplications(ctx.db, q),
    get: (id) => getApplication(ctx.db, id),
    async create(attributes) {
      const { id, clientSecret } = await createApplication(ctx.db, validateAttributes<ApplicationInput & { name: string }>(ctx, 'applications', attributes, true));
      return { id, shown: clientSecret };
    },
    update: (id, attributes) => updateApplication(ctx.db, id, validateAttributes<ApplicationInput>(ctx, 'applications', attributes, false)),
    remove: (id) => deleteApplication(ctx.db, id),
    serialize: (req, row, clientSecret) => serializeApplication(req, row, clientSecret as string | undefined),
    meta: (req) => ({ schema: schemaMeta('applications', baseUrl(req)) }),
  });
}
