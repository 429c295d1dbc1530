// npm run restore -- FILE [--replace]: restores a backup into the configured database and
// storage. The whole file is checked first; a database that holds content (any object but users) is
// only replaced with --replace. Refused while a server of this machine runs on the data dir (its record in
// running/, see running.ts): stop it first (the desktop app does so itself).
// Exit 0 when restored, 1 when refused or the file is damaged (nothing changed), 2 on usage errors.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { backupEngine } from '../resources/backups/engine.js';
import { BackupFileError } from '../resources/backups/format.js';
import { restoreBackup, RestoreRefusedError, type RestoreProgress } from '../resources/backups/restore.js';
import { runningServers } from '../running.js';
import { openStorage } from '../storage/open-storage.js';
import { finish, flagsNpmTook, npmTookFlagsError, printCounts, progressPrinter, UsageError } from './output.js';

async function main(args: string[]): Promise<number> {
  const took = flagsNpmTook(['--replace'], args);
  if (took.length) throw npmTookFlagsError('restore', took, args);
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
  // Restoring under a running server would replace its data while it serves (and caches) it.
  const live = runningServers(config.dataDir);
  if (live.length) {
    console.error(`restore: a Folio server is running on ${config.dataDir} (pid ${live.map((s) => `${s.pid} at ${s.url}`).join(', pid ')}): stop it first; nothing was changed`);
    return 1;
  }
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
      console.error(`restore: ${err.message.replace(/\.$/, '')}; nothing was changed`);
      return 1;
    }
    throw err;
  } finally {
    await storage.close();
    await database.close();
  }
}

finish('restore', 'usage: npm run restore -- FILE [--replace]', main(process.argv.slice(2)), () => '; nothing was changed');
