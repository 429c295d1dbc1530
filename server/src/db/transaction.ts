// One transaction for a write, or the caller's when it already runs inside one: services that
// open their own transaction (model, roles, applications, vocabularies) can then be composed into
// a larger unit that commits or rolls back as a whole (POST /model/project applies a whole model).
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './tables.js';

export function transact<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}
