// Search documents leave out the fields a type hides (object_types.hidden): the words of a hidden
// field find nothing. What keeps objects' and translations' documents in step reads the type's
// list (dialect/hidden-search.ts), and the documents of types that hide fields are made again.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';
import { leaveOutHiddenFields } from '../dialect/hidden-search.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await leaveOutHiddenFields(db, d);
}
