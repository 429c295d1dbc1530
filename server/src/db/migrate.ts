// Runs the numbered migrations in migrations/ (forward only; a landed file is never edited but
// to keep it engine-neutral). Families own number ranges so parallel work never collides:
// 0001-0009 foundation, 0010 objects/model, 0020 accounts, 0030 folders, 0040 media, 0050 legacy,
// 0060 performance. Each migration gets the dialect for what the engines write differently.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { SqlDialect } from './dialect/dialect.js';
import { migrations } from './migrations/index.js';

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: SqlDialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(Object.entries(migrations).map(([name, m]) => [name, { up: (db: Kysely<any>) => m.up(db, this.dialect) }]));
  }
}

/**
 * Processes started together on one new SQLite file race for the migrations (kysely takes no lock
 * on SQLite: it expects one connection): the loser of a race finds a table or column the winner
 * made as it tries to make it. Each migration commits on its own, so the loser waits and runs
 * again, and then finds the winner's ones recorded as done. PostgreSQL takes kysely's migration
 * lock and never gets here.
 */
const RACE = /already exists|duplicate column|SQLITE_BUSY|database is locked|UNIQUE constraint failed: kysely_migration/i;

/**
 * Runs the migrations not yet run. With `log`, an existing database's migrations are said before
 * they start and after they end, with their time: some take minutes at a million objects (0152
 * makes the full-text index again), and a start that says nothing meanwhile looks hung.
 * A new database's are not (it has nothing to wait for).
 */
export async function migrateToLatest(db: Kysely<any>, dialect: SqlDialect, log?: (line: string) => void): Promise<void> {
  const migrator = new Migrator({ db: dialect.schema.forMigrations(db), provider: new StaticProvider(dialect), allowUnorderedMigrations: true });
  const started = performance.now();
  // Migrations named on the log (none for a new database, or without a log).
  let said = 0;
  if (log) {
    const known = await migrator.getMigrations();
    const pending = known.filter((m) => !m.executedAt).map((m) => m.name);
    if (pending.length && pending.length < known.length) {
      said = pending.length;
      log(`database: running ${pending.length === 1 ? 'migration' : `${pending.length} migrations:`} ${pending.join(', ')}`);
      // Written before they start: a migration may hold the thread for minutes.
      await nextTurn();
    }
  }
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) {
      if (said) {
        log?.(`database: ${said === 1 ? 'migration' : 'migrations'} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        // Written before the start goes on to say where it listens.
        await nextTurn();
      }
      return;
    }
    const message = String((error as Error).message ?? error);
    if (dialect.name === 'sqlite' && attempt < 20 && RACE.test(message)) {
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${message}`);
  }
}
