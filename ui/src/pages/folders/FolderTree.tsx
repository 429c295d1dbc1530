// The folder tree: roots, children loaded when a node is expanded, drag and drop to move a
// folder (onto another folder, or onto the roots area to make it a root).
import { useEffect, useState, type DragEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { ErrorNote, Loading } from '../../components/feedback';
import { titleOf } from '../../components/format';

export interface TreeProps {
  selected: string | null;
  onSelect: (folder: Resource) => void;
  /** Bumped by the page after any tree change, so expanded nodes reload. */
  version: number;
  /** Drag and drop moves; absent in the move dialog. */
  onMove?: (folderId: string, parentId: string | null) => void;
  /** A folder that cannot be chosen (the one being moved, in the move dialog). */
  disabledId?: string;
  label: string;
}

const DRAG_TYPE = 'application/x-folio-folder';

/** Every folder of one level, all pages (a level rarely has more than a few hundred). */
async function loadLevel(parentId: string | null): Promise<Resource[]> {
  const out: Resource[] = [];
  const filter = parentId === null ? { 'filter[roots]': 'true' } : { 'filter[parent]': parentId };
  for (let page = 1; page <= 20; page++) {
    const r = await api.list('/folders', { ...filter, page, page_size: 100 });
    out.push(...r.data);
    if (page >= r.pagination.page_count) break;
  }
  return out;
}

function useLevel(parentId: string | null, version: number, enabled = true) {
  const [items, setItems] = useState<Resource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    loadLevel(parentId).then(
      (r) => live && (setItems(r), setError(null)),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [parentId, version, enabled]);
  return { items, error };
}

export function FolderTree(props: TreeProps) {
  const { items, error } = useLevel(null, props.version);
  const [over, setOver] = useState(false);
  const dropProps = props.onMove
    ? {
        onDragOver: (e: DragEvent) => {
          if (e.dataTransfer.types.includes(DRAG_TYPE)) {
            e.preventDefault();
            setOver(true);
          }
        },
        onDragLeave: () => setOver(false),
        onDrop: (e: DragEvent) => {
          e.preventDefault();
          setOver(false);
          const id = e.dataTransfer.getData(DRAG_TYPE);
          if (id) props.onMove!(id, null);
        },
      }
    : {};
  return (
    <div className="tree-box">
      {props.onMove ? (
        <div className={`tree-roots-drop${over ? ' drop-target' : ''}`} {...dropProps}>
          Drop here to make a root folder
        </div>
      ) : null}
      <ErrorNote error={error} />
      {!items && !error ? <Loading /> : null}
      {items && items.length === 0 ? <p className="muted">No folders yet.</p> : null}
      {items ? (
        <ul className="tree" role="tree" aria-label={props.label}>
          {items.map((f) => (
            <TreeNode key={f.id} folder={f} {...props} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function TreeNode({ folder, ...props }: TreeProps & { folder: Resource }) {
  const [open, setOpen] = useState(false);
  const [over, setOver] = useState(false);
  const { items, error } = useLevel(folder.id, props.version, open);
  const title = titleOf(folder);
  const disabled = props.disabledId === folder.id;
  const drag = props.onMove
    ? {
        draggable: true,
        onDragStart: (e: DragEvent) => {
          e.dataTransfer.setData(DRAG_TYPE, folder.id);
          e.dataTransfer.effectAllowed = 'move';
        },
        onDragOver: (e: DragEvent) => {
          if (e.dataTransfer.types.includes(DRAG_TYPE)) {
            e.preventDefault();
            e.stopPropagation();
            setOver(true);
          }
        },
        onDragLeave: () => setOver(false),
        onDrop: (e: DragEvent) => {
          e.preventDefault();
          e.stopPropagation();
          setOver(false);
          const id = e.dataTransfer.getData(DRAG_TYPE);
          if (id && id !== folder.id) props.onMove!(id, folder.id);
        },
      }
    : {};
  return (
    <li role="treeitem" aria-expanded={open} aria-selected={props.selected === folder.id}>
      <div className={`tree-row${props.selected === folder.id ? ' selected' : ''}${over ? ' drop-target' : ''}`} {...drag}>
        <button type="button" className="toggle" aria-label={`${open ? 'Collapse' : 'Expand'} ${title}`} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'}
        </button>
        <button type="button" className="name" onClick={() => props.onSelect(folder)} disabled={disabled}>
          {title}
        </button>
      </div>
      {open ? (
        <>
          <ErrorNote error={error} />
          {items && items.length > 0 ? (
            <ul role="group">
              {items.map((f) => (
                <TreeNode key={f.id} folder={f} {...props} disabledId={disabled ? f.id : props.disabledId} />
              ))}
            </ul>
          ) : null}
          {items && items.length === 0 ? <p className="muted tree-empty">No subfolders</p> : null}
        </>
      ) : null}
    </li>
  );
}
