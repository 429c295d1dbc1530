// The shared row layer of every object type (users and folders included): type lookup and
// inserting the `objects` row with its generated uname. Families build on these.
import type { Kysely, Transaction } from 'kysely';
import { notFound } from '../../http/errors.js';
import { nowIso } from '../../db/time.js';
import type { Database } from '../../db/tables.js';
import { uniqueUname } from './uname.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function getObjectType(db: Db, name: string) {
  const row = await db.selectFrom('object_types').selectAll().where('name', '=', name).executeTakeFirst();
  if (!row) throw notFound(`Unknown object type "${name}"`);
  return row;
}

export interface NewObjectRow {
  status?: string;
  uname?: string | null;
  title?: string | null;
  description?: string | null;
  body?: string | null;
  lang?: string | null;
  extra?: unknown;
  properties?: Record<string, unknown>;
}

/**
 * Insert an `objects` row of type `typeName` (or of a type the caller has looked up already in the
 * model); returns its id. Run inside the caller's transaction.
 */
export async function insertObjectRow(
  db: Db,
  typeName: string | { id: number; singular: string },
  fields: NewObjectRow,
  actorId: number | null,
): Promise<number> {
  const type = typeof typeName === 'string' ? await getObjectType(db, typeName) : typeName;
  const now = nowIso();
  const status = fields.status ?? 'draft';
  const uname = await uniqueUname(db, fields.uname ?? fields.title, type.singular);
  const row = await db
    .insertInto('objects')
    .values({
      object_type_id: type.id,
      status,
      uname,
      title: fields.title ?? null,
      description: fields.description ?? null,
      body: fields.body ?? null,
      lang: fields.lang ?? null,
      extra: fields.extra === undefined || fields.extra === null ? null : JSON.stringify(fields.extra),
      properties: fields.properties && Object.keys(fields.properties).length ? JSON.stringify(fields.properties) : null,
      locked: false,
      deleted: false,
      published: status === 'on' ? now : null,
      created: now,
      modified: now,
      created_by: actorId,
      modified_by: actorId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
