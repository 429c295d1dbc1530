// `q` / filter[query] on account lists: the text, found as a substring in any of the given
// columns, case-insensitive (both sides through lower(): PostgreSQL's LIKE is case-sensitive).
import { sql, type RawBuilder } from 'kysely';

/** `(lower(col1) like lower(%text%) or …)`; the columns come from code, never from the request. */
export function containsText(columns: string[], text: string): RawBuilder<boolean> {
  const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`(${sql.join(
    columns.map((c) => sql`lower(${sql.ref(c)}) like lower(${like}) escape '\\'`),
    sql` or `,
  )})`;
}
