// `q` / filter[query] on account lists: the text, found as a substring (LIKE, so case-insensitive
// for ASCII) in any of the given columns.
import { sql, type RawBuilder } from 'kysely';

/** `(col1 like %text% or col2 like %text% …)`; the columns come from code, never from the request. */
export function containsText(columns: string[], text: string): RawBuilder<boolean> {
  const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`(${sql.join(
    columns.map((c) => sql`${sql.ref(c)} like ${like} escape '\\'`),
    sql` or `,
  )})`;
}
