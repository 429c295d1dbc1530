// What the command-line tools print: counts per table, progress on a terminal, and failures as one
// line with the documented exit code.
import { ConfigError } from '../config.js';
import type { BackupCounts } from '../resources/backups/format.js';

export class UsageError extends Error {}

export function printCounts(counts: BackupCounts): void {
  const width = Math.max(...Object.keys(counts.tables).map((t) => t.length), 5);
  for (const [table, rows] of Object.entries(counts.tables)) console.log(`  ${table.padEnd(width)}  ${rows}`);
  console.log(`  ${'files'.padEnd(width)}  ${counts.files}`);
}

/** A progress callback that rewrites one status line on stderr when it is a terminal (else silent). */
export function progressPrinter<P>(name: string, describe: (p: P) => string): (p: P) => void {
  if (!process.stderr.isTTY) return () => {};
  let last = '';
  return (p) => {
    const line = `${name}: ${describe(p)}`;
    if (line === last) return;
    last = line;
    process.stderr.write(`\r\x1b[K${line}`);
    if (/done…$/.test(line)) process.stderr.write('\n');
  };
}

/**
 * Flags npm takes for itself when they come before `--` (`npm run model apply F --dry-run`): npm
 * sets `npm_config_dry_run` and the command never sees `--dry-run`. Given the flags this command
 * knows, the ones npm swallowed (set in its environment, missing from the arguments), so the
 * command can refuse to run without them. npm expands `--replace` to `--replace-registry-host`.
 */
export function flagsNpmTook(flags: string[], args: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const key = (flag: string) => `npm_config_${flag.replace(/^--/, '').replace(/-/g, '_')}`;
  return flags.filter(
    (flag) => !args.includes(flag) && [key(flag), `${key(flag)}_registry_host`].some((k) => env[k] === 'true' || env[k] === ''),
  );
}

/** The refusal when npm swallowed flags: the command as it must be typed. */
export function npmTookFlagsError(script: string, flags: string[], args: string[]): UsageError {
  const line = ['npm run', script, '--', ...args.filter((a) => a !== '--'), ...flags].join(' ');
  return new UsageError(`npm kept ${flags.join(' ')} for itself, so nothing was done: put -- before the arguments: ${line}`);
}

/**
 * How a command ends: the exit code, or one line on stderr for an error and the exit code it
 * means (2 usage and configuration, 1 anything else), never a stack trace.
 */
export function finish(name: string, usage: string, run: Promise<number>, after?: (err: unknown) => string | null): void {
  run.then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof UsageError) {
        console.error(`${name}: ${err.message} (${usage})`);
        process.exit(2);
      }
      const config = err instanceof ConfigError;
      console.error(`${name}: ${config ? 'configuration error: ' : 'failed: '}${oneLine(err)}${config ? '' : (after?.(err) ?? '')}`);
      process.exit(config ? 2 : 1);
    },
  );
}

/** An error as one line: its message (a system error's own, with the path it names), no stack. */
export function oneLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException | null;
  const text = e && typeof e === 'object' && 'message' in e ? String(e.message) : String(err);
  return text.split('\n')[0];
}
