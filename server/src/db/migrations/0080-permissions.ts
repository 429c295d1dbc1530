// Permissions and account security:
// - roles.permissions: what a role's users may do with objects, per type (JSON); roles that exist
//   now get every right on every type, so their users keep what they could do before;
// - object permissions: an object (and, for a folder, everything below it) restricted to roles;
// - users.username_key / email_key: NFKC + case-folded forms under unique indexes, and
//   users.session_version, raised to end every session of a user at once;
// - rate_hits: per-client counters of rate limits (failed logins, mail-sending requests), in the
//   database so that every instance shares them.
import type { Kysely } from 'kysely';
import { accountKey } from '../../resources/users/account-key.js';

const ALL = JSON.stringify({ '*': ['read', 'create', 'update', 'delete', 'publish'] });

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('roles').addColumn('permissions', 'text', (c) => c.notNull().defaultTo('{}')).execute();
  await db.updateTable('roles').set({ permissions: ALL }).execute();

  await db.schema
    .createTable('object_perms')
    .addColumn('object_id', 'integer', (c) => c.primaryKey().references('objects.id').onDelete('cascade'))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .execute();
  await db.schema
    .createTable('object_perm_roles')
    .addColumn('object_id', 'integer', (c) => c.notNull().references('object_perms.object_id').onDelete('cascade'))
    .addColumn('role_id', 'integer', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('object_perm_roles_pk', ['object_id', 'role_id'])
    .execute();
  await db.schema.createIndex('object_perm_roles_role').on('object_perm_roles').columns(['role_id', 'object_id']).execute();

  await db.schema.alterTable('users').addColumn('username_key', 'varchar(255)').execute();
  await db.schema.alterTable('users').addColumn('email_key', 'varchar(255)').execute();
  await db.schema.alterTable('users').addColumn('session_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Accounts that only differed by case or Unicode form keep working: the later one's key gets
  // its id appended (it still logs in by its exact name through the key of that name).
  const users = await db.selectFrom('users').select(['id', 'username', 'email']).orderBy('id').execute();
  const taken = { username: new Set<string>(), email: new Set<string>() };
  for (const u of users) {
    let usernameKey = accountKey(u.username);
    if (taken.username.has(usernameKey)) usernameKey = `${usernameKey}#${u.id}`;
    taken.username.add(usernameKey);
    let emailKey: string | null = u.email ? accountKey(u.email) : null;
    if (emailKey !== null && taken.email.has(emailKey)) emailKey = `${emailKey}#${u.id}`;
    if (emailKey !== null) taken.email.add(emailKey);
    await db.updateTable('users').set({ username_key: usernameKey, email_key: emailKey }).where('id', '=', u.id).execute();
  }
  await db.schema.createIndex('users_username_norm').on('users').column('username_key').unique().execute();
  await db.schema.createIndex('users_email_norm').on('users').column('email_key').unique().execute();

  await db.schema
    .createTable('rate_hits')
    .addColumn('bucket', 'varchar(32)', (c) => c.notNull())
    .addColumn('client', 'varchar(64)', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_hits_pk', ['bucket', 'client', 'window_start'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
