// /applications (admins only): API keys of client applications; the client secret appears once,
// in the answer to POST.
import type { AppContext } from '../../context.js';
import { resourceInput, sendList, sendNoContent } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { pathId } from '../accounts/params.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import { sendAccountResource } from '../accounts/serialize.js';
import {
  APPLICATION_LIST_SPEC,
  createApplication,
  deleteApplication,
  getApplication,
  listApplications,
  serializeApplication,
  updateApplication,
  type ApplicationInput,
} from './service.js';

export function applicationRoutes(ctx: AppContext): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/applications',
      guard: 'admin',
      handler: async (req, res) => {
        const q = parseListQuery(req, APPLICATION_LIST_SPEC);
        const { rows, count } = await listApplications(ctx.db, q);
        sendList(req, res, rows.map((a) => serializeApplication(req, a)), { count, page: q.page, pageSize: q.pageSize }, { meta: { schema: schemaMeta('applications', baseUrl(req)) } });
      },
    },
    {
      method: 'post',
      path: '/applications',
      guard: 'admin',
      handler: async (req, res) => {
        const input = validateAttributes<ApplicationInput & { name: string }>(ctx, 'applications', resourceInput(req, 'applications').attributes, true);
        const { id, clientSecret } = await createApplication(ctx.db, input);
        sendAccountResource(req, res, 'applications', serializeApplication(req, await getApplication(ctx.db, id), clientSecret), { status: 201 });
      },
    },
    {
      method: 'get',
      path: '/applications/:id',
      guard: 'admin',
      handler: async (req, res) => sendAccountResource(req, res, 'applications', serializeApplication(req, await getApplication(ctx.db, pathId(req)))),
    },
    {
      method: 'patch',
      path: '/applications/:id',
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        const input = validateAttributes<ApplicationInput>(ctx, 'applications', resourceInput(req, 'applications', id).attributes, false);
        await updateApplication(ctx.db, id, input);
        sendAccountResource(req, res, 'applications', serializeApplication(req, await getApplication(ctx.db, id)));
      },
    },
    {
      method: 'delete',
      path: '/applications/:id',
      guard: 'admin',
      handler: async (req, res) => {
        await deleteApplication(ctx.db, pathId(req));
        sendNoContent(res);
      },
    },
  ];
}
