// BEdita 5 login providers: one-time codes mailed for `auth_provider: otp`, and the
// external identities of `auth_provider: uuid` (a device's uuid → the account it made).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('otp_codes')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    // SHA-256 of the authorization_code answered to the client (the code itself is never stored).
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull().unique())
    // Account key of the username asked for: known or not, the request is stored alike.
    .addColumn('username_key', 'varchar(255)', (c) => c.notNull())
    // Set by the mail job when the account exists, with the hash of the mailed token.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)')
    .addColumn('expires', 'varchar(32)', (c) => c.notNull())
    .addColumn('used', 'varchar(32)')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('otp_codes_expires').on('otp_codes').column('expires').execute();

  await db.schema
    .createTable('external_auth')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('auth_provider', 'varchar(32)', (c) => c.notNull())
    .addColumn('provider_username', 'varchar(255)', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('external_auth_identity').on('external_auth').columns(['auth_provider', 'provider_username']).unique().execute();
  await db.schema.createIndex('external_auth_user').on('external_auth').column('user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
