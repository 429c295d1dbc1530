// The folder tree, following the WAI-ARIA tree view pattern: one tab stop, arrow keys move and
// expand/collapse, Home/End, Enter or Space choose, typing jumps to the next folder starting with
// those letters. Arrows only on folders with children. Drag and drop moves a folder (onto
// another folder, or onto the roots area to make it a root).
import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { Empty, ErrorNote, Loading } from '../../components/feedback';
import { ChevronDown, ChevronRight, Folder, FolderOpen } from '../../components/icons';
import { ancestorsOf, type FolderNode, type FolderTreeData } from './folder-tree-data';

export interface TreeProps {
  tree: FolderTreeData | null;
  error?: unknown;
  selected: string | null;
  onSelect: (folder: FolderNode) => void;
  /** Drag and drop moves; absent in the pickers. */
  onMove?: (folderId: string, parentId: string | null) => void;
  /** A folder that cannot be chosen, with everything below it (the one being moved). */
  disabledId?: string;
  /** Which folders may be chosen (the others are shown, greyed, for the way down to them). */
  canPick?: (folder: FolderNode) => boolean;
  /** Expand the folders down to this one (and it) whenever it changes. */
  revealId?: string | null;
  label: string;
}

const DRAG_TYPE = 'application/x-folio-folder';

interface Row {
  node: FolderNode;
  level: number;
  disabled: boolean;
  setSize: number;
  pos: number;
}

export function FolderTree(props: TreeProps) {
  const { tree, selected, disabledId, revealId } = props;
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [focused, setFocused] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const items = useRef(new Map<string, HTMLDivElement>());
  const typed = useRef({ text: '', at: 0 });

  // The selected folder's ancestors stay open, and a revealed folder opens down to itself.
  useEffect(() => {
    if (!tree) return;
    const open = [...(selected ? ancestorsOf(tree, selected) : []), ...(revealId && tree.byId.has(revealId) ? [...ancestorsOf(tree, revealId), revealId] : [])];
    if (open.some((id) => !expanded.has(id))) setExpanded((e) => new Set([...e, ...open]));
  }, [tree, selected, revealId]); // eslint-disable-line react-hooks/exhaustive-deps

  const rows = useMemo(() => {
    const out: Row[] = [];
    const walk = (nodes: FolderNode[], level: number, disabled: boolean) =>
      nodes.forEach((node, i) => {
        const off = disabled || node.id === disabledId;
        out.push({ node, level, disabled: off || (props.canPick ? !props.canPick(node) : false), setSize: nodes.length, pos: i + 1 });
        if (expanded.has(node.id)) walk(node.children, level + 1, off);
      });
    walk(tree?.roots ?? [], 1, false);
    return out;
  }, [tree, expanded, disabledId, props.canPick]); // eslint-disable-line react-hooks/exhaustive-deps

  const tabStop = rows.find((r) => r.node.id === focused)?.node.id ?? rows.find((r) => r.node.id === selected)?.node.id ?? rows[0]?.node.id;
  const focus = (id: string | undefined) => {
    if (!id) return;
    setFocused(id);
    items.current.get(id)?.focus();
  };
  const toggle = (id: string, open?: boolean) =>
    setExpanded((e) => {
      const next = new Set(e);
      if (open ?? !next.has(id)) next.add(id);
      else next.delete(id);
      return next;
    });
  const choose = (row: Row) => {
    if (!row.disabled) props.onSelect(row.node);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const at = rows.findIndex((r) => r.node.id === tabStop);
    const row = rows[at];
    if (!row) return;
    const hasChildren = row.node.children.length > 0;
    const open = expanded.has(row.node.id);
    let handled = true;
    switch (e.key) {
      case 'ArrowDown':
        focus(rows[at + 1]?.node.id);
        break;
      case 'ArrowUp':
        focus(rows[at - 1]?.node.id);
        break;
      case 'ArrowRight':
        if (hasChildren && !open) toggle(row.node.id, true);
        else if (hasChildren) focus(rows[at + 1]?.node.id);
        break;
      case 'ArrowLeft':
        if (hasChildren && open) toggle(row.node.id, false);
        else focus(row.node.parentId ?? undefined);
        break;
      case 'Home':
        focus(rows[0]?.node.id);
        break;
      case 'End':
        focus(rows[rows.length - 1]?.node.id);
        break;
      case 'Enter':
      case ' ':
        choose(row);
        break;
      case '*':
        for (const sibling of rows.filter((r) => r.node.parentId === row.node.parentId && r.node.children.length)) toggle(sibling.node.id, true);
        break;
      default:
        if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
          // Type-ahead: letters typed within half a second add up.
          const now = Date.now();
          typed.current = { text: (now - typed.current.at < 500 ? typed.current.text : '') + e.key.toLowerCase(), at: now };
          const text = typed.current.text;
          const order = [...rows.slice(at + (text.length === 1 ? 1 : 0)), ...rows.slice(0, at + (text.length === 1 ? 1 : 0))];
          focus(order.find((r) => r.node.title.toLowerCase().startsWith(text))?.node.id);
        } else handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  const dragProps = (target: string | null) =>
    props.onMove
      ? {
          onDragOver: (e: DragEvent) => {
            if (e.dataTransfer.types.includes(DRAG_TYPE)) {
              e.preventDefault();
              e.stopPropagation();
              setOver(target ?? '');
            }
          },
          onDragLeave: () => setOver(null),
          onDrop: (e: DragEvent) => {
            e.preventDefault();
            e.stopPropagation();
            setOver(null);
            const id = e.dataTransfer.getData(DRAG_TYPE);
            if (id && id !== target) props.onMove!(id, target);
          },
        }
      : {};

  const renderLevel = (nodes: FolderNode[]) =>
    nodes.map((node) => {
      const row = rows.find((r) => r.node.id === node.id)!;
      const hasChildren = node.children.length > 0;
      const open = expanded.has(node.id);
      const labelId = `tree-${props.label.replace(/\W/g, '')}-${node.id}`;
      return (
        // The row is the tree item and owns its open sub-folders' group (aria-owns): the item's text is
        // then its own name, not its sub-folders' too (axe: a name that holds the visible text).
        <li key={node.id} role="none">
          <div
            role="treeitem"
            aria-labelledby={labelId}
            aria-describedby={node.resource.attributes.status !== 'on' ? `${labelId}-status` : undefined}
            aria-expanded={hasChildren ? open : undefined}
            aria-selected={selected === node.id}
            aria-disabled={row.disabled || undefined}
            aria-level={row.level}
            aria-setsize={row.setSize}
            aria-posinset={row.pos}
            aria-owns={open && hasChildren ? `${labelId}-group` : undefined}
            tabIndex={tabStop === node.id ? 0 : -1}
            ref={(el) => {
              if (el) items.current.set(node.id, el);
              else items.current.delete(node.id);
            }}
            onFocus={(e) => {
              if (e.target === e.currentTarget) setFocused(node.id);
            }}
            className={`tree-row${selected === node.id ? ' selected' : ''}${over === node.id ? ' drop-target' : ''}${row.disabled ? ' disabled' : ''}`}
            draggable={Boolean(props.onMove)}
            onDragStart={(e) => {
              e.dataTransfer.setData(DRAG_TYPE, node.id);
              e.dataTransfer.effectAllowed = 'move';
            }}
            {...dragProps(node.id)}
            onClick={() => {
              focus(node.id);
              choose(row);
            }}
          >
            <span
              className={`toggle${hasChildren ? '' : ' leaf'}`}
              aria-hidden
              onClick={(e) => {
                e.stopPropagation();
                if (hasChildren) toggle(node.id);
                focus(node.id);
              }}
            >
              {hasChildren ? open ? <ChevronDown size={16} /> : <ChevronRight size={16} /> : null}
            </span>
            {open && hasChildren ? <FolderOpen aria-hidden size={16} className="folder-icon" /> : <Folder aria-hidden size={16} className="folder-icon" />}
            <span className="name" id={labelId}>
              {node.title}
            </span>
            {/* Not public: a mark beside the name (its words are the row's description, so the name stays the title). */}
            {node.resource.attributes.status !== 'on' ? (
              <span className={`status-dot ${String(node.resource.attributes.status)}`} title={`Status: ${String(node.resource.attributes.status)}`}>
                <span className="visually-hidden" id={`${labelId}-status`}>
                  {String(node.resource.attributes.status)}
                </span>
              </span>
            ) : null}
            {row.disabled && props.canPick && !props.canPick(node) ? <span className="visually-hidden"> (you may not change this folder)</span> : null}
          </div>
          {open && hasChildren ? (
            <ul role="group" id={`${labelId}-group`}>
              {renderLevel(node.children)}
            </ul>
          ) : null}
        </li>
      );
    });

  return (
    <div className="tree-box">
      {props.onMove ? (
        <div className={`tree-roots-drop${over === '' ? ' drop-target' : ''}`} {...dragProps(null)}>
          Drop here to make a root folder
        </div>
      ) : null}
      <ErrorNote error={props.error} />
      {!tree && !props.error ? <Loading /> : null}
      {tree && tree.roots.length === 0 ? <Empty icon={<Folder size={28} />}>No folders yet.</Empty> : null}
      {tree && tree.roots.length > 0 ? (
        <ul className="tree" role="tree" aria-label={props.label} onKeyDown={onKeyDown}>
          {renderLevel(tree.roots)}
        </ul>
      ) : null}
    </div>
  );
}
