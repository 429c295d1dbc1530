// /applications (admins only): API keys of client applications; the client secret appears once,
// in the answer to POST.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { byNumericId, crudRoutes, pagedList } from '../../http/crud.js';
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

/** The applications at `path`: /applications, and /admin/applications as BEdita 5 names them. */
export function applicationRoutes(ctx: AppContext, path = '/applications'): RouteDef[] {
  const meta = (req: Request) => ({ schema: schemaMeta(ctx, 'applications', baseUrl(req)) });
  return crudRoutes<ApplicationRow>({
    path,
    type: 'applications',
    writes: ['applications', 'refresh_tokens'],
    list: pagedList(APPLICATION_LIST_SPEC, (q) => listApplications(ctx.db, q), (req, row) => serializeApplication(req, row), meta),
    find: byNumericId((id) => getApplication(ctx.db, id)),
    idOf: (row) => row.id,
    async create(attributes) {
      // `client_secret: null` asks for a public client (BEdita's default); the attribute is read-only otherwise.
      const withoutSecret = attributes.client_secret === null;
      const { id, clientSecret } = await createApplication(ctx.db, validateAttributes<ApplicationInput & { name: string }>(ctx, 'applications', attributes, true), withoutSecret);
      return { row: await getApplication(ctx.db, id), shown: clientSecret };
    },
    async update(row, attributes) {
      await updateApplication(ctx.db, row.id, validateAttributes<ApplicationInput>(ctx, 'applications', attributes, false));
      return getApplication(ctx.db, row.id);
    },
    remove: (row) => deleteApplication(ctx.db, row.id),
    serialize: (req, row, clientSecret) => serializeApplication(req, row, (clientSecret as string | null | undefined) ?? undefined),
    meta,
  });
}
