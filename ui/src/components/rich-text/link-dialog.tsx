// The rich-text editor's link dialog: a link to a web address or to an object of this site (found
// by title), either of them optionally opening in a new tab. A link to an object is stored as
// `<a href="/objects/{id}" data-object-id="{id}">`: the href is the API's own address of the
// object (it survives a change of uname or title), the attribute lets an API client find every
// such link and rewrite it to its own page's address (docs/decisions.md, "Admin UI", rich text).
// A new tab is `target="_blank" rel="noopener noreferrer"`.
import { Extension, type Editor } from '@tiptap/core';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { Dialog } from '../dialog';
import { FieldProblem, StatusBadge } from '../fields';
import { titleOf } from '../format';
import { ObjectPicker } from '../object-picker';

/** `data-object-id` on links: the object of this site a link points to. */
export const LinkTargets = Extension.create({
  name: 'linkTargets',
  addGlobalAttributes: () => [
    {
      types: ['link'],
      attributes: {
        objectId: {
          default: null,
          parseHTML: (el) => el.getAttribute('data-object-id'),
          renderHTML: (attrs) => (attrs.objectId ? { 'data-object-id': attrs.objectId } : {}),
        },
      },
    },
  ],
});

export interface LinkValue {
  href: string;
  newTab: boolean;
  objectId: string | null;
}

/** The link at the cursor, as the dialog edits it. */
export function linkOf(editor: Editor): LinkValue {
  const a = editor.getAttributes('link');
  return { href: String(a.href ?? ''), newTab: a.target === '_blank', objectId: a.objectId ? String(a.objectId) : null };
}

/** The API's address of object `id`, which every client can read. */
export const objectHref = (id: string) => `/objects/${encodeURIComponent(id)}`;

type Chosen = { id: string; title: string; status?: unknown };

export function LinkDialog({ editor, initial, onClose }: { editor: Editor; initial: LinkValue; onClose: () => void }) {
  const editing = Boolean(initial.href);
  const [mode, setMode] = useState<'web' | 'object'>(initial.objectId ? 'object' : 'web');
  const [url, setUrl] = useState(initial.objectId ? '' : initial.href);
  const [newTab, setNewTab] = useState(initial.newTab);
  const [chosen, setChosen] = useState<Chosen | null>(initial.objectId ? { id: initial.objectId, title: `Object #${initial.objectId}` } : null);
  const [problem, setProblem] = useState('');
  const applyButton = useRef<HTMLButtonElement>(null);

  // An existing link to an object: its title, when the user may read it.
  useEffect(() => {
    if (!initial.objectId) return;
    let live = true;
    api.get(`/objects/${encodeURIComponent(initial.objectId)}`).then(
      (r) => live && setChosen({ id: r.data.id, title: titleOf(r.data), status: r.data.attributes.status }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [initial.objectId]);

  const close = () => {
    onClose();
    editor.commands.focus();
  };
  const apply = (e?: FormEvent) => {
    e?.preventDefault();
    e?.stopPropagation();
    let href: string;
    let text: string;
    if (mode === 'object') {
      if (!chosen) return setProblem('Find the object to link to, then choose it.');
      href = objectHref(chosen.id);
      text = chosen.title;
    } else {
      const typed = url.trim();
      if (!typed) return setProblem('Write the address to link to.');
      href = /^(https?:|mailto:|\/|#)/i.test(typed) ? typed : `https://${typed}`;
      text = typed;
    }
    const attrs = { href, objectId: mode === 'object' ? chosen!.id : null, target: newTab ? '_blank' : null, rel: newTab ? 'noopener noreferrer' : null };
    const chain = editor.chain().focus().extendMarkRange('link');
    if (editor.state.selection.empty && !editor.isActive('link')) {
      chain.insertContent({ type: 'text', text, marks: [{ type: 'link', attrs }] }).run();
    } else chain.setMark('link', attrs).run();
    onClose();
  };
  const pick = (r: Resource) => {
    setChosen({ id: r.id, title: titleOf(r), status: r.attributes.status });
    setProblem('');
    applyButton.current?.focus();
  };

  return (
    <Dialog title={editing ? 'Edit link' : 'Add a link'} onClose={close} wide={mode === 'object'}>
      <div className="stack link-dialog">
        <fieldset className="choices link-kind">
          <legend>Link to</legend>
          <label className="inline">
            <input type="radio" name="link-kind" checked={mode === 'web'} onChange={() => setMode('web')} />A web address
          </label>
          <label className="inline">
            <input type="radio" name="link-kind" checked={mode === 'object'} onChange={() => setMode('object')} />
            An object of this site
          </label>
        </fieldset>
        {mode === 'web' ? (
          <form onSubmit={apply} aria-label="Web address">
            <label>
              Link address
              <input type="text" inputMode="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.org/page" />
            </label>
          </form>
        ) : (
          <>
            <p className="link-chosen" role="status">
              {chosen ? (
                <>
                  Links to <strong>{chosen.title}</strong> {chosen.status ? <StatusBadge status={chosen.status} /> : null}
                </>
              ) : (
                'No object chosen yet.'
              )}
            </p>
            <ObjectPicker label="Find an object by title" pickLabel="Choose" onPick={pick} />
          </>
        )}
        <label className="inline">
          <input type="checkbox" checked={newTab} onChange={(e) => setNewTab(e.target.checked)} />
          Open in a new tab
        </label>
        <FieldProblem text={problem} />
        <div className="actions">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="button" className="primary" ref={applyButton} onClick={() => apply()}>
            {editing ? 'Update link' : 'Add link'}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
