// What folders add to every object, as hooks of the read path and the write pipeline: the
// `parents` relationship (and a folder's `parent`, `children`, `meta.path`), the tree filters of
// every list (parent, ancestor, roots), a new folder's place in the tree, and what trash, restore
// and permanent delete do to the tree.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest } from '../../http/errors.js';
import { relationshipLinksAt, type ResourceIdentifier } from '../../http/jsonapi.js';
import type { ObjectExtension, SerializedObject } from '../objects/extensions.js';
import type { ReadContext } from '../../http/read-context.js';
import { findObjectByIdOrUname, getObjectsByIds, seesPublishedUnrestricted, SYSTEM, visibleObjectsTable } from '../objects/read.js';
import type { ObjectRow } from '../objects/rows.js';
import { folderParts } from './parts.js';
import { FOLDERS, PARENTS_VALUE, parentsFromValue, parentsOf, parentsValue, pathsOf, placeNewFolder, removeFromTree, restoreSubfolders, trashSubfolders } from './service.js';

const MAX_FILTER_FOLDERS = 100;
const noMatch = sql<SqlBool>`1 = 0`;

/** Active folders named by id or uname in a filter value (unknown ones match nothing). */
async function foldersOfFilter(ctx: AppContext, name: string, values: string[]): Promise<number[]> {
  if (!values.length) throw badRequest(`filter[${name}] needs a folder id or uname`, 'invalid_filter');
  if (values.length > MAX_FILTER_FOLDERS) throw badRequest(`filter[${name}] takes at most ${MAX_FILTER_FOLDERS} folders`, 'invalid_filter');
  const rows = await Promise.all(values.map((v) => findObjectByIdOrUname(ctx, v, { typeName: FOLDERS, viewer: SYSTEM })));
  return rows.filter((r): r is ObjectRow => !!r).map((r) => r.id);
}

type ObjectsEb = ExpressionBuilder<Database, 'objects'>;

const treeFilters = {
  /** Objects placed directly in one of the folders. */
  async parent(values: string[], eb: ObjectsEb, ctx: AppContext): Promise<Expression<SqlBool>> {
    const ids = await foldersOfFilter(ctx, 'parent', values);
    if (!ids.length) return noMatch;
    return eb('objects.id', 'in', eb.selectFrom('trees').select('trees.object_id').where('trees.parent_id', 'in', ids));
  },
  /** Objects anywhere below one of the folders, not counting what sits in trashed sub-folders. */
  async ancestor(values: string[], eb: ObjectsEb, ctx: AppContext): Promise<Expression<SqlBool>> {
    const ids = await foldersOfFilter(ctx, 'ancestor', values);
    if (!ids.length) return noMatch;
    return eb(
      'objects.id',
      'in',
      eb
        .selectFrom('trees as t')
        .innerJoin('trees as a', (join) =>
          join.onRef('a.root_id', '=', 't.root_id').onRef('a.tree_left', '<', 't.tree_left').onRef('a.tree_right', '>', 't.tree_right'),
        )
        .innerJoin(visibleObjectsTable(ctx, SYSTEM, ctx.db, { as: 'p' }), 'p.id', 't.parent_id')
        .select('t.object_id')
        .where('a.object_id', 'in', ids),
    );
  },
  /** Root folders (filter[roots], filter[roots]=true); filter[roots]=false: everything else. */
  async roots(values: string[], eb: ObjectsEb): Promise<Expression<SqlBool>> {
    const v = values.join(',');
    if (!['', 'true', '1', 'false', '0'].includes(v)) throw badRequest('filter[roots] takes no value, or true / false', 'invalid_filter');
    const roots = eb.selectFrom('trees').select('trees.object_id').where('trees.parent_id', 'is', null);
    return v === 'false' || v === '0' ? eb('objects.id', 'not in', roots) : eb('objects.id', 'in', roots);
  },
};

/** filter[parent]'s order: each object's position in the folders named (the first, when in several). */
const treeOrders = {
  async parent(values: string[], eb: ObjectsEb, ctx: AppContext): Promise<Expression<unknown>> {
    const ids = await foldersOfFilter(ctx, 'parent', values);
    return eb.selectFrom('trees').select((t) => t.fn.min('trees.tree_left').as('position')).whereRef('trees.object_id', '=', 'objects.id').where('trees.parent_id', 'in', ids.length ? ids : [-1]);
  },
};

/**
 * `relationships.parents` of each item (the parents the reader sees: `shown`, or all of them for
 * admins), and a folder's `parent`, `children` and `meta.path`.
 */
function addParents(rc: ReadContext, items: SerializedObject[], parents: Map<number, number[]>, shown: Set<number>, paths: Map<number, string> | null): void {
  for (const item of items) {
    const path = `/${item.type}/${item.id}`;
    const ids: ResourceIdentifier[] = [];
    for (const p of parents.get(item.id) ?? []) if (rc.viewer.isAdmin || shown.has(p)) ids.push({ id: String(p), type: FOLDERS });
    const relationships = (item.resource.relationships ??= {});
    const placed = relationshipLinksAt(rc.base, path, 'parents');
    placed.data = ids;
    relationships.parents = placed;
    if (item.type !== FOLDERS) continue;
    relationships.parent = { ...relationshipLinksAt(rc.base, path, 'parent'), data: ids[0] ?? null };
    relationships.children = relationshipLinksAt(rc.base, path, 'children');
    item.resource.meta = { ...(item.resource.meta ?? {}), path: paths?.get(item.id) ?? null };
  }
}

export function foldersExtension(ctx: AppContext): ObjectExtension {
  return {
    name: 'folders',
    types: ['objects'],
    filterOrders: treeOrders,
    parts: folderParts,
    decorate(rc, _ctx, items) {
      // Parent folders the reader may not see are left out (the read path decides; admins see all).
      // A list page or a read by id read them with its rows; the other items are read here.
      const unread = items.filter((i) => !(i.row && PARENTS_VALUE in i.row)).map((i) => i.id);
      const folders = items.filter((i) => i.type === FOLDERS);
      // Parents read with the rows and plainly published: shown to a reader of published objects
      // of their type (when no object permission can hide them) without reading them again.
      const parents = new Map<number, number[]>();
      const shown = new Set<number>();
      for (const i of items) {
        if (!i.row || !(PARENTS_VALUE in i.row) || i.row[PARENTS_VALUE] == null) continue;
        const placed = parentsFromValue(i.row[PARENTS_VALUE]);
        parents.set(i.id, placed.map((p) => p.id));
        for (const p of placed) if (p.publishedType !== null && seesPublishedUnrestricted(ctx, rc.viewer, p.publishedType)) shown.add(p.id);
      }
      const unknownOf = () => (rc.viewer.isAdmin ? [] : [...new Set([...parents.values()].flat())].filter((id) => !shown.has(id)));
      // Nothing to read (an object whose parents came with it and are plainly published, or has
      // none): answered at once, no promise.
      if (!unread.length && !folders.length && !unknownOf().length) return addParents(rc, items, parents, shown, null);
      return (async () => {
        if (unread.length) for (const [id, list] of await parentsOf(ctx.db, unread)) parents.set(id, list);
        const unknown = unknownOf();
        if (unknown.length) for (const r of await getObjectsByIds(ctx, unknown, { viewer: rc.viewer })) shown.add(r.id);
        addParents(rc, items, parents, shown, folders.length ? await pathsOf(ctx.db, folders.map((f) => f.id)) : null);
      })();
    },
    filters: treeFilters,
    includes: {
      // include=parents: the folders an object is placed in (the read path keeps the visible ones).
      async parents(rows) {
        const parents = await parentsOf(ctx.db, rows.map((r) => r.id));
        return [...parents].flatMap(([objectId, ids]) => ids.map((relatedId) => ({ objectId, relatedId })));
      },
    },
    listValues: { [PARENTS_VALUE]: parentsValue },
    onTrash: (trx, ids, _ctx, actor) => trashSubfolders(ctx, trx, ids, actor),
    onRestore: (trx, ids, _ctx, actor) => restoreSubfolders(ctx, trx, ids, actor),
    onPurge: (trx, ids) => removeFromTree(ctx, trx, ids),
    // Every new folder starts as a root of its own tree: it writes only the new folder's own
    // place. A parent named in the request is the `folderParent` part (checked, run alone).
    ownRowsOnly: true,
    async afterWrite(trx, w) {
      if (w.action === 'create' && w.type.lineage.includes(FOLDERS)) await placeNewFolder(trx, w.row!.id);
    },
  };
}
