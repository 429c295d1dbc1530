// When an application's API key (or its application token) was last used (the API keys
// screen): written at most once a minute per application and instance, so reads stay reads.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('last_used', 'varchar(32)').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
