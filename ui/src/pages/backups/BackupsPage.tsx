// Backups (admins): make one, list them (newest first, with what each holds), download, delete.
// Progress: while a backup runs (this page's POST, a scheduled one, another admin's), the page
// polls GET /backups, whose meta.running tells the phase and the bytes archived so far.
import { useEffect, useState } from 'react';
import { api, fileObjectUrl, type Resource } from '../../api/client';
import { DataTable } from '../../components/data-table';
import { DeleteButton } from '../../components/dialog';
import { ErrorNote, Notice } from '../../components/feedback';
import { PageHead } from '../../components/page-head';
import { formatDate } from '../../components/format';
import { useAction, useList } from '../../components/use-list';

interface RunningBackup {
  id: string;
  kind: 'manual' | 'scheduled';
  started: string;
  progress: { phase: 'files' | 'database' | 'archive' | 'done'; entries_done: number; entries_total: number; bytes_done: number; bytes_total: number };
}

interface Counts {
  tables: Record<string, number>;
  files: number;
}

const POLL_MS = 700;
/** Shown between the click and the first answer of the poll. */
const STARTING: RunningBackup = { id: '', kind: 'manual', started: '', progress: { phase: 'files', entries_done: 0, entries_total: 0, bytes_done: 0, bytes_total: 0 } };

function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function describeCounts(counts: Counts | null | undefined): string {
  if (!counts) return '—';
  const users = plural(counts.tables.users ?? 0, 'user', 'users');
  return `${plural(counts.tables.objects ?? 0, 'object', 'objects')} (${users}), ${plural(counts.files, 'file', 'files')}`;
}

const PHASES: Record<RunningBackup['progress']['phase'], string> = {
  files: 'Preparing the files',
  database: 'Reading the database',
  archive: 'Writing the archive',
  done: 'Finishing',
};

function BackupProgress({ running }: { running: RunningBackup }) {
  const p = running.progress;
  const fraction = p.phase === 'archive' && p.bytes_total > 0 ? p.bytes_done / p.bytes_total : null;
  return (
    <div className="panel" role="status" aria-live="polite">
      <label>
        {running.kind === 'scheduled' ? 'Scheduled backup' : 'Backup'} in progress: {PHASES[p.phase]}
        {fraction !== null ? ` — ${Math.floor(fraction * 100)}% (${formatBytes(p.bytes_done)} of ${formatBytes(p.bytes_total)})` : '…'}
        {/* Without a value, <progress> shows an indeterminate bar. */}
        {fraction !== null ? <progress max={1} value={fraction} /> : <progress />}
      </label>
    </div>
  );
}

async function download(b: Resource) {
  const url = await fileObjectUrl(String(b.links?.download ?? `/backups/${b.id}/download`));
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = String(b.attributes.file_name);
    document.body.appendChild(a);
    a.click();
    a.remove();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

export function BackupsPage() {
  const list = useList('/backups');
  const [running, setRunning] = useState<RunningBackup | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [making, setMaking] = useState(false);
  const make = useAction();
  const fetchFile = useAction();
  const reported = (list.result?.meta?.running as RunningBackup | null | undefined) ?? null;

  // Poll while a backup is under way, whoever started it.
  const active = making || reported !== null || running !== null;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    const timer = setInterval(async () => {
      try {
        const r = await api.list('/backups', { page_size: 1 });
        if (stopped) return;
        const now = (r.meta.running as RunningBackup | null) ?? null;
        setRunning(now);
        if (!now && !making) void list.reload();
      } catch {
        /* the next poll tries again; errors of the POST itself are shown */
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, making]);

  const makeBackup = async () => {
    setNotice(null);
    setMaking(true);
    try {
      const made = await make.run(() => api.create('/backups', 'backups', {}));
      if (made) setNotice(`Backup ${made.data.attributes.file_name} made: ${describeCounts(made.meta.counts as Counts)}, ${formatBytes(Number(made.data.attributes.size))}.`);
    } finally {
      setMaking(false);
      setRunning(null);
      await list.reload();
    }
  };

  const shown = running ?? reported;
  return (
    <section>
      <PageHead title="Backups">
        <button type="button" className="primary" onClick={() => void makeBackup()} disabled={making || shown !== null}>
          {making ? 'Making a backup…' : 'Make a backup'}
        </button>
      </PageHead>
      <p className="muted">
        A backup is one file with every object, user, role, the model and every stored file. Restore it with{' '}
        <code>npm run restore -- FILE</code> or from the desktop app&apos;s Folio menu.
      </p>
      {shown || making ? <BackupProgress running={shown ?? STARTING} /> : null}
      <ErrorNote error={list.error ?? make.error ?? fetchFile.error} />
      <Notice text={notice} />
      <DataTable
        label="Backups"
        pagerLabel="Backup pages"
        list={list}
        error={null}
        empty="No backups yet."
        columns={[
          { header: 'Made', cell: (b) => formatDate(b.attributes.created) },
          { header: 'File', cell: (b) => String(b.attributes.file_name) },
          { header: 'Size', className: 'nowrap', cell: (b) => formatBytes(Number(b.attributes.size)) },
          { header: 'Holds', cell: (b) => describeCounts(b.meta.counts as Counts | null) },
          { header: 'Kind', cell: (b) => (b.meta.kind === 'scheduled' ? 'Scheduled' : 'Manual') },
        ]}
        actions={(b) => (
          <>
            <button type="button" className="small" disabled={fetchFile.busy} onClick={() => void fetchFile.run(() => download(b))} aria-label={`Download ${b.attributes.file_name}`}>
              Download
            </button>
            <DeleteButton
              title="Delete this backup?"
              message={
                <p style={{ overflowWrap: 'anywhere' }}>
                  <strong>{String(b.attributes.file_name)}</strong> will be deleted. This cannot be undone.
                </p>
              }
              confirmLabel="Delete backup"
              action={() => api.remove(`/backups/${encodeURIComponent(b.id)}`)}
              onDone={() => setNotice(`Backup ${b.attributes.file_name} deleted.`)}
            />
          </>
        )}
      />
    </section>
  );
}
