// The rich-text editor (TipTap/ProseMirror), loaded on first use: headings (levels 2–4), bold,
// italic, lists, quotes, tables, links (to a web address or to an object of the site, optionally
// in a new tab) and images from the media library; it stores clean HTML (<h2>–<h4>, <p>,
// <strong>, <em>, <ul>/<ol>, <blockquote>, <table><tbody><tr><th>/<td>, <a href> with
// `data-object-id` for an object and `target="_blank" rel="noopener noreferrer"` for a new tab,
// <img src alt>, <figure><img src alt><figcaption>) and '' when empty. An image takes its alt text
// and caption from the image object, editable for each use (select it, then the image button),
// with its size and alignment (classes, see image-nodes.ts).
// Keyboard: Ctrl/Cmd+B, I, K (link), Z/Shift+Z; Tab between table cells; each toolbar is one tab
// stop with arrow keys between its buttons.
import { Extension } from '@tiptap/core';
import { DOMSerializer } from '@tiptap/pm/model';
import { NodeSelection, Plugin, type EditorState, type Transaction } from '@tiptap/pm/state';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent as ReactMouseEvent, type ReactNode } from 'react';
import { Bold, Heading2, Heading3, Heading4, ImagePlus, Italic, Link, List, ListOrdered, Pilcrow, Quote, Redo2, Table, Undo2, Unlink } from '../icons';
import { FIGURE, ImageFigure, SessionImage, type ImageAlign, type ImageSize } from './image-nodes';
import { LinkDialog, LinkTargets, linkOf } from './link-dialog';
import { MediaLibraryDialog, type PlacedImage } from './MediaLibraryDialog';
import { deleteTable, hasHeaderRow, insertTable, isInTable, TABLE_COMMANDS, TableExtensions, toggleHeaderRow } from './table-nodes';
// ProseMirror's own stylesheets, bundled with the editor (tiptap's injected copy is off, see below).
import 'prosemirror-view/style/prosemirror.css';
import 'prosemirror-gapcursor/style/gapcursor.css';
import './text-blocks.css';

/** The image the selection holds (a plain one or one with a caption), as the dialog edits it. */
function selectedImage(editor: Editor): PlacedImage | null {
  const { selection } = editor.state;
  if (!(selection instanceof NodeSelection)) return null;
  const { type, attrs } = selection.node;
  if (type.name !== 'image' && type.name !== FIGURE) return null;
  return { src: String(attrs.src ?? ''), alt: String(attrs.alt ?? ''), caption: type.name === FIGURE ? String(attrs.caption ?? '') : '', size: attrs.size as ImageSize, align: attrs.align as ImageAlign };
}

/** The node of an image placed with its alt text, size and alignment: in a figure when it has a caption. */
function imageNode({ src, alt, caption, size, align }: PlacedImage) {
  return caption ? { type: FIGURE, attrs: { src, alt, caption, size, align } } : { type: 'image', attrs: { src, alt, size, align } };
}

/** `tabStop`: the toolbar's one place in the tab order (the others are reached with arrows). */
/** A toolbar button's mousedown: the focus (and the caret) stay in the text, so the next key typed
 *  goes into the text at once, not into the button while the editor takes the focus back a frame later. */
const keepTextFocus = (e: ReactMouseEvent) => e.preventDefault();

function ToolButton({ label, icon, active, onClick, disabled, tabStop }: { label: string; icon: ReactNode; active?: boolean; onClick: () => void; disabled?: boolean; tabStop?: boolean }) {
  return (
    <button type="button" className="tool" aria-label={label} title={label} aria-pressed={active} onMouseDown={keepTextFocus} onClick={onClick} disabled={disabled} tabIndex={tabStop ? 0 : -1}>
      {icon}
    </button>
  );
}

/**
 * A no-break space the browser typed becomes a plain one. Browsers put U+00A0 in place of a space
 * typed at the end of a text (to keep it visible) and turn it back into a space when the next
 * letter follows in the same text, but not when that letter goes into bold, italic or a link: the
 * page was saved with `&nbsp;` between words, and the editor, reading the page, could take the
 * space into the bold word that followed. So at the end of a text (before a mark, a link or the
 * end of the paragraph) or at the start of one, after a letter: a plain space at once (the editor
 * keeps spaces visible). A no-break space typed on purpose inside the text ("10\u00a0km") stays,
 * as do runs of spaces. The one right before the caret (`caret`, -1 for none) waits: the browser
 * rebalances the spaces around the caret at the next letter, and a character changed under it
 * meanwhile was dropped (it goes at the next change elsewhere, and never into the saved HTML).
 */
function plainSpaces(state: EditorState, caret: number): Transaction | null {
  let tr: Transaction | null = null;
  const isSpace = (c: string | undefined) => c !== undefined && /[\s\u00a0\ufffc]/.test(c);
  state.doc.descendants((block, blockPos) => {
    if (!block.isTextblock) return true;
    // Offsets in this text are positions in the block: each inline leaf (an image) counts as one.
    const text = block.textBetween(0, block.content.size, undefined, '\ufffc');
    const done = new Set<number>();
    const at = (i: number) => {
      if (done.has(i) || text[i] !== '\u00a0' || i === 0 || isSpace(text[i - 1]) || isSpace(text[i + 1])) return;
      done.add(i);
      const pos = blockPos + 1 + i;
      if (pos + 1 === caret) return;
      tr ??= state.tr;
      tr.replaceWith(pos, pos + 1, state.schema.text(' ', state.doc.nodeAt(pos)?.marks ?? []));
    };
    block.forEach((child, offset, index) => {
      if (!child.isText) return;
      if (index > 0) at(offset);
      at(offset + child.nodeSize - 1);
    });
    return false;
  });
  return tr;
}

/**
 * The editor's HTML, serialised into a document of its own. `editor.getHTML()` builds the nodes in
 * the page's document, where each <img> starts downloading its `src` at once, without the session.
 */
function htmlOf(editor: Editor): string {
  const inert = document.implementation.createHTMLDocument();
  const container = inert.createElement('div');
  const doc = plainSpaces(editor.state, -1)?.doc ?? editor.state.doc;
  container.append(DOMSerializer.fromSchema(editor.schema).serializeFragment(doc.content, { document: inert }));
  return container.innerHTML;
}

export default function RichTextEditor({ labelId, describedBy, value, onChange }: { labelId: string; describedBy?: string; value: string; onChange: (html: string) => void }) {
  const [linkOpen, setLinkOpen] = useState(false);
  /** The image dialog: closed, choosing a new image, or editing the selected one. */
  const [imageDialog, setImageDialog] = useState<{ editing: PlacedImage | null } | null>(null);
  const openLink = useRef(() => setLinkOpen(true));
  const changed = useRef(onChange);
  changed.current = onChange;
  /** The last HTML this editor reported, to tell its own echoes from a value set from outside. */
  const emitted = useRef(value);
  /** HTML this editor emitted since a value was last set from outside: echoes, never to be set back. */
  const echoes = useRef(new Set<string>());
  // The editor's options stay the same objects from render to render: tiptap compares them at
  // every render and, when they differ (new extension instances, the current value as `content`),
  // sets them again on the live view, in the middle of the user's typing. The content is the
  // first value only: later ones go in through the effect below.
  const first = useRef(value);
  const extensions = useMemo(
    () => [
      StarterKit.configure({
        heading: { levels: [2, 3, 4] },
        codeBlock: false,
        code: false,
        strike: false,
        underline: false,
        horizontalRule: false,
        link: { openOnClick: false, autolink: true, defaultProtocol: 'https', HTMLAttributes: { rel: null, target: null, class: null } },
      }),
      SessionImage.configure({ inline: false }),
      ImageFigure,
      ...TableExtensions,
      LinkTargets,
      Extension.create({
        name: 'plainSpaces',
        addProseMirrorPlugins: () => [new Plugin({ appendTransaction: (trs, _old, state) => (trs.some((t) => t.docChanged) && !trs.some((t) => t.getMeta('composition')) ? plainSpaces(state, state.selection.empty ? state.selection.from : -1) : null) })],
      }),
      Extension.create({
        name: 'linkShortcut',
        addKeyboardShortcuts: () => ({
          'Mod-k': () => {
            openLink.current();
            return true;
          },
        }),
      }),
    ],
    [],
  );
  const editorProps = useMemo(
    () => ({
      attributes: {
        'aria-labelledby': labelId,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        role: 'textbox',
        'aria-multiline': 'true',
        class: 'rte-content',
      },
    }),
    [labelId, describedBy],
  );
  // tiptap injects its stylesheet as one <style> the page's editors share, and takes it out when
  // an editor goes while no other is in the page yet: the editor created next to it as it mounts
  // then has none (spaces collapse, the browser types no-break spaces and drops them at the next
  // letter: words ran together under load). The same rules come with the editor's bundle instead.
  const editor = useEditor({
    injectCSS: false,
    extensions,
    content: first.current,
    editorProps,
    onUpdate: ({ editor: e }) => {
      emitted.current = e.isEmpty ? '' : htmlOf(e);
      // The values typed since the last one set from outside (a few hundred at most).
      if (echoes.current.size > 500) echoes.current.clear();
      echoes.current.add(emitted.current);
      changed.current(emitted.current);
    },
  });

  // A value set from outside replaces the content; an echo of what was typed does not, even one
  // that lags several keystrokes behind the editor (a busy page re-renders with an older value:
  // replacing the content with it would drop what was typed since, a trailing space first).
  useEffect(() => {
    if (!editor || editor.isDestroyed || value === emitted.current || echoes.current.has(value)) return;
    emitted.current = value;
    echoes.current.clear();
    editor.commands.setContent(value || '', { emitUpdate: false });
  }, [editor, value]);

  const state = useEditorState({
    editor,
    selector: ({ editor: e }) =>
      e
        ? {
            bold: e.isActive('bold'),
            italic: e.isActive('italic'),
            h2: e.isActive('heading', { level: 2 }),
            h3: e.isActive('heading', { level: 3 }),
            h4: e.isActive('heading', { level: 4 }),
            quote: e.isActive('blockquote'),
            table: isInTable(e.state),
            headerRow: hasHeaderRow(e.state),
            paragraph: e.isActive('paragraph'),
            bullet: e.isActive('bulletList'),
            ordered: e.isActive('orderedList'),
            link: e.isActive('link'),
            linkAttrs: linkOf(e),
            image: selectedImage(e) !== null,
            canUndo: e.can().undo(),
            canRedo: e.can().redo(),
          }
        : null,
  });
  // In a disabled fieldset (the user's roles do not let them change the object) the text is read
  // only and there is no toolbar: no button that cannot be used, no typing that cannot be saved.
  const box = useRef<HTMLDivElement>(null);
  const [readOnly, setReadOnly] = useState(false);
  useLayoutEffect(() => {
    const locked = Boolean(box.current?.closest('fieldset:disabled'));
    if (locked !== readOnly) setReadOnly(locked);
    if (editor && !editor.isDestroyed && editor.isEditable === locked) editor.setEditable(!locked, false);
    // Announced as read only, as the disabled fields around it are.
    if (editor && !editor.isDestroyed) editor.view.dom.setAttribute('aria-readonly', String(locked));
    // Read only, the text keeps a tab stop, so a keyboard or screen reader user reaches and reads it.
    if (editor && !editor.isDestroyed && locked) editor.view.dom.setAttribute('tabindex', '0');
  });
  if (!editor || !state) return <div className="rte rte-loading">Loading the editor…</div>;
  const chain = () => editor.chain().focus();

  // The toolbar is one tab stop: arrows move between its buttons.
  const runTable = (command: (typeof TABLE_COMMANDS)[number]['command']) => {
    command(editor.state, editor.view.dispatch);
    editor.commands.focus();
  };
  const onToolbarKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button:not(:disabled)')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1 : (at + (e.key === 'ArrowRight' ? 1 : -1) + buttons.length) % buttons.length;
    buttons[next]?.focus();
    e.preventDefault();
  };

  return (
    <div className="rte" ref={box}>
      {readOnly ? null : (
      <div className="rte-toolbar" role="toolbar" aria-label="Formatting" onKeyDown={onToolbarKey}>
        <ToolButton label="Paragraph" icon={<Pilcrow size={16} />} active={state.paragraph} onClick={() => chain().setParagraph().run()} tabStop />
        <ToolButton label="Heading" icon={<Heading2 size={16} />} active={state.h2} onClick={() => chain().toggleHeading({ level: 2 }).run()} />
        <ToolButton label="Subheading" icon={<Heading3 size={16} />} active={state.h3} onClick={() => chain().toggleHeading({ level: 3 }).run()} />
        <ToolButton label="Minor heading (level 4)" icon={<Heading4 size={16} />} active={state.h4} onClick={() => chain().toggleHeading({ level: 4 }).run()} />
        <span className="tool-sep" aria-hidden />
        <ToolButton label="Bold" icon={<Bold size={16} />} active={state.bold} onClick={() => chain().toggleBold().run()} />
        <ToolButton label="Italic" icon={<Italic size={16} />} active={state.italic} onClick={() => chain().toggleItalic().run()} />
        <span className="tool-sep" aria-hidden />
        <ToolButton label="Bulleted list" icon={<List size={16} />} active={state.bullet} onClick={() => chain().toggleBulletList().run()} />
        <ToolButton label="Numbered list" icon={<ListOrdered size={16} />} active={state.ordered} onClick={() => chain().toggleOrderedList().run()} />
        <ToolButton label="Quote" icon={<Quote size={16} />} active={state.quote} onClick={() => chain().toggleBlockquote().run()} />
        <ToolButton label={state.table ? 'Table (the cursor is in one)' : 'Insert a table'} icon={<Table size={16} />} active={state.table} disabled={state.table} onClick={() => insertTable(editor)} />
        <span className="tool-sep" aria-hidden />
        <ToolButton label="Link" icon={<Link size={16} />} active={state.link} onClick={() => setLinkOpen(true)} />
        <ToolButton label="Remove link" icon={<Unlink size={16} />} disabled={!state.link} onClick={() => chain().extendMarkRange('link').unsetLink().run()} />
        <ToolButton
          label={state.image ? 'Alt text, caption, size and alignment of this image' : 'Image from the media library'}
          icon={<ImagePlus size={16} />}
          active={state.image}
          onClick={() => setImageDialog({ editing: selectedImage(editor) })}
        />
        <span className="tool-sep" aria-hidden />
        <ToolButton label="Undo" icon={<Undo2 size={16} />} disabled={!state.canUndo} onClick={() => chain().undo().run()} />
        <ToolButton label="Redo" icon={<Redo2 size={16} />} disabled={!state.canRedo} onClick={() => chain().redo().run()} />
      </div>
      )}
      {!readOnly && state.table ? (
        <div className="rte-toolbar rte-table-toolbar" role="toolbar" aria-label="Table" onKeyDown={onToolbarKey}>
          {TABLE_COMMANDS.map(({ label, command }, i) => (
            <button key={label} type="button" className="small" tabIndex={i === 0 ? 0 : -1} disabled={!command(editor.state)} onMouseDown={keepTextFocus} onClick={() => runTable(command)}>
              {label}
            </button>
          ))}
          <button type="button" className="small" tabIndex={-1} aria-pressed={state.headerRow} onMouseDown={keepTextFocus} onClick={() => runTable(toggleHeaderRow)}>
            Header row
          </button>
          <button type="button" className="small danger" tabIndex={-1} onMouseDown={keepTextFocus} onClick={() => runTable(deleteTable)}>
            Delete table
          </button>
        </div>
      ) : null}
      <EditorContent editor={editor} />
      {linkOpen ? <LinkDialog editor={editor} initial={state.linkAttrs} onClose={() => setLinkOpen(false)} /> : null}
      {imageDialog ? (
        <MediaLibraryDialog
          editing={imageDialog.editing}
          onClose={() => {
            setImageDialog(null);
            editor.commands.focus();
          }}
          onPlace={(image) => {
            setImageDialog(null);
            // Over a selected image this replaces it (a caption added or removed changes its node).
            chain().insertContent(imageNode(image)).run();
          }}
        />
      ) : null}
    </div>
  );
}
