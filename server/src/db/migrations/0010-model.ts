// The model of the objects family: custom properties of object types, relations with their left
// and right object types, the relations between objects, and the full-text index of objects.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('properties')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('property_type_name', 'varchar(16)', (c) => c.notNull())
    .addColumn('object_type_id', 'integer', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('description', 'text')
    .addColumn('required', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('properties_type_name', ['object_type_id', 'name'])
    .execute();

  await db.schema
    .createTable('relations')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('inverse_name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('label', 'varchar(255)')
    .addColumn('inverse_label', 'varchar(255)')
    .addColumn('description', 'text')
    .addColumn('params', 'text') // JSON
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('relation_types')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('relation_id', 'integer', (c) => c.notNull().references('relations.id').onDelete('cascade'))
    .addColumn('object_type_id', 'integer', (c) => c.notNull().references('object_types.id').onDelete('cascade'))
    .addColumn('side', 'varchar(5)', (c) => c.notNull()) // 'left' | 'right'
    .addUniqueConstraint('relation_types_unique', ['relation_id', 'side', 'object_type_id'])
    .execute();

  await db.schema
    .createTable('object_relations')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('left_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('relation_id', 'integer', (c) => c.notNull().references('relations.id'))
    .addColumn('right_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('inv_priority', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('params', 'text') // JSON
    .addUniqueConstraint('object_relations_unique', ['left_id', 'relation_id', 'right_id'])
    .execute();
  await db.schema.createIndex('object_relations_right').on('object_relations').columns(['right_id', 'relation_id']).execute();
  await db.schema.createIndex('object_relations_relation').on('object_relations').column('relation_id').execute();

  await d.search.createIndex(db);

  // The contract's relations of a new install.
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  const types = await db.selectFrom('object_types').select(['id', 'name', 'parent_id', 'is_abstract']).execute();
  const byId = new Map(types.map((t) => [Number(t.id), t]));
  const mediaId = types.find((t) => t.name === 'media')?.id;
  const concrete = types.filter((t) => !t.is_abstract && t.name !== 'users').map((t) => Number(t.id));
  const media = types.filter((t) => !t.is_abstract && t.parent_id !== null && byId.get(Number(t.parent_id)) && Number(t.parent_id) === Number(mediaId)).map((t) => Number(t.id));
  const images = types.filter((t) => t.name === 'images').map((t) => Number(t.id));
  const relations: Array<[string, string, string, string, string, number[], number[]]> = [
    ['poster', 'poster_of', 'Poster', 'Poster of', 'Image representing the object', concrete, images],
    ['attach', 'attached_to', 'Attachments', 'Attached to', 'Media attached to the object', concrete, media],
    ['see_also', 'seen_also_by', 'See also', 'Seen also by', 'Related objects', concrete, concrete],
  ];
  for (const [name, inverse, label, inverseLabel, description, left, right] of relations) {
    const row = await db
      .insertInto('relations')
      .values({ name, inverse_name: inverse, label, inverse_label: inverseLabel, description, params: null, created: now, modified: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const sides = [...left.map((id) => ['left', id] as const), ...right.map((id) => ['right', id] as const)];
    await db
      .insertInto('relation_types')
      .values(sides.map(([side, object_type_id]) => ({ relation_id: Number(row.id), object_type_id, side })))
      .execute();
  }
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
