// Every migration, by name. Add a line per new file; names sort in the order they run.
import type { Migration } from 'kysely';
import * as m0001 from './0001-core.js';
import * as m0020 from './0020-accounts.js';

export const migrations: Record<string, Migration> = {
  '0001-core': m0001,
  '0020-accounts': m0020,
};
