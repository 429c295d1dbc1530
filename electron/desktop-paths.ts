// Where the desktop app keeps things inside its user-data folder (see README, "Desktop app"):
//   settings.json        the app's settings
//   data/                FOLIO_DATA_DIR of the embedded server (database, files, outbox, secrets)
//   logs/server.log      the embedded server's log lines
import fs from 'node:fs';
import path from 'node:path';

export interface DesktopPaths {
  userData: string;
  settingsFile: string;
  dataDir: string;
  logFile: string;
  /** Written by the server on a first start with a generated admin password. */
  initialPasswordFile: string;
}

export function desktopPaths(userData: string): DesktopPaths {
  const dataDir = path.join(userData, 'data');
  return {
    userData,
    settingsFile: path.join(userData, 'settings.json'),
    dataDir,
    logFile: path.join(userData, 'logs', 'server.log'),
    initialPasswordFile: path.join(dataDir, 'initial-admin-password'),
  };
}

/** The generated first-start admin password, or null when none was generated (or it was removed). */
export function readInitialAdminPassword(paths: DesktopPaths): string | null {
  try {
    const password = fs.readFileSync(paths.initialPasswordFile, 'utf8').trim();
    return password || null;
  } catch {
    return null;
  }
}

const maxLogBytes = 5 * 1024 * 1024;

/** An appending line logger on logs/server.log; a log over 5 MB is moved to server.log.1 first. */
export function openLogFile(paths: DesktopPaths): { write(line: string): void; close(): void } {
  fs.mkdirSync(path.dirname(paths.logFile), { recursive: true });
  try {
    if (fs.statSync(paths.logFile).size > maxLogBytes) fs.renameSync(paths.logFile, `${paths.logFile}.1`);
  } catch {
    // no log yet
  }
  const fd = fs.openSync(paths.logFile, 'a', 0o600);
  let open = true;
  return {
    write(line) {
      if (open) fs.writeSync(fd, `${new Date().toISOString()} ${line}\n`);
    },
    close() {
      if (open) fs.closeSync(fd);
      open = false;
    },
  };
}
