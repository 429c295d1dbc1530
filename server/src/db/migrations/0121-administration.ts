// BEdita 5 administration: configuration entries (`/config`, `/admin/config`), the
// endpoints of the API and which application or role may read or write each one
// (`/admin/endpoints`, `/admin/endpoint_permissions`, enforced on every request).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';
import { nowIso } from '../time.js';

/** The first path segments of the API (the contract's reserved routes). */
const ENDPOINTS = [
  'auth', 'signup', 'status', 'home', 'model', 'trash', 'streams', 'media', 'files', 'objects', 'users', 'roles', 'folders',
  'applications', 'operations', 'history', 'backups', 'webhooks', 'translations', 'annotations', 'object_permissions',
  'config', 'admin', 'async_jobs', 'trees',
];

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('config')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('context', 'varchar(255)', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    // null: a global entry; else the application it belongs to.
    .addColumn('application_id', 'integer', (c) => c.references('applications.id').onDelete('cascade'))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('config_name').on('config').columns(['name', 'context']).execute();

  await db.schema
    .createTable('endpoints')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('description', 'text')
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();
  const now = nowIso();
  await db
    .insertInto('endpoints')
    .values(ENDPOINTS.map((name) => ({ name, description: null, enabled: true, created: now, modified: now })))
    .execute();

  await db.schema
    .createTable('endpoint_permissions')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    // null: every endpoint, application or role.
    .addColumn('endpoint_id', 'integer', (c) => c.references('endpoints.id').onDelete('cascade'))
    .addColumn('application_id', 'integer', (c) => c.references('applications.id').onDelete('cascade'))
    .addColumn('role_id', 'integer', (c) => c.references('roles.id').onDelete('cascade'))
    // BEdita's encoding: bits 0-1 read, bits 2-3 write; each 0 no, 1 mine, 2 block, 3 yes.
    .addColumn('permission', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
