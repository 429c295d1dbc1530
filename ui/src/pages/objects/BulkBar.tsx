// Actions on the selected objects: publish, unpublish and move to the trash are each one
// transaction (POST /operations); move to a folder files them there and (unless kept) takes them
// out of the folders they were in. Each action shows only when the user's roles allow it on every
// selected object (else it says which ones stand in the way); publishing first checks what the
// objects use (publish-check.tsx); a refusal names the object by its title.
import { useState } from 'react';
import { api, nameObjects, type AtomicOperation, type Resource } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { titleOf } from '../../components/format';
import { may, useRights, type ObjectAction } from '../../components/rights';
import { findHoles, publishHoles, PublishCheckDialog, type Hole } from './publish-check';
import { CheckCircle2, FolderInput, Trash2, X } from '../../components/icons';
import { useToast } from '../../components/toast';
import { FolderPickerDialog } from '../folders/FolderPickerDialog';
import type { FolderNode } from '../folders/folder-tree-data';

const count = (n: number) => `${n} ${n === 1 ? 'object' : 'objects'}`;

export function BulkBar({ selected, onDone, onClear }: { selected: Resource[]; onDone: () => void; onClear: () => void }) {
  const [busy, setBusy] = useState(false);
  const [moving, setMoving] = useState(false);
  const [keep, setKeep] = useState(false);
  const [holes, setHoles] = useState<Hole[] | null>(null);
  const [fixError, setFixError] = useState<unknown>(null);
  const toast = useToast();
  const rights = useRights();
  if (!selected.length) return null;
  /** The selected objects the user may not `action`. */
  const refused = (action: ObjectAction) => selected.filter((o) => !may(rights, action, o.type, o));
  const notes: string[] = [];
  /** `doTo(names)`: the action said of some objects ("move “A” to the trash"). */
  const allowed = (action: ObjectAction, doTo: (names: string) => string) => {
    const no = refused(action);
    if (no.length && no.length < selected.length) {
      notes.push(`Your roles do not let you ${doTo(no.map((o) => `“${titleOf(o)}”`).join(', '))}; unselect ${no.length === 1 ? 'it' : 'them'} to ${doTo('the others')}.`);
    }
    return no.length === 0;
  };
  const canPublish = allowed('publish', (names) => `publish or unpublish ${names}`);
  const canDelete = allowed('delete', (names) => `move ${names} to the trash`);
  const canFile = allowed('update', (names) => `move ${names} to a folder`);

  const run = async (what: string, ops: () => Promise<AtomicOperation[]>) => {
    setBusy(true);
    try {
      await api.operations(await ops());
      toast.success(`${count(selected.length)} ${what}.`);
      onClear();
      onDone();
    } catch (e) {
      toast.error(nameObjects(e, selected), `Nothing was changed`);
      throw e;
    } finally {
      setBusy(false);
    }
  };
  const setStatus = (status: string, what: string) =>
    void run(what, async () => selected.map((o) => ({ op: 'update', data: { type: o.type, id: o.id, attributes: { status } } }))).catch(() => {});
  /** Publish, after checking what the selected objects use (those published together are no holes). */
  const publish = async () => {
    setBusy(true);
    let found: Hole[] = [];
    try {
      const ids = new Set(selected.map((o) => o.id));
      const all = await Promise.all(selected.map(async (o) => {
          const full = (await api.get(`/${o.type}/${o.id}`)).data;
          return findHoles(full, full.attributes, rights, ids);
        }),
      );
      const byId = new Map<string, Hole>();
      for (const h of all.flat()) byId.set(h.id, byId.has(h.id) ? { ...h, uses: [...new Set([...byId.get(h.id)!.uses, ...h.uses])] } : h);
      found = [...byId.values()];
    } catch (e) {
      toast.error(nameObjects(e, selected), 'Nothing was changed');
      return;
    } finally {
      setBusy(false);
    }
    if (found.length) {
      setFixError(null);
      setHoles(found);
    } else setStatus('on', 'published');
  };
  const publishWith = async (list: Hole[]) => {
    setBusy(true);
    try {
      await publishHoles(list);
    } catch (e) {
      setFixError(e);
      return;
    } finally {
      setBusy(false);
    }
    setHoles(null);
    setStatus('on', 'published');
  };
  /**
   * Folder contents are written through /folders only (not /operations): the objects are first
   * added to the new folder, then taken out of the others, so a failure half-way loses nothing.
   */
  const moveTo = async (folder: FolderNode) => {
    setMoving(false);
    setBusy(true);
    try {
      const items = selected.map((o) => ({ type: o.type, id: o.id }));
      await api.relate('POST', `/folders/${folder.id}/relationships/children`, items);
      if (!keep) {
        const leave = new Map<string, Array<{ type: string; id: string }>>();
        for (const o of selected) {
          for (const p of await api.listAll(`/${o.type}/${o.id}/parents`)) {
            if (p.id !== folder.id) leave.set(p.id, [...(leave.get(p.id) ?? []), { type: o.type, id: o.id }]);
          }
        }
        for (const [from, data] of leave) await api.relate('DELETE', `/folders/${from}/relationships/children`, data);
      }
      toast.success(`${count(selected.length)} moved to “${folder.title}”.`);
      onClear();
      onDone();
    } catch (e) {
      toast.error(nameObjects(e, [...selected, folder.resource]), 'The move did not finish');
      onDone();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions">
      <strong>{count(selected.length)} selected</strong>
      {/* Beside the count it is about: at the end of the row it wrapped alone onto a line of its own at 1024 px. */}
      <button type="button" className="icon-button" onClick={onClear} aria-label="Clear selection">
        <X aria-hidden size={16} />
      </button>
      {canPublish ? (
        <>
          <button type="button" onClick={() => void publish()} disabled={busy}>
            <CheckCircle2 aria-hidden size={16} /> Publish
          </button>
          <button type="button" onClick={() => setStatus('off', 'unpublished')} disabled={busy} title="Set the status to Off">
            Unpublish
          </button>
        </>
      ) : null}
      {canFile ? (
        <button type="button" onClick={() => setMoving(true)} disabled={busy}>
          <FolderInput aria-hidden size={16} /> Move to folder…
        </button>
      ) : null}
      {canDelete ? (
        <ConfirmButton
          label="Move to trash"
          icon={<Trash2 aria-hidden size={16} />}
          title={`Move ${count(selected.length)} to the trash?`}
          message={<p>You can restore {selected.length === 1 ? 'it' : 'them'} from the trash later.</p>}
          action={() => run('moved to the trash', async () => selected.map((o) => ({ op: 'remove', ref: { type: o.type, id: o.id } })))}
          disabled={busy}
        />
      ) : null}
      {!canPublish && !canDelete && !canFile && !notes.length ? <span className="muted">Your roles allow no change to {selected.length === 1 ? 'it' : 'these'}.</span> : null}
      {notes.length ? (
        <p className="bulk-notes muted" role="status">
          {notes.join(' ')}
        </p>
      ) : null}
      {holes ? (
        <PublishCheckDialog
          subject={count(selected.length).replace(/^1 object$/, 'The selected object')}
          holes={holes}
          busy={busy}
          error={fixError}
          onCancel={() => setHoles(null)}
          cancelLabel="Don't publish"
          onSaveAnyway={() => {
            setHoles(null);
            setStatus('on', 'published');
          }}
          onPublishAll={() => void publishWith(holes)}
        />
      ) : null}
      {moving ? (
        <FolderPickerDialog title={`Move ${count(selected.length)} to a folder`} onPick={(f) => void moveTo(f)} onClose={() => setMoving(false)}>
          <label className="inline">
            <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} />
            Keep them in the folders they are in now as well
          </label>
        </FolderPickerDialog>
      ) : null}
    </div>
  );
}
