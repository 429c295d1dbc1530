// An object's translations on its page: the languages it has (with each translation's status),
// adding a language, and the side-by-side editor — each translatable field's original, read-only,
// beside its translation (rich text for rich fields). Which fields: the same rule as the server
// (title, description, body and text custom properties, less what the type's translation_rules
// exclude; none for a type that is not translatable, and then no panel at all). Each write is an
// update of the object, so `onWritten` lets the page take the object's new version. A published
// object changed by a user without `publish` (`intoDraft`): the languages as its draft will make
// them, and each save or removal goes into the draft instead.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ApiError, ConflictError, translations, type Resource, type SingleResult, type TranslationAttributes, type TranslationStatus } from '../../api/client';
import { apiKey, fetchOne, useApiAll, useApiOne } from '../../api/queries';
import { ConfirmButton, Dialog } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/feedback';
import { STATUS_OPTIONS } from '../../components/fields';
import { plainText } from '../../components/format';
import { Copy, Plus, Save, Trash2 } from '../../components/icons';
import { HtmlPreview } from '../../components/rich-text/HtmlPreview';
import { RichTextField } from '../../components/rich-text/RichTextField';
import { fieldLabel, type FormProperty } from '../../components/schema-form';
import { useToast } from '../../components/toast';
import { useAction } from '../../components/use-list';
import { requestLeave, useUnsavedChanges } from '../../components/unsaved';
import { ConflictDialog, writersSince, type Conflict } from './edit-conflict';
import './translations.css';
import { COMMON_LANGUAGES, isLanguageTag, languageName, normalizeTag } from './languages';
import { changedInDraft, SAVED_TO_DRAFT, withDraftTranslations, type IntoDraft } from './into-draft';

type Translation = Resource<TranslationAttributes>;

const CORE_TEXT = new Set(['title', 'description', 'body']);
const TEXT_PROPERTY_TYPES = new Set(['string', 'text']);

/** The fields translations of this type hold, in the order the object's form shows them. */
export function translatableFields(
  properties: FormProperty[],
  type: { is_translatable?: unknown; translation_rules?: unknown },
  textProperties: Set<string>,
): FormProperty[] {
  if (type.is_translatable === false) return [];
  const rules = (type.translation_rules ?? {}) as Record<string, unknown>;
  return properties.filter((p) => (CORE_TEXT.has(p.name) || textProperties.has(p.name)) && rules[p.name] !== false);
}

/** What the type allows: its translatable fields, read from the model (null while loading). */
function useTranslatableFields(typeName: string, properties: FormProperty[]) {
  const type = useApiOne(`/model/object_types/${encodeURIComponent(typeName)}`);
  // Without its custom properties (not readable, say), the core fields are still translatable.
  const custom = useApiAll('/model/properties', { 'filter[object_type]': typeName });
  const settled = custom.data !== undefined || custom.error !== null;
  const fields = useMemo(() => {
    if (!type.data || !settled) return null;
    const texts = new Set((custom.data ?? []).filter((p) => TEXT_PROPERTY_TYPES.has(String(p.attributes.property_type_name))).map((p) => String(p.attributes.name)));
    return translatableFields(properties, type.data.data.attributes, texts);
  }, [type.data, custom.data, settled, properties]);
  return { fields, error: type.error };
}

/** The server's refusals, said in the editor's words. */
function plainError(e: unknown, language: string): unknown {
  if (!(e instanceof ApiError) || e.status === 0 || e.status === 412) return e;
  if (e.code === 'translation_exists') return new ApiError(e.status, e.code, 'Already translated', `This object already has a translation in ${language}. Reload the page to edit it.`);
  if (e.code === 'not_translatable') return new ApiError(e.status, e.code, 'Not translatable', 'Objects of this type cannot be translated.');
  if (e.status === 403) return new ApiError(e.status, e.code, 'Not allowed', 'Your roles do not let you change this object, so you cannot change its translations either.');
  if (e.status === 404) return new ApiError(e.status, e.code, 'No longer there', 'This object or translation was removed by someone else. Reload the page.');
  if (e.status === 400) return new ApiError(e.status, e.code, 'Not saved', 'The translation has a field this type does not translate, or a text that is too long. Reload the page and try again.');
  return e;
}

export function TranslationsPanel({
  object,
  properties,
  readOnly,
  onWritten,
  intoDraft,
}: {
  object: Resource;
  properties: FormProperty[];
  readOnly: boolean;
  onWritten: () => void;
  intoDraft?: IntoDraft;
}) {
  const { fields, error: modelError } = useTranslatableFields(object.type, properties);
  const listPath = translations.ofObjectPath(object.type, object.id);
  const loaded = useApiAll<TranslationAttributes>(listPath, {}, 50);
  const list = loaded.data ? (intoDraft ? withDraftTranslations(loaded.data, intoDraft.draft, object.id) : loaded.data) : null;
  const loadError = loaded.error;
  const client = useQueryClient();
  /** The cached list as a write left it (the write also marks it stale: it loads again). */
  const setList = (change: (all: Translation[]) => Translation[]) => client.setQueryData<Translation[]>(apiKey(listPath, {}, 'all'), (all) => change(all ?? []));
  // The language in the editor, and its translation (none yet for a language just added).
  const [open, setOpen] = useState<{ lang: string; translation: Translation | null } | null>(null);
  const [adding, setAdding] = useState(false);
  const addButton = useRef<HTMLButtonElement>(null);
  const headingId = useId();
  // Whether the editor holds unsaved edits (its own guard covers leaving the page).
  const editorDirty = useRef(false);

  if (modelError) return <ErrorNote error={modelError} />;
  if (fields && !fields.length) return null; // a type that is not translatable
  const have = list ?? [];
  const pending = open && !open.translation ? open.lang : null;
  /** Open another language; unsaved edits of the current one are asked about first. */
  const show = (next: typeof open) => (editorDirty.current ? requestLeave(() => setOpen(next)) : setOpen(next));
  // Saved into the draft, the live list stays as it is (the draft's changes are shown over it).
  const onSaved = (t: Translation) => {
    if (!intoDraft) setList((all) => [...all.filter((x) => x.id !== t.id), t].sort((a, b) => a.attributes.lang.localeCompare(b.attributes.lang)));
    setOpen({ lang: t.attributes.lang, translation: t });
    if (!intoDraft) onWritten();
  };
  const onRemoved = (t: Translation) => {
    if (!intoDraft) setList((all) => all.filter((x) => x.id !== t.id));
    setOpen(null);
    if (!intoDraft) onWritten();
    addButton.current?.focus();
  };

  return (
    <section className="panel" aria-labelledby={headingId}>
      <div className="page-head">
        <h2 id={headingId}>Translations</h2>
        {changedInDraft(intoDraft?.draft, 'translations') ? <span className="badge warn">Changed in the draft</span> : null}
        <span className="spacer" />
        {!readOnly && fields ? (
          <button type="button" ref={addButton} onClick={() => setAdding(true)}>
            <Plus aria-hidden size={16} /> Add language
          </button>
        ) : null}
      </div>
      <ErrorNote error={loadError} />
      {!list || !fields ? (
        loadError ? null : <Loading what="Loading translations" />
      ) : (
        <>
          {have.length || pending ? (
            <ul className="chips language-chips" aria-label="Languages">
              {have.map((t) => (
                <li key={t.id}>
                  <button type="button" className="chip-button" aria-pressed={open?.lang === t.attributes.lang} onClick={() => show({ lang: t.attributes.lang, translation: t })}>
                    {languageName(t.attributes.lang)} <span className="muted">({t.attributes.lang})</span> <span className={`badge word ${t.attributes.status}`}>{t.attributes.status}</span>
                    {t.meta.draft ? <span className="badge">unpublished</span> : null}
                  </button>
                </li>
              ))}
              {pending ? (
                <li>
                  <button type="button" className="chip-button" aria-pressed>
                    {languageName(pending)} <span className="muted">({pending})</span> <span className="badge">not saved</span>
                  </button>
                </li>
              ) : null}
            </ul>
          ) : (
            <p className="muted">Only in its original language. {readOnly ? '' : 'Add a language to translate it.'}</p>
          )}
          {have.length && !open ? <p className="muted">Choose a language to see its translation beside the original.</p> : null}
          {open ? (
            <TranslationEditor
              key={open.translation?.id ?? `new-${open.lang}`}
              object={object}
              lang={open.lang}
              translation={open.translation}
              fields={fields}
              readOnly={readOnly}
              intoDraft={intoDraft}
              onSaved={onSaved}
              onRemoved={onRemoved}
              onClose={() => show(null)}
              onDirty={(d) => (editorDirty.current = d)}
            />
          ) : null}
        </>
      )}
      {adding ? (
        <AddLanguageDialog
          taken={have.map((t) => t.attributes.lang)}
          onClose={() => setAdding(false)}
          onAdd={(lang) => {
            setAdding(false);
            show({ lang, translation: null });
          }}
        />
      ) : null}
    </section>
  );
}

function AddLanguageDialog({ taken, onClose, onAdd }: { taken: string[]; onClose: () => void; onAdd: (lang: string) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const listId = useId();
  const hintId = useId();
  const errorId = useId();
  const takenLower = new Set(taken.map((t) => t.toLowerCase()));
  /** What was typed, as a tag: a tag, a language's name, or "Name (tag)". */
  const resolve = (raw: string): string => {
    const s = raw.trim();
    const byName = COMMON_LANGUAGES.find(([, name]) => name.toLowerCase() === s.toLowerCase());
    if (byName) return byName[0];
    const inParens = /\(([^)]+)\)\s*$/.exec(s);
    return normalizeTag(inParens ? inParens[1] : s);
  };
  const tag = resolve(text);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation();
    if (!text.trim()) return setProblem('Choose a language or type its tag.');
    if (!isLanguageTag(tag)) return setProblem(`“${text.trim()}” is not a language tag. Use a tag such as it, fr or pt-BR.`);
    if (takenLower.has(tag.toLowerCase())) return setProblem(`This object already has a translation in ${languageName(tag)}. Choose it among the languages above to edit it.`);
    onAdd(tag);
  };
  const valid = text.trim() !== '' && isLanguageTag(tag);
  return (
    <Dialog title="Add a language" onClose={onClose}>
      <form onSubmit={submit} className="stack" noValidate>
        <label>
          Language
          <input
            value={text}
            list={listId}
            onChange={(e) => {
              setText(e.target.value);
              setProblem(null);
            }}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${errorId} ${hintId}` : hintId}
            autoComplete="off"
            placeholder="e.g. it or Italian"
          />
        </label>
        <datalist id={listId}>
          {COMMON_LANGUAGES.filter(([t]) => !takenLower.has(t.toLowerCase())).map(([t, name]) => (
            <option key={t} value={t}>
              {name}
            </option>
          ))}
        </datalist>
        <span className="hint" id={hintId}>
          {valid ? `${languageName(tag)} (${tag})` : 'Pick a common language or type any language tag, such as pt-BR or zh-Hant.'}
        </span>
        {problem ? (
          <p className="error" id={errorId} role="alert">
            {problem}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Add language
          </button>
        </div>
      </form>
    </Dialog>
  );
}

type Draft = { status: TranslationStatus; fields: Record<string, string> };
const sameDraft = (a: Draft, b: Draft) => JSON.stringify(a) === JSON.stringify(b);

function draftOf(t: Translation | null, fields: FormProperty[]): Draft {
  const stored = t?.attributes.translated_fields ?? {};
  return { status: t?.attributes.status ?? 'draft', fields: Object.fromEntries(fields.map((f) => [f.name, stored[f.name] ?? ''])) };
}

function TranslationEditor({
  object,
  lang,
  translation,
  fields,
  readOnly,
  intoDraft,
  onSaved,
  onRemoved,
  onClose,
  onDirty,
}: {
  object: Resource;
  lang: string;
  translation: Translation | null;
  fields: FormProperty[];
  readOnly: boolean;
  intoDraft?: IntoDraft;
  onSaved: (t: Translation) => void;
  onRemoved: (t: Translation) => void;
  onClose: () => void;
  onDirty: (dirty: boolean) => void;
}) {
  const [saved, setSaved] = useState<Draft>(() => draftOf(translation, fields));
  const [draft, setDraft] = useState<Draft>(saved);
  const { busy, error, setError, run } = useAction();
  // The version this editor's copy was read at (If-Match of every write; null: not known yet) and,
  // after a 412 over someone else's change, the choice to offer.
  const [etag, setEtag] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const toast = useToast();
  const form = useRef<HTMLFormElement>(null);
  const language = languageName(lang);
  const isNew = !translation;
  const dirty = isNew ? Object.values(draft.fields).some((v) => v.trim() !== '') : JSON.stringify(draft) !== JSON.stringify(saved);
  onDirty(dirty);
  useEffect(() => () => onDirty(false), []); // eslint-disable-line react-hooks/exhaustive-deps

  // An existing translation: its ETag, and the stored copy when it moved on since the list was read
  // (taken only by an untouched form; an edited one meets the newer copy when it saves).
  const current = useRef({ saved, draft });
  current.current = { saved, draft };
  useEffect(() => {
    // A translation as the draft holds it has no version of its own.
    if (!translation || intoDraft) return;
    let live = true;
    fetchOne<TranslationAttributes>(translations.path(translation.id)).then(
      (fresh) => {
        if (!live) return;
        const stored = draftOf(fresh.data, fields);
        const { saved: before, draft: now } = current.current;
        if (sameDraft(before, stored)) setEtag(fresh.etag);
        else if (sameDraft(now, before)) {
          setSaved(stored);
          setDraft(stored);
          setEtag(fresh.etag);
        }
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [translation?.id]); // eslint-disable-line react-hooks/exhaustive-deps

  /**
   * After a 412 (or before a first write without an ETag): the stored copy now. When nobody
   * changed this translation since `saved` (the object moved for another reason: its own form
   * was saved), its ETag to write against; otherwise the conflict to show.
   */
  const check = async (id: string): Promise<{ etag: string | null } | { conflict: Conflict }> => {
    const stored = await fetchOne<TranslationAttributes>(translations.path(id));
    const theirs = draftOf(stored.data, fields);
    const names = ['status', ...fields.map((f) => f.name)];
    const valueOf = (d: Draft, name: string) => (name === 'status' ? d.status : d.fields[name] ?? '');
    const changed = names.filter((n) => valueOf(theirs, n) !== valueOf(saved, n));
    if (!changed.length) return { etag: stored.etag };
    const readable = (name: string, d: Draft) => {
      const v = valueOf(d, name);
      const text = fields.find((f) => f.name === name)?.kind === 'html' ? plainText(v) : v.trim();
      return !text ? 'not set' : text.length > 280 ? `${text.slice(0, 280)}…` : text;
    };
    const conflictFields = changed.map((n) => ({
      name: n,
      label: n === 'status' ? 'Translation status' : fieldLabel(n),
      theirs: readable(n, theirs),
      yours: valueOf(draft, n) === valueOf(saved, n) ? null : readable(n, draft),
    }));
    const writers = await writersSince(`/${object.type}/${object.id}`, etag, stored.etag, translation?.meta?.modified ?? null, []);
    return { conflict: { current: stored as SingleResult, fields: conflictFields, ...writers } };
  };
  /** A write with If-Match: first with the known ETag, once more after a 412 that hid no one's change. */
  const withVersion = async <T,>(id: string, ifMatch: string | null, write: (etag: string | null) => Promise<T>): Promise<T | Conflict> => {
    let tag = ifMatch;
    for (let attempt = 0; ; attempt++) {
      if (!tag) {
        const found = await check(id);
        if ('conflict' in found) return found.conflict;
        tag = found.etag;
      }
      try {
        return await write(tag);
      } catch (e) {
        if (!(e instanceof ConflictError) || attempt > 0) throw e;
        tag = null;
      }
    }
  };

  // A language just added: the cursor goes to its first field.
  useEffect(() => {
    if (isNew) form.current?.querySelector<HTMLElement>('.translation-input input, .translation-input textarea, .translation-input [contenteditable="true"]')?.focus();
  }, [isNew]);

  const save = async (ifMatch = etag): Promise<boolean> => {
    setError(null);
    const changedFields = Object.fromEntries(
      Object.entries(draft.fields)
        .filter(([k, v]) => (isNew ? v.trim() !== '' : v !== saved.fields[k]))
        .map(([k, v]) => [k, v.trim() === '' ? null : v]),
    );
    const statusChanged = draft.status !== saved.status;
    if (isNew && !Object.keys(changedFields).length) {
      setError(new ApiError(0, 'nothing_to_save', 'Nothing to save', `Write the ${language} text of at least one field first.`));
      return false;
    }
    if (!isNew && !Object.keys(changedFields).length && !statusChanged) {
      setError(new ApiError(0, 'nothing_to_save', 'Nothing to save', 'No field or status has changed since the last save.'));
      return false;
    }
    const changes = { ...(statusChanged || isNew ? { status: draft.status } : {}), ...(Object.keys(changedFields).length ? { translated_fields: changedFields } : {}) };
    const r = await run(async () => {
      try {
        if (intoDraft) return inDraft(await intoDraft.save({ translations: { [lang]: changes } }));
        return isNew
          ? await translations.create(object.id, lang, draft.status, changedFields)
          : await withVersion(translation.id, ifMatch, (tag) => translations.update(translation.id, changes, { ifMatch: tag }));
      } catch (e) {
        const plain = plainError(e, language);
        toast.error(plain, `The ${language} translation was not saved`);
        throw plain;
      }
    });
    if (!r) return false;
    if ('fields' in r) {
      // Someone else saved this translation first: their version or mine, never a silent overwrite.
      setConflict(r);
      return false;
    }
    setConflict(null);
    setEtag(r.etag);
    const next = draftOf(r.data, fields);
    setSaved(next);
    setDraft(next);
    toast.success(intoDraft ? `${language} translation ${SAVED_TO_DRAFT}.` : `${language} translation saved.`);
    onSaved(r.data);
    return true;
  };
  /** This language as the draft `next` holds it, shaped as a write's answer. */
  const inDraft = (next: Resource) => {
    const t = withDraftTranslations(translation ? [translation] : [], next, object.id).find((x) => x.attributes.lang === lang);
    return { data: t ?? translation!, etag: null };
  };
  useUnsavedChanges(dirty, () => save());

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save();
  };
  // Ctrl/Cmd+S inside the translation saves the translation (not the object's form).
  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      e.stopPropagation();
      form.current?.requestSubmit();
    }
  };
  const setField = (name: string, value: string) => setDraft((d) => ({ ...d, fields: { ...d.fields, [name]: value } }));

  // "Fill from the original": the original's text (a body with its images) copied into the
  // translation's fields, for the translator to write over. Fields that already hold other text
  // are replaced only when ticked in a confirmation.
  const [replacing, setReplacing] = useState<FormProperty[] | null>(null);
  const originalOf = (name: string) => {
    const v = (intoDraft?.draft ?? object).attributes[name];
    return v === null || v === undefined ? '' : String(v);
  };
  const fillable = fields.filter((f) => originalOf(f.name).trim() !== '' && draft.fields[f.name] !== originalOf(f.name));
  const fillFrom = (names: string[]) => {
    setDraft((d) => ({ ...d, fields: { ...d.fields, ...Object.fromEntries(names.map((n) => [n, originalOf(n)])) } }));
    setReplacing(null);
    toast.success(names.length ? `${names.length === 1 ? 'One field' : `${names.length} fields`} filled from the original: write the ${language} text over ${names.length === 1 ? 'it' : 'them'}.` : 'Nothing filled.');
  };
  const startFill = () => {
    const holding = fillable.filter((f) => (draft.fields[f.name] ?? '').trim() !== '');
    if (holding.length) setReplacing(holding);
    else fillFrom(fillable.map((f) => f.name));
  };

  return (
    <form ref={form} className="translation-editor" onSubmit={submit} onKeyDown={onKeyDown} aria-label={`${language} translation`} noValidate>
      <div className="translation-toolbar">
        <h3>
          {language} <span className="muted">({lang})</span>
        </h3>
        {isNew ? <span className="badge">new</span> : null}
        {dirty ? (
          <span className="badge warn" role="status">
            Unsaved translation
          </span>
        ) : null}
        <span className="spacer" />
        {!readOnly ? (
          <button type="button" onClick={startFill} disabled={!fillable.length} title={fillable.length ? undefined : 'Every field already holds the original or the original is empty'}>
            <Copy aria-hidden size={16} /> Fill from the original
          </button>
        ) : null}
        <label className="inline-select">
          Translation status
          <select value={draft.status} disabled={readOnly} onChange={(e) => setDraft((d) => ({ ...d, status: e.target.value as TranslationStatus }))}>
            {STATUS_OPTIONS.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="plain" disabled={readOnly}>
        <legend className="visually-hidden">Fields</legend>
        <div className="translation-grid">
          <div className="translation-col-head" aria-hidden>
            Original
          </div>
          <div className="translation-col-head" aria-hidden>
            {language}
          </div>
          {fields.map((f) => (
            <TranslationRow key={f.name} field={f} original={(intoDraft?.draft ?? object).attributes[f.name]} language={language} value={draft.fields[f.name] ?? ''} onChange={(v) => setField(f.name, v)} />
          ))}
        </div>
      </fieldset>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
        {!readOnly && translation ? (
          <ConfirmButton
            label="Remove language"
            icon={<Trash2 aria-hidden size={16} />}
            title={`Remove the ${language} translation?`}
            message={<p>The {language} text of every field goes; the original stays as it is. History keeps a record of it.</p>}
            confirmLabel="Remove translation"
            action={async () => {
              if (intoDraft) return void (await intoDraft.save({ translations: { [lang]: null } }).catch((e) => Promise.reject(plainError(e, language))));
              let result: unknown;
              try {
                result = await withVersion(translation.id, etag, (tag) => translations.remove(translation.id, { ifMatch: tag }));
              } catch (e) {
                throw plainError(e, language);
              }
              if (result && typeof result === 'object' && 'fields' in result) {
                const { who } = result as Conflict;
                throw new ApiError(412, 'precondition_failed', 'Someone else changed it', `${who.join(', ') || 'Someone'} saved the ${language} translation while you had it open. Close it and open it again to see their version before removing it.`);
              }
            }}
            onDone={() => {
              onDirty(false); // nothing left to guard
              toast.success(intoDraft ? `${language} translation removed: ${SAVED_TO_DRAFT}.` : `${language} translation removed.`);
              onRemoved(translation);
            }}
          />
        ) : null}
        {!readOnly ? (
          <button type="submit" className="primary" disabled={busy}>
            <Save aria-hidden size={16} /> Save translation
          </button>
        ) : null}
      </div>
      {replacing ? (
        <FillDialog
          language={language}
          empty={fillable.filter((f) => !replacing.includes(f)).map((f) => f.name)}
          holding={replacing}
          onCancel={() => setReplacing(null)}
          onFill={fillFrom}
        />
      ) : null}
      {conflict ? (
        <ConflictDialog
          what={`the ${language} translation`}
          conflict={conflict}
          busy={busy}
          onCancel={() => setConflict(null)}
          onReload={() => {
            const theirs = draftOf(conflict.current.data as Translation, fields);
            setSaved(theirs);
            setDraft(theirs);
            setEtag(conflict.current.etag);
            setConflict(null);
          }}
          onOverwrite={() => void save(conflict.current.etag)}
        />
      ) : null}
    </form>
  );
}

/** Which fields that hold text of their own the original replaces (none ticked at first). */
function FillDialog({ language, empty, holding, onCancel, onFill }: { language: string; empty: string[]; holding: FormProperty[]; onCancel: () => void; onFill: (names: string[]) => void }) {
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const names = [...empty, ...holding.filter((f) => ticked.has(f.name)).map((f) => f.name)];
  return (
    <Dialog title="Fill from the original" onClose={onCancel}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          e.stopPropagation();
          onFill(names);
        }}
      >
        <p className="dialog-body">
          {empty.length ? `${empty.map(fieldLabel).join(', ')}: filled from the original. ` : ''}
          These fields already hold {language} text. Tick those the original should replace.
        </p>
        <fieldset className="choices">
          <legend>Replace with the original</legend>
          {holding.map((f) => (
            <label className="inline" key={f.name}>
              <input type="checkbox" checked={ticked.has(f.name)} onChange={(e) => setTicked((t) => (e.target.checked ? new Set(t).add(f.name) : new Set([...t].filter((n) => n !== f.name))))} />
              {fieldLabel(f.name)}
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!names.length}>
            {names.length === 1 ? 'Fill one field' : `Fill ${names.length} fields`}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function TranslationRow({ field, original, language, value, onChange }: { field: FormProperty; original: unknown; language: string; value: string; onChange: (v: string) => void }) {
  const label = `${fieldLabel(field.name)} (${language})`;
  const originalId = useId();
  const text = original === null || original === undefined ? '' : String(original);
  return (
    <>
      <div className="translation-original">
        <span className="field-label">{fieldLabel(field.name)}</span>
        {field.kind === 'html' ? (
          text ? (
            <HtmlPreview html={text} className="original-text rich-preview" id={originalId} scrollLabel={`${fieldLabel(field.name)}, original`} />
          ) : (
            <div className="original-text muted" id={originalId}>
              (empty)
            </div>
          )
        ) : (
          <div className="original-text" id={originalId}>
            {text || <span className="muted">(empty)</span>}
          </div>
        )}
      </div>
      <div className="translation-input">
        {field.kind === 'html' ? (
          <RichTextField label={label} value={value} onChange={onChange} />
        ) : (
          <div className="field">
            <label>
              {label}
              {field.kind === 'textarea' ? (
                <textarea value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={originalId} />
              ) : (
                <input value={value} maxLength={field.maxLength} onChange={(e) => onChange(e.target.value)} aria-describedby={originalId} />
              )}
            </label>
          </div>
        )}
      </div>
    </>
  );
}
