// Who writes which table: one registry a reader can audit. Each table of `Database` names the
// modules (files, or folders ending in `/`, relative to server/src) that may insert, update or
// delete its rows; server/test/structure-owners.test.ts finds every write in every file (kysely's
// insertInto / updateTable / deleteFrom and raw SQL) and fails on a writer that is not an owner.
// The objects tables belong to the write kernel alone: every other module changes an object by
// handing a command to the kernel (resources/objects/kernel.ts), which records and versions it.
import type { Database } from './tables.js';

/** The write kernel's own modules (its steps are reached only through apply()). */
export const KERNEL_MODULES = [
  'resources/objects/kernel.ts',
  'resources/objects/write.ts',
  'resources/objects/trash.ts',
  'resources/objects/relation-writes.ts',
  'resources/objects/pipeline.ts',
  'resources/objects/rows.ts',
] as const;

const ACCOUNTS = ['resources/users/', 'resources/accounts/', 'resources/auth/', 'resources/signup/'];
const MODEL = ['resources/model/'];
const TERMS = ['resources/terms/'];

/**
 * The owners of each table. `satisfies` makes the list complete: a table added to `Database`
 * without an owner does not compile.
 */
export const TABLE_OWNERS = {
  objects: [...KERNEL_MODULES],
  object_relations: ['resources/objects/relation-writes.ts', 'resources/objects/trash.ts'],
  object_types: MODEL,
  properties: MODEL,
  property_types: MODEL,
  relations: MODEL,
  relation_types: MODEL,
  // Account data beside the user's object row: credentials, login counters, memberships.
  users: ACCOUNTS,
  roles: ['resources/roles/'],
  roles_users: ACCOUNTS,
  refresh_tokens: [...ACCOUNTS, 'resources/applications/'],
  account_tokens: ACCOUNTS,
  otp_codes: ['resources/auth/'],
  external_auth: ['resources/auth/'],
  applications: ['resources/applications/'],
  rate_hits: ['resources/accounts/rate-limits.ts'],
  trees: ['resources/folders/'],
  tree_trash: ['resources/folders/'],
  streams: ['resources/streams/'],
  upload_tokens: ['resources/streams/'],
  categories: TERMS,
  tags: TERMS,
  object_categories: TERMS,
  object_tags: TERMS,
  geo_tags: TERMS,
  object_coords: TERMS,
  date_items: TERMS,
  translations: ['resources/translations/'],
  history: ['resources/history/'],
  webhooks: ['resources/webhooks/'],
  webhook_deliveries: ['resources/webhooks/', 'jobs/lease.ts'],
  publication_states: ['resources/webhooks/'],
  object_perms: ['resources/permissions/'],
  object_perm_roles: ['resources/permissions/'],
  jobs: ['jobs/'],
  config: ['resources/admin/'],
  endpoints: ['resources/admin/'],
  endpoint_permissions: ['resources/admin/'],
  annotations: ['resources/annotations/'],
  drafts: ['resources/drafts/'],
} as const satisfies Record<keyof Database, readonly string[]>;

/**
 * Tables outside `Database` that only the engine's own code keeps (search indexes, the data
 * version, kept secrets, staged search documents, SQLite's id sequences).
 */
export const ENGINE_TABLES = {
  objects_fts: ['db/dialect/'],
  objects_search: ['db/dialect/'],
  translations_fts: ['db/dialect/'],
  translations_search: ['db/dialect/'],
  folio_data_version: ['db/dialect/'],
  folio_secrets: ['db/dialect/'],
  folio_search_staged: ['db/dialect/'],
  sqlite_sequence: ['db/dialect/'],
} as const;

/**
 * Bulk loaders, outside history and webhooks, that may write any table: the migrations and a
 * backup restore (which replaces the whole database).
 */
export const BULK_WRITERS = ['db/migrations/', 'resources/backups/restore.ts'] as const;

/**
 * Modules that name the table they write through a variable, with the tables it may be: each
 * must be owned by the module.
 */
export const DYNAMIC_WRITERS: Record<string, readonly string[]> = {
  // storeDocumentsInline (migration 0155) rewrites both search tables' documents alike.
  'db/dialect/postgres.ts': ['objects_search', 'translations_search'],
  'jobs/lease.ts': ['jobs', 'webhook_deliveries'],
  'resources/terms/service.ts': ['object_categories', 'object_tags', 'categories', 'tags'],
  'resources/terms/vocabulary.ts': ['categories', 'tags'],
};

/** Whether `file` (relative to server/src, `/`-separated) is one of `owners`. */
export function ownedBy(file: string, owners: readonly string[]): boolean {
  return owners.some((o) => (o.endsWith('/') ? file.startsWith(o) : file === o));
}
