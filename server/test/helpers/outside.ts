// Another connection to a test server's database, as another process has one: to look at rows the
// API does not show, or to write behind the server's back. SQLite: better-sqlite3 on the file;
// PostgreSQL (FOLIO_TEST_DB=postgres): a pg client. Statements take `?` placeholders.
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

export interface OutsideConnection {
  all<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  run(text: string, params?: unknown[]): Promise<void>;
  /** Changes whenever anyone commits a write (SQLite's data_version; Folio's counter on PostgreSQL). */
  dataVersion(): Promise<number>;
  close(): Promise<void>;
}

export async function connectOutside(t: { dataDir: string; databaseUrl: string | null }, options: { readonly?: boolean } = {}): Promise<OutsideConnection> {
  if (t.databaseUrl) {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    let n = 0;
    const numbered = (text: string) => text.replace(/\?/g, () => `$${++n}`);
    const query = async (text: string, params: unknown[] = []) => {
      n = 0;
      return (await client.query(numbered(text), params)).rows;
    };
    return {
      all: query as OutsideConnection['all'],
      run: async (text, params) => void (await query(text, params)),
      dataVersion: async () => Number((await query('select version from folio_data_version'))[0].version),
      close: () => client.end(),
    };
  }
  const db = new Database(path.join(t.dataDir, 'folio.sqlite'), { readonly: options.readonly ?? false });
  return {
    all: async <T>(text: string, params: unknown[] = []) => db.prepare(text).all(...params) as T[],
    run: async (text, params = []) => void db.prepare(text).run(...params),
    dataVersion: async () => Number(db.pragma('data_version', { simple: true })),
    close: async () => void db.close(),
  };
}
