// A placement in a folder has BEdita's `params` (JSON) and `canonical` flag (the object's canonical
// path; at most one per object, set by clients): `meta.relation` of a folder's children and an
// object's parents. An object's first placement so far (a folder's only one) becomes canonical.
import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('trees').addColumn('params', 'text').execute();
  await db.schema.alterTable('trees').addColumn('canonical', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db
    .updateTable('trees')
    .set({ canonical: true })
    .where(sql<boolean>`id in (select min(first_node.id) from trees as first_node group by first_node.object_id)`)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
