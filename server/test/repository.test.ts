// The repository itself: no tracked file holds what a merge left unresolved. A conflict marker in
// a source file fails the typecheck, but one in the docs or a JSON file would land unnoticed.
// postgres pass: not run (reads the repository's files, no database)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..', '..');

test('no tracked text file holds a merge conflict marker', (t) => {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\0').filter(Boolean);
  } catch {
    t.skip('not a git checkout');
    return;
  }
  assert.ok(files.length > 100, 'git lists the project files');
  const markers = /^(<{7} |>{7} |={7}$)/m;
  const found: string[] = [];
  for (const file of files) {
    const full = path.join(root, file);
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > 4 * 1024 * 1024) continue;
    const bytes = fs.readFileSync(full);
    if (bytes.includes(0)) continue; // binary
    const text = bytes.toString('utf8');
    const m = markers.exec(text);
    if (m) found.push(`${file}:${text.slice(0, m.index).split('\n').length}`);
  }
  assert.deepEqual(found, [], `conflict markers in ${found.join(', ')}`);
});
