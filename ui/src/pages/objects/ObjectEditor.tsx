// One object's page: for media, the preview and file facts on top; the form made from the type's
// schema (rich text for HTML fields, technical fields under "Advanced"); its translations beside
// the original; the folders it is filed in; its relations; notes on it (annotations). Unsaved
// edits are guarded (leaving asks, closing the tab asks), Ctrl/Cmd+S saves, and every save or
// failure says so in a toast. Saves name the version the page loaded (If-Match); when someone else
// saved in between, a dialog shows what they changed. The publication window, and for associated
// types the categories, tags and date ranges, have their own controls, checked before the save is
// sent.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, drafts, trash, ConflictError, errorMessage, etagVersion, nameObjects, type Resource, type SingleResult } from '../../api/client';
import { ConfirmButton, Dialog } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/feedback';
import { SelectField, STATUS_OPTIONS, StatusBadge, useFieldError, type Values } from '../../components/fields';
import { formatDate, titleOf } from '../../components/format';
import { LockKeyhole, RotateCcw, Save, Trash2 } from '../../components/icons';
import { useAction } from '../../components/use-list';
import { isMediaType, typeLabel, useObjectTypes } from '../../components/model';
import { forceNavigate, href } from '../../components/route';
import { SchemaFields, attributesFromForm, changedAttributes, useSchema, type FormProperty } from '../../components/schema-form';
import { useToast, type Toaster } from '../../components/toast';
import { StickyHead } from '../../components/sticky-head';
import { useSaveShortcut, useUnsavedChanges } from '../../components/unsaved';
import { MediaDetails, withMediaHints } from '../media/MediaDetails';
import { HistoryPanel } from '../../components/history-panel';
import { may, useRights, type Rights } from '../../components/rights';
import { AnnotationsPanel } from './AnnotationsPanel';
import { ObjectPermsPanel } from './ObjectPermsPanel';
import { FoldersOfObject } from './FoldersOfObject';
import { RelationsPanel } from './RelationsPanel';
import { TranslationsPanel } from './TranslationsPanel';
import { ConflictDialog, describeConflict, objectValues, type Conflict } from './edit-conflict';
import { PublicationChip } from '../../components/publication';
import { PublicationWindow, windowProblems, type Problems } from './PublicationWindow';
import { CategoriesPicker, DateRangesField, TagsInput, rangeProblems } from './TermsFields';
import type { RangeValue, Term } from '../../components/schema-form';
import { findHoles, publishHoles, PublishCheckDialog, type Hole } from './publish-check';
import { requiredProblems, useSlugCheck } from './form-checks';
import { DraftPanel } from './draft-panel';
import { SAVED_TO_DRAFT, type IntoDraft } from './into-draft';

/** A published object that the user may update but not publish: their changes go into its draft. */
const inDraftMode = (rights: Rights, type: string, object: Resource) => object.attributes.status === 'on' && may(rights, 'update', type, object) && !may(rights, 'publish', type, object);

/** Brings an object the user just trashed back, and them back to its page. */
async function undoTrash(toast: Toaster, type: string, object: Resource) {
  try {
    await trash.restore(object.id);
  } catch (e) {
    toast.error(nameObjects(e, [object]), `“${titleOf(object)}” is still in the trash`);
    return;
  }
  toast.success(`“${titleOf(object)}” restored.`, { next: true });
  forceNavigate(href('objects', type, object.id));
}

/** Why the user may read this object but not change it (said above the form), null when they may change it. */
function readOnlyReason(rights: Rights, type: string, object: Resource): string | null {
  if (may(rights, 'update', type, object)) return null;
  const restricted = (object.meta.perms as { roles?: string[] } | undefined)?.roles?.length ? ' It is also restricted to some roles.' : '';
  if ((rights.byType[type] ?? []).includes('update:own')) return `Read only: your roles let you change the ${type} you created, and someone else created this one.${restricted}`;
  return `Read only: your roles let you read ${type}, not change them.${restricted} Ask an administrator if you need to.`;
}

/** Questions already answered for the save in progress. */
type Asked = { slug?: boolean; holes?: boolean };

/** Fields the editor shows in their own groups rather than in the generated form. */
const WINDOW = new Set(['publish_start', 'publish_end']);

/** `back`: where the page's back link (and a move to the trash) leads, when not to the type's list
 *  (a media object opened from Media goes back to the library, its filters kept). */
export function ObjectEditor({ type, id, back }: { type: string; id: string; back?: { href: string; label: string } }) {
  const { properties, error: schemaError } = useSchema(type);
  const { types } = useObjectTypes();
  const rights = useRights();
  const [object, setObject] = useState<Resource | null>(null);
  // The version this page edits: the ETag it loaded, then that of each save from this page.
  const [etag, setEtag] = useState<string | null>(null);
  const [included, setIncluded] = useState<Resource[]>([]);
  const [loadError, setLoadError] = useState<unknown>(null);
  // The object's draft (changes saved beside the published object), null when it has none.
  const [draft, setDraft] = useState<Resource | null | undefined>(undefined);
  // Bumped when the history panel restored a version: the object and its form load again.
  const [version, setVersion] = useState(0);

  useEffect(() => {
    setObject(null);
    setDraft(undefined);
    Promise.all([api.get(`/${type}/${id}`), drafts.get(id).catch(() => null)]).then(([r, d]) => {
      setDraft(d);
      setObject(r.data);
      setEtag(r.etag);
      setIncluded(r.included);
    }, setLoadError);
  }, [type, id, version]);
  const onSaved = (r: SingleResult) => {
    setObject(r.data);
    setEtag(r.etag);
  };
  const reload = () => setVersion((v) => v + 1);
  // A relation, folder or translation change made on this page moves the object's version by one: the page
  // takes the new ETag then, unless more than its own write happened (someone else's save must
  // still show as a conflict at the next save).
  const ownWrite = () =>
    api.get(`/${type}/${id}`).then(
      (r) =>
        setEtag((old) => {
          const [was, now] = [etagVersion(old), etagVersion(r.etag)];
          return was !== null && now !== null && now - was <= 1 ? r.etag : old;
        }),
      () => {},
    );

  // Not found: it may be in the trash (moved there from another tab, or a bookmark).
  const [trashed, setTrashed] = useState<Resource | null>(null);
  useEffect(() => {
    setTrashed(null);
    if (loadError instanceof ApiError && loadError.status === 404) trash.get(id).then((r) => setTrashed(r.data), () => {});
  }, [loadError, id]);

  const error = schemaError ?? loadError;
  if (trashed) return <TrashedObject type={type} object={trashed} onRestored={() => (setLoadError(null), reload())} />;
  if (error) return <ErrorNote error={error} />;
  // The form starts from the draft's values or the live ones by the user's rights: read them first.
  if (!properties || !object || !rights.loaded) return <Loading />;
  // A published object's translations, folders and relations change it for readers at once: without
  // `publish` the server refuses them, so they go into the draft, as the form's fields do.
  const intoDraft: IntoDraft | undefined = inDraftMode(rights, type, object)
    ? {
        draft: draft ?? null,
        save: async (parts) => {
          const next = await drafts.save(type, object.id, {}, parts);
          setDraft(next);
          return next;
        },
      }
    : undefined;
  const partsReadOnly = !may(rights, 'update', type, object);
  return (
    <section>
      <p className="back">
        <a href={back?.href ?? href('objects', type)}>‹ {back?.label ?? typeLabel(types, type)}</a>
      </p>
      <ObjectForm
        listHref={back?.href ?? href('objects', type)}
        key={version}
        type={type}
        object={object}
        etag={etag}
        properties={properties}
        onSaved={onSaved}
        onReload={reload}
        draft={draft ?? null}
        onDraft={setDraft}
        media={isMediaType(types, type) ? <MediaDetails object={object} included={included} /> : null}
      />
      <TranslationsPanel object={object} properties={properties} readOnly={partsReadOnly} onWritten={ownWrite} intoDraft={intoDraft} />
      <FoldersOfObject object={object} readOnly={partsReadOnly} onWritten={ownWrite} intoDraft={intoDraft} />
      <RelationsPanel object={object} readOnly={partsReadOnly} onWritten={ownWrite} intoDraft={intoDraft} />
      <AnnotationsPanel object={object} />
      <ObjectPermsPanel object={object} etag={etag} onSaved={onSaved} />
      <HistoryPanel objectPath={`/${type}/${object.id}`} refresh={object} onRestored={reload} canRestore={may(rights, 'update', type, object)} />
    </section>
  );
}

/** An object in the trash, opened by its address: said so, with its restore (GET /trash/{id} answered, so the user may). */
function TrashedObject({ type, object, onRestored }: { type: string; object: Resource; onRestored: () => void }) {
  const { busy, error, run } = useAction();
  const toast = useToast();
  const restore = () =>
    void run(async () => {
      await trash.restore(object.id);
      toast.success(`“${titleOf(object)}” restored.`);
      onRestored();
    });
  return (
    <section>
      <p className="back">
        <a href={href('objects', type)}>‹ {type}</a>
      </p>
      <h1>{titleOf(object)}</h1>
      <div className="readonly-banner" role="note">
        <LockKeyhole aria-hidden size={18} />
        <span>“{titleOf(object)}” is in the trash: it cannot be read or changed until it is restored.</span>
        <button type="button" onClick={restore} disabled={busy}>
          <RotateCcw aria-hidden size={16} /> Restore
        </button>
      </div>
      <ErrorNote error={error} />
    </section>
  );
}

function ObjectForm({
  type,
  object,
  etag,
  properties,
  onSaved,
  onReload,
  draft,
  onDraft,
  media,
  listHref,
}: {
  listHref: string;
  type: string;
  object: Resource;
  etag: string | null;
  properties: FormProperty[];
  onSaved: (r: SingleResult) => void;
  /** Drop the form and load the object as it is now. */
  onReload: () => void;
  /** The object's draft, null when it has none. */
  draft: Resource | null;
  onDraft: (draft: Resource | null) => void;
  media: React.ReactNode;
}) {
  const toValues = (o: Resource): Values => objectValues(properties, o);
  const rightsFirst = useRights();
  // A published object changed by a user without `publish`: the form edits its draft (and shows
  // the draft's values), saves go to /drafts/{id}.
  const draftMode = inDraftMode(rightsFirst, type, object);
  const [saved, setSaved] = useState<Values>(() => toValues(draftMode && draft ? draft : object));
  const [values, setValues] = useState<Values>(saved);
  /** One field's change, made to the values as they are then. */
  const setField = (name: string) => (v: unknown) => setValues((old) => ({ ...old, [name]: v }));
  // The server's copy this form edits (as form values) and when it was written: what a conflict
  // is compared with.
  const loaded = useRef({ values: saved, modified: object.meta.modified as unknown });
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toast = useToast();
  const form = useRef<HTMLFormElement>(null);
  const formId = useId();
  const locked = Boolean(object.meta.locked);
  const dirty = JSON.stringify(values) !== JSON.stringify(saved);
  // The title is required (but for media, named after their file): marked like schema-required fields.
  const main = properties.filter((p) => !p.advanced && !WINDOW.has(p.name)).map((p) => (media !== null ? withMediaHints(p) : p.name === 'title' ? { ...p, required: true } : p));
  const advanced = properties.filter((p) => p.advanced && !WINDOW.has(p.name));
  const has = (name: string, kind: FormProperty['kind']) => properties.some((p) => p.name === name && p.kind === kind);
  const hasWindow = properties.some((p) => WINDOW.has(p.name));
  // Checked once a save was refused for them, then again at every keystroke (a fixed field's
  // message goes away).
  const [checking, setChecking] = useState(false);
  const isMedia = media !== null;
  const slug = useSlugCheck(String(values.uname ?? ''), String(saved.uname ?? ''), object.id);
  // What the server refused at the last save, shown on its field until that field changes.
  const refused = useFieldError(error, values, properties.map((p) => p.name));
  const problemsOf = (v: Values): Problems => ({
    ...requiredProblems(properties, v, !isMedia),
    ...(slug.taken && v.uname === slug.checked ? { uname: slug.taken } : {}),
    ...(hasWindow ? windowProblems(v) : {}),
    ...(has('date_ranges', 'ranges') ? rangeProblems(v.date_ranges as RangeValue[]) : {}),
  });
  const problems: Problems = {
    ...(checking ? problemsOf(values) : slug.taken && values.uname === slug.checked ? { uname: slug.taken } : {}),
    ...refused.problems,
  };
  // A question to answer before the save goes on: a published object's address changing, or
  // what it uses that the public cannot see.
  const [question, setQuestion] = useState<{ kind: 'slug' } | { kind: 'holes'; holes: Hole[] } | null>(null);
  const [asked, setAsked] = useState<Asked>({});
  const [fixing, setFixing] = useState<{ busy: boolean; error: unknown }>({ busy: false, error: null });
  const rightsNow = useRights();

  const path = `/${type}/${object.id}`;
  /** Mark and focus the first field in trouble (opening "Advanced" when it is in there). */
  const focusProblem = (name: string) =>
    setTimeout(() => {
      const el = form.current?.querySelector<HTMLElement>(`[data-problem="${name}"]`);
      const details = el?.closest('details');
      if (details) details.open = true;
      const target = el?.matches('input, select, textarea') ? el : el?.querySelector<HTMLElement>('input, select, textarea, [contenteditable="true"]');
      target?.focus();
    }, 0);
  /** Send what changed since the copy this form edits, as a change of version `ifMatch`. */
  const save = async (ifMatch = etag, answered: Asked = {}): Promise<boolean> => {
    const found = Object.keys(problemsOf(values));
    if (found.length) {
      setChecking(true);
      toast.error(new ApiError(400, 'invalid_form', 'Check the form', found.length === 1 ? 'One field needs fixing; it is marked in the form.' : `${found.length} fields need fixing; they are marked in the form.`), 'The changes were not saved');
      focusProblem(found[0]);
      return false;
    }
    let attributes: Record<string, unknown>;
    let before: Record<string, unknown>;
    try {
      attributes = { ...attributesFromForm(properties, values), status: values.status };
      before = { ...attributesFromForm(properties, saved), status: saved.status };
    } catch (e) {
      setError(e);
      toast.error(e, 'The changes were not saved');
      return false;
    }
    // A published page's address is about to change: links to the old one stop working.
    if (!answered.slug && saved.status === 'on' && values.uname !== saved.uname) {
      setAsked(answered);
      setQuestion({ kind: 'slug' });
      return false;
    }
    // Public after this save: is everything it uses public too?
    if (!answered.holes && !draftMode && attributes.status === 'on') {
      setBusy(true);
      try {
        const holes = await findHoles(object, attributes, rightsNow);
        if (holes.length) {
          setAsked(answered);
          setFixing({ busy: false, error: null });
          setQuestion({ kind: 'holes', holes });
          return false;
        }
      } catch (e) {
        setError(e);
        toast.error(e, 'The changes were not saved');
        return false;
      } finally {
        setBusy(false);
      }
    }
    setBusy(true);
    setError(null);
    let result;
    const changes = changedAttributes(before, attributes);
    if (draftMode) return saveDraft(changes);
    try {
      result = await api.update(path, type, object.id, changes, undefined, { ifMatch });
    } catch (e) {
      if (e instanceof ConflictError) return await resolveConflict(answered);
      return refuse(e);
    } finally {
      setBusy(false);
    }
    const next = toValues(result.data);
    // What the server stored is the new baseline; what is typed stays as typed, and fields left
    // alone take the stored value (another editor's, after an overwrite).
    const edited = (name: string) => JSON.stringify(values[name]) !== JSON.stringify(saved[name]);
    const merged = Object.fromEntries(Object.keys(next).map((k) => [k, edited(k) && k !== 'uname' ? values[k] : next[k]]));
    loaded.current = { values: next, modified: result.data.meta.modified };
    setSaved(merged);
    setValues(merged);
    setConflict(null);
    setChecking(false);
    onSaved(result);
    // The server keeps unique names unique by adding a number: say so when it did.
    if (typeof changes.uname === 'string' && changes.uname && result.data.attributes.uname !== changes.uname) {
      toast.success(`Changes saved. The unique name “${changes.uname}” was taken, so it is “${String(result.data.attributes.uname)}”.`);
    } else toast.success('Changes saved.');
    return true;
  };
  /** A save the server refused: said in a toast, and on its field when it names one. */
  const refuse = (e: unknown): false => {
    nameObjects(e, [object]);
    const field = errorMessage(e).field;
    if (field && properties.some((p) => p.name === field)) focusProblem(field);
    setError(e);
    toast.error(e, 'The changes were not saved');
    return false;
  };
  /** Saves the changes into the object's draft (the live object stays as it is). */
  const saveDraft = async (changes: Record<string, unknown>): Promise<boolean> => {
    delete changes.status;
    setBusy(true);
    let next: Resource;
    try {
      next = await drafts.save(type, object.id, changes);
    } catch (e) {
      return refuse(e);
    } finally {
      setBusy(false);
    }
    const stored = toValues(next);
    setSaved(stored);
    setValues(stored);
    setChecking(false);
    onDraft(next);
    toast.success(`Changes ${SAVED_TO_DRAFT}: a publisher will review them.`);
    return true;
  };
  const answer = (more: Asked) => {
    setQuestion(null);
    void save(etag, { ...asked, ...more });
  };
  const publishThemToo = async (holes: Hole[]) => {
    setFixing({ busy: true, error: null });
    try {
      await publishHoles(holes);
    } catch (e) {
      setFixing({ busy: false, error: e });
      return;
    }
    setFixing({ busy: false, error: null });
    toast.success(`${holes.filter((h) => !h.blocked).length === 1 ? 'One item' : `${holes.filter((h) => !h.blocked).length} items`} it uses published.`);
    answer({ holes: true });
  };
  /** After a 412: what others changed in this form. When they changed nothing here (relations,
   *  folders, this page's own panels), the save goes again against the current version. */
  const resolveConflict = async (answered: Asked): Promise<boolean> => {
    let found: Conflict;
    try {
      found = await describeConflict(path, properties, toValues, { ...loaded.current, etag }, values);
    } catch (e) {
      setError(e);
      toast.error(e, 'The changes were not saved');
      return false;
    }
    if (!found.fields.length && found.current.etag) return save(found.current.etag, answered);
    setAsked(answered);
    setConflict(found);
    return false;
  };
  useUnsavedChanges(dirty, () => save());
  useSaveShortcut(form);
  // Only what the user's roles allow: no Publish without `publish`, no trash without `delete`.
  const rights = rightsNow;
  const canWrite = may(rights, 'update', type, object);
  const canPublish = may(rights, 'publish', type, object);
  const canDelete = may(rights, 'delete', type, object);
  const readOnly = readOnlyReason(rights, type, object);
  const published = object.attributes.status === 'on';
  const statusOptions = canPublish || published ? STATUS_OPTIONS : STATUS_OPTIONS.filter(([v]) => v !== 'on');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await save();
  };

  return (
    <>
      <StickyHead>
        <h1 title={titleOf(object)}>{titleOf(object)}</h1>
        <StatusBadge status={object.attributes.status} />
        <PublicationChip attributes={object.attributes} />
        {locked ? <span className="badge">locked</span> : null}
        {dirty ? (
          <span className="badge warn" role="status">
            Unsaved changes
          </span>
        ) : null}
        <span className="spacer" />
        {canWrite ? (
          <button type="submit" form={formId} className="primary" disabled={busy} title="Save (Ctrl+S)">
            <Save aria-hidden size={16} /> Save
          </button>
        ) : null}
        {canDelete ? (
        <ConfirmButton
          label="Move to trash"
          icon={<Trash2 aria-hidden size={16} />}
          title="Move this object to the trash?"
          message={<p>You can restore it from the trash later, or undo right after.</p>}
          action={() => api.remove(path, { ifMatch: etag }).catch((e) => Promise.reject(nameObjects(e, [object])))}
          onDone={() => {
            toast.success(`“${titleOf(object)}” moved to the trash.`, { next: true, action: { label: 'Undo', run: () => void undoTrash(toast, type, object) } });
            forceNavigate(listHref);
          }}
          disabled={locked}
          buttonTitle={locked ? 'A locked object cannot be deleted' : undefined}
        />
        ) : null}
      </StickyHead>
      {draft ? (
        <DraftPanel
          type={type}
          live={object}
          etag={etag}
          draft={draft}
          properties={properties}
          canPublish={canPublish}
          onDraft={onDraft}
          onPublished={() => {
            setSaved(values);
            onReload();
          }}
        />
      ) : null}
      {draftMode && !draft ? (
        <p className="notice draft-note">This {object.type.replace(/s$/, '')} is published: your changes are saved as a draft for a publisher to review.</p>
      ) : null}
      {readOnly ? (
        <div className="readonly-banner" role="note" id={`${formId}-readonly`}>
          <LockKeyhole aria-hidden size={18} />
          <span>{readOnly}</span>
        </div>
      ) : null}
      {media}
      <form id={formId} className="panel" onSubmit={submit} aria-label="Edit object" ref={form} noValidate aria-describedby={readOnly ? `${formId}-readonly` : undefined}>
        {/* Read-only for users whose roles do not allow changing it. */}
        <fieldset className="plain" disabled={!canWrite}>
        <div className="form-grid">
          <SelectField label="Status" name="status" values={values} onChange={setValues} options={statusOptions} disabled={locked || !canWrite || (published && !canPublish)} />
          <SchemaFields properties={main} values={values} onChange={setValues} problems={problems} notes={slug.notes} />
        </div>
        {hasWindow ? <PublicationWindow values={values} onChange={setValues} problems={problems} disabled={!canWrite} /> : null}
        {has('date_ranges', 'ranges') ? (
          <DateRangesField value={(values.date_ranges ?? []) as RangeValue[]} onChange={setField('date_ranges')} problems={problems} />
        ) : null}
        {has('categories', 'terms') ? (
          <CategoriesPicker type={type} value={(values.categories ?? []) as Term[]} onChange={setField('categories')} />
        ) : null}
        {has('tags', 'terms') ? <TagsInput value={(values.tags ?? []) as Term[]} onChange={setField('tags')} /> : null}
        {advanced.length ? (
          <details className="advanced">
            <summary>Advanced</summary>
            <div className="form-grid">
              <SchemaFields properties={advanced} values={values} onChange={setValues} problems={problems} notes={slug.notes} />
            </div>
          </details>
        ) : null}
        </fieldset>
        <p className="muted">
          #{object.id} · created {formatDate(object.meta.created)} · modified {formatDate(object.meta.modified)} · published {formatDate(object.meta.published)}
        </p>
        <ErrorNote error={refused.general} />
        {canWrite ? (
          <div className="actions">
            <span className="muted shortcut-hint">Ctrl+S saves</span>
            <button type="submit" className="primary" disabled={busy}>
              Save changes
            </button>
          </div>
        ) : null}
      </form>
      {question?.kind === 'slug' ? (
        <Dialog title="Change the address of a published page?" onClose={() => setQuestion(null)}>
          <div className="dialog-body" data-autofocus tabIndex={-1}>
            <p>
              “{titleOf(object)}” is published as <code>{String(saved.uname)}</code>. Saving makes it <code>{String(values.uname)}</code>: links and bookmarks to the old
              address stop working.
            </p>
          </div>
          <div className="actions">
            <button type="button" onClick={() => setQuestion(null)}>
              Keep editing
            </button>
            <button type="button" className="primary" onClick={() => answer({ slug: true })}>
              Change the address
            </button>
          </div>
        </Dialog>
      ) : null}
      {question?.kind === 'holes' ? (
        <PublishCheckDialog
          subject={`“${String(values.title || titleOf(object))}”`}
          holes={question.holes}
          busy={fixing.busy}
          error={fixing.error}
          onCancel={() => setQuestion(null)}
          onSaveAnyway={() => answer({ holes: true })}
          onPublishAll={() => void publishThemToo(question.holes)}
        />
      ) : null}
      {conflict ? (
        <ConflictDialog
          conflict={conflict}
          busy={busy}
          onCancel={() => setConflict(null)}
          onReload={() => {
            setConflict(null);
            setSaved(values); // nothing left to guard: the edits are dropped on purpose
            onReload();
          }}
          onOverwrite={() => void save(conflict.current.etag, asked)}
        />
      ) : null}
    </>
  );
}
