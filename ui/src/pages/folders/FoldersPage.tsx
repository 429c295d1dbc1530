// Folders: the tree on the left; the selected folder on the right — rename, move (dialog or drag
// and drop), make root, delete, new subfolder, and its contents (add existing, remove, reorder).
// Every change reloads the tree and says what happened in a toast. Publishing a folder that holds
// drafts offers to publish them too (PublishBelowDialog).
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, nameObjects, type Resource } from '../../api/client';
import { ConfirmButton, Dialog } from '../../components/dialog';
import { HistoryPanel } from '../../components/history-panel';
import { Empty, ErrorNote, Loading, Pager } from '../../components/feedback';
import { Field, StatusBadge, type Values } from '../../components/fields';
import { titleOf } from '../../components/format';
import { ArrowDown, ArrowUp, Eye, EyeOff, Folder, FolderInput, FolderPlus, Plus, Trash2 } from '../../components/icons';
import { ObjectPicker } from '../../components/object-picker';
import { href, navigate } from '../../components/route';
import { useToast } from '../../components/toast';
import { useSaveShortcut, useUnsavedChanges } from '../../components/unsaved';
import { useAction, useList } from '../../components/use-list';
import { may, useRights } from '../../components/rights';
import { findHoles, PublishCheckDialog, publishHoles, type Hole } from '../objects/publish-check';
import { typeLabel, useObjectTypes } from '../../components/model';
import { UnavailableAction } from '../../components/unavailable';
import { FolderTree } from './FolderTree';
import { draftsBelow, publishEach, PublishBelowDialog, type Below } from './PublishBelowDialog';
import { folderPath, parentIdOf, useFolderTree, type FolderTreeData } from './folder-tree-data';

const parentRel = (id: string) => `/folders/${id}/relationships/parent`;

/** One request, so a failure leaves no stray root folder behind. */
async function createFolder(title: string, parentId: string | null): Promise<Resource> {
  const parent = parentId ? { relationships: { parent: { data: { type: 'folders', id: parentId } } } } : {};
  return (await api.create('/folders', 'folders', { title }, parent)).data;
}

async function moveFolder(folderId: string, parentId: string | null, currentParent: string | null): Promise<void> {
  if (parentId) await api.relate('PATCH', parentRel(folderId), { type: 'folders', id: parentId });
  else if (currentParent) await api.relate('DELETE', parentRel(folderId), { type: 'folders', id: currentParent });
}

export function FoldersPage({ route }: { route: string[] }) {
  const selectedId = route[0] ?? null;
  const [version, setVersion] = useState(0);
  const [reveal, setReveal] = useState<string | null>(null);
  const { tree, error: treeError } = useFolderTree(version);
  /** After any change: reload the tree, opening it down to `show`. */
  const refresh = useCallback((show?: string | null) => {
    if (show !== undefined) setReveal(show);
    setVersion((v) => v + 1);
  }, []);
  const [title, setTitle] = useState('');
  const create = useAction();
  const toast = useToast();
  // Only what the user's roles allow on folders: no Create, Move, Delete, filing they would be refused.
  const rights = useRights();
  const canCreate = may(rights, 'create', 'folders');
  const canMoveAny = rights.admin || (rights.byType.folders ?? []).some((a) => a.startsWith('update'));

  const createRoot = async (e: FormEvent) => {
    e.preventDefault();
    const f = await create.run(() => createFolder(title, null));
    if (f) {
      setTitle('');
      refresh();
      toast.success(`Folder “${titleOf(f)}” created.`, { next: true });
      navigate('folders', f.id);
    }
  };
  const dragMove = async (folderId: string, parentId: string | null) => {
    const node = tree?.byId.get(folderId);
    try {
      await moveFolder(folderId, parentId, node?.parentId ?? null);
      refresh(parentId);
      toast.success(parentId ? `“${node?.title}” moved into “${folderPath(tree, parentId)}”.` : `“${node?.title}” is now a root folder.`);
    } catch (err) {
      toast.error(nameObjects(err, [node?.resource, parentId ? tree?.byId.get(parentId)?.resource : undefined].filter((r): r is Resource => Boolean(r))), 'The folder was not moved');
    }
  };

  return (
    <section>
      <h1>Folders</h1>
      <div className="split">
        <div className="panel">
          {canCreate ? (
            <form className="toolbar" onSubmit={createRoot} aria-label="New root folder">
              <label className="grow">
                New root folder
                <input value={title} onChange={(e) => setTitle(e.target.value)} required placeholder="Title" />
              </label>
              <button type="submit" disabled={create.busy}>
                <Plus aria-hidden size={16} /> Create
              </button>
            </form>
          ) : rights.loaded ? (
            <div className="toolbar">
              <UnavailableAction label="New root folder" icon={<Plus aria-hidden size={16} />} reason="Your roles do not let you create folders." />
            </div>
          ) : null}
          <ErrorNote error={create.error} />
          <FolderTree
            label="Folder tree"
            tree={tree}
            error={treeError}
            selected={selectedId}
            revealId={reveal}
            onSelect={(f) => navigate('folders', f.id)}
            onMove={canMoveAny ? (id, p) => void dragMove(id, p) : undefined}
          />
        </div>
        <div>
          {selectedId ? (
            <FolderDetail key={selectedId} id={selectedId} version={version} tree={tree} onTreeChange={refresh} />
          ) : (
            <Empty icon={<Folder size={28} />}>{canCreate ? 'Choose a folder in the tree, or create a root folder.' : 'Choose a folder in the tree.'}</Empty>
          )}
        </div>
      </div>
    </section>
  );
}

function FolderDetail({ id, version, tree, onTreeChange }: { id: string; version: number; tree: FolderTreeData | null; onTreeChange: (show?: string | null) => void }) {
  const [folder, setFolder] = useState<Resource | null>(null);
  // The version the rename and delete name (If-Match): loaded with the folder, then each rename's.
  const [etag, setEtag] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [values, setValues] = useState<Values>({});
  const [sub, setSub] = useState<Values>({});
  const [moving, setMoving] = useState(false);
  const action = useAction();
  const toast = useToast();
  const renameForm = useRef<HTMLFormElement>(null);
  const rights = useRights();
  const canUpdate = may(rights, 'update', 'folders', folder);
  const canDelete = may(rights, 'delete', 'folders', folder);
  const canCreate = may(rights, 'create', 'folders');

  useEffect(() => {
    api.get(`/folders/${id}`).then((r) => {
      setFolder(r.data);
      setEtag(r.etag);
      setValues({ title: r.data.attributes.title ?? '' });
      setLoadError(null);
    }, setLoadError);
  }, [id, version]);

  const dirty = Boolean(folder) && (values.title ?? '') !== (folder?.attributes.title ?? '');
  /** Run a change; on success reload the tree and say so, on failure say why. */
  const change = async (fn: () => Promise<unknown>, message: string | (() => string), failure: string, show?: string | null) => {
    let failed: unknown = null;
    await action.run(async () => {
      try {
        await fn();
      } catch (e) {
        failed = e;
        throw e;
      }
    });
    if (failed) toast.error(nameObjects(failed, folder ? [folder] : []), failure);
    else {
      onTreeChange(show);
      toast.success(typeof message === 'string' ? message : message());
    }
    return !failed;
  };
  const saveTitle = () =>
    change(async () => setEtag((await api.update(`/folders/${id}`, 'folders', id, { title: values.title }, undefined, { ifMatch: etag })).etag), 'Folder renamed.', 'The folder was not renamed');
  useUnsavedChanges(dirty, saveTitle);
  useSaveShortcut(renameForm);
  const rename = async (e: FormEvent) => {
    e.preventDefault();
    await saveTitle();
  };
  const addSub = async (e: FormEvent) => {
    e.preventDefault();
    if (await change(() => createFolder(sub.title, id), 'Subfolder created.', 'The subfolder was not created', id)) setSub({});
  };
  const canPublish = may(rights, 'publish', 'folders', folder);
  const [holes, setHoles] = useState<Hole[] | null>(null);
  const [fixing, setFixing] = useState<{ busy: boolean; error: unknown }>({ busy: false, error: null });
  const [below, setBelow] = useState<Below | null>(null);
  /**
   * Set the folder's status; publishing first asks about what it uses that the public cannot see,
   * then offers the drafts it holds (`also`: those chosen, undefined until asked).
   */
  const setStatus = async (status: 'on' | 'draft', checked = false, also?: { publish: Resource[]; skipped: Resource[] }) => {
    if (status === 'on' && !checked && folder) {
      let found: Hole[] = [];
      try {
        found = await findHoles(folder, { ...folder.attributes, status }, rights);
      } catch (e) {
        toast.error(e, 'The folder was not published');
        return;
      }
      if (found.length) return setHoles(found);
    }
    setHoles(null);
    if (status === 'on' && !also) {
      let found: Below;
      try {
        found = await draftsBelow(id);
      } catch (e) {
        toast.error(e, 'The folder was not published');
        return;
      }
      if (found.folders.length || found.objects.length) return setBelow(found);
    }
    setBelow(null);
    let refused: Array<{ item: Resource; reason: string }> = [];
    const published = await change(
      async () => {
        const saved = await api.update(`/folders/${id}`, 'folders', id, { status }, undefined, { ifMatch: etag });
        setEtag(saved.etag);
        setFolder(saved.data);
        if (also?.publish.length) refused = await publishEach(also.publish);
      },
      status === 'on' ? () => publishedMessage(folder!, also, refused.length) : `Folder “${titleOf(folder!)}” is a draft again: the public no longer sees it.`,
      status === 'on' ? 'The folder was not published' : 'The folder was not unpublished',
      id,
    );
    if (published && refused.length) toast.error(new Error(refused.map((r) => `“${titleOf(r.item)}”: ${r.reason}`).join('; ')), `${refused.length === 1 ? 'One item was' : `${refused.length} items were`} not published`);
  };
  const publishThemToo = async (found: Hole[]) => {
    setFixing({ busy: true, error: null });
    try {
      await publishHoles(found);
    } catch (e) {
      return setFixing({ busy: false, error: e });
    }
    setFixing({ busy: false, error: null });
    await setStatus('on', true);
  };
  const moveTo = async (parentId: string | null) => {
    setMoving(false);
    await change(() => moveFolder(id, parentId, parentIdOf(folder!)), parentId ? 'Folder moved.' : 'The folder is now a root.', 'The folder was not moved', id);
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!folder) return <Loading />;
  const parentId = parentIdOf(folder);
  const path = folderPath(tree, id) || titleOf(folder);
  return (
    <div>
      <div className="page-head">
        <h2>{titleOf(folder)}</h2>
        <StatusBadge status={folder.attributes.status} />
        <span className="muted folder-path">
          <span className="visually-hidden">Path: </span>
          {path}
        </span>
        <span className="spacer" />
        {canPublish ? (
          folder.attributes.status === 'on' ? (
            <button type="button" onClick={() => void setStatus('draft')} disabled={action.busy}>
              <EyeOff aria-hidden size={16} /> Unpublish
            </button>
          ) : (
            <button type="button" className="primary" onClick={() => void setStatus('on')} disabled={action.busy}>
              <Eye aria-hidden size={16} /> Publish
            </button>
          )
        ) : rights.loaded ? (
          <UnavailableAction
            label={folder.attributes.status === 'on' ? 'Unpublish' : 'Publish'}
            icon={folder.attributes.status === 'on' ? <EyeOff aria-hidden size={16} /> : <Eye aria-hidden size={16} />}
            reason="Your roles do not let you publish folders."
          />
        ) : null}
        {canUpdate ? (
          <>
            <button type="button" onClick={() => setMoving(true)}>
              <FolderInput aria-hidden size={16} /> Move…
            </button>
            <button type="button" onClick={() => void moveTo(null)} disabled={!parentId || action.busy}>
              Make root
            </button>
          </>
        ) : rights.loaded ? (
          <UnavailableAction label="Move…" icon={<FolderInput aria-hidden size={16} />} reason="Your roles do not let you move folders." />
        ) : null}
        {canDelete ? (
          <ConfirmButton
            label="Delete folder"
            icon={<Trash2 aria-hidden size={16} />}
            title="Delete this folder?"
            message={
              <p>
                <strong>{titleOf(folder)}</strong> and its subfolders go to the trash; the objects in it stay.
              </p>
            }
            action={() => api.remove(`/folders/${id}`, { ifMatch: etag })}
            onDone={() => {
              onTreeChange();
              toast.success(`Folder “${titleOf(folder)}” moved to the trash.`, { next: true });
              navigate('folders');
            }}
          />
        ) : null}
      </div>
      <ErrorNote error={action.error} />
      {canUpdate || canCreate ? (
        <div className="two-cols">
          {canUpdate ? (
            <form className="panel" onSubmit={rename} aria-label="Rename folder" ref={renameForm}>
              <Field label="Title" name="title" values={values} onChange={setValues} required />
              <div className="actions">
                <button type="submit" disabled={action.busy || !dirty}>
                  Rename
                </button>
              </div>
            </form>
          ) : null}
          {canCreate ? (
            <form className="panel" onSubmit={addSub} aria-label="New subfolder">
              <Field label="New subfolder" name="title" values={sub} onChange={setSub} required />
              <div className="actions">
                <button type="submit" disabled={action.busy}>
                  <FolderPlus aria-hidden size={16} /> Create subfolder
                </button>
              </div>
            </form>
          ) : null}
        </div>
      ) : (
        <p className="muted">Your roles let you see this folder, not change it.</p>
      )}
      <FolderContents id={id} folder={folder} version={version} readOnly={!canUpdate} onChange={() => onTreeChange()} />
      <HistoryPanel objectPath={`/folders/${id}`} refresh={folder} onRestored={onTreeChange} canRestore={canUpdate} />
      {holes ? (
        <PublishCheckDialog
          subject={`The folder “${titleOf(folder)}”`}
          holes={holes}
          busy={fixing.busy}
          error={fixing.error}
          onCancel={() => setHoles(null)}
          cancelLabel="Don't publish"
          onSaveAnyway={() => void setStatus('on', true)}
          onPublishAll={() => void publishThemToo(holes)}
        />
      ) : null}
      {below ? (
        <PublishBelowDialog
          folder={folder}
          below={below}
          rights={rights}
          busy={action.busy}
          onCancel={() => setBelow(null)}
          onPublish={(publish, skipped) => void setStatus('on', true, { publish, skipped })}
        />
      ) : null}
      {moving ? (
        <Dialog title={`Move “${titleOf(folder)}”`} onClose={() => setMoving(false)}>
          <p className="muted">Choose the new parent folder (arrow keys and Enter work too).</p>
          <FolderTree label="Move to folder" tree={tree} selected={parentId} onSelect={(f) => void moveTo(f.id)} disabledId={id} />
        </Dialog>
      ) : null}
    </div>
  );
}

/** What publishing a folder (and what it holds) did, in a sentence. */
function publishedMessage(folder: Resource, also: { publish: Resource[]; skipped: Resource[] } | undefined, refused: number): string {
  const done = (also?.publish.length ?? 0) - refused;
  const skipped = also?.skipped.length ?? 0;
  const parts = [`Folder “${titleOf(folder)}” published`];
  if (done > 0) parts.push(`with ${done} ${done === 1 ? 'item' : 'items'} it holds`);
  return parts.join(' ') + '.' + (skipped ? ` ${skipped} you may not publish ${skipped === 1 ? 'stays a draft' : 'stay drafts'}.` : '');
}

/** `readOnly`: the user may not change the folder (its contents are part of it). */
function FolderContents({ id, folder, version, readOnly, onChange }: { id: string; folder: Resource; version: number; readOnly: boolean; onChange: () => void }) {
  const list = useList(`/folders/${id}/children`, {}, 20, version);
  const { types } = useObjectTypes();
  const [adding, setAdding] = useState(false);
  const { busy, error, run } = useAction();
  const toast = useToast();
  const rel = `/folders/${id}/relationships/children`;
  const offset = list.result ? (list.result.pagination.page - 1) * list.result.pagination.page_size : 0;

  const change = async (fn: () => Promise<unknown>, message: string, item?: Resource) => {
    let ok = false;
    await run(async () => {
      try {
        await fn();
      } catch (e) {
        throw nameObjects(e, [folder, ...(item ? [item] : [])]);
      }
      ok = true;
    });
    await list.reload();
    if (ok) {
      toast.success(message);
      onChange();
    }
  };
  const place = (r: Resource, position: number) =>
    change(() => api.relate('POST', rel, [{ type: r.type, id: r.id, meta: { relation: { position } } }]), `“${titleOf(r)}” moved to position ${position}.`, r);

  return (
    <section className="panel" aria-label="Contents">
      <div className="page-head">
        <h3>Contents</h3>
        <span className="spacer" />
        {readOnly ? null : (
          <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            {adding ? 'Done adding' : 'Add existing objects'}
          </button>
        )}
      </div>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.result ? <Loading /> : null}
      {list.result && list.result.data.length === 0 ? <Empty>{readOnly ? 'This folder is empty.' : 'This folder is empty. Add existing objects, or file an object from its own page.'}</Empty> : null}
      <ol className="related" start={offset + 1}>
        {list.result?.data.map((r, i) => {
          const position = offset + i + 1;
          const last = position === list.result!.pagination.count;
          return (
            <li key={`${r.type}-${r.id}`}>
              <a className="grow" href={r.type === 'folders' ? href('folders', r.id) : href('objects', r.type, r.id)}>
                {titleOf(r)}
              </a>
              <span className="muted">{typeLabel(types, r.type, true)}</span>
              <StatusBadge status={r.attributes.status} />
              {readOnly ? null : (
                <>
                  {/* Before the arrows, so the arrows line up whether a row has it or not (subfolders). */}
                  {r.type !== 'folders' ? (
                    <button type="button" className="small" aria-label={`Remove ${titleOf(r)} from folder`} disabled={busy} onClick={() => void change(() => api.relate('DELETE', rel, [{ type: r.type, id: r.id }]), `“${titleOf(r)}” removed from this folder.`, r)}>
                      Remove
                    </button>
                  ) : null}
                  <button type="button" className="small" aria-label={`Move ${titleOf(r)} up`} disabled={busy || position === 1} onClick={() => void place(r, position - 1)}>
                    <ArrowUp aria-hidden size={14} />
                  </button>
                  <button type="button" className="small" aria-label={`Move ${titleOf(r)} down`} disabled={busy || last} onClick={() => void place(r, position + 1)}>
                    <ArrowDown aria-hidden size={14} />
                  </button>
                </>
              )}
            </li>
          );
        })}
      </ol>
      <Pager pagination={list.result?.pagination ?? null} onPage={list.setPage} label="Content pages" />
      {adding && !readOnly ? <ObjectPicker onPick={(r) => void change(() => api.relate('POST', rel, [{ type: r.type, id: r.id }]), `“${titleOf(r)}” added to this folder.`, r)}
          exclude={(r) => r.id === id || Boolean(list.result?.data.some((c) => c.id === r.id))} busy={busy} label="Find objects to add" /> : null}
    </section>
  );
}
