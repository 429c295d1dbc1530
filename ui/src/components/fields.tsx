// Labelled form controls bound to one record of values, so every form reads the same way.
import { useId, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { ErrorNote, Notice } from './feedback';
import type { ObjectType } from './model';

export type Values = Record<string, any>;

interface FieldProps {
  label: string;
  name: string;
  values: Values;
  onChange: (values: Values) => void;
  type?: 'text' | 'password' | 'email' | 'number' | 'date' | 'datetime-local' | 'url' | 'textarea' | 'checkbox';
  required?: boolean;
  disabled?: boolean;
  hint?: ReactNode;
  className?: string;
  autoComplete?: string;
  maxLength?: number;
  /** What is wrong with the value (the field is marked and the text shown under it). */
  problem?: string | null;
}

export function Field({ label, name, values, onChange, type = 'text', required, disabled, hint, className, autoComplete, maxLength, problem }: FieldProps) {
  const hintId = useId();
  const problemId = useId();
  const set = (v: unknown) => onChange({ ...values, [name]: v });
  if (type === 'checkbox') {
    return (
      <label className={`inline ${className ?? ''}`}>
        <input type="checkbox" name={name} checked={Boolean(values[name])} onChange={(e) => set(e.target.checked)} disabled={disabled} />
        {label}
      </label>
    );
  }
  const common = {
    name,
    value: values[name] ?? '',
    required,
    disabled,
    maxLength,
    autoComplete,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': [hint ? hintId : '', problem ? problemId : ''].filter(Boolean).join(' ') || undefined,
    'data-problem': name,
    onChange: (e: { target: { value: string } }) => set(e.target.value),
  };
  return (
    <div className={`field ${className ?? ''}`}>
      <label>
        {label}
        {type === 'textarea' ? <textarea {...common} /> : <input type={type} {...common} />}
      </label>
      {hint ? (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      ) : null}
      <FieldProblem id={problemId} text={problem} />
    </div>
  );
}

/**
 * A save's error, split: when the server named a field of this form (a short password, a taken
 * username), its words go under that field until the field changes; anything else is `general`,
 * for the form's error note. `shown`: the fields this form marks.
 */
export function useFieldError(error: unknown, values: Values, shown: string[]): { problems: Record<string, string>; general: unknown } {
  const seen = useRef<{ error: unknown; value: string } | null>(null);
  const { field, detail } = error ? errorMessage(error) : { field: undefined, detail: '' };
  if (!error || !field || !shown.includes(field)) return { problems: {}, general: error };
  if (seen.current?.error !== error) seen.current = { error, value: JSON.stringify(values[field]) };
  return { problems: JSON.stringify(values[field]) === seen.current.value ? { [field]: detail } : {}, general: null };
}

export function SelectField({
  label,
  name,
  values,
  onChange,
  options,
  disabled,
  className,
}: {
  label: string;
  name: string;
  values: Values;
  onChange: (values: Values) => void;
  options: Array<[string, string]>;
  disabled?: boolean;
  className?: string;
}) {
  return (
    <label className={className}>
      {label}
      <select name={name} value={values[name] ?? ''} disabled={disabled} onChange={(e) => onChange({ ...values, [name]: e.target.value })}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export const STATUS_OPTIONS: Array<[string, string]> = [
  ['on', 'On (published)'],
  ['draft', 'Draft'],
  ['off', 'Off'],
];

/** A user's status in an account's words: `on` is an account that signs in, not a published page. */
export const USER_STATUS_OPTIONS: Array<[string, string]> = [
  ['on', 'Active'],
  ['draft', 'Not activated yet'],
  ['off', 'Off (cannot sign in)'],
];

/** `words`: the status's words (USER_STATUS_OPTIONS), instead of its value. */
export function StatusBadge({ status, words }: { status: unknown; words?: Array<[string, string]> }) {
  const s = String(status ?? '');
  const word = words?.find(([v]) => v === s)?.[1].replace(/ \(.*\)$/, '');
  return <span className={`badge word ${s}`}>{word ?? (s || '—')}</span>;
}

/** Empty strings become null, so cleared fields are cleared on the server too. */
export function nullIfEmpty(values: Values, keys: string[]): Values {
  const out: Values = {};
  for (const k of keys) out[k] = values[k] === '' || values[k] === undefined ? null : values[k];
  return out;
}

/** The end of every form: the API error, the success notice, and the submit button. */
/** `onCancel`: a Cancel button before the submit one (a dialog's form). */
export function FormFooter({ error, notice, busy, label, primary = true, onCancel }: { error: unknown; notice?: string | null; busy: boolean; label: ReactNode; primary?: boolean; onCancel?: () => void }) {
  return (
    <>
      <ErrorNote error={error} />
      <Notice text={notice ?? null} />
      <div className="actions">
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" className={primary ? 'primary' : undefined} disabled={busy}>
          {label}
        </button>
      </div>
    </>
  );
}

/** A search form whose query applies on submit (so typing does not reload the list per key). */
export function SearchBox({
  label,
  placeholder,
  onSearch,
  children,
  initial = '',
}: {
  label: string;
  placeholder: string;
  onSearch: (query: string) => void;
  children?: ReactNode;
  /** The query in force (from the URL), shown in the box. */
  initial?: string;
}) {
  const [text, setText] = useState(initial);
  return (
    <form
      className="toolbar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      {children}
      <label className="grow">
        {label}
        <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder={placeholder} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

/** A field's problem, found before saving, under the field (announced as it appears). */
export function FieldProblem({ id, text }: { id?: string; text: string | null | undefined }) {
  return text ? (
    <span className="field-error" id={id} role="alert">
      {text}
    </span>
  ) : null;
}

/** One option per object type, by name (for the selects that pick or filter a type). */
export function TypeOptions({ types }: { types: ObjectType[] }) {
  return (
    <>
      {types.map((t) => (
        <option key={t.name} value={t.name}>
          {t.label}
        </option>
      ))}
    </>
  );
}
