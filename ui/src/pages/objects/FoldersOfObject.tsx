// The folders an object is filed in (GET /{type}/{id}/parents), each named by its path of titles;
// add it to another folder or take it out (POST/DELETE /folders/{id}/relationships/children). A
// published object changed by a user without `publish`: the folders its draft places it in, and
// each change saves that whole list into the draft (`parents`).
import { useEffect, useState } from 'react';
import { api, nameObjects, type Resource } from '../../api/client';
import { Empty, ErrorNote } from '../../components/feedback';
import { titleOf } from '../../components/format';
import { Folder, FolderPlus, X } from '../../components/icons';
import { href } from '../../components/route';
import { may, useRights } from '../../components/rights';
import { UnavailableAction } from '../../components/unavailable';
import { useToast } from '../../components/toast';
import { FolderPickerDialog } from '../folders/FolderPickerDialog';
import { folderPath, useFolderTree, type FolderNode } from '../folders/folder-tree-data';
import { changedInDraft, draftRelation, SAVED_TO_DRAFT, type IntoDraft } from './into-draft';

/** `readOnly`: the user may not change the object (its folders are part of it). */
/** `onWritten`: after each placement change (it moves the object's version). */
/** `intoDraft`: changes go into the object's draft. */
export function FoldersOfObject({ object, readOnly = false, onWritten, intoDraft }: { object: Resource; readOnly?: boolean; onWritten?: () => void; intoDraft?: IntoDraft }) {
  const [version, setVersion] = useState(0);
  const [liveParents, setParents] = useState<Resource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [picking, setPicking] = useState(false);
  const [busy, setBusy] = useState(false);
  const { tree } = useFolderTree(version);
  const toast = useToast();
  const rights = useRights();
  const name = titleOf(object);
  // The folders the draft places it in (named from the tree), else the live ones.
  const held = intoDraft ? draftRelation(intoDraft.draft, 'parents') : undefined;
  const parents = held ? (tree ? held.map((p) => tree.byId.get(p.id)?.resource ?? { id: p.id, type: p.type, attributes: {}, meta: {} }) : null) : liveParents;
  // Filing is a change of the folder too: only folders the user may change are offered.
  const mayChange = (folderId: string) => {
    const folder = tree?.byId.get(folderId)?.resource ?? liveParents?.find((p) => p.id === folderId);
    return may(rights, 'update', 'folders', folder);
  };
  const canFile = !readOnly && (rights.admin || (tree !== null && [...tree.byId.keys()].some(mayChange)));

  useEffect(() => {
    api.listAll(`/${object.type}/${object.id}/parents`).then((p) => (setParents(p), setError(null)), setError);
  }, [object.type, object.id, version]);

  const change = async (method: 'POST' | 'DELETE', folderId: string, message: string) => {
    setBusy(true);
    try {
      if (intoDraft) {
        const now = held ?? (liveParents ?? []).map((p) => ({ type: p.type, id: p.id }));
        const next = method === 'POST' ? [...now, { type: 'folders', id: folderId }] : now.filter((p) => p.id !== folderId);
        await intoDraft.save({ relationships: { parents: { data: next } } });
      } else {
        await api.relate(method, `/folders/${folderId}/relationships/children`, [{ type: object.type, id: object.id }]);
        onWritten?.();
      }
      toast.success(intoDraft ? `${message.replace(/\.$/, '')}: ${SAVED_TO_DRAFT}.` : message);
      setVersion((v) => v + 1);
    } catch (e) {
      const folder = tree?.byId.get(folderId);
      toast.error(nameObjects(e, [object, ...(folder ? [folder.resource] : [])]), method === 'POST' ? 'Not added to the folder' : 'Not removed from the folder');
    } finally {
      setBusy(false);
    }
  };
  const pick = (folder: FolderNode) => {
    setPicking(false);
    if (parents?.some((p) => p.id === folder.id)) {
      toast.success(`“${name}” is already in “${folderPath(tree, folder.id)}”.`);
      return;
    }
    void change('POST', folder.id, `“${name}” added to “${folderPath(tree, folder.id)}”.`);
  };

  return (
    <section className="panel" aria-labelledby="object-folders">
      <div className="page-head">
        <h2 id="object-folders">Folders</h2>
        {changedInDraft(intoDraft?.draft, 'parents') ? <span className="badge warn">Changed in the draft</span> : null}
        <span className="spacer" />
        {canFile ? (
          <button type="button" onClick={() => setPicking(true)} disabled={busy}>
            <FolderPlus aria-hidden size={16} /> Add to folder…
          </button>
        ) : tree !== null && !readOnly ? (
          <UnavailableAction label="Add to folder…" icon={<FolderPlus aria-hidden size={16} />} reason="Your roles do not let you change any folder (it needs the right to update folders)." />
        ) : null}
      </div>
      <ErrorNote error={error} />
      {parents && parents.length === 0 ? <Empty icon={<Folder size={28} />}>Not in any folder yet.</Empty> : null}
      {parents && parents.length > 0 ? (
        <ul className="chips" aria-label="Filed in">
          {parents.map((p) => {
            const path = folderPath(tree, p.id) || titleOf(p);
            return (
              <li key={p.id}>
                <Folder aria-hidden size={14} />
                <a href={href('folders', p.id)}>{path}</a>
                {readOnly || !mayChange(p.id) ? null : (
                  <button type="button" className="icon-button" aria-label={`Remove from ${path}`} disabled={busy} onClick={() => void change('DELETE', p.id, `“${name}” removed from “${path}”.`)}>
                    <X aria-hidden size={14} />
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {picking ? <FolderPickerDialog title={`Add “${name}” to a folder`} onPick={pick} onClose={() => setPicking(false)} /> : null}
    </section>
  );
}
