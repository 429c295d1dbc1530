// Applications (API keys): a generated public `api_key` and a `client_secret` that is shown once
// and stored as a SHA-256 hash (it is 256 random bits, so a fast hash is enough). Disabling or
// deleting an application ends its sessions (client-credentials refresh tokens).
import crypto from 'node:crypto';
import type { Request } from 'express';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { transact } from '../../db/transaction.js';
import { badRequest, notFound } from '../../http/errors.js';
import { resourceUrl, type Resource } from '../../http/jsonapi.js';
import { listPage, type ListQuery, type ListSpec } from '../../http/query.js';
import type { ApplicationsTable } from '../accounts/tables.js';
import { sha256 } from '../auth/tokens.js';

export type ApplicationRow = Selectable<ApplicationsTable>;

/** `client_secret_hash` of an application made without a secret (BEdita's public clients): no SHA-256 is empty. */
const NO_SECRET = '';

export function serializeApplication(req: Request, a: ApplicationRow, clientSecret?: string): Resource {
  return {
    id: String(a.id),
    type: 'applications',
    attributes: { name: a.name, description: a.description, enabled: Boolean(a.enabled) },
    meta: { api_key: a.api_key, ...(clientSecret ? { client_secret: clientSecret } : a.client_secret_hash === NO_SECRET ? { client_secret: null } : {}), created: a.created, modified: a.modified, last_used: a.last_used ?? null },
    links: { self: resourceUrl(req, `/applications/${a.id}`) },
  };
}

export async function getApplication(db: Kysely<Database>, id: number): Promise<ApplicationRow> {
  const row = await db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`No application with id ${id}`);
  return row;
}

async function assertNameFree(db: Kysely<Database>, name: string, excludeId?: number) {
  let q = db.selectFrom('applications').select('id').where('name', '=', name);
  if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
  if (await q.executeTakeFirst()) throw badRequest(`An application named "${name}" already exists`, 'application_exists');
}

export interface ApplicationInput {
  name?: string;
  description?: string | null;
  enabled?: boolean;
}

/**
 * Create an application; the returned client secret is never readable again. `withoutSecret`: a
 * public client, which logs in with `client_credentials` and `client_secret: null`.
 */
export async function createApplication(db: Kysely<Database>, input: ApplicationInput & { name: string }, withoutSecret = false) {
  const apiKey = crypto.randomBytes(24).toString('hex');
  const clientSecret = withoutSecret ? null : crypto.randomBytes(32).toString('base64url');
  const id = await transact(db, async (trx) => {
    await assertNameFree(trx, input.name);
    const now = nowIso();
    const row = await trx
      .insertInto('applications')
      .values({
        name: input.name,
        description: input.description ?? null,
        api_key: apiKey,
        client_secret_hash: clientSecret === null ? NO_SECRET : sha256(clientSecret),
        enabled: input.enabled ?? true,
        created: now,
        modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
  return { id, clientSecret };
}

export async function updateApplication(db: Kysely<Database>, id: number, input: ApplicationInput): Promise<void> {
  await transact(db, async (trx) => {
    await getApplication(trx, id);
    if (input.name !== undefined) await assertNameFree(trx, input.name, id);
    await trx.updateTable('applications').set({ ...input, modified: nowIso() }).where('id', '=', id).execute();
    if (input.enabled === false) await trx.deleteFrom('refresh_tokens').where('application_id', '=', id).execute();
  });
}

export async function deleteApplication(db: Kysely<Database>, id: number): Promise<void> {
  await transact(db, async (trx) => {
    await getApplication(trx, id);
    await trx.deleteFrom('refresh_tokens').where('application_id', '=', id).execute();
    await trx.deleteFrom('applications').where('id', '=', id).execute();
  });
}

export const APPLICATION_LIST_SPEC: ListSpec = {
  fields: { id: 'integer', name: 'string', enabled: 'boolean', created: 'date', modified: 'date' },
  defaultSort: 'id',
};

const APPLICATION_COLUMNS: Record<string, string> = {
  id: 'applications.id',
  name: 'applications.name',
  enabled: 'applications.enabled',
  created: 'applications.created',
  modified: 'applications.modified',
};

export async function listApplications(db: Kysely<Database>, q: ListQuery) {
  return listPage(db.selectFrom('applications').selectAll(), q, APPLICATION_COLUMNS, 'applications.id');
}

/** The enabled application with this API key, if any. */
export async function findEnabledByApiKey(db: Kysely<Database>, apiKey: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('api_key', '=', apiKey).where('enabled', '=', true).executeTakeFirst();
}

export async function isEnabledApplication(db: Kysely<Database>, id: number): Promise<boolean> {
  return Boolean(await db.selectFrom('applications').select('id').where('id', '=', id).where('enabled', '=', true).executeTakeFirst());
}

/** Stamp the application as used now (the caller keeps this to once a minute). */
export async function markApplicationUsed(db: Kysely<Database>, id: number, when: string): Promise<void> {
  await db.updateTable('applications').set({ last_used: when }).where('id', '=', id).execute();
}

/**
 * POST /auth client_credentials: the application id when the key and secret match; a secret of
 * null matches an application without one (and only that).
 */
export async function verifyClient(db: Kysely<Database>, clientId: string, clientSecret: string | null): Promise<number | null> {
  const app = await findEnabledByApiKey(db, clientId);
  if (clientSecret === null || app?.client_secret_hash === NO_SECRET) return clientSecret === null && app?.client_secret_hash === NO_SECRET ? app.id : null;
  const expected = Buffer.from(app?.client_secret_hash ?? sha256('no application'), 'hex');
  const given = Buffer.from(sha256(clientSecret), 'hex');
  return crypto.timingSafeEqual(expected, given) && app ? app.id : null;
}


/** Every application, by id. */
export const allApplications = (db: Kysely<Database>): Promise<ApplicationRow[]> => db.selectFrom('applications').selectAll().orderBy('id').execute();
