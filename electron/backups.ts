// The desktop app's "Back up now…" and "Restore from backup…": the same backup and restore code as
// `npm run backup` / `npm run restore`, on the app's data folder. A restore stops the embedded
// server, restores, and starts it again whatever happened (a refused or damaged file changes
// nothing, and the server comes back on the data it had). No Electron here: main.ts only adds
// the dialogs, so this is tested under Node.
import path from 'node:path';
import { loadConfig } from '../server/src/config.js';
import { openDatabase } from '../server/src/db/database.js';
import { backupEngine } from '../server/src/resources/backups/engine.js';
import { countsOf, type BackupCounts } from '../server/src/resources/backups/format.js';
import { restoreBackup } from '../server/src/resources/backups/restore.js';
import { backupFileName, backupsDir, isBackupId, makeStoredBackup, newBackupId } from '../server/src/resources/backups/service.js';
import { writeBackup } from '../server/src/resources/backups/write.js';
import { ownVersion } from '../server/src/resources/status/routes.js';
import { LocalStorage } from '../server/src/storage/local-storage.js';
import type { RunningServer } from './embedded-server.js';

export interface DesktopBackupOptions {
  dataDir: string;
  /** better-sqlite3 addon built for Electron's ABI, when running from a checkout. */
  sqliteNativeBinding?: string | null;
}

const configOf = (o: DesktopBackupOptions) => loadConfig({ FOLIO_DATA_DIR: o.dataDir }, { sqliteNativeBinding: o.sqliteNativeBinding ?? null });
/** The desktop keeps its files in the data folder; a server may be writing to it (its temp files are left alone). */
const storageOf = (dataDir: string) => new LocalStorage({ dataDir, clearTemp: false });

/** Where the save dialog proposes to put a new backup: the backups folder the admin UI lists. */
export const suggestedBackupPath = (dataDir: string) => path.join(backupsDir(dataDir), backupFileName(newBackupId()));

/** Write a backup to `target` (kept in the backups folder, it is listed in the admin UI too). */
export async function backUpTo(o: DesktopBackupOptions, target: string): Promise<{ file: string; size: number; counts: BackupCounts }> {
  const config = configOf(o);
  const engine = backupEngine(config);
  const m = /^folio-backup-(.+)\.tar\.gz$/.exec(path.basename(target));
  if (path.dirname(path.resolve(target)) === backupsDir(config.dataDir) && m && isBackupId(m[1])) {
    const b = await makeStoredBackup(config.dataDir, storageOf(config.dataDir), engine, 'manual', { id: m[1] });
    return { file: target, size: b.size, counts: b.counts! };
  }
  const { manifest, size } = await writeBackup({ engine, dataDir: config.dataDir, storage: storageOf(config.dataDir), target, folioVersion: ownVersion() });
  return { file: target, size, counts: countsOf(manifest) };
}

/** Restore `file` into the data folder, replacing what it holds (the user confirmed). */
export async function restoreFrom(o: DesktopBackupOptions, file: string): Promise<BackupCounts> {
  const config = configOf(o);
  const database = await openDatabase(config);
  try {
    return await restoreBackup({ engine: backupEngine(config), db: database.db, dataDir: config.dataDir, storage: storageOf(config.dataDir), file, replace: true });
  } finally {
    await database.close();
  }
}

export interface RestoreOutcome {
  /** What was restored, or why nothing was. */
  counts: BackupCounts | null;
  error: string | null;
  /** The server after the restart, or null with `startError` when it did not come back. */
  running: RunningServer | null;
  startError: string | null;
}

/** Stop the server, run `restore`, start the server again (also when the restore failed). */
export async function restoreWithRestart(
  server: { stop(): Promise<void>; start(): Promise<RunningServer> },
  restore: () => Promise<BackupCounts>,
): Promise<RestoreOutcome> {
  await server.stop();
  const outcome: RestoreOutcome = { counts: null, error: null, running: null, startError: null };
  try {
    outcome.counts = await restore();
  } catch (err) {
    outcome.error = (err as Error)?.message ?? String(err);
  }
  try {
    outcome.running = await server.start();
  } catch (err) {
    outcome.startError = (err as Error)?.message ?? String(err);
  }
  return outcome;
}

/** What a backup holds in one line, for the dialogs that report a backup or a restore. */
export const describeCounts = (counts: BackupCounts) =>
  `${counts.tables.objects ?? 0} objects (${counts.tables.users ?? 0} of them users) and ${counts.files} stored files`;
