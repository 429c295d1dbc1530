// Actions on the selected objects, each one transaction (POST /operations): publish, unpublish,
// move to a folder (out of the folders they are in, unless kept there), move to the trash.
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
  const moveTo = (folder: FolderNode) => {
    setMoving(false);
    void run(`moved to “${folder.title}”`, async () => {
      const items = selected.map((o) => ({ type: o.type, id: o.id }));
      const ops: AtomicOperation[] = [];
      if (!keep) {
        for (const o of selected) {
          const parents = await api.listAll(`/${o.type}/${o.id}/parents`);
          for (const p of parents)
            if (p.id !== folder.id) ops.push({ op: 'remove', ref: { type: 'folders', id: p.id, relationship: 'children' }, data: [{ type: o.type, id: o.id }] });
        }
      }
      ops.push({ op: 'add', ref: { type: 'folders', id: folder.id, relationship: 'children' }, data: items });
      return ops;
    }).catch(() => {});
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
        <FolderPickerDialog title={`Move ${count(selected.length)} to a folder`} onPick={moveTo} onClose={() => setMoving(false)}>
          <label className="inline">
            <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} />
            Keep them in the folders they are in now as well
          </label>
        </FolderPickerDialog>
      ) : null}
    </div>
  );
}
