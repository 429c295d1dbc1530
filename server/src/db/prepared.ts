// Queries built and compiled by kysely once, then run with new values. kysely builds an
// operation tree and compiles it to SQL on every call; on the hottest reads and writes (an
// object by id, inserting an object, a user's roles) that costs more than SQLite's own work
// (measured: about a tenth of a signed-in GET or a create). A prepared query is built with
// placeholders where the values go, compiled once per shape, and bound by position: still
// kysely's SQL for whatever dialect runs, still parameterised.
import crypto from 'node:crypto';
import type { CompiledQuery, Compilable, Kysely, Transaction } from 'kysely';
import type { Database } from './tables.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/** Stands where a value goes; compiled as a parameter like any value. */
class Slot {
  constructor(readonly index: number) {}
}

/** The i-th value of the arguments a prepared query is run with. */
export type Param = (i: number) => never;
const param: Param = (i) => new Slot(i) as never;

interface Compiled<Row> {
  query: CompiledQuery<Row>;
  /** For each parameter of the SQL: the argument it takes, or -1 for a constant of the query. */
  slots: number[];
}

/**
 * The SQL of every prepared query, by text, with a name: PostgreSQL connections (dialect/postgres-driver.ts)
 * send these as named statements, parsed and planned once per connection instead of per call.
 * Bounded by the code: one entry per prepared query and shape.
 */
const statementNames = new Map<string, string>();

/** The statement name of `sql` when it is the SQL of a prepared query. */
export const preparedStatementName = (sql: string): string | undefined => statementNames.get(sql);

const nameOf = (sql: string) => `folio_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;

/** Statements named by nameStatement, bounded: each stays prepared on every connection it ran on. */
const MAX_NAMED_STATEMENTS = 64;
let namedStatements = 0;

/**
 * Sends `sql` as a named statement from now on (PostgreSQL), as a prepared query's: for the
 * statements of a list's plan (resources/objects/list.ts), built at run time, one per shape of
 * list asked. Past MAX_NAMED_STATEMENTS they stay unnamed (parsed and planned at each call).
 */
export function nameStatement(sql: string): void {
  if (statementNames.has(sql) || namedStatements >= MAX_NAMED_STATEMENTS) return;
  namedStatements++;
  statementNames.set(sql, nameOf(sql));
}

function compile<Row>(query: Compilable<Row>, arity: number): Compiled<Row> {
  const compiled = query.compile();
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, nameOf(compiled.sql));
  const slots = compiled.parameters.map((p) => (p instanceof Slot ? p.index : -1));
  for (let i = 0; i < arity; i++) {
    if (!slots.includes(i)) throw new Error(`prepared query: argument ${i} is not used as a value`);
  }
  return { query: compiled, slots };
}

/**
 * Runs a read's SQL at once on the database's own connection, or answers undefined when it cannot
 * (a transaction holds the connection, the statement writes): the query then goes through kysely.
 */
export type DirectReads = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

/** The direct reads of each database (SQLite: dialect/sqlite.ts); a transaction is never one of them. */
const directReads = new WeakMap<object, DirectReads>();

/**
 * Prepared reads on `db` itself (not in a transaction) skip kysely's driver: on SQLite its
 * connection lock and promise hops cost more than the read (measured: a row by id 35 µs read
 * directly, 90 µs through executeQuery), and an uncached GET runs three or four of them.
 */
export function allowDirectReads(db: Kysely<Database>, reads: DirectReads): void {
  directReads.set(db, reads);
}

/**
 * Reads that take milliseconds, on another thread where the engine has one for them (SQLite's
 * reader threads, dialect/sqlite-reader.ts): undefined where the caller runs the read itself.
 */
export type ThreadReads = (sql: string, parameters: readonly unknown[]) => Promise<unknown[] | undefined>;

const threadReads = new WeakMap<object, ThreadReads>();

/** Long reads on `db` itself (never in a transaction: another connection would not see its writes) go to `reads`. */
export function allowThreadReads(db: Kysely<Database>, reads: ThreadReads): void {
  threadReads.set(db, reads);
}

/**
 * A read that may take milliseconds (a search's matches, a list's count, an anchor walk's step): on a reader thread where `db`
 * has them, else (PostgreSQL, which runs it in its own process; a transaction; a reader that
 * failed) through kysely. The same rows either way.
 */
export async function longRead<Row>(db: Executor, query: CompiledQuery<Row>): Promise<Row[]> {
  const away = threadReads.get(db);
  const rows = away && (await away(query.sql, query.parameters));
  if (rows) return rows as Row[];
  return (await db.executeQuery(query)).rows;
}

async function run<Row>(db: Executor, { query, slots }: Compiled<Row>, args: readonly unknown[]): Promise<Row[]> {
  const parameters = query.parameters.map((p, i) => (slots[i] >= 0 ? args[slots[i]] : p));
  const rows = directReads.get(db)?.(query.sql, parameters);
  if (rows) return rows as Row[];
  return (await db.executeQuery<Row>({ ...query, parameters })).rows;
}

export interface Prepared<Row, Args extends readonly unknown[]> {
  (db: Executor, ...args: Args): Promise<Row[]>;
}

/**
 * The engine a query is compiled for: its SQL differs (placeholders, quoting), so compiled forms
 * are kept per engine (one process may hold a SQLite and a PostgreSQL database, e.g. a restore).
 */
const engineOf = (db: Executor): object => db.getExecutor().adapter.constructor;

/** A query of fixed shape: `build(db, p)` uses p(0), p(1)… where the arguments go. */
export function prepared<Row, Args extends readonly unknown[]>(build: (db: Executor, p: Param) => Compilable<Row>): Prepared<Row, Args> {
  const compiled = new Map<object, Compiled<Row>>();
  return (db, ...args) => {
    const engine = engineOf(db);
    let c = compiled.get(engine);
    if (!c) compiled.set(engine, (c = compile(build(db, param), args.length)));
    return run(db, c, args);
  };
}

/**
 * A query whose SQL depends on the number of values (an `in` list): compiled once per count up
 * to `maxShapes` distinct counts, built afresh past it. `build(db, p, n)` uses p(0)…p(n-1).
 */
export function preparedList<Row>(build: (db: Executor, p: Param, n: number) => Compilable<Row>, maxShapes = 32): (db: Executor, values: readonly unknown[]) => Promise<Row[]> {
  const engines = new Map<object, Map<number, Compiled<Row>>>();
  return (db, values) => {
    const engine = engineOf(db);
    let shapes = engines.get(engine);
    if (!shapes) engines.set(engine, (shapes = new Map()));
    let compiled = shapes.get(values.length);
    if (!compiled) {
      compiled = compile(build(db, param, values.length), values.length);
      if (shapes.size < maxShapes) shapes.set(values.length, compiled);
    }
    return run(db, compiled, values);
  };
}
