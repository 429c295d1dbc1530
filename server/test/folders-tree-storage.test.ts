// The nested-set storage under random sequences of placements and moves, compared after every
// step with a plain model of the tree and verified by the check routine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { loadConfig } from '../src/config.js';
import { openDatabase, type OpenedDatabase } from '../src/db/database.js';
import { checkTree } from '../src/resources/folders/check.js';
import { childNodes, folderNode, insertLeaf, insertRoot, moveSubtree, nodeIn, removeNodeAndLeaves } from '../src/resources/folders/tree.js';
import { insertObjectRow } from '../src/resources/objects/rows.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

type Op =
  | { kind: 'root' }
  | { kind: 'folder'; parent: number; position: number }
  | { kind: 'content'; parent: number; content: number; position: number }
  | { kind: 'move'; folder: number; parent: number; position: number }
  | { kind: 'makeRoot'; folder: number }
  | { kind: 'remove'; parent: number; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'root' }),
  fc.record({ kind: fc.constant('folder' as const), parent: fc.nat(), position: fc.integer({ min: -4, max: 4 }) }),
  fc.record({ kind: fc.constant('content' as const), parent: fc.nat(), content: fc.nat(3), position: fc.integer({ min: -4, max: 4 }) }),
  fc.record({ kind: fc.constant('move' as const), folder: fc.nat(), parent: fc.nat(), position: fc.integer({ min: -4, max: 4 }) }),
  fc.record({ kind: fc.constant('makeRoot' as const), folder: fc.nat() }),
  fc.record({ kind: fc.constant('remove' as const), parent: fc.nat(), pick: fc.nat() }),
);

/** The model: children of each folder in order, and the parent of each folder. */
class Model {
  children = new Map<number, number[]>();
  parentOf = new Map<number, number | null>();
  folders: number[] = [];
  place(parent: number, id: number, position: number) {
    const list = this.children.get(parent)!;
    const index = position === 0 ? list.length : position > 0 ? position - 1 : list.length + 1 + position;
    list.splice(Math.max(0, Math.min(index, list.length)), 0, id);
  }
  within(id: number, ancestor: number): boolean {
    for (let at: number | null | undefined = id; at != null; at = this.parentOf.get(at)) if (at === ancestor) return true;
    return false;
  }
}

describe('nested-set storage', () => {
  let opened: OpenedDatabase;
  let dir: string;
  let database: TestDatabase | null;
  const contents: number[] = [];
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-tree-'));
    // SQLite in the temp dir, or a fresh PostgreSQL database on the PostgreSQL pass.
    database = await createTestDatabase();
    opened = await openDatabase(loadConfig({ FOLIO_DATA_DIR: dir, ...(database ? { FOLIO_DATABASE_URL: database.url } : {}) }));
    for (let i = 0; i < 4; i++) contents.push((await insertObjectRow(opened.db, new Map(), 'documents', { title: `doc ${i}` }, null)).id);
  });
  after(async () => {
    await opened.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function clear() {
    await opened.db.deleteFrom('trees').execute();
    const folderType = opened.db.selectFrom('object_types').select('id').where('name', '=', 'folders');
    await opened.db.deleteFrom('objects').where('object_type_id', '=', folderType).execute();
  }

  test('random placements, moves, roots and removals keep a valid nested set equal to the model', async () => {
    const db = () => opened.db;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        await clear();
        const model = new Model();
        for (const op of ops) {
          await db().transaction().execute(async (trx) => {
            const folderAt = (n: number) => model.folders[n % model.folders.length];
            if (op.kind === 'root' || model.folders.length === 0) {
              const id = (await insertObjectRow(trx, new Map(), 'folders', { title: 'f' }, null)).id;
              await insertRoot(trx, id);
              model.folders.push(id);
              model.children.set(id, []);
              model.parentOf.set(id, null);
            } else if (op.kind === 'folder') {
              const parent = folderAt(op.parent);
              const id = (await insertObjectRow(trx, new Map(), 'folders', { title: 'f' }, null)).id;
              await insertLeaf(trx, (await folderNode(trx, parent))!, id, op.position || -1);
              model.folders.push(id);
              model.children.set(id, []);
              model.parentOf.set(id, parent);
              model.place(parent, id, op.position);
            } else if (op.kind === 'content') {
              const parent = folderAt(op.parent);
              const content = contents[op.content];
              if (await nodeIn(trx, parent, content)) return;
              await insertLeaf(trx, (await folderNode(trx, parent))!, content, op.position || -1);
              model.place(parent, content, op.position);
            } else if (op.kind === 'move') {
              const folder = folderAt(op.folder);
              const parent = folderAt(op.parent);
              const node = (await folderNode(trx, folder))!;
              const target = (await folderNode(trx, parent))!;
              if (model.within(parent, folder)) {
                await assert.rejects(moveSubtree(trx, node, target.id, op.position || -1), /under itself/);
                return;
              }
              await moveSubtree(trx, node, target.id, op.position || -1);
              const old = model.parentOf.get(folder);
              if (old != null) model.children.set(old, model.children.get(old)!.filter((x) => x !== folder));
              model.parentOf.set(folder, parent);
              model.place(parent, folder, op.position);
            } else if (op.kind === 'makeRoot') {
              const folder = folderAt(op.folder);
              await moveSubtree(trx, (await folderNode(trx, folder))!, null);
              const old = model.parentOf.get(folder);
              if (old != null) model.children.set(old, model.children.get(old)!.filter((x) => x !== folder));
              model.parentOf.set(folder, null);
            } else {
              const parent = folderAt(op.parent);
              const list = model.children.get(parent)!.filter((x) => contents.includes(x));
              if (!list.length) return;
              const content = list[op.pick % list.length];
              await removeNodeAndLeaves(trx, (await nodeIn(trx, parent, content))!);
              model.children.set(parent, model.children.get(parent)!.filter((x) => x !== content));
            }
          });
          assert.deepEqual(await checkTree(opened.db), [], `after ${JSON.stringify(op)}`);
        }
        for (const folder of model.folders) {
          const node = (await folderNode(opened.db, folder))!;
          const stored = (await childNodes(opened.db, node.id)).map((n) => n.object_id);
          assert.deepEqual(stored, model.children.get(folder), `children of folder ${folder}`);
          assert.equal(node.parent_id, model.parentOf.get(folder));
        }
      }),
      { numRuns: 40 },
    );
  });

  /** `check-tree` on the test's database (another data dir: SQLite there, none made). */
  const runCli = (dataDir = dir) => {
    const { FOLIO_DATABASE_URL: _unset, ...env } = process.env;
    const url = database && dataDir === dir ? { FOLIO_DATABASE_URL: database.url } : {};
    return spawnSync(process.execPath, ['--import', 'tsx', 'server/src/cli/check-tree.ts'], {
      env: { ...env, FOLIO_DATA_DIR: dataDir, ...url },
      encoding: 'utf8',
    });
  };

  test('the check routine and `check-tree` report a broken nested set', async () => {
    await clear();
    const root = (await insertObjectRow(opened.db, new Map(), 'folders', { title: 'r' }, null)).id;
    await insertRoot(opened.db, root);
    await insertLeaf(opened.db, (await folderNode(opened.db, root))!, contents[0]);
    assert.deepEqual(await checkTree(opened.db), []);
    const valid = runCli();
    assert.equal(valid.status, 0, valid.stderr);
    assert.match(valid.stdout, /valid \(2 nodes\)/);
    await opened.db.updateTable('trees').set({ tree_right: 7 }).where('object_id', '=', contents[0]).execute();
    const problems = await checkTree(opened.db);
    assert.ok(problems.some((p) => /1\.\.4/.test(p)), problems.join('\n'));
    assert.ok(problems.some((p) => /content object with children|overlaps/.test(p)), problems.join('\n'));
    const missing = runCli(path.join(dir, 'nowhere'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /no database/);
    assert.equal(fs.existsSync(path.join(dir, 'nowhere')), false);
    const broken = runCli();
    assert.equal(broken.status, 1, broken.stderr);
    assert.match(broken.stdout, /problem\(s\) found/);
  });
});
