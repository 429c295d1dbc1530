// The database a test server runs on. By default none is made here: the server opens SQLite in
// its temp data dir. With FOLIO_TEST_DB=postgres, each call creates a fresh PostgreSQL database
// on the server named by FOLIO_TEST_PG_URL (scripts/run-tests.mjs starts one for its PostgreSQL
// pass), or on a server this process starts itself (postgres.ts) and stops when it exits.
import crypto from 'node:crypto';
import pg from 'pg';
import { startPostgres, type PostgresServer } from './postgres.js';

export interface TestDatabase {
  url: string;
  /** Drops the database (its connections are closed first). */
  drop(): Promise<void>;
}

/** Whether the tests of this process run on PostgreSQL. */
export const onPostgres = process.env.FOLIO_TEST_DB === 'postgres';

let ownServer: Promise<PostgresServer> | null = null;

async function maintenanceUrl(): Promise<string> {
  if (process.env.FOLIO_TEST_PG_URL) return process.env.FOLIO_TEST_PG_URL;
  if (!ownServer) {
    ownServer = startPostgres();
    const started = await ownServer;
    process.once('exit', () => started.stop());
  }
  return (await ownServer).url;
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase | null> {
  if (!onPostgres) return null;
  const base = await maintenanceUrl();
  const name = `folio_test_${crypto.randomBytes(6).toString('hex')}`;
  await admin(base, (c) => c.query(`create database ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin(base, (c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}
