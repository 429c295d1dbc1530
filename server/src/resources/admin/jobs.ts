// Folio's job queue (jobs/queue.ts) as BEdita 5's `async_jobs` resources, read-only, for admins:
// `service` is the job's kind; `meta.status` pending, planned (due later), locked (running) or
// failed (given up). Payloads stay out (a mail's holds sign-in links).
import type { Request } from 'express';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import { badRequest, notFound } from '../../http/errors.js';
import { onlyAttributes, phpObject, resourceInput, resourceUrl, sendList, sendResource, type Resource } from '../../http/jsonapi.js';
import { strictHandling } from '../../http/negotiate.js';
import { pathId } from '../../http/params.js';
import { listPage, parseListQuery, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { nowIso } from '../../db/time.js';
import type { JobsTable } from '../../jobs/tables.js';

type JobRow = Selectable<JobsTable>;

const LIST_SPEC: ListSpec = { fields: { id: 'integer', service: 'string', created: 'date' }, special: ['status'], defaultSort: 'id' };
const COLUMNS = { id: 'jobs.id', service: 'jobs.kind', created: 'jobs.created' };
const STATUSES = ['pending', 'planned', 'locked', 'failed'];

const iso = (ms: number | string | null) => (ms === null ? null : nowIso(new Date(Number(ms))));

function status(job: JobRow, now: number): string {
  if (job.state === 'failed') return 'failed';
  if (job.lease_until !== null && Number(job.lease_until) > now) return 'locked';
  return Number(job.next_at) > now ? 'planned' : 'pending';
}

function serialize(req: Request, path: string, job: JobRow, now: number): Resource {
  return {
    id: String(job.id),
    type: 'async_jobs',
    attributes: { service: job.kind, scheduled: iso(job.next_at), locked_until: iso(job.lease_until), attempts: Number(job.attempts), last_error: job.last_error },
    meta: { status: status(job, now), created: job.created },
    links: { self: resourceUrl(req, `${path}/${job.id}`) },
  };
}

/** GET `path` and `path/{id}` (/async_jobs and /admin/async_jobs). */
export function asyncJobRoutes(ctx: AppContext, path: string): RouteDef[] {
  return [
    {
      method: 'get',
      path,
      guard: 'admin',
      handler: async (req, res) => {
        const q = parseListQuery(req, LIST_SPEC);
        const now = Date.now();
        let base = ctx.db.selectFrom('jobs').selectAll();
        const wanted = q.special.status;
        if (wanted) {
          const bad = wanted.find((s) => !STATUSES.includes(s));
          if (bad) throw badRequest(`filter[status] takes ${STATUSES.join(', ')}`, 'invalid_filter');
          base = base.where((eb) =>
            eb.or(
              wanted.map((s) => {
                if (s === 'failed') return eb('state', '=', 'failed');
                const leased = eb.and([eb('lease_until', 'is not', null), eb('lease_until', '>', now)]);
                const pending = eb('state', '=', 'pending');
                if (s === 'locked') return eb.and([pending, leased]);
                return eb.and([pending, eb.not(leased), eb('next_at', s === 'planned' ? '>' : '<=', now)]);
              }),
            ),
          );
        }
        const { rows, count } = await listPage(base, q, COLUMNS, 'jobs.id');
        sendList(req, res, rows.map((j) => serialize(req, path, j, now)), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    {
      method: 'get',
      path: `${path}/:id`,
      guard: 'admin',
      handler: async (req, res) => {
        const job = await ctx.db.selectFrom('jobs').selectAll().where('id', '=', pathId(req)).executeTakeFirst();
        if (!job) throw notFound(`No job with id ${pathId(req)}`);
        sendResource(req, res, serialize(req, path, job, Date.now()));
      },
    },
  ];
}

/** What a BEdita client's POST /async_jobs may say. */
const POSTED_ATTRIBUTES = ['service', 'payload', 'scheduled', 'expires', 'priority', 'max_attempts'];

/**
 * POST `path` (BEdita's Manager queues its imports so): the job is recorded as BEdita records it,
 * 201 with its resource. Folio runs only its own kinds of jobs, never a client's service: the
 * entry is kept as failed, its `last_error` saying so, so that a client polling it stops waiting.
 */
export function postAsyncJobRoute(ctx: AppContext, path: string): RouteDef {
  return {
    method: 'post',
    path,
    guard: 'admin',
    writes: ['jobs'],
    handler: async (req, res) => {
      const given = resourceInput(req, 'async_jobs').attributes;
      if (strictHandling(req)) onlyAttributes(given, POSTED_ATTRIBUTES);
      const service = given.service;
      // A name such as BEdita's `mail` or a PHP class of a service plugin (`BEdita\ImportTools\…`).
      if (typeof service !== 'string' || !/^[A-Za-z0-9_.\\-]{1,255}$/.test(service)) throw badRequest('Invalid data: "service" must be a service name (letters, digits, _ . - \\)', 'invalid_data');
      const payload = phpObject(given.payload ?? null);
      if (payload !== null && (typeof payload !== 'object' || Array.isArray(payload))) throw badRequest('Invalid data: "payload" must be an object', 'invalid_data');
      const id = await ctx.jobs.record(service, payload, `Folio has no service "${service}": this job is recorded, not run`);
      const job = await ctx.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      sendResource(req, res, serialize(req, path, job, Date.now()), { status: 201, headers: { Location: resourceUrl(req, `${path}/${id}`) } });
    },
  };
}
