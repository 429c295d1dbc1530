// Notes on an object (/annotations): everyone who may read the object reads them and adds one (a
// description, and optionally parameters as JSON); the author, or an admin, edits or deletes it.
// They are not part of the object: writing one leaves its version (ETag) alone.
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { annotations, type AnnotationAttributes, type Resource } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { Empty, ErrorNote } from '../../components/feedback';
import { formatDate } from '../../components/format';
import { MessageSquare } from '../../components/icons';
import { useRights } from '../../components/rights';
import { useToast } from '../../components/toast';
import { useAction } from '../../components/use-list';

type Note = Resource<AnnotationAttributes>;

const paramsText = (p: unknown) => (p === null || p === undefined ? '' : JSON.stringify(p, null, 2));

/** The params field as JSON: undefined when empty, else the value, or the problem in words. */
function parseParams(text: string): { value?: unknown; problem?: string } {
  if (!text.trim()) return {};
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { problem: `Parameters must be JSON, e.g. {"line": 3} (${e instanceof Error ? e.message : String(e)}).` };
  }
}

export function AnnotationsPanel({ object }: { object: Resource }) {
  const [notes, setNotes] = useState<Note[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const rights = useRights();
  const toast = useToast();
  const load = useCallback(() => annotations.ofObject(object.id).then((n) => (setNotes(n), setError(null)), setError), [object.id]);
  useEffect(() => void load(), [load]);
  const mine = (n: Note) => rights.admin || String(n.meta.user_id) === rights.userId;
  return (
    <section className="panel" aria-labelledby="object-annotations">
      <div className="page-head">
        <h2 id="object-annotations">Annotations</h2>
        <span className="spacer" />
        {adding ? null : (
          <button type="button" onClick={() => setAdding(true)}>
            <MessageSquare aria-hidden size={16} /> Add annotation
          </button>
        )}
      </div>
      <ErrorNote error={error} />
      {adding ? (
        <NoteForm
          label="New annotation"
          submitLabel="Add annotation"
          onCancel={() => setAdding(false)}
          onSubmit={(description, params) => annotations.create(object.id, description, params)}
          onDone={() => {
            toast.success('Annotation added.');
            setAdding(false);
            void load();
          }}
        />
      ) : null}
      {notes && !notes.length && !adding ? <Empty icon={<MessageSquare size={28} />}>No annotations yet.</Empty> : null}
      {notes?.length ? (
        <ul className="annotations" aria-label="Annotations">
          {notes.map((n) => {
            const author = String(n.meta.username ?? `user ${n.meta.user_id}`);
            const changed = n.meta.modified && n.meta.modified !== n.meta.created;
            return (
              <li key={n.id} className="annotation">
                <div className="annotation-head">
                  <strong>{author}</strong>
                  <span className="muted">
                    {formatDate(n.meta.created)}
                    {changed ? ` · edited ${formatDate(n.meta.modified)}` : ''}
                  </span>
                  <span className="spacer" />
                  {mine(n) && editing !== n.id ? (
                    <>
                      <button type="button" className="small" onClick={() => setEditing(n.id)} aria-label={`Edit annotation by ${author}, ${formatDate(n.meta.created)}`}>
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        className="danger small"
                        buttonTitle={`Delete annotation by ${author}, ${formatDate(n.meta.created)}`}
                        title="Delete this annotation?"
                        message={<p>The annotation by {author} will be deleted. This cannot be undone.</p>}
                        action={() => annotations.remove(n.id)}
                        onDone={() => {
                          toast.success('Annotation deleted.');
                          void load();
                        }}
                      />
                    </>
                  ) : null}
                </div>
                {editing === n.id ? (
                  <NoteForm
                    label="Edit annotation"
                    submitLabel="Save annotation"
                    initial={n}
                    onCancel={() => setEditing(null)}
                    onSubmit={(description, params) => annotations.update(n.id, { description, params: params ?? null })}
                    onDone={() => {
                      toast.success('Annotation saved.');
                      setEditing(null);
                      void load();
                    }}
                  />
                ) : (
                  <>
                    <p className="annotation-text">{n.attributes.description || <span className="muted">(no text)</span>}</p>
                    {n.attributes.params != null ? (
                      <p className="annotation-params muted">
                        Parameters: <code>{JSON.stringify(n.attributes.params)}</code>
                      </p>
                    ) : null}
                  </>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

function NoteForm({
  label,
  submitLabel,
  initial,
  onCancel,
  onSubmit,
  onDone,
}: {
  label: string;
  submitLabel: string;
  initial?: Note;
  onCancel: () => void;
  onSubmit: (description: string, params: unknown) => Promise<unknown>;
  onDone: () => void;
}) {
  const [description, setDescription] = useState(initial?.attributes.description ?? '');
  const [params, setParams] = useState(paramsText(initial?.attributes.params));
  const [problem, setProblem] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const ids = { text: useId(), params: useId() };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!description.trim()) return setProblem('Write the annotation first.');
    const parsed = parseParams(params);
    if (parsed.problem) return setProblem(parsed.problem);
    setProblem(null);
    if ((await run(async () => (await onSubmit(description.trim(), parsed.value), true))) === true) onDone();
  };
  return (
    <form className="stack annotation-form" onSubmit={submit} aria-label={label} noValidate>
      <label>
        Annotation
        <textarea value={description} onChange={(e) => setDescription(e.target.value)} rows={3} autoFocus aria-describedby={ids.text} />
      </label>
      <div className="field">
        <label>
          Parameters
          <textarea className="code" value={params} onChange={(e) => setParams(e.target.value)} rows={2} aria-describedby={ids.params} />
        </label>
        <span className="hint" id={ids.params}>
          Optional, as JSON, e.g. {'{"line": 3}'}: for applications that read annotations.
        </span>
      </div>
      {problem ? (
        <p className="field-error" id={ids.text} role="alert">
          {problem}
        </p>
      ) : null}
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
