// Which servers serve a data dir: each listening server keeps a file in $FOLIO_DATA_DIR/running
// (its host name, pid and URL) until it closes or its process exits, so that a command that must
// not run beside a server (restore) can refuse while one is up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FOLDER = 'running';
/** Files of this process's servers, removed at exit when a server was not closed. */
const own = new Set<string>();
let exitHook = false;

/** Records a server listening at `url` on `dataDir`; the function returned removes the record. */
export function markRunning(dataDir: string, port: number, url: string): () => void {
  const file = path.join(dataDir, FOLDER, `${process.pid}-${port}.json`);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ host: os.hostname(), pid: process.pid, url }) + '\n');
  } catch {
    // A read-only data dir still serves; restore then cannot see this server.
    return () => {};
  }
  own.add(file);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const f of own) fs.rmSync(f, { force: true });
    });
  }
  return () => {
    own.delete(file);
    fs.rmSync(file, { force: true });
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The servers of this machine serving `dataDir` now (a record whose process is gone, after a
 * crash or kill -9, is removed). Records of other hosts (a data dir on shared storage) cannot be
 * checked and are left out.
 */
export function runningServers(dataDir: string): { pid: number; url: string }[] {
  const dir = path.join(dataDir, FOLDER);
  if (!fs.existsSync(dir)) return [];
  const found: { pid: number; url: string }[] = [];
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    let record: { host?: unknown; pid?: unknown; url?: unknown };
    try {
      record = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    if (record.host !== os.hostname() || typeof record.pid !== 'number') continue;
    if (alive(record.pid)) found.push({ pid: record.pid, url: String(record.url) });
    else fs.rmSync(file, { force: true });
  }
  return found;
}
