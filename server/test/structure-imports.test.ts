// The HTTP layer depends on nothing in resources/: families use http/, never the other way round
// (identity types come from the leaf identity.ts; what needs a family is passed in by createServer).
// postgres pass: not run (reads the source files, no database)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const src = path.resolve(import.meta.dirname, '..', 'src');
const resources = path.join(src, 'resources') + path.sep;

/** Relative module specifiers of a file: import … from, export … from, import '…', import('…'). */
function localImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.[^'"]*)\1/g)) found.push(m[2]);
  return found;
}

/** The source file a relative specifier names (.js written for .ts). */
const resolveFrom = (file: string, specifier: string) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');

test('no module under http/ imports from resources/, directly or through the modules it imports', () => {
  const http = path.join(src, 'http');
  const start = fs.readdirSync(http).filter((f) => f.endsWith('.ts')).map((f) => path.join(http, f));
  assert.ok(start.length > 5, 'http/ was found');
  // Walk the local imports from every http/ module, remembering how each module was reached.
  const via = new Map<string, string[]>(start.map((f) => [f, [f]]));
  const queue = [...start];
  const offending: string[] = [];
  while (queue.length) {
    const file = queue.shift()!;
    for (const specifier of localImports(file)) {
      const target = resolveFrom(file, specifier);
      const chain = [...via.get(file)!, target];
      if (target.startsWith(resources)) {
        offending.push(chain.map((f) => path.relative(src, f)).join(' → '));
        continue;
      }
      if (via.has(target) || !fs.existsSync(target)) continue;
      via.set(target, chain);
      queue.push(target);
    }
  }
  assert.deepEqual(offending, []);
});
