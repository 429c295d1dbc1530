// The whole folder tree in one read (GET /folders, all pages): each folder's parent comes from
// its `meta.path`, so the tree knows which folders have children (arrows only there) and can
// name any folder by its titles from the root ("Site / News") instead of ids.
import { useEffect, useState } from 'react';
import { api, type Resource } from '../../api/client';
import { titleOf } from '../../components/format';

export interface FolderNode {
  id: string;
  title: string;
  parentId: string | null;
  children: FolderNode[];
  resource: Resource;
}

export interface FolderTreeData {
  roots: FolderNode[];
  byId: Map<string, FolderNode>;
}

/** The parent id from `meta.path` (`/root/…/parent/self`); null for a root. */
export function parentIdOf(folder: Resource): string | null {
  const ids = String(folder.meta.path ?? '').split('/').filter(Boolean);
  return ids.length > 1 ? ids[ids.length - 2] : null;
}

export function buildTree(folders: Resource[]): FolderTreeData {
  const byId = new Map<string, FolderNode>();
  for (const f of folders) byId.set(f.id, { id: f.id, title: titleOf(f), parentId: parentIdOf(f), children: [], resource: f });
  const roots: FolderNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parentId ? byId.get(node.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const byCreation = (a: FolderNode, b: FolderNode) => Number(a.id) - Number(b.id);
  roots.sort(byCreation);
  for (const node of byId.values()) node.children.sort(byCreation);
  return { roots, byId };
}

/** "Site / News / 2024" for a folder id (its own title last). */
export function folderPath(tree: FolderTreeData | null, id: string): string {
  const titles: string[] = [];
  for (let node = tree?.byId.get(id); node; node = node.parentId ? tree!.byId.get(node.parentId) : undefined) titles.unshift(node.title);
  return titles.join(' / ');
}

/** Ids from the root down to the folder's parent. */
export function ancestorsOf(tree: FolderTreeData, id: string): string[] {
  const out: string[] = [];
  for (let p = tree.byId.get(id)?.parentId ?? null; p; p = tree.byId.get(p)?.parentId ?? null) out.unshift(p);
  return out;
}

/** The tree, reloaded whenever `version` changes. */
export function useFolderTree(version: unknown = 0) {
  const [tree, setTree] = useState<FolderTreeData | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    api.listAll('/folders').then(
      (all) => live && (setTree(buildTree(all)), setError(null)),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [version]);
  return { tree, error };
}
