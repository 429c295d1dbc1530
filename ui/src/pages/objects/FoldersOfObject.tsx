// The folders an object is filed in (GET /{type}/{id}/parents), each named by its path of titles;
// add it to another folder or take it out (POST/DELETE /folders/{id}/relationships/children).
import { useEffect, useState } from 'react';
import { api, nameObjects, type Resource } from '../../api/client';
import { Empty, ErrorNote } from '../../components/feedback';
import { titleOf } from '../../components/format';
import { Folder, FolderPlus, X } from '../../components/icons';
import { href } from '../../components/route';
import { may, useRights } from '../../components/rights';
import { useToast } from '../../components/toast';
import { FolderPickerDialog } from '../folders/FolderPickerDialog';
import { folderPath, useFolderTree, type FolderNode } from '../folders/folder-tree-data';

/** `readOnly`: the user may not change the object (its folders are part of it). */
/** `onWritten`: after each placement change (it moves the object's version). */
export function FoldersOfObject({ object, readOnly = false, onWritten }: { object: Resource; readOnly?: boolean; onWritten?: () => void }) {
  const [version, setVersion] = useState(0);
  const [parents, setParents] = useState<Resource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [picking, setPicking] = useState(false);
  const [busy, setBusy] = useState(false);
  const { tree } = useFolderTree(version);
  const toast = useToast();
  const rights = useRights();
  const name = titleOf(object);
  // Filing is a change of the folder too: only folders the user may change are offered.
  const mayChange = (folderId: string) => {
    const folder = tree?.byId.get(folderId)?.resource ?? parents?.find((p) => p.id === folderId);
    return may(rights, 'update', 'folders', folder);
  };
  const canFile = !readOnly && (rights.admin || (tree !== null && [...tree.byId.keys()].some(mayChange)));

  useEffect(() => {
    api.listAll(`/${object.type}/${object.id}/parents`).then((p) => (setParents(p), setError(null)), setError);
  }, [object.type, object.id, version]);

  const change = async (method: 'POST' | 'DELETE', folderId: string, message: string) => {
    setBusy(true);
    try {
      await api.relate(method, `/folders/${folderId}/relationships/children`, [{ type: object.type, id: object.id }]);
      onWritten?.();
      toast.success(message);
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
        <span className="spacer" />
        {!canFile ? null : (
          <button type="button" onClick={() => setPicking(true)} disabled={busy}>
            <FolderPlus aria-hidden size={16} /> Add to folder…
          </button>
        )}
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
