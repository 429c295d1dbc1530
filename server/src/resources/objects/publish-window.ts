// Publication windows (issue 31): the next instant at which what anonymous clients see changes
// by itself — the earliest `publish_start` or `publish_end` still to come among active objects.
// db/publish-epochs.ts asks it after every change of the data.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';

export async function nextPublishBound(db: Kysely<Database>, after: string): Promise<number | null> {
  const [start, end] = await Promise.all(
    (['publish_start', 'publish_end'] as const).map((column) =>
      db
        .selectFrom('objects')
        .select((eb) => eb.fn.min(column).as('next'))
        .where(column, '>', after)
        .where('deleted', '=', false)
        .executeTakeFirst(),
    ),
  );
  const bounds = [start?.next, end?.next].filter((b): b is string => typeof b === 'string').map((b) => Date.parse(b));
  return bounds.length ? Math.min(...bounds) : null;
}
