// Every migration, by name. Add a line per new file; names sort in the order they run.
import type { Migration } from 'kysely';
import * as m0001 from './0001-core.js';

export const migrations: Record<string, Migration> = {
  '0001-core': m0001,
};
