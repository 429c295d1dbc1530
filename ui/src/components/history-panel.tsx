// The history of one object: who changed what and when, each changed field with its value before
// and after, newest first; "Restore this version" writes the object back to its state after that
// change (a new change of its own). Self-contained: any page with an object path can show it.
import { history, type HistoryAction, type HistoryAttributes, type HistoryMeta, type Resource } from '../api/client';
import { ConfirmButton } from './dialog';
import { ErrorNote, Loading, Pager } from './feedback';
import { formatDate, plainText } from './format';
import { useObjectTitles } from './object-titles';
import { useList } from './use-list';
import './history-panel.css';

const ACTION_LABEL: Record<HistoryAction, string> = {
  create: 'Created',
  update: 'Changed',
  trash: 'Moved to trash',
  restore: 'Restored from trash',
  remove: 'Deleted permanently',
};

/** Versions that can be brought back: the state after a create or an update. */
const RESTORABLE = new Set<HistoryAction>(['create', 'update']);

const PAGE_SIZE = 10;

/** A stored UTC instant (publication window, date ranges), shown in the user's time zone. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;

/** One item of a list value: a date range as its two times, a term by its label or name. */
function itemText(item: unknown): string {
  if (item && typeof item === 'object') {
    const o = item as Record<string, unknown>;
    if ('start_date' in o) return o.end_date ? `${formatDate(o.start_date)} – ${formatDate(o.end_date)}` : formatDate(o.start_date);
    if (typeof o.name === 'string') return String(o.label || o.name);
    return JSON.stringify(item);
  }
  return String(item);
}

/** A list of object ids (a relation's or the folders' `parents`): named by title where readable. */
const isIdList = (value: unknown): value is Array<string | number> => Array.isArray(value) && value.length > 0 && value.every((v) => /^\d+$/.test(String(v)));

/** The `translations` field: each language's status and texts, not their JSON. */
function translationsText(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([lang, t]) => {
      const { status, translated_fields: fields } = (t ?? {}) as { status?: string; translated_fields?: Record<string, unknown> };
      const texts = Object.entries(fields ?? {}).map(([k, v]) => `${fieldLabel(k)} “${plainText(String(v ?? ''))}”`);
      return `${lang}${status ? ` (${status})` : ''}${texts.length ? `: ${texts.join(', ')}` : ''}`;
    })
    .join('; ');
}

function Value({ name, value, titles }: { name: string; value: unknown; titles: Map<string, string> }) {
  if (value === null || value === undefined) return <span className="history-value-empty">not set</span>;
  if (typeof value === 'boolean') return <>{value ? 'yes' : 'no'}</>;
  if (isIdList(value)) return <>{value.map((id) => titles.get(String(id)) ?? `#${id}`).join(', ')}</>;
  if (Array.isArray(value)) return value.length ? <>{value.map(itemText).join(', ')}</> : <span className="history-value-empty">none</span>;
  if (typeof value === 'object') return name === 'translations' ? <>{translationsText(value as Record<string, unknown>)}</> : <code>{JSON.stringify(value)}</code>;
  const text = INSTANT.test(String(value)) ? formatDate(value) : plainText(String(value));
  return text.length > 240 ? <span title={text}>{text.slice(0, 240)}…</span> : <>{text}</>;
}

const fieldLabel = (name: string) => name.replace(/_/g, ' ');

function whoOf(entry: Resource<HistoryAttributes>): string {
  const meta = entry.meta as HistoryMeta;
  const who = meta.username ?? (entry.attributes.user_id !== null ? `user #${entry.attributes.user_id}` : 'System');
  return entry.attributes.application_id !== null ? `${who} (application #${entry.attributes.application_id})` : who;
}

function Changes({ entry, titles }: { entry: Resource<HistoryAttributes>; titles: Map<string, string> }) {
  const before = (entry.meta as HistoryMeta).before ?? null;
  const fields = Object.keys(entry.attributes.changed);
  if (!fields.length) return null;
  return (
    <table className="history-changes" aria-label="Changed fields">
      <thead>
        <tr>
          <th>Field</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f}>
            <th scope="row">{fieldLabel(f)}</th>
            <td className="before">{entry.attributes.user_action === 'create' ? <span className="history-value-empty">—</span> : <Value name={f} value={before?.[f]} titles={titles} />}</td>
            <td className="after">
              <Value name={f} value={entry.attributes.changed[f]} titles={titles} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * `objectPath`: `/{type}/{id}` (or `/objects/{id}`, e.g. for a trashed object). `canRestore`:
 * offer "Restore this version" (not for trashed objects). `refresh`: any value whose change
 * reloads the list (the object after a save). `onRestored`: after a restore, to reload the object.
 */
export function HistoryPanel({
  objectPath,
  canRestore = true,
  refresh = null,
  onRestored,
}: {
  objectPath: string;
  canRestore?: boolean;
  refresh?: unknown;
  onRestored?: () => void;
}) {
  const list = useList(history.path(objectPath), { sort: '-id' }, PAGE_SIZE, refresh);
  const entries = (list.result?.data ?? []) as Resource<HistoryAttributes>[];
  const titles = useObjectTitles(
    entries.flatMap((e) => [e.attributes.changed, (e.meta as HistoryMeta).before ?? {}].flatMap((h) => Object.values(h).filter(isIdList).flat().map(String))),
  );
  return (
    <section className="panel history-panel" aria-label="History">
      <div className="page-head">
        <h2>History</h2>
        <span className="spacer" />
        <button type="button" className="small" onClick={() => void list.reload()} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <ErrorNote error={list.error} />
      {list.loading && !list.result ? <Loading what="Loading history" /> : null}
      {list.result && entries.length === 0 ? <p className="muted">No changes recorded yet.</p> : null}
      <ol className="history-list">
        {entries.map((entry, i) => {
          const current = list.page === 1 && i === 0;
          const action = entry.attributes.user_action;
          const when = formatDate(entry.attributes.created);
          return (
            <li key={entry.id} className={`history-entry${current ? ' current' : ''}`} aria-label={`${ACTION_LABEL[action]} by ${whoOf(entry)}, ${when}`}>
              <div className="history-head">
                <span className={`badge history-${action}`}>{ACTION_LABEL[action]}</span>
                <strong>{whoOf(entry)}</strong>
                <span className="muted">{when}</span>
                {current ? <span className="badge">latest</span> : null}
                <span className="spacer" />
                {canRestore && !current && RESTORABLE.has(action) ? (
                  <ConfirmButton
                    label="Restore this version"
                    className="small"
                    title="Restore this version?"
                    message={
                      <p>
                        The object's fields go back to how they were after this change ({when}). This is saved as a new change,
                        so it can be undone the same way; relations, folders and files stay as they are.
                      </p>
                    }
                    action={() => history.restore(objectPath, entry.id)}
                    onDone={() => {
                      void list.reload();
                      onRestored?.();
                    }}
                  />
                ) : null}
              </div>
              <Changes entry={entry} titles={titles} />
            </li>
          );
        })}
      </ol>
      {list.result && list.result.pagination.page_count > 1 ? <Pager pagination={list.result.pagination} onPage={list.setPage} label="History pages" /> : null}
    </section>
  );
}
