// The model as one file (admins): Export saves GET /model/project as folio-model-<date>.json;
// Import reads a file, sends it as a dry run and shows what applying it would do, per section;
// Apply (after a confirmation when it removes things) applies exactly what was shown.
import { useEffect, useRef, useState, type ChangeEvent } from 'react';
import { ApiError, MODEL_SECTIONS, modelProject, type ModelDiff, type ModelSection } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorNote, Notice } from '../../components/feedback';
import { invalidateObjectTypes } from '../../components/model';

const SECTION_LABELS: Record<ModelSection, [string, string]> = {
  applications: ['Applications', 'application'],
  roles: ['Roles', 'role'],
  property_types: ['Property types', 'property type'],
  object_types: ['Object types', 'object type'],
  relations: ['Relations', 'relation'],
  properties: ['Properties', 'property'],
  categories: ['Categories', 'category'],
  tags: ['Tags', 'tag'],
};

/** An item as a reader names it: `articles.tone` for a property, else its name. */
const itemName = (i: { name: string; object?: string | null }) => (i.object ? `${i.object}.${i.name}` : i.name);

/** A field's value in a line of text: none, a quoted string, or compact JSON (shortened). */
function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'string') return `“${value}”`;
  if (Array.isArray(value) && value.length === 0) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 140 ? text.slice(0, 139) + '…' : text;
}

const count = (n: number, one: string, many = one + 's') => `${n} ${n === 1 ? one : many}`;

function totals(diff: ModelDiff) {
  const sum = (part: 'create' | 'update' | 'remove' | 'kept') => Object.values(diff[part]).reduce((n, list) => n + (list?.length ?? 0), 0);
  return { create: sum('create'), update: sum('update'), remove: sum('remove'), kept: sum('kept') };
}

const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** A refusal in plain words: what the server named, and the items it listed. */
function applyError(err: unknown): { error: unknown; items: string[] } {
  if (!(err instanceof ApiError) || err.status !== 400) return { error: err, items: [] };
  // `object_types "articles" (2 objects, …)` → `object type “articles” (2 objects, …)`
  const refused = (Array.isArray(err.meta.refused) ? err.meta.refused.map(String) : []).map((r) =>
    r.replace(/^(\w+) "([^"]+)"/, (all, section: string, name: string) => (section in SECTION_LABELS ? `${SECTION_LABELS[section as ModelSection][1]} “${name}”` : all)),
  );
  if (err.code === 'model_removal_refused') {
    return { error: new ApiError(400, err.code, 'Nothing was changed', 'Removing these would lose content. Remove or move that content first, or untick “Also remove what the file lacks”.'), items: refused };
  }
  const item = err.meta.item as { name?: string; object?: string } | undefined;
  const section = err.meta.section as ModelSection | undefined;
  const where = section && SECTION_LABELS[section] ? `${SECTION_LABELS[section][1]} ${item?.name ? `“${itemName(item as { name: string })}”` : ''}`.trim() : '';
  return {
    error: new ApiError(400, err.code, 'The file cannot be applied; nothing was changed', err.detail || err.title),
    items: where ? [`In the file: ${where}`] : [],
  };
}

export function ModelFilePanel() {
  const input = useRef<HTMLInputElement>(null);
  const differences = useRef<HTMLDivElement>(null);
  const [remove, setRemove] = useState(false);
  const [file, setFile] = useState<{ name: string; document: unknown } | null>(null);
  const [preview, setPreview] = useState<ModelDiff | null>(null);
  const [result, setResult] = useState<ModelDiff | null>(null);
  const [error, setError] = useState<{ error: unknown; items: string[] } | null>(null);
  const [busy, setBusy] = useState<'export' | 'check' | 'apply' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const runId = useRef(0);

  const shown = result ?? preview;
  useEffect(() => {
    if (shown) differences.current?.focus();
  }, [shown]);

  const exportFile = async () => {
    setBusy('export');
    setError(null);
    setNotice(null);
    try {
      const doc = await modelProject.export();
      const name = `folio-model-${today()}.json`;
      const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2) + '\n'], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setNotice(`Model saved as ${name}.`);
    } catch (err) {
      setError({ error: err, items: [] });
    } finally {
      setBusy(null);
    }
  };

  /** The dry run: what applying `document` (with or without removals) would do. */
  const check = async (next: { name: string; document: unknown }, withRemovals: boolean) => {
    const id = ++runId.current;
    setBusy('check');
    setPreview(null);
    setResult(null);
    setError(null);
    setNotice(null);
    try {
      const diff = await modelProject.apply(next.document, { dryRun: true, remove: withRemovals });
      if (id === runId.current) setPreview(diff);
    } catch (err) {
      if (id === runId.current) setError(applyError(err));
    } finally {
      if (id === runId.current) setBusy(null);
    }
  };

  const choose = async (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = e.target.files?.[0];
    e.target.value = '';
    if (!chosen) return;
    runId.current++;
    setFile(null);
    setPreview(null);
    setResult(null);
    setNotice(null);
    let document: unknown;
    try {
      document = JSON.parse(await chosen.text());
    } catch {
      setError({ error: new ApiError(0, 'invalid_json', `“${chosen.name}” is not a model file`, 'It is not valid JSON. Choose a file made with Export (or by BEdita 5’s project export).'), items: [] });
      return;
    }
    if (!document || typeof document !== 'object' || Array.isArray(document)) {
      setError({ error: new ApiError(0, 'invalid_model', `“${chosen.name}” is not a model file`, 'It holds JSON, but not a model: a model file is one object with sections such as object_types and properties.'), items: [] });
      return;
    }
    const next = { name: chosen.name, document };
    setFile(next);
    await check(next, remove);
  };

  const toggleRemove = (checked: boolean) => {
    setRemove(checked);
    if (file && !result) void check(file, checked);
  };

  const apply = async () => {
    if (!file || !preview) return;
    setConfirming(false);
    setBusy('apply');
    setError(null);
    try {
      const diff = await modelProject.apply(file.document, { dryRun: false, remove: preview.delete });
      setResult(diff);
      setPreview(null);
      invalidateObjectTypes();
      const t = totals(diff);
      setNotice(diff.applied ? `Applied ${file.name}: ${count(t.create, 'item')} created, ${count(t.update, 'item')} changed, ${count(t.remove, 'item')} removed.` : 'Nothing to apply: the model already matches the file.');
    } catch (err) {
      setError(applyError(err));
    } finally {
      setBusy(null);
    }
  };

  const cancel = () => {
    runId.current++;
    setFile(null);
    setPreview(null);
    setResult(null);
    setError(null);
    setNotice(null);
  };

  const t = preview ? totals(preview) : null;
  const nothingToDo = t !== null && t.create + t.update + t.remove === 0;

  return (
    <section className="panel model-file" aria-labelledby="model-file-title">
      <h2 id="model-file-title">Model file</h2>
      <p className="muted">
        The whole content model — types, properties, relations, roles, categories and tags — as one JSON file, to keep in git or to apply to another
        install. Importing shows the differences first; nothing changes until you apply them.
      </p>
      <div className="model-file-controls">
        <button type="button" onClick={() => void exportFile()} disabled={busy !== null}>
          {busy === 'export' ? 'Exporting…' : 'Export'}
        </button>
        <button type="button" onClick={() => input.current?.click()} disabled={busy !== null}>
          Import…
        </button>
        <input ref={input} type="file" accept=".json,application/json" hidden aria-label="Model file to import" onChange={(e) => void choose(e)} />
        <label className="inline">
          <input type="checkbox" checked={remove} onChange={(e) => toggleRemove(e.target.checked)} disabled={busy !== null || result !== null} />
          Also remove what the file lacks
        </label>
      </div>
      {busy === 'check' ? (
        <p className="muted" role="status">
          Comparing {file?.name} with this install…
        </p>
      ) : null}
      {busy === 'apply' ? (
        <p className="muted" role="status">
          Applying {file?.name}…
        </p>
      ) : null}
      <Notice text={notice} />
      {error ? (
        <div>
          <ErrorNote error={error.error} />
          {error.items.length ? (
            <ul className="model-file-refused" aria-label="Items concerned">
              {error.items.map((i) => (
                <li key={i}>{i}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {shown && file ? (
        <div className="model-diff" ref={differences} tabIndex={-1} role="region" aria-labelledby="model-diff-title">
          <h3 id="model-diff-title">{result ? `Applied from ${file.name}` : `Differences in ${file.name}`}</h3>
          <Summary diff={shown} done={result !== null} />
          <Differences diff={shown} done={result !== null} />
          {preview ? (
            <div className="actions">
              <button type="button" onClick={cancel}>
                {nothingToDo ? 'Close' : 'Cancel'}
              </button>
              {nothingToDo ? null : (
                <button type="button" className={t!.remove ? 'danger' : 'primary'} onClick={() => (t!.remove ? setConfirming(true) : void apply())} disabled={busy !== null}>
                  {t!.remove ? `Apply, removing ${count(t!.remove, 'item')}` : 'Apply'}
                </button>
              )}
            </div>
          ) : (
            <div className="actions">
              <button type="button" onClick={cancel}>
                Done
              </button>
            </div>
          )}
        </div>
      ) : null}
      {confirming && preview ? (
        <Dialog title="Apply and remove?" onClose={() => setConfirming(false)}>
          <div className="dialog-body" data-autofocus tabIndex={-1}>
            <p>
              Applying <strong>{file?.name}</strong> removes {count(totals(preview).remove, 'item')} this install has and the file lacks:
            </p>
            <ul>
              {MODEL_SECTIONS.flatMap((s) => (preview.remove[s] ?? []).map((i) => <li key={`${s}:${itemName(i)}`}>{`${SECTION_LABELS[s][1]} ${itemName(i)}`}</li>))}
            </ul>
            <p>This cannot be undone (except by applying an older model file).</p>
          </div>
          <div className="actions">
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void apply()}>
              Apply and remove
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}

/** An old (struck) or new value; an empty one reads "(none)", neither struck nor highlighted. */
function Value({ value, kind }: { value: unknown; kind: 'del' | 'ins' }) {
  const text = show(value);
  if (text === '(none)') return <span className="muted">(none)</span>;
  return kind === 'del' ? <del title={JSON.stringify(value)}>{text}</del> : <ins title={JSON.stringify(value)}>{text}</ins>;
}

function Summary({ diff, done }: { diff: ModelDiff; done: boolean }) {
  const t = totals(diff);
  if (t.create + t.update + t.remove === 0) {
    return <p>{done ? 'Nothing was changed: the model already matched the file.' : 'Nothing to change: this install already has this model.'}</p>;
  }
  const parts = [
    `${count(t.create, 'item')} ${done ? 'created' : 'to create'}`,
    `${count(t.update, 'item')} ${done ? 'changed' : 'to change'}`,
    ...(diff.delete ? [`${count(t.remove, 'item')} ${done ? 'removed' : 'to remove'}`] : []),
    ...(t.kept ? [`${count(t.kept, 'item')} kept`] : []),
  ];
  return <p className="model-diff-summary">{parts.join(' · ')}</p>;
}

function Differences({ diff, done }: { diff: ModelDiff; done: boolean }) {
  const sections = MODEL_SECTIONS.filter((s) => diff.create[s]?.length || diff.update[s]?.length || diff.remove[s]?.length || diff.kept[s]?.length);
  return (
    <>
      {sections.map((s) => {
        const create = diff.create[s] ?? [];
        const update = diff.update[s] ?? [];
        const remove = diff.remove[s] ?? [];
        const kept = diff.kept[s] ?? [];
        return (
          <section key={s} className="model-diff-section" aria-labelledby={`model-diff-${s}`}>
            <h4 id={`model-diff-${s}`}>{SECTION_LABELS[s][0]}</h4>
            {create.length ? (
              <>
                <p className="model-diff-kind">{done ? 'Created' : 'To create'}</p>
                <ul className="model-diff-list create">
                  {create.map((i) => (
                    <li key={itemName(i)}>
                      <span className="model-diff-mark" aria-hidden>
                        +
                      </span>
                      <strong>{itemName(i)}</strong>
                      {typeof i.description === 'string' && i.description ? <span className="muted"> — {i.description}</span> : null}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            {update.length ? (
              <>
                <p className="model-diff-kind">{done ? 'Changed' : 'To change'}</p>
                <ul className="model-diff-list update">
                  {update.map((u) => (
                    <li key={itemName(u)}>
                      <span className="model-diff-mark" aria-hidden>
                        ~
                      </span>
                      <strong>{itemName(u)}</strong>
                      <ul className="model-diff-fields">
                        {Object.entries(u.changes).map(([field, { from, to }]) => (
                          <li key={field}>
                            <span className="model-diff-field">{field}</span>: <Value value={from} kind="del" />{' '}
                            <span aria-label="becomes">→</span> <Value value={to} kind="ins" />
                          </li>
                        ))}
                      </ul>
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            {remove.length ? (
              <>
                <p className="model-diff-kind">{done ? 'Removed' : 'To remove'}</p>
                <ul className="model-diff-list remove">
                  {remove.map((i) => (
                    <li key={itemName(i)}>
                      <span className="model-diff-mark" aria-hidden>
                        −
                      </span>
                      <strong>{itemName(i)}</strong>
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
            {kept.length ? (
              <details className="model-diff-kept">
                <summary>
                  Kept as they are ({kept.length}): not in the file{diff.delete ? '' : ' — tick “Also remove what the file lacks” to remove them'}
                </summary>
                <ul className="model-diff-list kept">
                  {kept.map((i) => (
                    <li key={itemName(i)}>
                      {itemName(i)} <span className="muted">— {i.reason}</span>
                    </li>
                  ))}
                </ul>
              </details>
            ) : null}
          </section>
        );
      })}
    </>
  );
}
