// npm run restore -- FILE [--replace]: restores a backup into the configured database and
// storage. The whole file is checked first; a database that holds content (any object but users) is
// only replaced with --replace. Stop the server first (the desktop app does so itself).
// Exit 0 when restored, 1 when refused or the file is damaged (nothing changed), 2 on usage errors.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { backupEngine } from '../resources/backups/engine.js';
import { BackupFileError } from '../resources/backups/format.js';
import { restoreBackup, RestoreRefusedError, type RestoreProgress } from '../resources/backups/restore.js';
import { openStorage } from '../storage/open-storage.js';
import { printCounts, progressPrinter, UsageError } from './output.js';

async function main(args: string[]): Promise<number> {
  const rest = args.filter((a) => a !== '--');
  const replace = rest.includes('--replace');
  const files = rest.filter((a) => a !== '--replace');
  const unknown = files.find((a) => a.startsWith('-'));
  if (unknown) throw new UsageError(`unknown option ${unknown}`);
  if (files.length !== 1) throw new UsageError('give exactly one backup FILE');
  const file = path.resolve(files[0]);
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
    console.error(`restore: ${file} is not a file`);
    return 1;
  }
  const config = loadConfig();
  const database = await openDatabase(config);
  const storage = await openStorage(config.storage, { dataDir: config.dataDir, clearTemp: false }).catch(async (err) => {
    await database.close();
    throw err;
  });
  try {
    const onProgress = progressPrinter<RestoreProgress>('restore', (p) =>
      p.phase === 'checking' && p.bytes_total ? `checking the backup: ${Math.floor((100 * p.bytes_done) / p.bytes_total)}%` : `${p.phase}…`,
    );
    const counts = await restoreBackup({ engine: backupEngine(config), db: database.db, dataDir: config.dataDir, storage, file, replace, onProgress });
    console.log(`restore: restored ${file} into ${config.dataDir}${storage.kind === 'local' ? '' : ` and ${storage.description}`}`);
    printCounts(counts);
    console.log('restore: sessions are not restored: everyone signs in again');
    return 0;
  } catch (err) {
    if (err instanceof RestoreRefusedError || err instanceof BackupFileError) {
      console.error(`restore: ${err.message}`);
      console.error('restore: nothing was changed');
      return 1;
    }
    throw err;
  } finally {
    await storage.close();
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError) {
      console.error(`restore: ${err.message}\nusage: npm run restore -- FILE [--replace]`);
      process.exit(2);
    }
    console.error(`restore: ${err instanceof ConfigError ? 'configuration error: ' : 'failed: '}${err?.message ?? err}`);
    if (!(err instanceof ConfigError)) console.error('restore: nothing was changed');
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
