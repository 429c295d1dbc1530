// Property types (/model/property_types): the built-in ones, read-only, and custom "choice lists"
// an admin makes (a name and its choices: params {type: 'string', enum: [...]}), edits and
// deletes. Properties of a choice list show as a select in the object editor and refuse other
// values on the server.
import { useState, type FormEvent } from 'react';
import { ApiError, propertyTypes, type PropertyTypeAttributes, type Resource } from '../../api/client';
import { useApiAll } from '../../api/queries';
import { DataTable } from '../../components/data-table';
import { DeleteButton, Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { FormFooter } from '../../components/fields';
import { useToast } from '../../components/toast';

type PropertyType = Resource<PropertyTypeAttributes>;

/** Every property type, built-in first, and a reload after a change. */
export function usePropertyTypes() {
  const q = useApiAll<PropertyTypeAttributes>(propertyTypes.path(), {}, 50);
  return { types: q.data ?? null, error: q.error };
}

const isCore = (t: PropertyType) => Boolean(t.meta.core_type);

/** The choices of a choice-list type, null for any other kind of type. */
export function choicesOf(t: PropertyType): string[] | null {
  const enumValues = t.attributes.params?.enum;
  return Array.isArray(enumValues) ? enumValues.filter((v) => v !== null).map(String) : null;
}

const NAME = /^[a-z][a-z0-9_]*$/;

/** The server's refusals in the admin's words. */
function plainError(e: unknown): unknown {
  if (!(e instanceof ApiError)) return e;
  const say = (title: string, detail: string) => new ApiError(e.status, e.code, title, detail);
  if (e.code === 'property_type_in_use') return say('Still in use', 'Some properties use this property type. Delete those properties first.');
  if (e.code === 'core_type') return say('Built in', 'Built-in property types cannot change or be deleted.');
  if (e.code === 'property_type_exists') return say('Name taken', 'A property type with this name already exists. Choose another name.');
  if (e.code === 'invalid_name') return say('Name not allowed', 'Use lower-case letters, digits and _, starting with a letter (e.g. colour_choice).');
  return e;
}

/** Form text → choices, or what is wrong with it. */
function parseChoices(text: string): { choices: string[] } | { problem: string } {
  const choices = text.split('\n').map((c) => c.trim()).filter(Boolean);
  if (!choices.length) return { problem: 'Write at least one choice, one per line.' };
  const seen = new Set<string>();
  for (const c of choices) {
    if (seen.has(c)) return { problem: `“${c}” is listed twice. Each choice must be different.` };
    if (c.length > 255) return { problem: `“${c.slice(0, 30)}…” is longer than 255 characters.` };
    seen.add(c);
  }
  return { choices };
}

function checkName(name: string, others: PropertyType[]): string | null {
  if (!name) return 'Give the property type a name.';
  if (name.length > 64 || !NAME.test(name)) return 'Use lower-case letters, digits and _, starting with a letter (e.g. colour_choice).';
  if (others.some((t) => t.attributes.name === name)) return `A property type named “${name}” already exists.`;
  return null;
}

export function PropertyTypesSection() {
  const { types, error } = usePropertyTypes();
  const [editing, setEditing] = useState<PropertyType | null>(null);
  const toast = useToast();
  return (
    <section aria-labelledby="property-types-heading">
      <h2 id="property-types-heading">Property types</h2>
      <p className="muted">What a custom property holds. Choice lists offer a fixed set of values, shown as a list to pick from.</p>
      {types ? <ChoiceListForm others={types} /> : null}
      <DataTable
        label="Property types"
        rows={types}
        error={error}
        loading={!types && !error}
        empty="No property types."
        columns={[
          { header: 'Name', cell: (t) => t.attributes.name },
          { header: 'Kind', cell: (t) => (isCore(t) ? <span className="badge">built in</span> : choicesOf(t) ? 'choice list' : 'custom') },
          { header: 'Values', cell: (t) => choicesOf(t)?.join(', ') ?? <span className="muted">{describeParams(t.attributes.params)}</span> },
        ]}
        actions={(t) =>
          !isCore(t) ? (
            <>
              <button type="button" className="small" onClick={() => setEditing(t)} aria-label={`Edit ${t.attributes.name}`}>
                Edit
              </button>
              <DeleteButton
                title="Delete this property type?"
                message={
                  <p>
                    The property type <strong>{t.attributes.name}</strong> will be deleted. A type that properties still use cannot be deleted.
                  </p>
                }
                action={async () => {
                  try {
                    await propertyTypes.remove(t.id);
                  } catch (e) {
                    throw plainError(e);
                  }
                }}
                onDone={() => toast.success(`Property type “${t.attributes.name}” deleted.`)}
              />
            </>
          ) : null
        }
      />
      {editing ? (
        <EditPropertyTypeDialog
          type={editing}
          others={(types ?? []).filter((t) => t.id !== editing.id)}
          onClose={() => setEditing(null)}
          onSaved={() => setEditing(null)}
        />
      ) : null}
    </section>
  );
}

/** A short reading of a JSON Schema fragment ("text", "number", "text, at most 255 characters"). */
function describeParams(params: Record<string, unknown> | null): string {
  if (!params) return 'anything';
  const type = Array.isArray(params.type) ? params.type.filter((t) => t !== 'null').join(' or ') : String(params.type ?? 'any value');
  const words: Record<string, string> = { string: 'text', integer: 'whole number', number: 'number', boolean: 'yes / no', object: 'JSON object', array: 'list' };
  const parts = [words[type] ?? type];
  if (typeof params.format === 'string') parts.push(`format ${params.format}`);
  if (typeof params.maxLength === 'number') parts.push(`at most ${params.maxLength} characters`);
  return parts.join(', ');
}

/** Name and choices of a choice list, checked before anything is sent. */
function ChoiceFields({ name, choices, onName, onChoices, problem, idPrefix }: { name: string; choices: string; onName: (v: string) => void; onChoices: (v: string) => void; problem: { field: 'name' | 'choices'; text: string } | null; idPrefix: string }) {
  const errorId = `${idPrefix}-error`;
  return (
    <>
      <div className="field">
        <label>
          Name
          <input value={name} onChange={(e) => onName(e.target.value)} aria-invalid={problem?.field === 'name' || undefined} aria-describedby={`${idPrefix}-name-hint${problem?.field === 'name' ? ` ${errorId}` : ''}`} />
        </label>
        <span className="hint" id={`${idPrefix}-name-hint`}>
          lower_snake_case, e.g. colour_choice
        </span>
      </div>
      <div className="field">
        <label>
          Choices
          <textarea value={choices} onChange={(e) => onChoices(e.target.value)} aria-invalid={problem?.field === 'choices' || undefined} aria-describedby={`${idPrefix}-choices-hint${problem?.field === 'choices' ? ` ${errorId}` : ''}`} />
        </label>
        <span className="hint" id={`${idPrefix}-choices-hint`}>
          One per line, in the order the list shows them.
        </span>
      </div>
      {problem ? (
        <p className="error wide" id={errorId} role="alert">
          {problem.text}
        </p>
      ) : null}
    </>
  );
}

type Problem = { field: 'name' | 'choices'; text: string } | null;

function validate(name: string, choicesText: string, others: PropertyType[]): { problem: Problem; choices?: string[] } {
  const nameProblem = checkName(name, others);
  if (nameProblem) return { problem: { field: 'name', text: nameProblem } };
  const parsed = parseChoices(choicesText);
  if ('problem' in parsed) return { problem: { field: 'choices', text: parsed.problem } };
  return { problem: null, choices: parsed.choices };
}

function ChoiceListForm({ others }: { others: PropertyType[] }) {
  const [name, setName] = useState('');
  const [choices, setChoices] = useState('');
  const [problem, setProblem] = useState<Problem>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const checked = validate(name.trim(), choices, others);
    setProblem(checked.problem);
    if (!checked.choices) return;
    setBusy(true);
    try {
      await propertyTypes.create({ name: name.trim(), params: { type: 'string', enum: checked.choices } });
      toast.success(`Choice list “${name.trim()}” created.`);
      setName('');
      setChoices('');
    } catch (err) {
      setError(plainError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="New choice list" noValidate>
      <h3>New choice list</h3>
      <div className="form-grid">
        <ChoiceFields idPrefix="new-choice-list" name={name} choices={choices} onName={setName} onChoices={setChoices} problem={problem} />
      </div>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="submit" disabled={busy}>
          Create choice list
        </button>
      </div>
    </form>
  );
}

function EditPropertyTypeDialog({ type, others, onClose, onSaved }: { type: PropertyType; others: PropertyType[]; onClose: () => void; onSaved: () => void }) {
  const initialChoices = choicesOf(type);
  const [name, setName] = useState(type.attributes.name);
  const [choices, setChoices] = useState((initialChoices ?? []).join('\n'));
  const [params, setParams] = useState(JSON.stringify(type.attributes.params ?? {}, null, 2));
  const [problem, setProblem] = useState<Problem>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation();
    setError(null);
    let attributes: Partial<PropertyTypeAttributes>;
    if (initialChoices) {
      const checked = validate(name.trim(), choices, others);
      setProblem(checked.problem);
      if (!checked.choices) return;
      attributes = { name: name.trim(), params: { ...type.attributes.params, type: 'string', enum: checked.choices } };
    } else {
      const nameProblem = checkName(name.trim(), others);
      if (nameProblem) return setProblem({ field: 'name', text: nameProblem });
      try {
        attributes = { name: name.trim(), params: JSON.parse(params) };
      } catch {
        return setProblem({ field: 'choices', text: 'The definition is not valid JSON.' });
      }
    }
    setBusy(true);
    try {
      await propertyTypes.update(type.id, attributes);
      toast.success(`Property type “${name.trim()}” saved.`);
      onSaved();
    } catch (err) {
      setError(plainError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={`Edit ${type.attributes.name}`} onClose={onClose}>
      <form onSubmit={submit} className="stack" aria-label="Edit property type" noValidate>
        {initialChoices ? (
          <ChoiceFields idPrefix="edit-choice-list" name={name} choices={choices} onName={setName} onChoices={setChoices} problem={problem} />
        ) : (
          <>
            <label>
              Name
              <input value={name} onChange={(e) => setName(e.target.value)} />
            </label>
            <label>
              Definition (JSON Schema)
              <textarea className="code" value={params} onChange={(e) => setParams(e.target.value)} />
            </label>
            {problem ? (
              <p className="error" role="alert">
                {problem.text}
              </p>
            ) : null}
          </>
        )}
        <p className="hint">Objects keep the values they already have, even one no longer among the choices.</p>
        <FormFooter error={error} busy={busy} label="Save" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
