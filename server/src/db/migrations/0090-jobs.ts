// The job queue: background work that must survive a restart and be done by whichever
// instance on the database is free — the mail queue, async thumbnails. A row is one job; done
// jobs are deleted, jobs given up stay as `failed` for a while (their payload cleared). The
// scheduling columns are those of webhook_deliveries (next_at, lease_until, lease_owner in epoch
// ms), so both queues are claimed by the same code (jobs/claim.ts).
import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    // What to do: the name a handler was defined under ('mail', 'thumbnail').
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    // Its input as JSON; null once given up (a mail's payload holds a sign-up link).
    .addColumn('payload', 'text')
    // Jobs with the same key are one job while pending (a second enqueue does nothing).
    .addColumn('dedupe_key', 'varchar(255)')
    // 'pending' (waiting or running) or 'failed' (given up); done jobs are deleted.
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    // Due time of the next attempt (epoch ms).
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    // An instance that claimed the job owns it until then (epoch ms); renewed while it runs.
    .addColumn('lease_until', 'bigint')
    .addColumn('lease_owner', 'varchar(36)')
    .execute();
  await db.schema.createIndex('jobs_due').on('jobs').columns(['state', 'next_at']).execute();
  await db.schema.createIndex('jobs_dedupe').on('jobs').column('dedupe_key').unique().where(sql.ref('state'), '=', 'pending').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
