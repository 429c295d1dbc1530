// Folders: the tree on the left; the selected folder on the right — rename, move (dialog or drag
// and drop), make root, delete, new subfolder, and its contents (add existing, remove, reorder).
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { ConfirmButton, Dialog } from '../../components/dialog';
import { HistoryPanel } from '../../components/history-panel';
import { Empty, ErrorNote, Loading, Notice, Pager } from '../../components/feedback';
import { Field, StatusBadge, type Values } from '../../components/fields';
import { titleOf } from '../../components/format';
import { ObjectPicker } from '../../components/object-picker';
import { href, navigate } from '../../components/route';
import { useAction, useList } from '../../components/use-list';
import { FolderTree } from './FolderTree';

const parentRel = (id: string) => `/folders/${id}/relationships/parent`;

/** The parent id from `meta.path` (`/root/…/parent/self`); null for a root. */
function parentIdOf(folder: Resource): string | null {
  const ids = String(folder.meta.path ?? '').split('/').filter(Boolean);
  return ids.length > 1 ? ids[ids.length - 2] : null;
}

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
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  const [title, setTitle] = useState('');
  const create = useAction();
  const move = useAction();

  const createRoot = async (e: FormEvent) => {
    e.preventDefault();
    const f = await create.run(() => createFolder(title, null));
    if (f) {
      setTitle('');
      refresh();
      navigate('folders', f.id);
    }
  };
  const dragMove = async (folderId: string, parentId: string | null) => {
    const folder = await move.run(() => api.get(`/folders/${folderId}`));
    if (!folder) return;
    const done = await move.run(async () => {
      await moveFolder(folderId, parentId, parentIdOf(folder.data));
      return true;
    });
    if (done) refresh();
  };

  return (
    <section>
      <h1>Folders</h1>
      <div className="split">
        <div className="panel">
          <form className="toolbar" onSubmit={createRoot} aria-label="New root folder">
            <label className="grow">
              New root folder
              <input value={title} onChange={(e) => setTitle(e.target.value)} required placeholder="Title" />
            </label>
            <button type="submit" disabled={create.busy}>
              Create
            </button>
          </form>
          <ErrorNote error={create.error ?? move.error} />
          <FolderTree label="Folder tree" selected={selectedId} onSelect={(f) => navigate('folders', f.id)} version={version} onMove={(id, p) => void dragMove(id, p)} />
        </div>
        <div>{selectedId ? <FolderDetail key={selectedId} id={selectedId} version={version} onTreeChange={refresh} /> : <Empty>Choose a folder in the tree.</Empty>}</div>
      </div>
    </section>
  );
}

function FolderDetail({ id, version, onTreeChange }: { id: string; version: number; onTreeChange: () => void }) {
  const [folder, setFolder] = useState<Resource | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [values, setValues] = useState<Values>({});
  const [sub, setSub] = useState<Values>({});
  const [moving, setMoving] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();

  useEffect(() => {
    api.get(`/folders/${id}`).then((r) => {
      setFolder(r.data);
      setValues({ title: r.data.attributes.title ?? '' });
      setLoadError(null);
    }, setLoadError);
  }, [id, version]);

  const done = (message: string) => {
    setNotice(message);
    onTreeChange();
  };
  const rename = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    if (await action.run(() => api.update(`/folders/${id}`, 'folders', id, { title: values.title }))) done('Folder renamed.');
  };
  const addSub = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    if (await action.run(() => createFolder(sub.title, id))) {
      setSub({});
      done('Subfolder created.');
    }
  };
  const moveTo = async (parentId: string | null) => {
    setNotice(null);
    const ok = await action.run(async () => {
      await moveFolder(id, parentId, parentIdOf(folder!));
      return true;
    });
    setMoving(false);
    if (ok) done(parentId ? 'Folder moved.' : 'The folder is now a root.');
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!folder) return <Loading />;
  const parentId = parentIdOf(folder);
  return (
    <div>
      <div className="page-head">
        <h2>{titleOf(folder)}</h2>
        <span className="muted">path {String(folder.meta.path ?? '')}</span>
        <span className="spacer" />
        <button type="button" onClick={() => setMoving(true)}>
          Move…
        </button>
        <button type="button" onClick={() => void moveTo(null)} disabled={!parentId || action.busy}>
          Make root
        </button>
        <ConfirmButton
          label="Delete folder"
          title="Delete this folder?"
          message={
            <p>
              <strong>{titleOf(folder)}</strong> and its subfolders go to the trash; the objects in it stay.
            </p>
          }
          action={() => api.remove(`/folders/${id}`)}
          onDone={() => {
            onTreeChange();
            navigate('folders');
          }}
        />
      </div>
      <ErrorNote error={action.error} />
      <Notice text={notice} />
      <div className="two-cols">
        <form className="panel" onSubmit={rename} aria-label="Rename folder">
          <Field label="Title" name="title" values={values} onChange={setValues} required />
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Rename
            </button>
          </div>
        </form>
        <form className="panel" onSubmit={addSub} aria-label="New subfolder">
          <Field label="New subfolder" name="title" values={sub} onChange={setSub} required />
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Create subfolder
            </button>
          </div>
        </form>
      </div>
      <FolderContents id={id} version={version} />
      <HistoryPanel objectPath={`/folders/${id}`} refresh={folder} onRestored={onTreeChange} />
      {moving ? (
        <Dialog title={`Move “${titleOf(folder)}”`} onClose={() => setMoving(false)}>
          <p className="muted">Choose the new parent folder.</p>
          <FolderTree label="Move to folder" selected={parentId} onSelect={(f) => void moveTo(f.id)} version={version} disabledId={id} />
        </Dialog>
      ) : null}
    </div>
  );
}

function FolderContents({ id, version }: { id: string; version: number }) {
  const list = useList(`/folders/${id}/children`, {}, 20, version);
  const [adding, setAdding] = useState(false);
  const { busy, error, run } = useAction();
  const rel = `/folders/${id}/relationships/children`;
  const offset = list.result ? (list.result.pagination.page - 1) * list.result.pagination.page_size : 0;

  const change = async (fn: () => Promise<unknown>) => {
    await run(fn);
    await list.reload();
  };
  const place = (r: Resource, position: number) =>
    change(() => api.relate('POST', rel, [{ type: r.type, id: r.id, meta: { relation: { position } } }]));

  return (
    <section className="panel" aria-label="Contents">
      <div className="page-head">
        <h3>Contents</h3>
        <span className="spacer" />
        <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
          {adding ? 'Done adding' : 'Add existing objects'}
        </button>
      </div>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.result ? <Loading /> : null}
      {list.result && list.result.data.length === 0 ? <p className="muted">This folder is empty.</p> : null}
      <ol className="related" start={offset + 1}>
        {list.result?.data.map((r, i) => {
          const position = offset + i + 1;
          const last = position === list.result!.pagination.count;
          return (
            <li key={`${r.type}-${r.id}`}>
              <a className="grow" href={r.type === 'folders' ? href('folders', r.id) : href('objects', r.type, r.id)}>
                {titleOf(r)}
              </a>
              <span className="muted">{r.type}</span>
              <StatusBadge status={r.attributes.status} />
              <button type="button" className="small" aria-label={`Move ${titleOf(r)} up`} disabled={busy || position === 1} onClick={() => void place(r, position - 1)}>
                ↑
              </button>
              <button type="button" className="small" aria-label={`Move ${titleOf(r)} down`} disabled={busy || last} onClick={() => void place(r, position + 1)}>
                ↓
              </button>
              {r.type !== 'folders' ? (
                <button type="button" className="small" aria-label={`Remove ${titleOf(r)} from folder`} disabled={busy} onClick={() => void change(() => api.relate('DELETE', rel, [{ type: r.type, id: r.id }]))}>
                  Remove
                </button>
              ) : null}
            </li>
          );
        })}
      </ol>
      <Pager pagination={list.result?.pagination ?? null} onPage={list.setPage} label="Content pages" />
      {adding ? <ObjectPicker onPick={(r) => void change(() => api.relate('POST', rel, [{ type: r.type, id: r.id }]))} busy={busy} label="Find objects to add" /> : null}
    </section>
  );
}
