// Reads start from one place (docs/decisions.md, Structure): outside the write kernel's own modules,
// the read path itself and the bulk loaders, no source file begins a query of `objects` — kysely's
// selectFrom('objects' …), selectFrom([… 'objects' …]), a join into `objects` (aliased or not), or
// raw SQL `from objects` / `join objects` in a string — instead of visibleObjects() /
// visibleObjectsTable() (resources/objects/read.ts); and SYSTEM, the one reader that sees all, is
// defined once.
// postgres pass: not run (reads the source files, no database)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { KERNEL_MODULES, ownedBy } from '../src/db/owners.js';

const src = path.resolve(import.meta.dirname, '..', 'src');

/**
 * Where an objects query may begin: the kernel (it writes the table and reads its own rows), the
 * read path (visibleObjects is built there), and what loads or indexes the whole table (migrations,
 * the engines' search indexes, a backup and its restore).
 */
const ALLOWED = [...KERNEL_MODULES, 'resources/objects/read.ts', 'db/migrations/', 'db/dialect/', 'resources/backups/'];

/** Every .ts file under server/src, `/`-separated and relative to it. */
function sourceFiles(): string[] {
  return fs
    .readdirSync(src, { recursive: true })
    .map((entry) => String(entry).split(path.sep).join('/'))
    .filter((file) => file.endsWith('.ts'));
}

/**
 * `text` with its comments blanked (line numbers kept), and which characters are inside a string
 * or template literal. A `//` or `/*` inside a string or a regular expression is no comment.
 */
function scan(text: string): { code: string; inString: boolean[] } {
  const out = text.split('');
  const inString = new Array<boolean>(text.length).fill(false);
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  let last = ''; // the last significant character of code (does a `/` start a regular expression?)
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      for (let k = i + 1; k < j; k++) inString[k] = true;
      i = j + 1;
      last = c;
    } else if (c === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last) || /\b(return|typeof|case)\s*$/.test(text.slice(Math.max(0, i - 8), i)))) {
      // A regular expression literal: skipped whole (its quotes are no strings).
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n' && (inClass || text[j] !== '/')) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        j++;
      }
      i = j + 1;
      last = '/';
    } else {
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return { code: out.join(''), inString };
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

const OBJECTS_TABLE = String.raw`['"\x60]objects(?:\s+as\s+\w+)?['"\x60]`;
/** kysely: selectFrom('objects' …), selectFrom('objects as o'), and every kind of join into it. */
const KYSELY_START = new RegExp(String.raw`\b(selectFrom|(?:inner|left|right|full|cross)Join(?:Lateral)?)\(\s*${OBJECTS_TABLE}`, 'g');
/** kysely: selectFrom([… 'objects' …]). */
const KYSELY_LIST = /\bselectFrom\(\s*\[([^\]]*)\]/g;
/** Raw SQL in a string or template: `from objects`, `join objects` (not objects_fts and the like). */
const RAW_START = /\b(from|join)\s+"?objects"?(?![\w"])/gi;

/** Where one file's text begins an objects query: `line: what` each. */
function startsIn(text: string): string[] {
  const { code, inString } = scan(text);
  const found: Array<[number, string]> = [];
  for (const m of code.matchAll(KYSELY_START)) found.push([m.index!, m[0]]);
  for (const m of code.matchAll(KYSELY_LIST)) if (new RegExp(OBJECTS_TABLE).test(m[1])) found.push([m.index!, m[0]]);
  for (const m of code.matchAll(RAW_START)) if (inString[m.index!]) found.push([m.index!, m[0]]);
  return found.sort((a, b) => a[0] - b[0]).map(([index, what]) => `${lineOf(code, index)}: ${what.replace(/\s+/g, ' ')}`);
}

describe('reads start from one place', () => {
  test('the scan finds every form of an objects query, and nothing in comments or beside it', () => {
    const sample = [
      "const a = db.selectFrom('objects').selectAll();",
      'const b = db',
      '  .selectFrom(',
      '    "objects as o",',
      '  );',
      "const c = db.selectFrom('trees').innerJoin('objects', 'objects.id', 'trees.object_id');",
      "const d = db.selectFrom('trees').leftJoin(`objects as parent`, 'parent.id', 'trees.parent_id');",
      "const e = db.selectFrom(['trees', 'objects']);",
      'const f = sql`select 1 from trees a join objects ao on ao.id = a.object_id`;',
      "const g = sql.raw('SELECT id FROM objects WHERE deleted = 0');",
      // Not queries of `objects`: comments, other tables, the builder itself, a regular expression.
      "// db.selectFrom('objects')",
      "/* db.innerJoin('objects', 'objects.id', 'x.id') */",
      "const h = visibleObjects(ctx, viewer, db).selectAll(); // selectFrom('objects')",
      "const i = db.selectFrom('objects_fts').select('rowid'); const j = sql`insert into objects_fts select 1`;",
      "const k = /from objects/.test(x) ? 'http://example.com/from objects' : 'y';",
      "const l = db.selectFrom('object_types').innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.object_type_id', 'object_types.id');",
    ].join('\n');
    assert.deepEqual(startsIn(sample), [
      "1: selectFrom('objects'",
      '3: selectFrom( "objects as o"',
      "6: innerJoin('objects'",
      "7: leftJoin(`objects as parent`",
      "8: selectFrom(['trees', 'objects']",
      '9: join objects',
      '10: FROM objects',
      '15: from objects',
    ]);
  });

  test('no module outside the kernel, the read path and the bulk loaders begins an objects query', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles()) {
      if (ownedBy(file, ALLOWED)) continue;
      for (const at of startsIn(fs.readFileSync(path.join(src, file), 'utf8'))) offenders.push(`${file}:${at}`);
    }
    assert.deepEqual(offenders, [], 'begin with visibleObjects(ctx, viewer, db) or join visibleObjectsTable(…) (resources/objects/read.ts); SYSTEM where the server reads for itself');
  });

  test('the allowed modules exist, and visibleObjects is where the read path begins', () => {
    for (const allowed of ALLOWED) assert.ok(fs.existsSync(path.join(src, allowed)), `${allowed} does not exist`);
    const read = fs.readFileSync(path.join(src, 'resources/objects/read.ts'), 'utf8');
    assert.match(read, /export function visibleObjects\(/);
    assert.match(read, /export function visibleObjectsTable</);
  });

  test('SYSTEM, the reader that sees all, is defined once (read.ts; the kernel re-exports it)', () => {
    const definitions: string[] = [];
    for (const file of sourceFiles()) {
      const { code } = scan(fs.readFileSync(path.join(src, file), 'utf8'));
      for (const m of code.matchAll(/\b(?:const|let|var|function|class)\s+SYSTEM\b/g)) definitions.push(`${file}:${lineOf(code, m.index!)}`);
    }
    assert.equal(definitions.length, 1, `SYSTEM defined at ${definitions.join(', ') || 'nowhere'}`);
    assert.match(definitions[0], /^resources\/objects\/read\.ts:/);
  });

  test('no read of the read path takes an optional viewer', () => {
    const { code } = scan(fs.readFileSync(path.join(src, 'resources/objects/read.ts'), 'utf8'));
    assert.doesNotMatch(code, /viewer\??\s*:\s*Viewer\s*\|\s*undefined|\bviewer\?\s*:|!viewer\b/);
  });
});
