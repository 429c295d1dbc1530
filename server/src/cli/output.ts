// What the backup and restore commands print: counts per table, and progress on a terminal.
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
