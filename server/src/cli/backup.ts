// npm run backup -- [FILE]: writes one backup file of the configured database and storage while
// a server may keep serving them. Without FILE (or with a folder) it goes to $FOLIO_DATA_DIR/backups
// under a generated name, where the API and the admin UI list it.
// Exit 0 when written, 1 when the backup failed, 2 when it cannot run (usage, configuration).
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { backupEngine } from '../resources/backups/engine.js';
import { countsOf } from '../resources/backups/format.js';
import { backupFileName, makeStoredBackup, newBackupId } from '../resources/backups/service.js';
import { ownVersion } from '../resources/status/routes.js';
import { writeBackup, type BackupProgress } from '../resources/backups/write.js';
import { openStorage } from '../storage/open-storage.js';
import { finish, printCounts, progressPrinter, UsageError } from './output.js';

async function main(args: string[]): Promise<number> {
  const files = args.filter((a) => a !== '--');
  if (files.some((a) => a.startsWith('-'))) throw new UsageError(`unknown option ${files.find((a) => a.startsWith('-'))}`);
  if (files.length > 1) throw new UsageError('give at most one FILE');
  const config = loadConfig();
  const dbFile = path.join(config.dataDir, 'folio.sqlite');
  if (!config.databaseUrl && !fs.existsSync(dbFile)) {
    console.error(`backup: no database at ${dbFile} (set FOLIO_DATA_DIR)`);
    return 2;
  }
  const engine = backupEngine(config);
  const onProgress = progressPrinter<BackupProgress>('backup', (p) =>
    p.phase === 'archive' && p.bytes_total ? `writing the archive: ${Math.floor((100 * p.bytes_done) / p.bytes_total)}%` : `${p.phase}…`,
  );
  let target = files[0] ? path.resolve(files[0]) : null;
  // A folder (an existing one, or any name ending in /): the file gets a generated name in it.
  const folder = target && ((fs.existsSync(target) && fs.statSync(target).isDirectory()) || /[\\/]$/.test(files[0]));
  if (target && folder) target = path.join(target, backupFileName(newBackupId()));
  // The folder a FILE names is made, as the folder of a backup without FILE is.
  if (target) fs.mkdirSync(path.dirname(target), { recursive: true });
  let written: { file: string; size: number; counts: ReturnType<typeof countsOf>; missing: string[] };
  // A second user of the storage a server may be writing to: its temp files are left alone.
  const storage = await openStorage(config.storage, { dataDir: config.dataDir, clearTemp: false });
  try {
    if (target) {
      const { manifest, size } = await writeBackup({ engine, dataDir: config.dataDir, storage, target, folioVersion: ownVersion(), onProgress });
      written = { file: target, size, counts: countsOf(manifest), missing: manifest.missing_files };
    } else {
      const b = await makeStoredBackup(config.dataDir, storage, engine, 'manual', { onProgress });
      written = { file: path.join(config.dataDir, 'backups', b.file_name), size: b.size, counts: b.counts!, missing: b.missing_files };
    }
  } finally {
    await storage.close();
  }
  console.log(`backup: wrote ${written.file} (${written.size} bytes)`);
  printCounts(written.counts);
  if (written.missing.length) console.log(`backup: warning: ${written.missing.length} stream file(s) were already missing from the store: ${written.missing.join(', ')}`);
  return 0;
}

finish('backup', 'usage: npm run backup -- [FILE]', main(process.argv.slice(2)));
