// The statements a test server sends to PostgreSQL, as pg's clients send them: for tests that
// count round trips, or explain what was sent. Install before the server connects (each
// connection binds the query method it finds), restore after it closed.
import pg from 'pg';

/** A statement as sent: its text and the values of its parameters. */
export interface SentStatement {
  text: string;
  values: unknown[];
}

export interface StatementLog {
  /** The statements sent while `request` ran. */
  during(request: () => Promise<unknown>): Promise<string[]>;
  /** The statements sent while `request` ran, with their parameters' values. */
  sentDuring(request: () => Promise<unknown>): Promise<SentStatement[]>;
  restore(): void;
}

export function logStatements(): StatementLog {
  let seen: SentStatement[] | null = null;
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, text: unknown, ...rest: unknown[]) {
    if (seen) {
      const config = typeof text === 'string' ? { text, values: rest[0] } : (text as { text?: string; values?: unknown });
      seen.push({ text: String(config?.text), values: Array.isArray(config?.values) ? [...config.values] : [] });
    }
    return (query as (...args: unknown[]) => unknown).call(this, text, ...rest);
  };
  const sentDuring = async (request: () => Promise<unknown>) => {
    seen = [];
    try {
      await request();
      return seen;
    } finally {
      seen = null;
    }
  };
  return {
    sentDuring,
    during: async (request) => (await sentDuring(request)).map((s) => s.text),
    restore: () => {
      pg.Client.prototype.query = query;
    },
  };
}
