// What a start says about its database while nothing answers yet: the migrations an existing
// database still runs, before they start and when they are done (some make the full-text index
// again and take minutes at a million objects), and, on SQLite, that it waits for another process
// starting on the same file (its migrations), before it waits. A new database says neither.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrations } from '../src/db/migrations/index.js';
import { ADMIN, sameData, startServer } from './helpers/server.js';
import { createTestDatabase, onPostgres } from './helpers/test-database.js';

const start = async (env: Record<string, string>) => {
  const lines: string[] = [];
  const server = await createServer(loadConfig({ FOLIO_ADMIN_USERNAME: ADMIN.username, FOLIO_ADMIN_PASSWORD: ADMIN.password, ...env }, { logRequests: false }), { log: (line) => lines.push(line) });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, lines, status: async () => (await fetch(`${url}/status`)).status };
};

describe('a start says what it waits for', () => {
  test('an existing database names the migrations it runs before they start, then their time; a new one says nothing of them', async () => {
    const first = await startServer();
    try {
      await first.server.close();
      // As a database of the version before: the last migration not yet run (it finds nothing to
      // do on an index made as it makes it, but runs and is recorded all the same).
      const again = await start(sameData(first));
      assert.deepEqual(again.lines.filter((l) => l.startsWith('database: ')), [], 'nothing to run, nothing said');
      await again.server.close();
      const up = Object.keys(migrations).at(-1)!;
      if (first.databaseUrl) {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: first.databaseUrl });
        await client.connect();
        await client.query('delete from kysely_migration where name = $1', [up]);
        await client.end();
      } else {
        const Database = (await import('better-sqlite3')).default;
        const raw = new Database(path.join(first.dataDir, 'folio.sqlite'));
        raw.prepare('delete from kysely_migration where name = ?').run(up);
        raw.close();
      }
      const upgraded = await start(sameData(first));
      try {
        const said = upgraded.lines.filter((l) => l.startsWith('database: '));
        assert.equal(said.length, 2, said.join('\n'));
        assert.equal(said[0], `database: running migration ${up}`);
        assert.match(said[1], /^database: migration done in \d+\.\d s$/);
        assert.equal(await upgraded.status(), 200);
      } finally {
        await upgraded.server.close();
      }
      // A new database runs every migration without a word about them.
      const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-start-log-'));
      const database = await createTestDatabase();
      try {
        const made = await start({ FOLIO_DATA_DIR: fresh, ...(database ? { FOLIO_DATABASE_URL: database.url } : {}) });
        await made.server.close();
        assert.deepEqual(made.lines.filter((l) => l.startsWith('database: ')), []);
      } finally {
        await database?.drop();
        fs.rmSync(fresh, { recursive: true, force: true });
      }
    } finally {
      await first.close();
    }
  });

  test('a start on SQLite says it waits for another process starting on the same file, then comes up', { skip: onPostgres && 'SQLite start lock' }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-start-log-'));
    try {
      // Another process holds the start lock for a second and a half, as a start running its migrations does.
      const lockFile = path.join(dir, 'folio.sqlite-start.lock');
      const holder = spawn(
        process.execPath,
        ['-e', `const D = require('better-sqlite3'); const l = new D(${JSON.stringify(lockFile)}); l.exec('begin exclusive'); console.log('held'); setTimeout(() => { l.exec('commit'); l.close(); }, 1500);`],
        { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (d) => String(d).includes('held') && resolve());
        holder.on('exit', (code) => reject(new Error(`the lock holder ended early (${code})`)));
      });
      const t0 = Date.now();
      const { server, lines, status } = await start({ FOLIO_DATA_DIR: dir });
      try {
        assert.ok(Date.now() - t0 >= 1000, 'it waited for the lock');
        assert.ok(lines.includes('database: another process is starting on folio.sqlite (its migrations); waiting for it'), lines.join('\n'));
        assert.equal(await status(), 200);
      } finally {
        await server.close();
        await new Promise((resolve) => (holder.exitCode === null ? holder.on('exit', resolve) : resolve(null)));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
