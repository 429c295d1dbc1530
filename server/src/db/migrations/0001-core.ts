// Core schema: object types, objects (one id sequence for every type, users and folders too),
// users, roles and refresh tokens, with the types and the admin role of a new install.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

// Timestamp columns hold ISO 8601 text with offset; JSON columns hold text.

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('object_types')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('singular', 'varchar(64)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('parent_id', 'integer', (c) => c.references('object_types.id'))
    .addColumn('is_abstract', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('core_type', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('objects')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_type_id', 'integer', (c) => c.notNull().references('object_types.id'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('draft'))
    .addColumn('uname', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('body', 'text')
    .addColumn('lang', 'varchar(32)')
    .addColumn('extra', 'text') // JSON
    .addColumn('properties', 'text') // JSON: custom property values of the type
    .addColumn('locked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('deleted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('published', 'varchar(32)')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addColumn('modified_by', 'integer')
    .execute();
  await db.schema.createIndex('objects_type_deleted').on('objects').columns(['object_type_id', 'deleted', 'id']).execute();
  await db.schema.createIndex('objects_deleted_status').on('objects').columns(['deleted', 'status', 'id']).execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', (c) => c.primaryKey().references('objects.id').onDelete('cascade'))
    .addColumn('username', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(255)')
    .addColumn('email', 'varchar(255)', (c) => c.unique())
    .addColumn('name', 'varchar(255)')
    .addColumn('surname', 'varchar(255)')
    .addColumn('blocked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('last_login', 'varchar(32)')
    .addColumn('last_login_err', 'varchar(32)')
    .addColumn('num_login_err', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('verified', 'varchar(32)')
    .execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(32)', (c) => c.notNull().unique())
    .addColumn('description', 'text')
    .addColumn('unchangeable', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('roles_users')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('role_id', 'integer', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('roles_users_unique', ['role_id', 'user_id'])
    .execute();
  await db.schema.createIndex('roles_users_user').on('roles_users').column('user_id').execute();

  // Refresh tokens: random 256-bit values, stored as SHA-256 hashes; revoking deletes the row.
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('application_id', 'integer')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refresh_tokens_user').on('refresh_tokens').column('user_id').execute();

  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  const types: Array<[string, string, string | null, boolean, string]> = [
    ['objects', 'object', null, true, 'Every content object'],
    ['media', 'media', 'objects', true, 'Objects with a file'],
    ['documents', 'document', 'objects', false, 'Documents'],
    ['events', 'event', 'objects', false, 'Events'],
    ['news', 'news_item', 'objects', false, 'News'],
    ['links', 'link', 'objects', false, 'Links to web pages'],
    ['locations', 'location', 'objects', false, 'Places'],
    ['profiles', 'profile', 'objects', false, 'People and organisations'],
    ['folders', 'folder', 'objects', false, 'Folders of the tree'],
    ['users', 'user', 'objects', false, 'User accounts'],
    ['images', 'image', 'media', false, 'Images'],
    ['files', 'file', 'media', false, 'Files'],
    ['audio', 'audio_item', 'media', false, 'Audio'],
    ['videos', 'video', 'media', false, 'Videos'],
  ];
  const ids = new Map<string, number>();
  for (const [name, singular, parent, isAbstract, description] of types) {
    const row = await db
      .insertInto('object_types')
      .values({
        name,
        singular,
        description,
        parent_id: parent ? ids.get(parent) : null,
        is_abstract: isAbstract,
        enabled: true,
        core_type: true,
        revision: 1,
        created: now,
        modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.set(name, Number(row.id));
  }
  await db
    .insertInto('roles')
    .values({ id: 1, name: 'admin', description: 'Administrators: may do everything', unchangeable: true, created: now, modified: now })
    .execute();
  await d.schema.continueIds(db, 'roles');
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
