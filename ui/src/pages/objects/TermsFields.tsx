// The object editor's terms, for types associated with them: categories picked from that type's
// list (/model/categories?filter[type]=…), tags typed with suggestions from /model/tags (a new
// tag is created by the server on save), and date ranges (start and end in the user's time zone,
// end after start, checked before saving).
import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { categories as categoriesApi, tags as tagsApi, type CategoryAttributes, type Resource, type TagAttributes } from '../../api/client';
import { ErrorNote } from '../../components/feedback';
import { FieldProblem } from '../../components/fields';
import { Plus } from '../../components/icons';
import { timeZoneLabel } from '../../components/publication';
import type { RangeValue, Term } from '../../components/schema-form';
import type { Problems } from './PublicationWindow';

/** A label as a term name the server accepts (`^[a-z0-9][a-z0-9_-]{1,50}$`). */
export function termName(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 51);
}

export function CategoriesPicker({ type, value, onChange }: { type: string; value: Term[]; onChange: (v: Term[]) => void }) {
  const [all, setAll] = useState<Resource<CategoryAttributes>[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    categoriesApi.list({ 'filter[type]': type }).then(setAll, setError);
  }, [type]);
  const byId = new Map((all ?? []).map((c) => [String(c.id), c]));
  const labelOf = (c: Resource<CategoryAttributes>) => {
    const parent = c.attributes.parent_id != null ? byId.get(String(c.attributes.parent_id)) : undefined;
    const own = c.attributes.label || c.attributes.name;
    return parent ? `${parent.attributes.label || parent.attributes.name} › ${own}` : own;
  };
  const chosen = new Set(value.map((t) => t.name));
  const offered = (all ?? []).filter((c) => c.attributes.enabled || chosen.has(c.attributes.name)).sort((a, b) => labelOf(a).localeCompare(labelOf(b)));
  const toggle = (c: Resource<CategoryAttributes>, on: boolean) =>
    onChange(on ? [...value, { name: c.attributes.name, label: c.attributes.label }] : value.filter((t) => t.name !== c.attributes.name));
  return (
    <fieldset className="editor-group">
      <legend>Categories</legend>
      <ErrorNote error={error} />
      {all && !offered.length ? <p className="hint">No categories for {type} yet. An admin adds them under Categories &amp; tags.</p> : null}
      <div className="category-checks">
        {offered.map((c) => (
          <label className="inline" key={c.id}>
            <input type="checkbox" checked={chosen.has(c.attributes.name)} onChange={(e) => toggle(c, e.target.checked)} />
            {labelOf(c)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function TagsInput({ value, onChange }: { value: Term[]; onChange: (v: Term[]) => void }) {
  const [known, setKnown] = useState<Resource<TagAttributes>[]>([]);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  useEffect(() => {
    // Suggestions only: without them the field still takes new tags.
    tagsApi.list({ 'filter[enabled]': true }).then(setKnown, () => setKnown([]));
  }, []);
  const add = () => {
    const typed = text.trim();
    if (!typed) return;
    const match = known.find((t) => t.attributes.name === typed || (t.attributes.label ?? '').toLowerCase() === typed.toLowerCase());
    const term: Term = match ? { name: match.attributes.name, label: match.attributes.label } : { name: termName(typed), label: typed };
    if (term.name.length < 2) {
      setProblem('A tag needs at least two letters or digits.');
      return;
    }
    setProblem(null);
    if (!value.some((t) => t.name === term.name)) onChange([...value, term]);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault(); // Enter adds the tag, it does not submit the form
      add();
    }
  };
  const listId = `${id}-suggestions`;
  return (
    <fieldset className="editor-group">
      <legend>Tags</legend>
      {value.length ? (
        <ul className="chips" aria-label="Tags of this object">
          {value.map((t) => (
            <li key={t.name}>
              {t.label || t.name}
              <button type="button" aria-label={`Remove tag ${t.label || t.name}`} onClick={() => onChange(value.filter((x) => x.name !== t.name))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">No tags.</p>
      )}
      <div className="with-clear">
        <label htmlFor={`${id}-input`} className="visually-hidden">
          Add a tag
        </label>
        <input
          id={`${id}-input`}
          list={listId}
          value={text}
          placeholder="Type a tag, then Enter"
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-error` : undefined}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
        />
        <button type="button" className="small" onClick={add} disabled={!text.trim()}>
          <Plus aria-hidden size={14} /> Add tag
        </button>
      </div>
      <datalist id={listId}>
        {known
          .filter((t) => !value.some((v) => v.name === t.attributes.name))
          .map((t) => (
            <option key={t.id} value={t.attributes.label || t.attributes.name} />
          ))}
      </datalist>
      {problem ? <FieldProblem id={`${id}-error`} text={problem} /> : <span className="hint">Existing tags are suggested; a new one is created when you save.</span>}
    </fieldset>
  );
}

/** What is wrong with the ranges as typed, keyed `date_ranges.<i>.start|end`. */
export function rangeProblems(ranges: RangeValue[] | undefined): Problems {
  const out: Problems = {};
  (ranges ?? []).forEach((r, i) => {
    const start = Date.parse(r.start);
    const end = r.end ? Date.parse(r.end) : NaN;
    if (!r.start || Number.isNaN(start)) out[`date_ranges.${i}.start`] = 'Enter when it starts.';
    else if (r.end && Number.isNaN(end)) out[`date_ranges.${i}.end`] = 'Enter a full date and time, or leave it empty.';
    else if (end <= start) out[`date_ranges.${i}.end`] = 'The end must be later than the start.';
  });
  return out;
}

export function DateRangesField({ value, onChange, problems }: { value: RangeValue[]; onChange: (v: RangeValue[]) => void; problems: Problems }) {
  const id = useId();
  const set = (i: number, patch: Partial<RangeValue>) => onChange(value.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const add = () => {
    onChange([...value, { start: '', end: '', params: null }]);
    // Focus goes to the new range's start, not back to the top of the page.
    setTimeout(() => document.getElementById(`${id}-${value.length}-start`)?.focus(), 0);
  };
  const input = (i: number, which: 'start' | 'end', label: string) => {
    const key = `date_ranges.${i}.${which}`;
    const problem = problems[key];
    return (
      <div className="field">
        <label htmlFor={`${id}-${i}-${which}`}>{label}</label>
        <input
          id={`${id}-${i}-${which}`}
          type="datetime-local"
          data-problem={key}
          value={value[i][which]}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-${i}-${which}-error` : undefined}
          onChange={(e) => set(i, { [which]: e.target.value })}
        />
        <FieldProblem id={`${id}-${i}-${which}-error`} text={problem} />
      </div>
    );
  };
  return (
    <fieldset className="editor-group">
      <legend>Dates</legend>
      <p className="hint">When it takes place, in your time zone, {timeZoneLabel()}. The end is optional.</p>
      {value.length ? (
        <ol className="ranges">
          {value.map((_, i) => (
            <li key={i} aria-label={`Date range ${i + 1}`}>
              {input(i, 'start', `Starts (range ${i + 1})`)}
              {input(i, 'end', `Ends (range ${i + 1})`)}
              <button type="button" className="small" onClick={() => onChange(value.filter((__, j) => j !== i))}>
                Remove range {i + 1}
              </button>
            </li>
          ))}
        </ol>
      ) : (
        <p className="hint">No dates yet.</p>
      )}
      <div>
        <button type="button" className="small" onClick={add}>
          <Plus aria-hidden size={14} /> Add date range
        </button>
      </div>
    </fieldset>
  );
}
