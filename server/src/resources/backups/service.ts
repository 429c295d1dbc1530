// Backups kept under $FOLIO_DATA_DIR/backups: making one (one at a time per server, its progress
// readable while it runs), listing, reading, deleting, and the scheduled ones
// (FOLIO_BACKUP_INTERVAL_HOURS; only the newest FOLIO_BACKUP_KEEP scheduled ones are kept).
// Each backup is `folio-backup-<id>.tar.gz` with a small `folio-backup-<id>.json` beside it (kind,
// creation time, counts) so that lists need not read archives. Ids are `<UTC stamp>-<6 hex>`: they
// match a strict pattern before any path is built from them, so they cannot name another file.
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import type { Storage } from '../../storage/storage.js';
import { conflict, notFound } from '../../http/errors.js';
import { ownVersion } from '../status/routes.js';
import { backupEngine, type BackupEngine } from './engine.js';
import { countsOf, type BackupCounts } from './format.js';
import { BackupAbortedError, writeBackup, type BackupProgress } from './write.js';

const ID = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;
const FILE = /^folio-backup-(\d{8}T\d{6}Z-[0-9a-f]{6})\.tar\.gz$/;
/** Leftovers of a crashed backup or restore older than this are removed. */
const STALE_MS = 24 * 3600 * 1000;
/** setTimeout's longest delay; longer intervals are waited in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type BackupKind = 'manual' | 'scheduled';

export interface BackupInfo {
  id: string;
  file_name: string;
  size: number;
  created: string;
  kind: BackupKind;
  /** Null for a backup file without its description (copied in by hand). */
  counts: BackupCounts | null;
  missing_files: string[];
}

interface Description {
  created: string;
  kind: BackupKind;
  counts: BackupCounts;
  missing_files: string[];
}

export interface RunningBackup {
  id: string;
  kind: BackupKind;
  started: string;
  progress: BackupProgress;
}

export const isBackupId = (id: string) => ID.test(id);
export const backupFileName = (id: string) => `folio-backup-${id}.tar.gz`;
const descriptionName = (id: string) => `folio-backup-${id}.json`;

/** A new id: the UTC time to the second and 24 random bits. */
export function newBackupId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Where backups are kept. */
export const backupsDir = (dataDir: string) => path.join(dataDir, 'backups');

/** Write the description beside a finished backup (what lists show). */
export async function describeBackup(dataDir: string, id: string, d: Description): Promise<void> {
  const file = path.join(backupsDir(dataDir), descriptionName(id));
  const temp = `${file}.${crypto.randomBytes(4).toString('hex')}.part`;
  await fsp.writeFile(temp, JSON.stringify(d, null, 1) + '\n', { mode: 0o600 });
  await fsp.rename(temp, file);
}

/**
 * Make one backup into the backups folder (the API, the schedule and `npm run backup` without a
 * FILE all come here): the archive, then its description.
 */
export async function makeStoredBackup(
  dataDir: string,
  storage: Storage,
  engine: BackupEngine,
  kind: BackupKind,
  opts: { id?: string; onProgress?: (p: BackupProgress) => void; signal?: AbortSignal } = {},
): Promise<BackupInfo> {
  const id = opts.id ?? newBackupId();
  const dir = backupsDir(dataDir);
  await fsp.mkdir(dir, { recursive: true });
  const target = path.join(dir, backupFileName(id));
  const { manifest, size } = await writeBackup({ engine, dataDir, storage, target, folioVersion: ownVersion(), onProgress: opts.onProgress, signal: opts.signal });
  const description: Description = { created: manifest.created, kind, counts: countsOf(manifest), missing_files: manifest.missing_files };
  await describeBackup(dataDir, id, description);
  return { id, file_name: backupFileName(id), size, ...description };
}

export class BackupService {
  readonly dir: string;
  private readonly engine: BackupEngine;
  private running: (RunningBackup & { done: Promise<unknown>; abort: AbortController }) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly ctx: AppContext) {
    this.dir = backupsDir(ctx.config.dataDir);
    this.engine = backupEngine(ctx.config);
  }

  /** The backup being made now, if any. */
  current(): RunningBackup | null {
    if (!this.running) return null;
    const { id, kind, started, progress } = this.running;
    return { id, kind, started, progress: { ...progress } };
  }

  /** Make a backup now; 409 while another one of this server is under way. */
  async create(kind: BackupKind = 'manual'): Promise<BackupInfo> {
    if (this.running) throw conflict('A backup is being made already; try again when it has finished', 'backup_running');
    if (this.closed) throw conflict('The server is shutting down', 'shutting_down');
    const id = newBackupId();
    const abort = new AbortController();
    const progress: BackupProgress = { phase: 'files', entries_done: 0, entries_total: 0, bytes_done: 0, bytes_total: 0 };
    const work = makeStoredBackup(this.ctx.config.dataDir, this.ctx.storage, this.engine, kind, {
      id,
      signal: abort.signal,
      onProgress: (p) => Object.assign(progress, p),
    });
    this.running = { id, kind, started: new Date().toISOString(), progress, done: work.catch(() => undefined), abort };
    // Room for the new scheduled backup first, so that no list ever shows more than the kept number.
    if (kind === 'scheduled') await this.prune(Math.max(0, this.ctx.config.backupKeep - 1)).catch(() => undefined);
    try {
      const info = await work;
      if (kind === 'scheduled') await this.prune();
      return info;
    } finally {
      this.running = null;
    }
  }

  /** Every finished backup, newest first. */
  async list(): Promise<BackupInfo[]> {
    const names = await fsp.readdir(this.dir).catch(() => [] as string[]);
    const out: BackupInfo[] = [];
    for (const name of names) {
      const m = FILE.exec(name);
      if (!m) continue;
      const info = await this.read(m[1]).catch(() => null);
      if (info) out.push(info);
    }
    return out.sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : b.id.localeCompare(a.id)));
  }

  /** One backup; 404 for an id that is malformed or names none. */
  async get(id: string): Promise<BackupInfo> {
    if (!isBackupId(id)) throw notFound(`No backup with id "${id.slice(0, 100)}"`);
    try {
      return await this.read(id);
    } catch {
      throw notFound(`No backup with id "${id}"`);
    }
  }

  /** Path of a backup's file (the id is checked first). */
  async filePath(id: string): Promise<{ file: string; info: BackupInfo }> {
    const info = await this.get(id);
    return { file: path.join(this.dir, info.file_name), info };
  }

  async remove(id: string): Promise<void> {
    const { file } = await this.filePath(id);
    if (this.running?.id === id) throw conflict('This backup is still being made', 'backup_running');
    await fsp.rm(file, { force: true });
    await fsp.rm(path.join(this.dir, descriptionName(id)), { force: true });
  }

  private async read(id: string): Promise<BackupInfo> {
    const file = path.join(this.dir, backupFileName(id));
    const stat = await fsp.stat(file);
    if (!stat.isFile()) throw new Error('not a file');
    let d: Partial<Description> = {};
    try {
      d = JSON.parse(await fsp.readFile(path.join(this.dir, descriptionName(id)), 'utf8')) as Description;
    } catch {
      /* a backup copied in by hand: no description */
    }
    return {
      id,
      file_name: backupFileName(id),
      size: stat.size,
      created: typeof d.created === 'string' ? d.created : stat.mtime.toISOString(),
      kind: d.kind === 'scheduled' ? 'scheduled' : 'manual',
      counts: d.counts ?? null,
      missing_files: Array.isArray(d.missing_files) ? d.missing_files : [],
    };
  }

  /** Delete scheduled backups past the newest FOLIO_BACKUP_KEEP (manual ones are never deleted). */
  async prune(keep = this.ctx.config.backupKeep): Promise<void> {
    const scheduled = (await this.list()).filter((b) => b.kind === 'scheduled');
    for (const old of scheduled.slice(keep)) await this.remove(old.id).catch(() => undefined);
  }

  /** Remove leftovers (staging folders, partial files) of backups that crashed long ago. */
  async sweep(): Promise<void> {
    for (const name of await fsp.readdir(this.dir).catch(() => [] as string[])) {
      if (!/^\.(staging|restore)-|\.part$/.test(name)) continue;
      const full = path.join(this.dir, name);
      const stat = await fsp.stat(full).catch(() => null);
      if (stat && Date.now() - stat.mtimeMs > STALE_MS) await fsp.rm(full, { recursive: true, force: true });
    }
  }

  /** Start the schedule of FOLIO_BACKUP_INTERVAL_HOURS (no-op when unset). */
  startSchedule(): void {
    const hours = this.ctx.config.backupIntervalHours;
    if (hours === null) return;
    const every = hours * 3600 * 1000;
    let due = Date.now() + every;
    const arm = () => {
      if (this.closed) return;
      this.timer = setTimeout(tick, Math.max(0, Math.min(MAX_TIMER_MS, due - Date.now())));
      this.timer.unref?.();
    };
    const tick = () => {
      if (Date.now() < due) return arm();
      due = Date.now() + every;
      if (!this.running) {
        this.create('scheduled').then(
          (b) => this.ctx.log(`scheduled backup ${b.file_name} made (${b.size} bytes)`),
          (err) => {
            if (!(err instanceof BackupAbortedError)) this.ctx.log(`scheduled backup failed: ${(err as Error)?.stack ?? err}`);
          },
        );
      }
      arm();
    };
    arm();
  }

  /** Stop the schedule and cancel a backup under way (its partial files are removed). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) {
      this.running.abort.abort();
      await this.running.done;
    }
  }
}
