// Tables of the folders family: the nested-set tree and the trash record of sub-folders.
import type { Generated } from 'kysely';

type Bool = boolean | number;

export interface TreesTable {
  id: Generated<number>;
  object_id: number;
  /** The folder this node sits in; null for a root folder. */
  parent_id: number | null;
  /** Object id of the root folder of this node's tree. */
  root_id: number;
  parent_node_id: number | null;
  tree_left: number;
  tree_right: number;
  depth_level: number;
  menu: Bool;
  /** JSON: BEdita's params of the placement, or null. */
  params?: string | null;
  /** The object's canonical placement (BEdita's flag: at most one per object). */
  canonical: Generated<Bool>;
}

export interface TreeTrashTable {
  /** A sub-folder that went to the trash because an ancestor folder was trashed… */
  object_id: number;
  /** …and that ancestor: restoring it restores this one. */
  trashed_with: number;
}

export interface FolderTables {
  trees: TreesTable;
  tree_trash: TreeTrashTable;
}
