// A dialog to choose a folder from the tree (arrow keys, Enter, type-ahead all work): used to
// file an object into a folder and to move several objects at once.
import type { ReactNode } from 'react';
import { Dialog } from '../../components/dialog';
import { FolderTree } from './FolderTree';
import { useFolderTree, type FolderNode } from './folder-tree-data';

export function FolderPickerDialog({ title, onPick, onClose, children }: { title: string; onPick: (folder: FolderNode) => void; onClose: () => void; children?: ReactNode }) {
  const { tree, error } = useFolderTree();
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <FolderTree label="Folders to choose from" tree={tree} error={error} selected={null} onSelect={onPick} />
      <div className="actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
