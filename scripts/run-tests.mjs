// npm test's runner: every *.test.ts under server/test, electron/test and e2e, through node's
// test runner with the tsx loader (its summary prints the pass/fail counts CI reads).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const roots = ['server/test', 'electron/test', 'e2e', 'bench/test'];
const only = process.argv.slice(2);
const files = [];
for (const root of roots) {
  if (!fs.existsSync(root)) continue;
  for (const entry of fs.readdirSync(root, { recursive: true })) {
    const file = path.join(root, String(entry));
    if (file.endsWith('.test.ts') && (!only.length || only.some((o) => file.includes(o)))) files.push(file);
  }
}
files.sort();
const concurrency = process.env.FOLIO_TEST_CONCURRENCY ?? '2';
const res = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
process.exit(res.status ?? 1);
