// Trash: trashed objects with type and date; restore or delete permanently, one or the selected.
import { useState } from 'react';
import { api, type Resource } from '../../api/client';
import { ConfirmButton, Dialog } from '../../components/dialog';
import { Empty, ErrorNote, Loading, Pager } from '../../components/feedback';
import { RotateCcw, Trash2 } from '../../components/icons';
import { useToast } from '../../components/toast';
import { formatDate, titleOf } from '../../components/format';
import { HistoryPanel } from '../../components/history-panel';
import { useAction, useList } from '../../components/use-list';

const restore = (id: string) => api.patch(`/trash/${id}`, { id, type: 'objects' });
const purge = (id: string) => api.remove(`/trash/${id}`);

export function TrashPage() {
  const list = useList('/trash');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** The trashed object whose history is open (read-only: versions come back after a restore). */
  const [historyOf, setHistoryOf] = useState<Resource | null>(null);
  const { busy, error, run } = useAction();
  const toast = useToast();
  const items = list.result?.data ?? [];
  const allSelected = items.length > 0 && items.every((o) => selected.has(o.id));

  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  /** Apply to each id in turn; stops at the first failure, which is then shown. */
  const each = async (ids: string[], fn: (id: string) => Promise<unknown>, done: string) => {
    let count = 0;
    try {
      await run(async () => {
        try {
          for (const id of ids) {
            await fn(id);
            count++;
          }
        } catch (e) {
          toast.error(e, `Stopped after ${count} of ${ids.length}`);
          throw e;
        }
      });
    } finally {
      setSelected(new Set());
      if (count) toast.success(`${count} ${count === 1 ? 'object' : 'objects'} ${done}.`);
      await list.reload();
    }
  };
  const chosen = [...selected];

  return (
    <section>
      <div className="page-head">
        <h1>Trash</h1>
        <span className="spacer" />
        <button type="button" onClick={() => void each(chosen, restore, 'restored')} disabled={!chosen.length || busy}>
          <RotateCcw aria-hidden size={16} /> Restore selected
        </button>
        <ConfirmButton
          label="Delete selected permanently"
          title="Delete permanently?"
          message={<p>{chosen.length} selected {chosen.length === 1 ? 'object' : 'objects'} will be removed for good. This cannot be undone.</p>}
          confirmLabel="Delete permanently"
          action={() => each(chosen, purge, 'deleted permanently')}
          disabled={!chosen.length || busy}
        />
      </div>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.result ? <Loading /> : null}
      {list.result && items.length === 0 ? <Empty icon={<Trash2 size={28} />}>The trash is empty.</Empty> : null}
      {items.length > 0 ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>
                  <input
                    type="checkbox"
                    aria-label="Select all on this page"
                    checked={allSelected}
                    onChange={() => setSelected(allSelected ? new Set() : new Set(items.map((o) => o.id)))}
                  />
                </th>
                <th>Title</th>
                <th>Type</th>
                <th>Trashed</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((o) => (
                <tr key={o.id}>
                  <td>
                    <input type="checkbox" aria-label={`Select ${titleOf(o)}`} checked={selected.has(o.id)} onChange={() => toggle(o.id)} />
                  </td>
                  <td>{titleOf(o)}</td>
                  <td>{String(o.attributes.type ?? o.meta.type ?? o.type)}</td>
                  <td>{formatDate(o.meta.deleted ?? o.meta.trashed ?? o.meta.modified)}</td>
                  <td className="actions-cell">
                    <button type="button" className="small" onClick={() => setHistoryOf(o)} aria-label={`History of ${titleOf(o)}`}>
                      History
                    </button>
                    <button type="button" className="small" onClick={() => void each([o.id], restore, 'restored')} disabled={busy} aria-label={`Restore ${titleOf(o)}`}>
                      Restore
                    </button>
                    <ConfirmButton
                      label="Delete permanently"
                      className="danger small"
                      title="Delete permanently?"
                      message={
                        <p>
                          <strong>{titleOf(o)}</strong> will be removed for good. This cannot be undone.
                        </p>
                      }
                      action={() => each([o.id], purge, 'deleted permanently')}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pagination={list.result?.pagination ?? null} onPage={list.setPage} label="Trash pages" />
      {historyOf ? (
        <Dialog title={`History of “${titleOf(historyOf)}”`} onClose={() => setHistoryOf(null)}>
          <HistoryPanel objectPath={`/objects/${historyOf.id}`} canRestore={false} />
        </Dialog>
      ) : null}
    </section>
  );
}
