// The shared row layer of every object type (users and folders included): type lookup and
// inserting the `objects` row with its generated uname. Families build on these.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ObjectSearch } from '../../db/dialect/dialect.js';
import { notFound } from '../../http/errors.js';
import { prepared, preparedList } from '../../db/prepared.js';
import { nowIso } from '../../db/time.js';
import type { Database, ObjectsTable } from '../../db/tables.js';
import { firstUnameGuesses, uniqueUname } from './uname.js';

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

/** The values of one inserted row, from the arguments `v(0)`… (InsertArgs' order). */
const rowValues = (v: (i: number) => never) => ({
  object_type_id: v(0),
  status: v(1),
  uname: v(2),
  title: v(3),
  description: v(4),
  body: v(5),
  lang: v(6),
  extra: v(7),
  properties: v(8),
  locked: false,
  deleted: false,
  published: v(9),
  created: v(10),
  modified: v(10),
  created_by: v(11),
  modified_by: v(11),
  publish_start: v(12),
  publish_end: v(13),
});
const INSERT_ARITY = 14;

/** The insert of one object (its uname known to be free). */
const insertObject = prepared<Selectable<ObjectsTable>, InsertArgs>((db, p) => db.insertInto('objects').values(rowValues(p)).returningAll());

/** An `objects` row to insert: its type and fields, by whom. */
export interface ObjectRowInsert {
  type: { id: number; singular: string };
  fields: NewObjectRow;
  actorId: number | null;
  /** A reference to its search document, staged beforehand (ObjectSearch.stageDocuments), when the engine takes one. */
  document?: string;
}

/** The fields of a row the search document is made of, as stored (ObjectSearch.stageDocuments). */
export function searchFields(fields: NewObjectRow): { title: string | null; description: string | null; body: string | null; properties: string | null } {
  return { title: fields.title ?? null, description: fields.description ?? null, body: fields.body ?? null, properties: propertiesText(fields) };
}

/** `properties` as stored: JSON, or null when there are none. */
const propertiesText = (fields: NewObjectRow) => (fields.properties && Object.keys(fields.properties).length ? JSON.stringify(fields.properties) : null);

/** The values after the uname of the insert statements (InsertArgs from the title on). */
function insertValues(fields: NewObjectRow, status: string, now: string, actorId: number | null) {
  return [fields.title ?? null, fields.description ?? null, fields.body ?? null, fields.lang ?? null,
    fields.extra === undefined || fields.extra === null ? null : JSON.stringify(fields.extra),
    propertiesText(fields),
    status === 'on' ? now : null, now, actorId, fields.publish_start ?? null, fields.publish_end ?? null] as const;
}

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
  const [row] = await insertObjectRows(db, unameHints, [{ type, fields, actorId }]);
  return row;
}

/**
 * Rows one multi-row insert takes: a power of two up to 64 (896 values, within every engine's
 * parameter limit), so that a handful of statement shapes serve every count (PostgreSQL keeps
 * each as a named statement per connection); 50 rows go as 32 + 16 + 2.
 */
const chunkSize = (left: number) => 2 ** Math.min(6, Math.floor(Math.log2(left)));

/** The multi-row insert of `n` rows whose unames may be taken (those come back as no row). */
const insertObjectsIfFree = preparedList<Selectable<ObjectsTable>>((db, p, n) => {
  const rows = Array.from({ length: n / INSERT_ARITY }, (_, r) => rowValues((i) => p(r * INSERT_ARITY + i)));
  return db.insertInto('objects').values(rows).onConflict((oc) => oc.column('uname').doNothing()).returningAll();
});

/** The multi-row insert of insertObjectsIfFree that also writes each row's search document (its last value). */
const withDocuments = new Map<ObjectSearch, (db: Db, values: readonly unknown[]) => Promise<Array<Selectable<ObjectsTable>>>>();
function insertObjectsWithDocuments(search: ObjectSearch & Required<Pick<ObjectSearch, 'withDocuments'>>) {
  let insert = withDocuments.get(search);
  if (!insert) {
    const arity = INSERT_ARITY + 1;
    insert = preparedList<Selectable<ObjectsTable>>((db, p, n) => {
      const rows = Array.from({ length: n / arity }, (_, r) => (i: number) => p(r * arity + i));
      const query = db.insertInto('objects').values(rows.map(rowValues)).onConflict((oc) => oc.column('uname').doNothing()).returningAll();
      return search.withDocuments(db as Kysely<Database>, query, rows.map((v) => [v(2), v(INSERT_ARITY)]));
    });
    withDocuments.set(search, insert);
  }
  return insert;
}

/**
 * Insert `objects` rows (inside the caller's transaction), in one statement for as many as get the
 * first name they try (the usual case: a bulk import through /operations costs one round trip, not
 * one per object); the others are inserted one by one after a look-up of a free uname. Rows whose
 * search document was computed beforehand bring it along when `search` takes documents. Returns
 * the rows as stored, in the order given.
 */
export async function insertObjectRows(db: Db, unameHints: Map<string, number>, items: ObjectRowInsert[], search?: ObjectSearch): Promise<Array<Selectable<ObjectsTable>>> {
  const now = nowIso();
  const out: Array<Selectable<ObjectsTable> | undefined> = new Array(items.length);
  const guesses = firstUnameGuesses(unameHints, items.map((i) => i.fields.uname ?? i.fields.title));
  const guessed = items.flatMap((item, k) => (guesses[k] ? [k] : []));
  for (let start = 0; start < guessed.length; ) {
    const chunk = guessed.slice(start, (start += chunkSize(guessed.length - start)));
    const documented = search?.withDocuments && chunk.every((k) => items[k].document !== undefined);
    const values = chunk.flatMap((k) => {
      const { type, fields, actorId, document } = items[k];
      const status = fields.status ?? 'draft';
      const row = [type.id, status, guesses[k]!.name, ...insertValues(fields, status, now, actorId)];
      return documented ? [...row, document] : row;
    });
    const insert = documented ? insertObjectsWithDocuments(search as Parameters<typeof insertObjectsWithDocuments>[0]) : insertObjectsIfFree;
    const byName = new Map((await insert(db, values)).map((row) => [row.uname, row]));
    for (const k of chunk) {
      out[k] = byName.get(guesses[k]!.name);
      if (out[k]) guesses[k]!.used();
      else guesses[k]!.taken();
    }
  }
  // Most creates get the first name they try; a taken one (or none to try) falls back to the
  // look-up of uniqueUname.
  for (const [k, { type, fields, actorId }] of items.entries()) {
    if (out[k]) continue;
    const status = fields.status ?? 'draft';
    const uname = await uniqueUname(db, unameHints, fields.uname ?? fields.title, type.singular);
    [out[k]] = await insertObject(db, type.id, status, uname, ...insertValues(fields, status, now, actorId));
  }
  return out as Array<Selectable<ObjectsTable>>;
}
