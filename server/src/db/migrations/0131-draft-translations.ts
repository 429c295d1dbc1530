// Drafts hold pending changes of their object's translations too (resources/drafts/): per
// language, the translation's status and translated fields, or null for its removal.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  // JSON text: {<lang>: {status?, translated_fields?} | null}.
  await db.schema.alterTable('drafts').addColumn('translations', 'text', (c) => c.notNull().defaultTo('{}')).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
