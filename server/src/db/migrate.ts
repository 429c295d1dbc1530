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

export async function migrateToLatest(db: Kysely<any>, dialect: SqlDialect): Promise<void> {
  const migrator = new Migrator({ db: dialect.schema.forMigrations(db), provider: new StaticProvider(dialect), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}
