// A dialog to choose a folder from the tree (arrow keys, Enter, type-ahead all work): used to
// file an object into a folder and to move several objects at once. Only folders the user may
// change (filing is an update of the folder) can be chosen; the others show greyed.
import { useCallback, type ReactNode } from 'react';
import { Dialog } from '../../components/dialog';
import { may, useRights } from '../../components/rights';
import { FolderTree } from './FolderTree';
import { useFolderTree, type FolderNode } from './folder-tree-data';

export function FolderPickerDialog({ title, onPick, onClose, children }: { title: string; onPick: (folder: FolderNode) => void; onClose: () => void; children?: ReactNode }) {
  const { tree, error } = useFolderTree();
  const rights = useRights();
  const canPick = useCallback((f: FolderNode) => may(rights, 'update', 'folders', f.resource), [rights]);
  const none = tree !== null && tree.byId.size > 0 && ![...tree.byId.values()].some(canPick);
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      {none ? <p className="muted">Your roles do not let you change any folder, so nothing can be filed here.</p> : null}
      <FolderTree label="Folders to choose from" tree={tree} error={error} selected={null} onSelect={onPick} canPick={canPick} />
      <div className="actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
