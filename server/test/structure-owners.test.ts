// Tables have declared owners (server/src/db/owners.ts): every write to a table, in every source
// file — kysely's insertInto / updateTable / deleteFrom / replaceInto / mergeInto, spread over lines
// or not, and raw SQL (insert into, update … set, delete from, truncate) in any string — comes from
// a module the registry names as that table's owner, a bulk loader, or a module that declares
// the tables it names through a variable. The registry itself is complete and points at real code.
// postgres pass: not run (reads the source files, no database)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { BULK_WRITERS, DYNAMIC_WRITERS, ENGINE_TABLES, KERNEL_MODULES, TABLE_OWNERS, ownedBy } from '../src/db/owners.js';

const src = path.resolve(import.meta.dirname, '..', 'src');
const owners: Record<string, readonly string[]> = { ...TABLE_OWNERS, ...ENGINE_TABLES };

/** Every .ts file under server/src, `/`-separated and relative to it, with its text sans comments. */
function sources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of fs.readdirSync(src, { recursive: true })) {
    const file = String(entry).split(path.sep).join('/');
    if (!file.endsWith('.ts')) continue;
    out.push({ file, text: withoutComments(fs.readFileSync(path.join(src, file), 'utf8')) });
  }
  return out;
}

/** Block comments and whole-line `//` comments blanked (line numbers kept). */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .split('\n')
    .map((line) => (line.trim().startsWith('//') ? '' : line))
    .join('\n');
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

interface Write {
  file: string;
  line: number;
  /** The table written, or null when the code names it through a variable. */
  table: string | null;
  how: string;
}

const KYSELY_WRITE = /\b(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*([^,)\s]+)/g;
const RAW_WRITE = /\b(insert\s+into|delete\s+from|truncate(?:\s+table)?|update)\s+("?[a-z_][a-z0-9_]*"?|\$\{)(\s+set\b)?/gi;

/** The writes of one file's text (comments already blanked). */
function writesIn(file: string, text: string): Write[] {
  const found: Write[] = [];
  for (const m of text.matchAll(KYSELY_WRITE)) {
    const literal = /^['"`]([a-z_][a-z0-9_]*)['"`]$/.exec(m[2]);
    found.push({ file, line: lineOf(text, m.index!), table: literal ? literal[1] : null, how: `${m[1]}(${m[2]})` });
  }
  for (const m of text.matchAll(RAW_WRITE)) {
    const verb = m[1].toLowerCase();
    // A trigger's event (`after insert or update or delete on t`, `after truncate on t`) writes nothing.
    if (/\b(after|before|or)\s+$/i.test(text.slice(Math.max(0, m.index! - 12), m.index!))) continue;
    // `update` is a write only as `update <table> set`; elsewhere it is a word (`on update`, `for update`).
    if (verb === 'update' && m[2] !== '${' && !m[3]) continue;
    if (verb === 'update' && m[2] === '${' && !/^\$\{[^}]*\}\s+set\b/i.test(text.slice(m.index! + m[0].length - 2))) continue;
    found.push({ file, line: lineOf(text, m.index!), table: m[2] === '${' ? null : m[2].replace(/"/g, '').toLowerCase(), how: m[0].trim() });
  }
  return found;
}

/** Every write of every file. */
const writes = (): Write[] => sources().flatMap(({ file, text }) => writesIn(file, text));

describe('tables have declared owners', () => {
  test('every write to a table comes from one of its owners', () => {
    const bulk = (file: string) => ownedBy(file, BULK_WRITERS);
    const offenders: string[] = [];
    const all = writes();
    for (const w of all) {
      if (bulk(w.file)) continue;
      const at = `${w.file}:${w.line} ${w.how}`;
      if (w.table === null) {
        const declared = DYNAMIC_WRITERS[w.file];
        if (!declared) offenders.push(`${at}: names its table through a variable, and owners.ts DYNAMIC_WRITERS does not list the module`);
        continue;
      }
      const tableOwners = owners[w.table];
      if (!tableOwners) offenders.push(`${at}: writes "${w.table}", a table owners.ts does not know`);
      else if (!ownedBy(w.file, tableOwners)) offenders.push(`${at}: writes "${w.table}", owned by ${tableOwners.join(', ')}`);
    }
    assert.deepEqual(offenders, []);
    // The scan finds what it is meant to find (a scan that matched nothing would pass anything).
    const seen = new Set(all.map((w) => w.table));
    for (const t of ['objects', 'object_relations', 'users', 'roles_users', 'history', 'objects_search', 'folio_data_version']) assert.ok(seen.has(t), `no write to ${t} found`);
    assert.ok(all.some((w) => w.table === null), 'no write through a variable found');
  });

  test('the scan sees writes spread over lines and in raw SQL, and ignores comments and trigger events', () => {
    const text = withoutComments(
      [
        'await trx',
        '  .insertInto(',
        "    'objects'",
        '  )',
        "// db.deleteFrom('users')",
        'sql`update roles set name = 1`',
        'sql`after insert or update of title on objects for update`',
        'sql`after truncate on objects`',
        'sql`delete from ${sql.table(name)} where id = 1`',
        'db.updateTable(table)',
      ].join('\n'),
    );
    assert.deepEqual(
      writesIn('x.ts', text).map((w) => [w.line, w.table]),
      [[2, 'objects'], [10, null], [6, 'roles'], [9, null]],
    );
  });

  test('only the kernel writes the objects tables', () => {
    for (const t of ['objects', 'object_relations'] as const) {
      for (const owner of TABLE_OWNERS[t]) assert.ok((KERNEL_MODULES as readonly string[]).includes(owner), `${owner} owns ${t} but is no kernel module`);
    }
  });

  test('the registry points at real modules, and dynamic writers own what they may name', () => {
    const missing: string[] = [];
    for (const [table, list] of Object.entries(owners)) {
      for (const owner of list) if (!fs.existsSync(path.join(src, owner))) missing.push(`${table}: ${owner}`);
    }
    for (const owner of BULK_WRITERS) if (!fs.existsSync(path.join(src, owner))) missing.push(`bulk: ${owner}`);
    assert.deepEqual(missing, []);
    for (const [file, tables] of Object.entries(DYNAMIC_WRITERS)) {
      assert.ok(fs.existsSync(path.join(src, file)), file);
      for (const t of tables) assert.ok(ownedBy(file, owners[t] ?? []), `${file} may name ${t} but does not own it`);
    }
  });
});
