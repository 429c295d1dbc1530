// A published object's draft (/drafts/{id}), shown above the editor form: who changed it last and
// when, whether it waits for review or is scheduled. Editors without `publish` save into it (the
// form then shows its values) and submit it for review; publishers see what it changes, field by
// as in the edit-conflict dialog (its relations, folders and translations too), and publish it now
// or at an instant, discard it, or open a preview of it. Publishing names the live version the page
// read: when someone changed the object since, the edit-conflict dialog says what and lets the
// publisher reload or publish over it.
import { useEffect, useId, useState } from 'react';
import { ApiError, ConflictError, drafts, nameObjects, users, type Resource } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { useCurrentUser } from '../../components/current-user';
import { formatDate } from '../../components/format';
import { fieldLabel, type FormProperty } from '../../components/schema-form';
import { useToast } from '../../components/toast';
import { draftDifferences, usePartDifferences } from './draft-differences';
import { ConflictDialog, describeConflict, DiffTable, objectValues, type Conflict } from './edit-conflict';
import { draftMeta } from './into-draft';
import './edit-conflict.css';

/** "5 minutes ago", "in 2 hours", "just now". */
export function ago(iso: unknown, now = Date.now()): string {
  if (typeof iso !== 'string' || !iso) return '';
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const steps: Array<[Intl.RelativeTimeFormatUnit, number]> = [['minute', 60], ['hour', 3600], ['day', 86400], ['month', 2592000], ['year', 31536000]];
  let unit = steps[0];
  for (const s of steps) if (Math.abs(seconds) >= s[1]) unit = s;
  return rtf.format(Math.round(seconds / unit[1]), unit[0]);
}

/** "documents" → "document": how the banner names the object. */
export const singular = (type: string) => (type.endsWith('ies') ? `${type.slice(0, -3)}y` : type.replace(/s$/, ''));

/** The name of a user by id: "you", their name when it can be read, else `known` (the server's), else "user #id". */
export function useUserName(id: unknown, known?: string | null): string {
  const me = useCurrentUser();
  const [name, setName] = useState<string | null>(null);
  const key = id === null || id === undefined ? '' : String(id);
  const mine = me && String(me.id) === key;
  useEffect(() => {
    setName(null);
    if (!key || mine || known) return;
    let live = true;
    users.get(key).then(
      (r) => live && setName(String(r.data.attributes.name || r.data.attributes.username || '')),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [key, mine, known]);
  if (!key) return 'someone';
  if (mine) return 'you';
  return name || known || `user #${key}`;
}

/** What a draft holds (when it was written, and the values it changes): equal for the same draft. */
const draftFingerprint = (d: Resource) => {
  const m = draftMeta(d);
  return JSON.stringify([m.modified, m.changed, m.translations, (m.changed ?? []).map((n) => d.attributes[n] ?? d.relationships?.[n]?.data ?? null)]);
};

/** A datetime-local value ("2030-01-15T09:00") as ISO 8601 in UTC, null when empty or invalid. */
const toIso = (local: string) => {
  const t = Date.parse(local);
  return local && Number.isFinite(t) ? new Date(t).toISOString() : null;
};

export function DraftPanel({
  type,
  live,
  etag,
  draft,
  properties,
  canPublish,
  onDraft,
  onPublished,
}: {
  type: string;
  /** The live object. */
  live: Resource;
  /** The live object's ETag (what "Publish changes" sends as If-Match). */
  etag: string | null;
  draft: Resource;
  properties: FormProperty[];
  canPublish: boolean;
  /** The draft changed (submitted, scheduled) or went (null: discarded). */
  onDraft: (draft: Resource | null) => void;
  /** Published: the object and its form load again. */
  onPublished: () => void;
}) {
  const meta = draftMeta(draft);
  const who = useUserName(meta.modified_by, meta.modified_by_name);
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [when, setWhen] = useState('');
  const whenId = useId();
  const headingId = useId();
  const { fields, others } = draftDifferences(properties, live, draft);
  // Relations, folders and translations: only publishers see the table.
  const parts = usePartDifferences(live, draft, properties, canPublish ? others : []);
  const rows = [...fields, ...(parts ?? [])];
  const [conflict, setConflict] = useState<Conflict | null>(null);

  const run = async (what: () => Promise<void>, failed: string) => {
    setBusy(true);
    try {
      await what();
    } catch (e) {
      nameObjects(e, [live]);
      toast.error(e, failed);
    } finally {
      setBusy(false);
    }
  };
  const submit = () =>
    run(async () => {
      onDraft(await drafts.submit(live.id));
      toast.success('Submitted for review: the publishers see it on their home page.');
    }, 'The draft was not submitted');
  /** Publishes against the live version `ifMatch`; a 412 opens the edit-conflict dialog (what others changed since). */
  /**
   * Before the draft goes live: it is still the one this page shows. When someone changed it since,
   * the page shows it as it is now and nothing goes live (the publisher checks it again).
   */
  const stillTheSame = async () => {
    const now = await drafts.get(live.id);
    if (now && draftFingerprint(now) === draftFingerprint(draft)) return;
    onDraft(now);
    const by = now ? (draftMeta(now).modified_by_name ?? 'Someone') : null;
    throw new ApiError(0, 'draft_changed', 'The draft changed', by ? `${by} changed it since you opened it: check its changes again.` : 'It was published or discarded since you opened it.');
  };
  const publish = (ifMatch = etag) =>
    run(async () => {
      await stillTheSame();
      try {
        await drafts.publish(live.id, ifMatch);
      } catch (e) {
        if (!(e instanceof ConflictError)) throw e;
        const toValues = (o: Resource) => objectValues(properties, o);
        setConflict(await describeConflict(`/${type}/${live.id}`, properties, toValues, { values: toValues(live), etag, modified: live.meta.modified }, toValues(draft)));
        return;
      }
      setConflict(null);
      toast.success('Changes published.');
      onPublished();
    }, 'The changes were not published');
  const schedule = () =>
    run(async () => {
      const at = toIso(when);
      if (!at) throw new Error('Choose when the changes go live.');
      await stillTheSame();
      onDraft(await drafts.schedule(live.id, at));
      toast.success(`The changes go live on ${formatDate(at)}.`);
    }, 'The changes were not scheduled');
  const preview = () =>
    run(async () => {
      const { preview_url } = await drafts.preview(live.id);
      window.open(preview_url, '_blank', 'noopener');
    }, 'The preview could not be made');

  return (
    <section className="panel draft-panel" aria-labelledby={headingId}>
      <h2 id={headingId} className="draft-banner">
        This {singular(type)} has unpublished changes by {who}, {ago(meta.modified) || formatDate(meta.modified)}
      </h2>
      <p className="muted">
        {meta.publish_at ? (
          <>
            <span className="badge scheduled">Scheduled</span> They go live on {formatDate(meta.publish_at)}.{' '}
          </>
        ) : null}
        {meta.submitted ? (
          <>
            <span className="badge">In review</span> Submitted for review on {formatDate(meta.submitted)}.{' '}
          </>
        ) : null}
        {canPublish ? 'Readers see the published version until the changes are published.' : 'Your changes are saved in this draft; readers see the published version until a publisher publishes them.'}
      </p>
      {canPublish ? (
        fields.length || others.length ? (
          <>
            {rows.length ? <DiffTable label="Changes in the draft" columns={['Published', 'Draft']} rows={rows.map((f) => ({ name: f.name, label: f.label, left: f.live, right: f.draft }))} /> : null}
            {others.length && !parts ? <p className="muted">Also changed: {others.map((n) => (n === 'parents' ? 'Folders' : fieldLabel(n))).join(', ')}.</p> : null}
          </>
        ) : (
          <p className="muted">The draft changes nothing: its values are the published ones.</p>
        )
      ) : null}
      <div className="actions draft-actions">
        <button type="button" onClick={() => void preview()} disabled={busy}>
          Preview
        </button>
        {!canPublish && !meta.submitted ? (
          <button type="button" className="primary" onClick={() => void submit()} disabled={busy}>
            Submit for review
          </button>
        ) : null}
        {canPublish ? (
          <>
            <ConfirmButton
              label="Discard draft"
              title="Discard this draft?"
              message={<p>The changes in it are lost; the published version stays as it is.</p>}
              confirmLabel="Discard draft"
              action={() => drafts.discard(live.id)}
              onDone={() => {
                toast.success('Draft discarded.');
                onDraft(null);
              }}
            />
            <span className="schedule">
              <label htmlFor={whenId}>Go live on</label>
              <input id={whenId} type="datetime-local" step={1} value={when} onChange={(e) => setWhen(e.target.value)} />
              <button type="button" onClick={() => void schedule()} disabled={busy || !when}>
                Schedule
              </button>
            </span>
            <button type="button" className="primary" onClick={() => void publish()} disabled={busy}>
              Publish changes
            </button>
          </>
        ) : null}
      </div>
      {conflict ? (
        <ConflictDialog
          conflict={conflict}
          busy={busy}
          what={`this ${singular(type)}`}
          words={{
            pending: 'while you were reviewing the draft. Nothing is published yet.',
            yours: 'The draft',
            untouched: 'the draft does not change it: theirs is kept',
            reload: 'shows their version and what the draft changes in it; the draft stays as it is',
            overwrite: 'publishes the draft over their version (fields the draft does not change keep theirs)',
            cancel: 'goes back; nothing is published',
          }}
          onCancel={() => setConflict(null)}
          onReload={() => {
            setConflict(null);
            onPublished();
          }}
          onOverwrite={() => void publish(conflict.current.etag)}
        />
      ) : null}
    </section>
  );
}
