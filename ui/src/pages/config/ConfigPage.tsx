// Configuration entries (/config), for admins: list, create, edit and delete them. An entry is a
// name, a context (`app` unless given), a text content (often JSON: checked when it looks like
// JSON, stored as typed) and, optionally, the one application that reads it (else every
// application reads it). One entry per name, context and application.
import { useId, useState, type FormEvent } from 'react';
import { ApiError, configEntries, type ConfigAttributes, type Resource } from '../../api/client';
import { useApiAll } from '../../api/queries';
import { NamesError, useAdminNames } from '../../components/admin-names';
import { DataTable } from '../../components/data-table';
import { DeleteButton, Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { FormFooter } from '../../components/fields';
import { PageHead } from '../../components/page-head';
import { formatDate } from '../../components/format';
import { useToast } from '../../components/toast';
import { useAction } from '../../components/use-list';

type Entry = Resource<ConfigAttributes>;
const NAME = /^[A-Za-z0-9_-]{1,255}$/;

interface Draft {
  name: string;
  context: string;
  content: string;
  application_id: string;
}

const draftOf = (e: Entry | null): Draft => ({
  name: e?.attributes.name ?? '',
  context: e?.attributes.context ?? 'app',
  content: e?.attributes.content ?? '',
  application_id: e?.attributes.application_id != null ? String(e.attributes.application_id) : '',
});

/** Text that starts like JSON must be JSON; other text is kept as it is. */
function jsonProblem(content: string): string | null {
  const t = content.trim();
  if (!/^[[{]/.test(t)) return null;
  try {
    JSON.parse(t);
    return null;
  } catch (e) {
    return `This looks like JSON but is not valid JSON (${e instanceof Error ? e.message : String(e)}). Fix it, or write plain text.`;
  }
}

type Problems = Partial<Record<keyof Draft, string>>;

function draftProblems(d: Draft): Problems {
  const p: Problems = {};
  if (!NAME.test(d.name)) p.name = 'The name must be letters, digits, - or _ (no spaces), e.g. site_colors.';
  if (!d.context.trim()) p.context = 'Give a context (app unless you group entries otherwise).';
  if (!d.content.trim()) p.content = 'Write the content: text or JSON.';
  else {
    const json = jsonProblem(d.content);
    if (json) p.content = json;
  }
  return p;
}

/** The server's refusals in the admin's words. */
function plainError(e: unknown): unknown {
  if (e instanceof ApiError && e.code === 'config_exists') return new ApiError(e.status, e.code, 'Already exists', 'An entry with this name and context already exists for this application. Choose another name or context, or edit that entry.');
  return e;
}

export function ConfigPage() {
  const entries = useApiAll<ConfigAttributes>('/config', { sort: 'name' });
  const apps = useAdminNames('/admin/applications');
  const [editing, setEditing] = useState<Entry | 'new' | null>(null);
  const toast = useToast();
  const appName = (id: number | null) => (id == null ? 'All applications' : String(apps.find((a) => a.id === String(id))?.attributes.name ?? `Application ${id}`));
  return (
    <section>
      <PageHead title="Configuration">
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New entry
        </button>
      </PageHead>
      <p className="muted">
        Settings your applications read from <code>GET /config</code>: each reads the entries made for it and those for all applications. The content is text, often JSON.
      </p>
      <NamesError path="/admin/applications" />
      <DataTable
        label="Configuration entries"
        rows={entries.data ?? null}
        error={entries.error}
        loading={entries.isFetching}
        empty="No configuration entries yet."
        columns={[
          { header: 'Name', cell: (e) => <code>{e.attributes.name}</code> },
          { header: 'Context', cell: (e) => e.attributes.context },
          {
            header: 'Content',
            className: 'config-content',
            cell: ({ attributes: a }) => <code title={a.content}>{a.content.length > 80 ? `${a.content.slice(0, 80)}…` : a.content}</code>,
          },
          { header: 'Application', cell: (e) => appName(e.attributes.application_id) },
          { header: 'Changed', cell: (e) => formatDate(e.meta.modified) },
        ]}
        actions={(e) => {
          const a = e.attributes;
          return (
            <>
              <button type="button" className="small" onClick={() => setEditing(e)} aria-label={`Edit ${a.name} (${a.context})`}>
                Edit
              </button>
              <DeleteButton
                buttonTitle={`Delete ${a.name} (${a.context})`}
                title="Delete this entry?"
                message={
                  <p>
                    <strong>{a.name}</strong> ({a.context}) will be deleted; applications reading it get nothing from then on.
                  </p>
                }
                action={() => configEntries.remove(e.id)}
                onDone={() => toast.success(`Entry “${a.name}” deleted.`)}
              />
            </>
          );
        }}
      />
      {editing ? (
        <ConfigDialog
          entry={editing === 'new' ? null : editing}
          apps={apps}
          onClose={() => setEditing(null)}
          onSaved={(name) => {
            toast.success(`Entry “${name}” saved.`);
            setEditing(null);
          }}
        />
      ) : null}
    </section>
  );
}

function ConfigDialog({ entry, apps, onClose, onSaved }: { entry: Entry | null; apps: Resource[]; onClose: () => void; onSaved: (name: string) => void }) {
  const [d, setD] = useState<Draft>(() => draftOf(entry));
  const [problems, setProblems] = useState<Problems | null>(null);
  const { busy, error, setError, run } = useAction();
  const ids = { name: useId(), context: useId(), content: useId() };
  const set = (patch: Partial<Draft>) => {
    const next = { ...d, ...patch };
    setD(next);
    setError(null);
    if (problems) setProblems(draftProblems(next));
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = draftProblems(d);
    setProblems(found);
    if (Object.keys(found).length) return;
    const attributes = { name: d.name, context: d.context.trim(), content: d.content, application_id: d.application_id ? Number(d.application_id) : null };
    const saved = await run(async () => {
      try {
        return await (entry ? configEntries.update(entry.id, attributes) : configEntries.create(attributes));
      } catch (err) {
        throw plainError(err);
      }
    });
    if (saved) onSaved(d.name);
  };
  const problem = (k: keyof Draft) => problems?.[k];
  return (
    <Dialog title={entry ? 'Edit entry' : 'New configuration entry'} onClose={onClose} wide>
      <form className="stack" onSubmit={submit} aria-label={entry ? 'Edit entry' : 'New configuration entry'} noValidate>
        <div className="form-grid">
          <div className="field">
            <label>
              Name
              <input value={d.name} onChange={(e) => set({ name: e.target.value })} aria-invalid={problem('name') ? true : undefined} aria-describedby={ids.name} />
            </label>
            {problem('name') ? (
              <span className="field-error" id={ids.name} role="alert">
                {problem('name')}
              </span>
            ) : null}
          </div>
          <div className="field">
            <label>
              Context
              <input value={d.context} onChange={(e) => set({ context: e.target.value })} aria-invalid={problem('context') ? true : undefined} aria-describedby={ids.context} />
            </label>
            <span className={problem('context') ? 'field-error' : 'hint'} id={ids.context} role={problem('context') ? 'alert' : undefined}>
              {problem('context') ?? 'A group of entries; app unless you choose another.'}
            </span>
          </div>
        </div>
        <label>
          Application
          <select value={d.application_id} onChange={(e) => set({ application_id: e.target.value })}>
            <option value="">All applications</option>
            {apps.map((a) => (
              <option key={a.id} value={a.id}>
                {String(a.attributes.name)}
              </option>
            ))}
          </select>
        </label>
        <div className="field">
          <label>
            Content
            <textarea className="code" rows={8} value={d.content} onChange={(e) => set({ content: e.target.value })} aria-invalid={problem('content') ? true : undefined} aria-describedby={ids.content} />
          </label>
          <span className={problem('content') ? 'field-error' : 'hint'} id={ids.content} role={problem('content') ? 'alert' : undefined}>
            {problem('content') ?? 'Plain text, or JSON (checked when it starts with { or [). Stored exactly as written.'}
          </span>
        </div>
        <FormFooter error={error} busy={busy} label={entry ? 'Save changes' : 'Create entry'} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
