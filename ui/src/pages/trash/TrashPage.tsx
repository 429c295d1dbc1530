// Trash: trashed objects with type and date; restore or delete permanently, one or the selected.
// Editors see what they may delete (their own ones with `delete:own`) and restore it; deleting for
// good and the history of a trashed object stay with administrators, and the page says so.
import { useState } from 'react';
import { trash, type Resource } from '../../api/client';
import { DataTable } from '../../components/data-table';
import { ConfirmButton, DeleteButton, Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { PageHead } from '../../components/page-head';
import { RotateCcw, Trash2 } from '../../components/icons';
import { useToast } from '../../components/toast';
import { formatDate, titleOf } from '../../components/format';
import { HistoryPanel } from '../../components/history-panel';
import { useAction, useList } from '../../components/use-list';
import { useRights } from '../../components/rights';
import { typeLabel, useObjectTypes } from '../../components/model';

const { restore, purge } = trash;

export function TrashPage() {
  const list = useList('/trash');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** The trashed object whose history is open (read-only: versions come back after a restore). */
  const [historyOf, setHistoryOf] = useState<Resource | null>(null);
  const { busy, error, run } = useAction();
  const toast = useToast();
  const admin = useRights().admin;
  const { types } = useObjectTypes();
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
      <PageHead title="Trash">
        <button type="button" onClick={() => void each(chosen, restore, 'restored')} disabled={!chosen.length || busy}>
          <RotateCcw aria-hidden size={16} /> Restore selected
        </button>
        {admin ? (
        <ConfirmButton
          label="Delete selected permanently"
          title="Delete permanently?"
          message={<p>{chosen.length} selected {chosen.length === 1 ? 'object' : 'objects'} will be removed for good. This cannot be undone.</p>}
          confirmLabel="Delete permanently"
          action={() => each(chosen, purge, 'deleted permanently')}
          disabled={!chosen.length || busy}
        />
        ) : null}
      </PageHead>
      {admin ? null : (
        <p className="notice">These are the trashed objects you may restore. Only administrators delete for good, so nothing is lost by mistake.</p>
      )}
      <ErrorNote error={error} />
      <DataTable
        label="Trash"
        list={list}
        empty="The trash is empty."
        emptyIcon={<Trash2 size={28} />}
        selection={{ selected, onChange: setSelected, rowLabel: (o) => `Select ${titleOf(o)}` }}
        columns={[
          { header: 'Title', cell: (o) => titleOf(o) },
          { header: 'Type', cell: (o) => typeLabel(types, String(o.attributes.type ?? o.meta.type ?? o.type), true) },
          { header: 'Trashed', cell: (o) => formatDate(o.meta.deleted ?? o.meta.trashed ?? o.meta.modified) },
        ]}
        actions={(o) => (
          <>
            {admin ? (
            <button type="button" className="small" onClick={() => setHistoryOf(o)} aria-label={`History of ${titleOf(o)}`}>
              History
            </button>
            ) : null}
            <button type="button" className="small" onClick={() => void each([o.id], restore, 'restored')} disabled={busy} aria-label={`Restore ${titleOf(o)}`}>
              Restore
            </button>
            {admin ? (
            <DeleteButton
              label="Delete permanently"
              title="Delete permanently?"
              message={
                <p>
                  <strong>{titleOf(o)}</strong> will be removed for good. This cannot be undone.
                </p>
              }
              action={() => each([o.id], purge, 'deleted permanently')}
            />
            ) : null}
          </>
        )}
      />
      {historyOf ? (
        <Dialog title={`History of “${titleOf(historyOf)}”`} onClose={() => setHistoryOf(null)}>
          <HistoryPanel objectPath={`/objects/${historyOf.id}`} canRestore={false} />
        </Dialog>
      ) : null}
    </section>
  );
}
