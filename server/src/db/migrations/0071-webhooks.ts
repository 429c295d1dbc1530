// Webhooks and their delivery queue. A delivery row is written in the same transaction as the
// object write it reports, so an event is never lost nor sent for a write that rolled back; the
// row is the queue (it survives restarts and is shared by every instance on the database).
// Scheduling columns hold epoch milliseconds (retries in tests are sub-second); the timestamps
// shown by the API are ISO strings like everywhere else.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull()) // JSON array of event names or ["*"]
    .addColumn('types', 'text', (c) => c.notNull()) // JSON array of type names; [] = every type
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('secret', 'varchar(128)', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('uuid', 'varchar(36)', (c) => c.notNull().unique())
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event', 'varchar(64)', (c) => c.notNull())
    .addColumn('resource_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('resource_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    // Base URL of the write, for the links inside `data`.
    .addColumn('base', 'text')
    // The exact bytes sent: built at the first attempt, then every retry sends them again.
    .addColumn('body', 'text')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    // 'pending' (waiting or being sent), 'delivered', 'failed' (gave up).
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('last_attempt', 'varchar(32)')
    .addColumn('delivered', 'varchar(32)')
    // Due time of the next attempt (epoch ms).
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    // A worker that claimed the row owns it until then (epoch ms); lease_owner names the claim.
    .addColumn('lease_until', 'bigint')
    .addColumn('lease_owner', 'varchar(36)')
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'next_at']).execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').column('created').execute();
  await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
