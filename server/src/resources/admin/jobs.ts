// Folio's job queue (jobs/queue.ts) as BEdita 5's `async_jobs` resources, for admins: `service`
// is the job's kind; `meta.status` pending, planned (due later), locked (running) or failed
// (given up). Admins queue jobs of other services for an outside runner, change and remove them;
// Folio's own jobs (mail, thumbnails…) are not made or changed here, and their payloads stay out
// (a mail's holds sign-in links).
import type { Request } from 'express';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.js';
import { crudRoutes } from '../../http/crud.js';
import { ApiError, badRequest, forbidden, notFound } from '../../http/errors.js';
import { resourceUrl, sendList } from '../../http/jsonapi.js';
import { listPage, parseListQuery, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { nowIso } from '../../db/time.js';
import { createAsyncJob, deleteAsyncJob, updateAsyncJob, type AsyncJobInput } from '../../jobs/async-jobs.js';
import type { JobsTable } from '../../jobs/tables.js';
import { resourceSchema, validateAgainstSchema } from '../objects/schema.js';

type JobRow = Selectable<JobsTable>;

const LIST_SPEC: ListSpec = { fields: { id: 'integer', service: 'string', created: 'date' }, special: ['status'], defaultSort: 'id' };
const COLUMNS = { id: 'jobs.id', service: 'jobs.kind', created: 'jobs.created' };
const STATUSES = ['pending', 'planned', 'locked', 'failed'];

/** What admins write (BEdita's async_jobs fields; the rest is the queue's). */
const JOB_SCHEMA = resourceSchema(
  {
    // A service name such as BEdita's `mail` or a PHP class of a service plugin (`BEdita\ImportTools\…`).
    service: { type: 'string', maxLength: 255, pattern: '^[A-Za-z0-9_.\\\\-]+$', isMeta: false },
    payload: { type: ['object', 'array', 'null'], isMeta: false },
    priority: { type: 'integer', minimum: 0, maximum: 1000000, isMeta: false },
    max_attempts: { type: 'integer', minimum: 1, maximum: 1000, isMeta: false },
    scheduled_from: { type: ['string', 'null'], format: 'date-time', isMeta: false },
    expires: { type: ['string', 'null'], format: 'date-time', isMeta: false },
  },
  ['service'],
);
/** Read-only attributes a client may send back as it read them. */
const READ_ONLY = ['scheduled', 'locked_until', 'attempts', 'last_error', 'created', 'modified', 'completed'];

const iso = (ms: number | string | null) => (ms === null ? null : nowIso(new Date(Number(ms))));

function status(job: JobRow, now: number): string {
  if (job.state === 'failed') return 'failed';
  if (job.lease_until !== null && Number(job.lease_until) > now) return 'locked';
  return Number(job.next_at) > now ? 'planned' : 'pending';
}

export function asyncJobRoutes(ctx: AppContext, path: string): RouteDef[] {
  const own = (job: JobRow) => ctx.jobs.runs(job.kind);
  const serialize = (req: Request, job: JobRow, now = Date.now()) => ({
    id: String(job.id),
    type: 'async_jobs',
    attributes: {
      service: job.kind,
      payload: own(job) || job.payload === null ? null : (JSON.parse(job.payload) as unknown),
      priority: Number(job.priority),
      max_attempts: Number(job.max_attempts),
      scheduled_from: iso(job.next_at),
      scheduled: iso(job.next_at),
      expires: job.expires,
      locked_until: iso(job.lease_until),
      attempts: Number(job.attempts),
      last_error: job.last_error,
    },
    meta: { status: status(job, now), created: job.created },
    links: { self: resourceUrl(req, `${path}/${job.id}`) },
  });
  const find = async (key: string) => {
    const job = /^\d{1,15}$/.test(key) ? await ctx.db.selectFrom('jobs').selectAll().where('id', '=', Number(key)).executeTakeFirst() : undefined;
    if (!job) throw notFound(`No job with id ${key}`);
    return job;
  };
  const input = (attributes: Record<string, unknown>, create: boolean): AsyncJobInput => {
    const sent = Object.fromEntries(Object.entries(attributes).filter(([k]) => !READ_ONLY.includes(k)));
    const valid = validateAgainstSchema(ctx, 'admin:async_jobs', 1, JOB_SCHEMA, sent, !create) as AsyncJobInput;
    if (valid.service !== undefined && ctx.jobs.runs(valid.service)) throw new ApiError(400, 'invalid_data', `"service": "${valid.service}" is one of Folio's own jobs`, undefined, { fields: ['service'] });
    return valid;
  };
  const changeable = (job: JobRow) => {
    if (own(job)) throw forbidden(`Job ${job.id} is one of Folio's own (${job.kind}): only removed here`, 'own_job');
    if (status(job, Date.now()) === 'locked') throw new ApiError(409, 'job_running', `Job ${job.id} is running`);
  };
  return crudRoutes<JobRow>({
    path,
    type: 'async_jobs',
    writes: ['jobs'],
    list: async (req, res) => {
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
      sendList(req, res, rows.map((j) => serialize(req, j, now)), { count, page: q.page, pageSize: q.pageSize });
    },
    find,
    idOf: (job) => job.id,
    create: async (attributes) => ({ row: await find(String(await createAsyncJob(ctx.db, input(attributes, true) as AsyncJobInput & { service: string }))) }),
    update: async (job, attributes) => {
      const changes = input(attributes, false);
      changeable(job);
      await updateAsyncJob(ctx.db, job.id, changes);
      return find(String(job.id));
    },
    remove: async (job) => {
      if (status(job, Date.now()) === 'locked') throw new ApiError(409, 'job_running', `Job ${job.id} is running`);
      await deleteAsyncJob(ctx.db, job.id);
    },
    serialize: (req, job) => serialize(req, job),
  });
}
