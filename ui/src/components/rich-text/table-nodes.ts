// The rich-text editor's tables, over prosemirror-tables (shipped inside @tiptap/pm): a table of
// rows of cells, a cell holding paragraphs; the first row's cells become <th> with "Header row".
// Stored as <table><tbody><tr><th>/<td>…; colspan/rowspan only when a cell spans more than one.
// Tab and Shift+Tab move between cells; at the last cell Tab leaves the editor, as elsewhere.
import { Extension, Node, type Editor } from '@tiptap/core';
import { addColumnAfter, addColumnBefore, addRowAfter, addRowBefore, deleteColumn, deleteRow, deleteTable, goToNextCell, isInTable, tableEditing, toggleHeader, type CellSelection } from '@tiptap/pm/tables';
import { TextSelection, type Command, type EditorState } from '@tiptap/pm/state';

/** What prosemirror-tables reads of a cell: its spans (and widths, which Folio never sets). */
const cellAttributes = () => ({
  colspan: { default: 1, parseHTML: (el: HTMLElement) => Number(el.getAttribute('colspan') ?? 1) || 1, renderHTML: (a: Record<string, unknown>) => (a.colspan === 1 ? {} : { colspan: a.colspan }) },
  rowspan: { default: 1, parseHTML: (el: HTMLElement) => Number(el.getAttribute('rowspan') ?? 1) || 1, renderHTML: (a: Record<string, unknown>) => (a.rowspan === 1 ? {} : { rowspan: a.rowspan }) },
  colwidth: { default: null, parseHTML: () => null, renderHTML: () => ({}) },
});

const TableCell = Node.create({
  name: 'tableCell',
  content: 'block+',
  isolating: true,
  addAttributes: cellAttributes,
  parseHTML: () => [{ tag: 'td' }],
  renderHTML: ({ HTMLAttributes }) => ['td', HTMLAttributes, 0],
});

const TableHeader = Node.create({
  name: 'tableHeader',
  content: 'block+',
  isolating: true,
  addAttributes: cellAttributes,
  parseHTML: () => [{ tag: 'th' }],
  renderHTML: ({ HTMLAttributes }) => ['th', HTMLAttributes, 0],
});

const TableRow = Node.create({
  name: 'tableRow',
  content: '(tableCell | tableHeader)*',
  parseHTML: () => [{ tag: 'tr' }],
  renderHTML: () => ['tr', 0],
});

const TableNode = Node.create({
  name: 'table',
  group: 'block',
  content: 'tableRow+',
  isolating: true,
  parseHTML: () => [{ tag: 'table' }],
  renderHTML: () => ['table', ['tbody', 0]],
  addProseMirrorPlugins: () => [tableEditing()],
  addKeyboardShortcuts() {
    const editor = this.editor;
    return {
      Tab: () => goToNextCell(1)(editor.state, editor.view.dispatch),
      'Shift-Tab': () => goToNextCell(-1)(editor.state, editor.view.dispatch),
    };
  },
});

/** The role prosemirror-tables looks for on each node type of a table. */
const ROLES: Record<string, string> = { table: 'table', tableRow: 'row', tableCell: 'cell', tableHeader: 'header_cell' };
const TableRoles = Extension.create({
  name: 'tableRoles',
  extendNodeSchema: (extension) => (ROLES[extension.name] ? { tableRole: ROLES[extension.name] } : {}),
});

export const TableExtensions = [TableNode, TableRow, TableHeader, TableCell, TableRoles];

/** A new table of `rows` × `cols` with a header row, at the cursor. */
export function insertTable(editor: Editor, rows = 3, cols = 3): void {
  const row = (type: string) => ({ type: 'tableRow', content: Array.from({ length: cols }, () => ({ type, content: [{ type: 'paragraph' }] })) });
  const start = editor.state.selection.from;
  editor
    .chain()
    .focus()
    .insertContent({ type: 'table', content: [row('tableHeader'), ...Array.from({ length: rows - 1 }, () => row('tableCell'))] })
    // The cursor into the new table's first cell (insertContent leaves it after the table).
    .command(({ tr }) => {
      let cell = -1;
      tr.doc.nodesBetween(Math.max(0, start - 2), tr.doc.content.size, (node, pos) => {
        if (cell < 0 && node.type.name === 'tableHeader') cell = pos;
        return cell < 0;
      });
      if (cell >= 0) tr.setSelection(TextSelection.near(tr.doc.resolve(cell + 1)));
      return true;
    })
    .run();
}

/** The table commands of the toolbar, each with what it says. */
export const TABLE_COMMANDS: Array<{ label: string; command: Command }> = [
  { label: 'Row above', command: addRowBefore },
  { label: 'Row below', command: addRowAfter },
  { label: 'Column left', command: addColumnBefore },
  { label: 'Column right', command: addColumnAfter },
  { label: 'Delete row', command: deleteRow },
  { label: 'Delete column', command: deleteColumn },
];

export { deleteTable, isInTable };

/** The table's first row made header cells, or plain cells again (wherever the cursor is). */
export const toggleHeaderRow = toggleHeader('row');

/** Whether the cursor's table starts with a header row. */
export function hasHeaderRow(state: EditorState): boolean {
  if (!isInTable(state)) return false;
  const { $from } = state.selection as CellSelection;
  for (let d = $from.depth; d > 0; d--) {
    const node = $from.node(d);
    if (node.type.name === 'table') return node.firstChild?.firstChild?.type.name === 'tableHeader';
  }
  return false;
}
