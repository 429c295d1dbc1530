// The shared row layer of every object type (users and folders included): type lookup and
// inserting the `objects` row with its generated uname. Families build on these.
import type { Kysely, Selectable, Transaction } from 'kysely';
import { notFound } from '../../http/errors.js';
import { prepared } from '../../db/prepared.js';
import { nowIso } from '../../db/time.js';
import type { Database, ObjectsTable } from '../../db/tables.js';
import { firstUnameGuess, uniqueUname } from './uname.js';

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
  publish_start?: string | null;
  publish_end?: string | null;
}

type Nullable = string | null;
type InsertArgs = [number, string, string, Nullable, Nullable, Nullable, Nullable, Nullable, Nullable, Nullable, string, number | null, Nullable, Nullable];

/** The insert of every object; `ifFree`: nothing happens (no row comes back) when the uname is taken. */
const objectInsert = (ifFree: boolean) =>
  prepared<Selectable<ObjectsTable>, InsertArgs>((db, p) => {
    const insert = db.insertInto('objects').values({
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
      publish_start: p(12),
      publish_end: p(13),
    });
    return (ifFree ? insert.onConflict((oc) => oc.column('uname').doNothing()) : insert).returningAll();
  });
/** Prepared: built and compiled once (see db/prepared.ts). */
const insertObject = objectInsert(false);
const insertObjectIfFree = objectInsert(true);

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
  const values = [fields.title ?? null, fields.description ?? null, fields.body ?? null, fields.lang ?? null,
    fields.extra === undefined || fields.extra === null ? null : JSON.stringify(fields.extra),
    fields.properties && Object.keys(fields.properties).length ? JSON.stringify(fields.properties) : null,
    status === 'on' ? now : null, now, actorId, fields.publish_start ?? null, fields.publish_end ?? null] as const;
  // Most creates get the first name they try: one statement, no look-up before it (a round trip
  // saved per create on PostgreSQL). A taken one falls back to the look-up of uniqueUname.
  const guess = firstUnameGuess(unameHints, fields.uname ?? fields.title);
  if (guess) {
    const [row] = await insertObjectIfFree(db, type.id, status, guess.name, ...values);
    if (row) {
      guess.used();
      return row;
    }
    guess.taken();
  }
  const uname = await uniqueUname(db, unameHints, fields.uname ?? fields.title, type.singular);
  const [row] = await insertObject(db, type.id, status, uname, ...values);
  return row;
}
