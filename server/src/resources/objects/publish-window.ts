// Publication windows: the next instant at which what anonymous clients see changes
// by itself — the earliest `publish_start` or `publish_end` still to come. db/publish-epochs.ts
// asks it after every change of the data, so it must cost one index probe per bound: no other
// condition (a trashed object's bound only ends an epoch early, which is harmless), the order and
// limit the index answers directly (measured: with `deleted = false` beside it SQLite walked the
// whole table on a seeded database, and writes ran at a fifth of their speed).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { SYSTEM, visibleObjects } from './read.js';

export async function nextPublishBound(db: Kysely<Database>, after: string): Promise<number | null> {
  // One statement, one index probe per bound.
  const next = (column: 'publish_start' | 'publish_end') => visibleObjects(null, SYSTEM, db, { trashed: 'any' }).select(column).where(column, '>', after).orderBy(column).limit(1);
  const row = await db
    .selectNoFrom([next('publish_start').as('start'), next('publish_end').as('end')])
    .executeTakeFirst();
  const bounds = [row?.start, row?.end].filter((b): b is string => typeof b === 'string').map((b) => Date.parse(b));
  return bounds.length ? Math.min(...bounds) : null;
}
