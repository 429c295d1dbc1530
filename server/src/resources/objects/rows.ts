// The shared row layer of every object type (users and folders included): type lookup and
// inserting the `objects` row with its generated uname. Families build on these.
import type { Kysely, Selectable, Transaction } from 'kysely';
import { notFound } from '../../http/errors.js';
import { prepared } from '../../db/prepared.js';
import { nowIso } from '../../db/time.js';
import type { Database, ObjectsTable } from '../../db/tables.js';
import { uniqueUname } from './uname.js';

type Db = Kysely<Database> | Transaction<Database>;

/** An `objects` row as stored. */
export type ObjectRow = Selectable<ObjectsTable>;

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

type Nullable = string | null;
/** The insert of every object (prepared: built once, see db/prepared.ts). */
const insertObject = prepared<Selectable<ObjectsTable>, [number, string, string, Nullable, Nullable, Nullable, Nullable, Nullable, Nullable, Nullable, string, number | null]>((db, p) =>
  db
    .insertInto('objects')
    .values({
      object_type_id: p(0),
      status: p(1),
      uname: p(2),
      title: p(3),
      description: p(4),
      body: p(5),
      lang: p(6),
      extra: p(7),
      properties: p(8),
      locked: false,
      deleted: false,
      published: p(9),
      created: p(10),
      modified: p(10),
      created_by: p(11),
      modified_by: p(11),
    })
    .returningAll(),
);

/**
 * Insert an `objects` row of type `typeName` (or of a type the caller has looked up already in the
 * model); returns the row as stored (what `select *` would read). Run inside the caller's transaction.
 */
export async function insertObjectRow(
  db: Db,
  unameHints: Map<string, number>,
  typeName: string | { id: number; singular: string },
  fields: NewObjectRow,
  actorId: number | null,
): Promise<Selectable<ObjectsTable>> {
  const type = typeof typeName === 'string' ? await getObjectType(db, typeName) : typeName;
  const now = nowIso();
  const status = fields.status ?? 'draft';
  const uname = await uniqueUname(db, unameHints, fields.uname ?? fields.title, type.singular);
  const [row] = await insertObject(db, type.id, status, uname, fields.title ?? null, fields.description ?? null, fields.body ?? null, fields.lang ?? null,
    fields.extra === undefined || fields.extra === null ? null : JSON.stringify(fields.extra),
    fields.properties && Object.keys(fields.properties).length ? JSON.stringify(fields.properties) : null,
    status === 'on' ? now : null, now, actorId);
  return row;
}
