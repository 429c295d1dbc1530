// Categories and tags (/model/categories, /model/tags), for admins: list, create, edit, disable and
// delete them. A category belongs to one object type and may have a parent of that type; the
// object editor offers a type's enabled categories to its objects (types associated with
// Categories) and suggests the enabled tags. Names are checked here before the server sees them.
import { useId, useState, type FormEvent } from 'react';
import { ApiError, categories, tags, type CategoryAttributes, type Resource, type TagAttributes } from '../../api/client';
import { useApiAll } from '../../api/queries';
import { DataTable } from '../../components/data-table';
import { DeleteButton, Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { PageHead } from '../../components/page-head';
import { TypeOptions, FormFooter } from '../../components/fields';
import { concreteTypes, useObjectTypes } from '../../components/model';
import { useToast } from '../../components/toast';
import { useAction } from '../../components/use-list';
import { termName } from '../objects/TermsFields';

type Kind = 'categories' | 'tags';
type Term = Resource<CategoryAttributes | TagAttributes>;
const NAME = /^[a-z0-9][a-z0-9_-]{1,50}$/;
const client = (kind: Kind) => (kind === 'categories' ? categories : tags);
const PATHS: Record<Kind, string> = { categories: '/model/categories', tags: '/model/tags' };

export function TermsPage() {
  return (
    <section>
      <h1>Categories &amp; tags</h1>
      <p className="muted">
        Objects of a type get categories and tags once the type is associated with them (BEdita’s <code>associations</code>). Categories belong to one object type; tags are
        shared by every type. Disabled ones stay stored but are not shown on objects.
      </p>
      <TermsSection kind="categories" />
      <TermsSection kind="tags" />
    </section>
  );
}

interface Draft {
  label: string;
  name: string;
  /** The name was typed, not made from the label. */
  ownName: boolean;
  type: string;
  parent_id: string;
  enabled: boolean;
  /** Labels in other languages: [language tag, label], in the order shown. */
  translations: Array<[string, string]>;
}

/** A BCP 47 language tag, as the translations use (en, it, pt-BR, zh-Hant…). */
const LANG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

function draftOf(t: Term | null, type = ''): Draft {
  const a = (t?.attributes ?? {}) as Partial<CategoryAttributes>;
  const translations = Object.entries(a.labels ?? {}).filter(([lang]) => lang !== 'default');
  return {
    label: a.label ?? '',
    name: a.name ?? '',
    ownName: Boolean(t),
    type: a.type ?? type,
    parent_id: a.parent_id != null ? String(a.parent_id) : '',
    enabled: t ? Boolean(a.enabled) : true,
    translations,
  };
}

function draftProblem(d: Draft, kind: Kind): string | null {
  if (!d.label.trim()) return 'Give it a label: the words editors see.';
  if (!NAME.test(d.name)) return 'The name must be 2 to 51 lower-case letters, digits, - or _, starting with a letter or digit (e.g. summer-sale).';
  if (kind === 'categories' && !d.type) return 'Choose the object type this category is for.';
  const langs = d.translations.map(([lang]) => lang.trim());
  const badLang = langs.find((lang) => !LANG.test(lang));
  if (badLang !== undefined) return `“${badLang || '(empty)'}” is not a language code: use one like en, it or pt-BR.`;
  if (new Set(langs).size !== langs.length) return 'Each language may have one label only.';
  if (d.translations.some(([, label]) => !label.trim())) return 'Give every language its label, or remove the language.';
  return null;
}

/** The server's refusals in the admin's words. */
function plainError(e: unknown, kind: Kind): unknown {
  if (e instanceof ApiError && e.status === 409) return new ApiError(409, e.code, 'Name taken', kind === 'categories' ? 'This object type already has a category with this name. Choose another name.' : 'A tag with this name already exists. Choose another name.');
  return e;
}

function TermsSection({ kind }: { kind: Kind }) {
  const terms = useApiAll<CategoryAttributes | TagAttributes>(PATHS[kind]);
  const all = terms.data ?? null;
  const error = terms.error;
  const [typeFilter, setTypeFilter] = useState('');
  const [editing, setEditing] = useState<Term | 'new' | null>(null);
  const { types } = useObjectTypes();
  const toast = useToast();
  const singular = kind === 'categories' ? 'category' : 'tag';
  const toggle = useAction();
  const byId = new Map((all ?? []).map((t) => [String(t.id), t]));
  const shown = (all ?? []).filter((t) => !typeFilter || (t.attributes as CategoryAttributes).type === typeFilter);
  const labelOf = (t: Term | undefined) => (t ? t.attributes.label || t.attributes.name : '—');
  const headingId = `terms-${kind}`;
  return (
    <section aria-labelledby={headingId} className="panel">
      <PageHead title={kind === 'categories' ? 'Categories' : 'Tags'} level={2} id={headingId}>
        {kind === 'categories' ? (
          <label className="inline">
            Object type
            <select value={typeFilter} onChange={(e) => setTypeFilter(e.target.value)}>
              <option value="">All types</option>
              <TypeOptions types={concreteTypes(types)} />
            </select>
          </label>
        ) : null}
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New {singular}
        </button>
      </PageHead>
      <ErrorNote error={toggle.error} />
      <DataTable
        label={kind === 'categories' ? 'Categories' : 'Tags'}
        rows={all && shown}
        error={error}
        loading={!all && !error}
        empty={kind === 'categories' ? 'No categories yet.' : 'No tags yet.'}
        columns={[
          { header: 'Label', cell: (t) => labelOf(t) },
          { header: 'Name', cell: (t) => <code>{t.attributes.name}</code> },
          kind === 'categories' && { header: 'Object type', cell: (t) => (t.attributes as CategoryAttributes).type ?? '—' },
          kind === 'categories' && {
            header: 'Parent',
            cell: (t) => {
              const parent = (t.attributes as CategoryAttributes).parent_id;
              return parent != null ? labelOf(byId.get(String(parent))) : '—';
            },
          },
          { header: 'State', cell: (t) => (t.attributes.enabled ? <span className="badge on">enabled</span> : <span className="badge off">disabled</span>) },
        ]}
        actions={(t) => {
          const label = labelOf(t);
          const enabled = t.attributes.enabled;
          return (
            <>
              <button type="button" className="small" onClick={() => setEditing(t)} aria-label={`Edit ${label}`}>
                Edit
              </button>
              <button type="button" className="small" disabled={toggle.busy} aria-label={`${enabled ? 'Disable' : 'Enable'} ${label}`} onClick={() => void toggle.run(() => client(kind).update(t.id, { enabled: !enabled }))}>
                {enabled ? 'Disable' : 'Enable'}
              </button>
              <DeleteButton
                buttonTitle={`Delete ${label}`}
                title={`Delete this ${singular}?`}
                message={
                  <p>
                    <strong>{label}</strong> will be deleted and taken off every object that has it. To keep it on objects but stop offering it, disable it instead.
                  </p>
                }
                action={() => client(kind).remove(t.id)}
                onDone={() => toast.success(`${singular === 'tag' ? 'Tag' : 'Category'} “${label}” deleted.`)}
              />
            </>
          );
        }}
      />
      {editing ? (
        <TermDialog
          kind={kind}
          term={editing === 'new' ? null : editing}
          all={all ?? []}
          defaultType={typeFilter}
          onClose={() => setEditing(null)}
          onSaved={(label) => {
            toast.success(`${singular === 'tag' ? 'Tag' : 'Category'} “${label}” saved.`);
            setEditing(null);
          }}
        />
      ) : null}
    </section>
  );
}

function TermDialog({ kind, term, all, defaultType, onClose, onSaved }: { kind: Kind; term: Term | null; all: Term[]; defaultType: string; onClose: () => void; onSaved: (label: string) => void }) {
  const { types } = useObjectTypes();
  const [d, setD] = useState<Draft>(() => draftOf(term, defaultType));
  const [problem, setProblem] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction();
  const singular = kind === 'categories' ? 'category' : 'tag';
  const hintId = useId();
  const set = (patch: Partial<Draft>) => {
    const next = { ...d, ...patch };
    if (patch.label !== undefined && !next.ownName) next.name = termName(patch.label);
    if (patch.type !== undefined) next.parent_id = '';
    setD(next);
    if (problem) setProblem(draftProblem(next, kind));
  };
  // A parent is another category of the same type (not this one).
  const parents = all.filter((c) => c.id !== term?.id && (c.attributes as CategoryAttributes).type === d.type && (c.attributes as CategoryAttributes).parent_id == null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = draftProblem(d, kind);
    setProblem(found);
    if (found) return;
    const labels = Object.fromEntries([['default', d.label.trim()], ...d.translations.map(([lang, label]) => [lang.trim(), label.trim()])]);
    const attributes: Record<string, unknown> = { labels, name: d.name, enabled: d.enabled };
    if (kind === 'categories') Object.assign(attributes, { type: d.type, parent_id: d.parent_id || null });
    const api = client(kind);
    const saved = await run(async () => {
      try {
        return await (term ? api.update(term.id, attributes) : api.create(attributes));
      } catch (err) {
        throw plainError(err, kind);
      }
    });
    if (saved) onSaved(d.label.trim());
  };
  return (
    <Dialog title={term ? `Edit ${singular}` : `New ${singular}`} onClose={onClose}>
      <form className="stack" onSubmit={submit} aria-label={term ? `Edit ${singular}` : `New ${singular}`} noValidate>
        <label>
          Label
          <input value={d.label} onChange={(e) => set({ label: e.target.value })} autoFocus aria-invalid={problem?.startsWith('Give') ? true : undefined} />
        </label>
        <div className="field">
          <label>
            Name
            <input
              value={d.name}
              onChange={(e) => {
                setError(null);
                set({ name: e.target.value, ownName: true });
              }}
              aria-describedby={hintId}
              aria-invalid={problem?.startsWith('The name') ? true : undefined}
            />
          </label>
          <span className="hint" id={hintId}>
            Used by the API and in URLs; made from the label unless you change it.
          </span>
        </div>
        {kind === 'categories' ? (
          <>
            <label>
              Object type
              <select value={d.type} onChange={(e) => set({ type: e.target.value })} aria-invalid={problem?.startsWith('Choose') ? true : undefined}>
                <option value="">— choose —</option>
                <TypeOptions types={concreteTypes(types)} />
              </select>
            </label>
            <label>
              Parent category
              <select value={d.parent_id} onChange={(e) => set({ parent_id: e.target.value })} disabled={!d.type}>
                <option value="">None (top level)</option>
                {parents.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.attributes.label || c.attributes.name}
                  </option>
                ))}
              </select>
            </label>
          </>
        ) : null}
        <fieldset className="choices" aria-describedby={`${hintId}-langs`}>
          <legend>Labels in other languages</legend>
          <span className="hint" id={`${hintId}-langs`}>
            Shown to readers in that language (BEdita’s <code>labels</code>); the label above is the default.
          </span>
          {d.translations.map(([lang, label], i) => (
            <div className="inline-row" key={i}>
              <label>
                Language
                <input
                  value={lang}
                  size={6}
                  autoFocus={lang === '' && i === d.translations.length - 1}
                  onChange={(e) => set({ translations: d.translations.map((t, j) => (j === i ? [e.target.value, t[1]] : t)) })}
                  aria-invalid={problem && !LANG.test(lang.trim()) ? true : undefined}
                />
              </label>
              <label className="grow">
                Label in {lang.trim() || 'this language'}
                <input value={label} onChange={(e) => set({ translations: d.translations.map((t, j) => (j === i ? [t[0], e.target.value] : t)) })} />
              </label>
              <button type="button" className="small" onClick={() => set({ translations: d.translations.filter((_, j) => j !== i) })} aria-label={`Remove the ${lang.trim() || 'new'} label`}>
                Remove
              </button>
            </div>
          ))}
          <div>
            <button type="button" className="small" onClick={() => set({ translations: [...d.translations, ['', '']] })}>
              Add a language
            </button>
          </div>
        </fieldset>
        <label className="inline">
          <input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
          Enabled (offered in the object editor and shown on objects)
        </label>
        {problem ? (
          <p className="field-error" role="alert">
            {problem}
          </p>
        ) : null}
        <FormFooter error={error} busy={busy} label={term ? 'Save changes' : `Create ${singular}`} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
