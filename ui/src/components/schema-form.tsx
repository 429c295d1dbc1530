// A form generated from a type's JSON Schema (GET /model/schema/{type}): one control per
// attribute (isMeta false), chosen by the property's type and format. Values are kept as
// strings/booleans while editing and converted back by `attributesFromForm`. `body` and custom
// `text` properties are HTML, edited in the rich-text editor; technical fields (uname, lang,
// JSON) are marked `advanced`, for the form to put them out of the way. A property whose type is a
// choice list (an `enum`) is a select. The terms of a type associated with Categories / Tags
// (`terms`: a list of {name, label}) and DateRanges (`ranges`) have their own controls in the
// object editor; here they are only converted.
import { useEffect, useMemo, useState } from 'react';
import { api, type JsonSchema, type JsonSchemaProperty } from '../api/client';
import { fieldLabel } from '../api/error-text';
import { FieldProblem, type Values } from './fields';
import { RichTextField } from './rich-text/RichTextField';

/** Attributes the form never shows (written through their own controls or not at all). */
const HIDDEN = new Set(['password', 'status']);
const HTML_TEXT = new Set(['body']);
const PLAIN_LONG_TEXT = new Set(['description']);
const ADVANCED = new Set(['uname', 'lang', 'extra']);

export type Kind = 'text' | 'textarea' | 'html' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'email' | 'url' | 'json' | 'enum' | 'terms' | 'ranges';

/** A category or tag as the editor holds it. */
export interface Term {
  name: string;
  label: string | null;
}

/** A date range as the editor holds it: start and end as `datetime-local` input values. */
export interface RangeValue {
  start: string;
  end: string;
  params: unknown;
}

const TERM_NAMES = new Set(['categories', 'tags']);

export interface FormProperty {
  name: string;
  kind: Kind;
  required: boolean;
  options: string[];
  maxLength?: number;
  description?: string;
  /** The field's label when its name does not say it (a media object's description is its caption). */
  label?: string;
  /** Technical: shown under "Advanced". */
  advanced: boolean;
}

function flatten(p: JsonSchemaProperty): { types: string[]; format?: string; enumValues?: unknown[]; maxLength?: number } {
  const variants = p.oneOf ?? [p];
  const types: string[] = [];
  let format = p.format;
  let enumValues = p.enum;
  let maxLength = p.maxLength;
  for (const v of variants) {
    const t = v.type ?? (v.enum ? 'string' : undefined);
    for (const one of Array.isArray(t) ? t : t ? [t] : []) if (one !== 'null') types.push(one);
    format ??= v.format;
    enumValues ??= v.enum;
    maxLength ??= v.maxLength;
  }
  return { types, format, enumValues, maxLength };
}

function kindOf(name: string, p: JsonSchemaProperty, htmlNames: Set<string>): FormProperty['kind'] {
  const { types, format, enumValues, maxLength } = flatten(p);
  if (types.includes('array') && TERM_NAMES.has(name)) return 'terms';
  if (types.includes('array') && name === 'date_ranges') return 'ranges';
  if (enumValues?.length) return 'enum';
  const t = types[0];
  if (types.length > 1 || t === 'object' || t === 'array' || t === undefined) return 'json';
  if (t === 'boolean') return 'boolean';
  if (t === 'integer') return 'integer';
  if (t === 'number') return 'number';
  if (format === 'date-time') return 'datetime';
  if (format === 'date') return 'date';
  if (format === 'email') return 'email';
  if (format === 'uri' || format === 'url') return 'url';
  if (HTML_TEXT.has(name) || htmlNames.has(name)) return 'html';
  // Strings without a length limit are long text, but for the title.
  if (PLAIN_LONG_TEXT.has(name) || (maxLength === undefined && name !== 'title')) return 'textarea';
  return 'text';
}

/** `htmlNames`: custom properties of type `text` (HTML), from /model/properties. */
export function formProperties(schema: JsonSchema, htmlNames: Set<string> = new Set()): FormProperty[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .filter(([name, p]) => !p.isMeta && !p.readOnly && !HIDDEN.has(name))
    .map(([name, p]) => {
      const flat = flatten(p);
      const kind = kindOf(name, p, htmlNames);
      return {
        name,
        kind,
        advanced: ADVANCED.has(name) || kind === 'json',
        required: required.has(name),
        options: (flat.enumValues ?? []).filter((v) => v !== null).map(String),
        maxLength: flat.maxLength,
        description: p.description,
        // A custom property's label (the schema's title), when the model gives one.
        ...(p.title && kind !== 'terms' && kind !== 'ranges' ? { label: p.title } : {}),
      };
    });
}

export function useSchema(type: string) {
  const [schema, setSchema] = useState<JsonSchema | null>(null);
  const [htmlNames, setHtmlNames] = useState<Set<string>>(new Set());
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setSchema(null);
    setError(null);
    // Which custom properties are `text` (HTML); only admins may read the model, so others get
    // plain text areas for them.
    const textProps = api
      .listAll('/model/properties', {}, 10)
      .then((all) => new Set(all.filter((p) => p.attributes.property_type_name === 'text').map((p) => String(p.attributes.name))))
      .catch(() => new Set<string>());
    Promise.all([api.schema(type), textProps]).then(([s, names]) => {
      setHtmlNames(names);
      setSchema(s);
    }, setError);
  }, [type]);
  // The same array until the schema changes (panels load what depends on it once).
  const properties = useMemo(() => (schema ? formProperties(schema, htmlNames) : null), [schema, htmlNames]);
  return { schema, error, properties };
}

/** Attribute values as the form edits them. */
export function formFromAttributes(props: FormProperty[], attributes: Record<string, unknown>): Values {
  const out: Values = {};
  for (const p of props) {
    const v = attributes[p.name];
    if (p.kind === 'boolean') out[p.name] = Boolean(v);
    else if (p.kind === 'terms') out[p.name] = (Array.isArray(v) ? v : []).map((t: Term) => ({ name: String(t.name), label: t.label ?? null }));
    else if (p.kind === 'ranges')
      out[p.name] = (Array.isArray(v) ? v : []).map((r: { start_date?: string; end_date?: string | null; params?: unknown }): RangeValue => ({
        start: r.start_date ? toLocalInput(r.start_date) : '',
        end: r.end_date ? toLocalInput(r.end_date) : '',
        params: r.params ?? null,
      }));
    else if (v === null || v === undefined) out[p.name] = '';
    else if (p.kind === 'json') out[p.name] = JSON.stringify(v, null, 2);
    else if (p.kind === 'datetime' && typeof v === 'string') out[p.name] = toLocalInput(v);
    else out[p.name] = String(v);
  }
  return out;
}

/** An instant as a `datetime-local` value in the user's time zone. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Form values back to attributes; a JSON field that does not parse throws with its name. */
export function attributesFromForm(props: FormProperty[], values: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of props) {
    const v = values[p.name];
    if (p.kind === 'boolean') {
      out[p.name] = Boolean(v);
      continue;
    }
    if (p.kind === 'terms') {
      // Categories are named; tags also carry the label typed, for the ones the server creates.
      out[p.name] = ((v ?? []) as Term[]).map((t) => (p.name === 'tags' && t.label ? { name: t.name, label: t.label } : { name: t.name }));
      continue;
    }
    if (p.kind === 'ranges') {
      out[p.name] = ((v ?? []) as RangeValue[]).map((r) => ({ start_date: fromLocalInput(r.start), end_date: r.end ? fromLocalInput(r.end) : null, params: r.params ?? null }));
      continue;
    }
    if (v === '' || v === undefined) {
      out[p.name] = null;
      continue;
    }
    if (p.kind === 'integer' || p.kind === 'number') out[p.name] = Number(v);
    else if (p.kind === 'datetime') out[p.name] = fromLocalInput(v);
    else if (p.kind === 'json') {
      try {
        out[p.name] = JSON.parse(v);
      } catch {
        throw new Error(`“${p.name}” is not valid JSON`);
      }
    } else out[p.name] = v;
  }
  return out;
}

/** A `datetime-local` value (the user's time zone) as a UTC instant; what does not parse stays as typed. */
export function fromLocalInput(value: string): string {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** Only what changed (so an unchanged uname or status of a locked object is not sent). */
export function changedAttributes(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) {
    if (JSON.stringify(v ?? null) !== JSON.stringify(before[k] ?? null)) out[k] = v;
  }
  return out;
}

export { fieldLabel };

/**
 * `problems`: what is wrong with a field, by name (shown under it, the field marked, its element
 * `data-problem` for the form to focus); `notes`: a field's other live remark (a slug's check).
 */
export function SchemaFields({
  properties,
  values,
  onChange,
  problems = {},
  notes = {},
}: {
  properties: FormProperty[];
  values: Values;
  /** Given a change of the values as they are then (a field's update never carries the other
   *  fields' values of an earlier render back: two changes before a render both stay). */
  onChange: (change: (old: Values) => Values) => void;
  problems?: Record<string, string>;
  notes?: Record<string, string>;
}) {
  return (
    <>
      {properties.map((p) => {
        if (p.kind === 'terms' || p.kind === 'ranges') return null; // the editor's own controls
        const set = (v: unknown) => onChange((old) => ({ ...old, [p.name]: v }));
        const text = (p.label ?? fieldLabel(p.name)) + (p.required ? ' *' : '');
        const hintId = `hint-${p.name}`;
        const problemId = `problem-${p.name}`;
        const problem = problems[p.name];
        const note = notes[p.name];
        const hint =
          p.description || note ? (
            <span className="hint" id={hintId} role={note ? 'status' : undefined}>
              {[p.description, note].filter(Boolean).join(' ')}
            </span>
          ) : null;
        const described = [hint ? hintId : '', problem ? problemId : ''].filter(Boolean).join(' ') || undefined;
        const marked = <FieldProblem id={problemId} text={problem} />;
        if (p.kind === 'boolean') {
          return (
            <label key={p.name} className="inline">
              <input type="checkbox" name={p.name} checked={Boolean(values[p.name])} onChange={(e) => set(e.target.checked)} />
              {fieldLabel(p.name)}
            </label>
          );
        }
        if (p.kind === 'html') {
          return (
            <div key={p.name} className="field wide" data-problem={p.name}>
              <RichTextField label={text} value={String(values[p.name] ?? '')} onChange={set} description={p.description} />
              {marked}
            </div>
          );
        }
        const wide = p.kind === 'textarea' || p.kind === 'json' || p.name === 'title';
        const common = {
          name: p.name,
          value: values[p.name] ?? '',
          'aria-required': p.required || undefined,
          'aria-invalid': problem ? true : undefined,
          'aria-describedby': described,
          'data-problem': p.name,
          onChange: (e: { target: { value: string } }) => set(e.target.value),
        };
        let control;
        if (p.kind === 'enum') {
          control = (
            <select {...common}>
              <option value="">—</option>
              {/* A stored value the choice list no longer has stays shown (and kept) until changed. */}
              {values[p.name] && !p.options.includes(String(values[p.name])) ? <option value={String(values[p.name])}>{String(values[p.name])} (no longer a choice)</option> : null}
              {p.options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          );
        } else if (p.kind === 'textarea' || p.kind === 'json') {
          control = <textarea {...common} className={p.kind === 'json' ? 'code' : undefined} />;
        } else {
          const type = { text: 'text', number: 'number', integer: 'number', date: 'date', datetime: 'datetime-local', email: 'email', url: 'url' }[p.kind as string] ?? 'text';
          control = <input type={type} step={p.kind === 'number' ? 'any' : undefined} maxLength={p.maxLength} {...common} />;
        }
        return (
          <div key={p.name} className={`field${wide ? ' wide' : ''}`}>
            <label>
              {text}
              {control}
            </label>
            {hint}
            {marked}
          </div>
        );
      })}
    </>
  );
}
