// Runs the numbered migrations in migrations/ (forward only; a landed file is never edited but
// to keep it engine-neutral). Families own number ranges so parallel work never collides:
// 0001-0009 foundation, 0010 objects/model, 0020 accounts, 0030 folders, 0040 media, 0050 legacy,
// 0060 performance. Each migration gets the dialect for what the engines write differently.
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

export async function migrateToLatest(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  const migrator = new Migrator({ db: dialect.schema.forMigrations(db), provider: new StaticProvider(dialect), allowUnorderedMigrations: true });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    const message = String((error as Error).message ?? error);
    if (dialect.name === 'sqlite' && attempt < 20 && RACE.test(message)) {
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${message}`);
  }
}
