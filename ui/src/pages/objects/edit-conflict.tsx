// A save refused because someone else wrote the object since the editor loaded it (412): what
// they changed in this form (the current server copy against the copy the editor loaded), who and
// when (the object's history entries since that version), and the dialog that lets the editor
// reload, overwrite or go on editing. The unsaved edits stay in the form until they choose. Both
// are read through the query cache, fresh (the object's copy there is the one Reload shows).
import { etagVersion, history, type HistoryAttributes, type Resource, type SingleResult } from '../../api/client';
import { fetchList, fetchOne } from '../../api/queries';
import { Dialog } from '../../components/dialog';
import type { Values } from '../../components/fields';
import { formatDate, plainText } from '../../components/format';
import { fieldLabel, formFromAttributes, type FormProperty, type RangeValue, type Term } from '../../components/schema-form';
import './edit-conflict.css';

export interface ConflictField {
  name: string;
  label: string;
  theirs: string;
  /** The unsaved value, or null when the editor left this field as it was (theirs stays). */
  yours: string | null;
}

export interface Conflict {
  /** The object as it is now, with its ETag (what Overwrite sends against, what Reload shows). */
  current: SingleResult;
  /** Fields of the form that others changed since it loaded. */
  fields: ConflictField[];
  /** Usernames of those who wrote the object since, newest first. */
  who: string[];
  /** When the newest of those writes happened (ISO), null when the history does not say. */
  when: string | null;
}

/** A value as a reader sees it: rich text as its words, empty as "not set", long text cut. */
export function readable(property: FormProperty, value: unknown): string {
  if (property.kind === 'boolean') return value ? 'yes' : 'no';
  if (property.kind === 'terms') return ((value ?? []) as Term[]).map((t) => t.label || t.name).join(', ') || 'none';
  if (property.kind === 'ranges') return ((value ?? []) as RangeValue[]).map((r) => (r.end ? `${r.start.replace('T', ' ')} – ${r.end.replace('T', ' ')}` : r.start.replace('T', ' '))).join(', ') || 'none';
  if (property.kind === 'datetime' && typeof value === 'string' && value) return value.replace('T', ' ');
  const text = property.kind === 'html' ? plainText(String(value ?? '')) : String(value ?? '').trim();
  if (!text) return 'not set';
  return text.length > 280 ? `${text.slice(0, 280)}…` : text;
}

/** An object's values as its form holds them (the fields of `properties`, and its status). */
export function objectValues(properties: FormProperty[], o: Resource): Values {
  return { ...formFromAttributes(properties, o.attributes), status: String(o.attributes.status ?? 'draft') };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? '') === JSON.stringify(b ?? '');

/**
 * What happened since the editor loaded `loaded` (form values of the server copy then, and its
 * ETag): the fields others changed, compared with `mine` (the form now), and who wrote since.
 */
export async function describeConflict(
  objectPath: string,
  properties: FormProperty[],
  toValues: (o: Resource) => Values,
  loaded: { values: Values; etag: string | null; modified: unknown },
  mine: Values,
): Promise<Conflict> {
  const current = await fetchOne(objectPath);
  const now = toValues(current.data);
  const shown = [{ name: 'status', kind: 'enum', required: false, options: [], advanced: false } as FormProperty, ...properties];
  const fields = shown
    .filter((p) => !same(now[p.name], loaded.values[p.name]))
    .map((p) => ({
      name: p.name,
      label: fieldLabel(p.name),
      theirs: readable(p, now[p.name]),
      yours: same(mine[p.name], loaded.values[p.name]) ? null : readable(p, mine[p.name]),
    }));
  return { current, fields, ...(await writersSince(objectPath, loaded.etag, current.etag, loaded.modified, fields.map((f) => f.name))) };
}

/**
 * Who wrote the object at `objectPath` between two of its ETags (newest first), and when the
 * newest of them did; those who wrote `names` first, anyone who wrote something else after them.
 */
export async function writersSince(objectPath: string, fromEtag: string | null, toEtag: string | null, modified: unknown, names: string[]): Promise<{ who: string[]; when: string | null }> {
  // Every recorded write moves the version once and leaves one history entry: the newest
  // (current - loaded) entries are the writes since. Without versions, those after `modified`.
  const from = etagVersion(fromEtag);
  const to = etagVersion(toEtag);
  const since = from !== null && to !== null ? to - from : null;
  let entries: Resource<HistoryAttributes>[] = [];
  if (since === null || since > 0) {
    const page = await fetchList<HistoryAttributes>(history.path(objectPath), { sort: '-id', page_size: Math.min(since ?? 20, 100) }).catch(() => null);
    entries = page?.data ?? [];
    if (since === null && typeof modified === 'string') entries = entries.filter((e) => e.attributes.created > (modified as string));
  }
  const touching = entries.filter((e) => names.some((n) => n in e.attributes.changed));
  const writers = touching.length ? touching : entries;
  const who = [...new Set(writers.map((e) => (e.meta.username as string | null) ?? (e.attributes.user_id !== null ? `user #${e.attributes.user_id}` : 'an application')))];
  return { who, when: writers[0]?.attributes.created ?? null };
}

/** What the dialog says of the unsaved side, when it is not the form's edits (a draft being published). */
export interface ConflictWords {
  /** After "<who> saved changes on <when>": "while you were editing. Your changes are not saved yet…" */
  pending: string;
  /** The column of the unsaved values: "Your version". */
  yours: string;
  /** In that column, for a field only they changed. */
  untouched: string;
  /** What Reload, Overwrite and Cancel do. */
  reload: string;
  overwrite: string;
  cancel: string;
}

const EDITING: ConflictWords = {
  pending: 'while you were editing. Your changes are not saved yet and are still in the form.',
  yours: 'Your version',
  untouched: 'you did not change it: theirs is kept',
  reload: 'drops your changes and shows their version',
  overwrite: 'saves your changes over theirs (fields you did not change keep their version)',
  cancel: 'goes back to the form; nothing is saved',
};

const names = (who: string[]) => (who.length <= 1 ? who[0] ?? 'Someone' : `${who.slice(0, -1).join(', ')} and ${who[who.length - 1]}`);

export function ConflictDialog({
  conflict,
  busy,
  onReload,
  onOverwrite,
  onCancel,
  what = 'this object',
  words = EDITING,
}: {
  conflict: Conflict;
  busy: boolean;
  onReload: () => void;
  onOverwrite: () => void;
  onCancel: () => void;
  /** What was changed: "this object" (default), "the Italian translation". */
  what?: string;
  words?: ConflictWords;
}) {
  const { fields, who, when } = conflict;
  return (
    <Dialog title={`Someone else changed ${what}`} onClose={onCancel} wide>
      <div className="dialog-body conflict">
        <p data-autofocus tabIndex={-1}>
          <strong>{names(who)}</strong> saved changes {when ? <>on {formatDate(when)} </> : null}{words.pending}
        </p>
        {fields.length ? (
          <DiffTable
            label="Changed since you opened it"
            columns={['Their version', words.yours]}
            rows={fields.map((f) => ({ name: f.name, label: f.label, left: f.theirs, right: f.yours }))}
            untouched={words.untouched}
          />
        ) : (
          <p>None of the fields in this form changed; they changed its relations, folders or permissions.</p>
        )}
        <ul className="conflict-choices muted">
          <li>
            <strong>Reload</strong> {words.reload}.
          </li>
          <li>
            <strong>Overwrite</strong> {words.overwrite}.
          </li>
          <li>
            <strong>Cancel</strong> {words.cancel}.
          </li>
        </ul>
      </div>
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" onClick={onReload} disabled={busy}>
          Reload
        </button>
        <button type="button" className="danger" onClick={onOverwrite} disabled={busy}>
          Overwrite
        </button>
      </div>
    </Dialog>
  );
}

/** Two versions of some fields side by side, one row a field (the edit-conflict dialog, a draft's changes). */
export function DiffTable({ label, columns, rows, untouched = '' }: { label: string; columns: [string, string]; rows: { name: string; label: string; left: string; right: string | null }[]; untouched?: string }) {
  return (
    <table className="conflict-fields" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">{columns[0]}</th>
          <th scope="col">{columns[1]}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((f) => (
          <tr key={f.name}>
            <th scope="row">{f.label}</th>
            <td className="theirs">{f.left}</td>
            <td className={f.right === null ? 'yours untouched' : 'yours'}>{f.right ?? untouched}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
