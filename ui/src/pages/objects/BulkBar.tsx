// Actions on the selected objects: publish, unpublish and move to the trash are each one
// transaction (POST /operations); move to a folder files them there and (unless kept) takes them
// out of the folders they were in.
import { useState } from 'react';
import { api, type AtomicOperation, type Resource } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { CheckCircle2, FolderInput, Trash2, X } from '../../components/icons';
import { useToast } from '../../components/toast';
import { FolderPickerDialog } from '../folders/FolderPickerDialog';
import type { FolderNode } from '../folders/folder-tree-data';

const count = (n: number) => `${n} ${n === 1 ? 'object' : 'objects'}`;

export function BulkBar({ selected, onDone, onClear }: { selected: Resource[]; onDone: () => void; onClear: () => void }) {
  const [busy, setBusy] = useState(false);
  const [moving, setMoving] = useState(false);
  const [keep, setKeep] = useState(false);
  const toast = useToast();
  if (!selected.length) return null;

  const run = async (what: string, ops: () => Promise<AtomicOperation[]>) => {
    setBusy(true);
    try {
      await api.operations(await ops());
      toast.success(`${count(selected.length)} ${what}.`);
      onClear();
      onDone();
    } catch (e) {
      toast.error(e, `Nothing was changed`);
      throw e;
    } finally {
      setBusy(false);
    }
  };
  const setStatus = (status: string, what: string) =>
    void run(what, async () => selected.map((o) => ({ op: 'update', data: { type: o.type, id: o.id, attributes: { status } } }))).catch(() => {});
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
      toast.error(e, 'The move did not finish');
      onDone();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions">
      <strong>{count(selected.length)} selected</strong>
      <button type="button" onClick={() => setStatus('on', 'published')} disabled={busy}>
        <CheckCircle2 aria-hidden size={16} /> Publish
      </button>
      <button type="button" onClick={() => setStatus('off', 'unpublished')} disabled={busy} title="Set the status to Off">
        Unpublish
      </button>
      <button type="button" onClick={() => setMoving(true)} disabled={busy}>
        <FolderInput aria-hidden size={16} /> Move to folder…
      </button>
      <ConfirmButton
        label="Move to trash"
        icon={<Trash2 aria-hidden size={16} />}
        title={`Move ${count(selected.length)} to the trash?`}
        message={<p>You can restore them from the trash later.</p>}
        action={() => run('moved to the trash', async () => selected.map((o) => ({ op: 'remove', ref: { type: o.type, id: o.id } })))}
        disabled={busy}
      />
      <span className="spacer" />
      <button type="button" className="icon-button" onClick={onClear} aria-label="Clear selection">
        <X aria-hidden size={16} />
      </button>
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
