// The statements a test server sends to PostgreSQL, as pg's clients send them: for tests that
// count round trips. Install before the server connects (each connection binds the query method
// it finds), restore after it closed.
import pg from 'pg';

export interface StatementLog {
  /** The statements sent while `request` ran. */
  during(request: () => Promise<unknown>): Promise<string[]>;
  restore(): void;
}

export function logStatements(): StatementLog {
  let seen: string[] | null = null;
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, text: unknown, ...rest: unknown[]) {
    seen?.push(typeof text === 'string' ? text : String((text as { text?: string })?.text));
    return (query as (...args: unknown[]) => unknown).call(this, text, ...rest);
  };
  return {
    async during(request) {
      seen = [];
      try {
        await request();
        return seen;
      } finally {
        seen = null;
      }
    },
    restore: () => {
      pg.Client.prototype.query = query;
    },
  };
}
