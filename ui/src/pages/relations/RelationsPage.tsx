// Relations of the model: list, create, edit names/labels/description, choose left and right
// object types, delete (the API's 403 when objects use it is shown in the dialog). One form, one
// Save for the names and both sides; leaving with unsaved changes asks first.
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { ErrorNote, Loading, Notice } from '../../components/feedback';
import { DataTable } from '../../components/data-table';
import { useResource } from '../../components/use-resource';
import { Field, nullIfEmpty } from '../../components/fields';
import { concreteTypes, useObjectTypes } from '../../components/model';
import { forceNavigate, href } from '../../components/route';
import { useToast } from '../../components/toast';
import { useSaveShortcut, useUnsavedChanges } from '../../components/unsaved';
import { useList } from '../../components/use-list';
import { BackLink, PageHead } from '../../components/page-head';

const TEXT_FIELDS = ['label', 'inverse_label', 'description'];

export function RelationsPage({ route }: { route: string[] }) {
  if (route[0] === 'new') return <RelationEditor key="new" />;
  if (route[0]) return <RelationEditor key={route[0]} id={route[0]} />;
  return <RelationList />;
}

function RelationList() {
  const list = useList('/model/relations');
  return (
    <section>
      <PageHead title="Relations">
        <a className="button primary" href={href('relations', 'new')}>
          New relation
        </a>
      </PageHead>
      <p className="muted">A relation reads “left types — name — right types”; its inverse name reads from the right side.</p>
      <DataTable
        label="Relations"
        pagerLabel="Relation pages"
        list={list}
        empty="No relations yet."
        columns={[
          { header: 'Name', cell: (r) => <a href={href('relations', r.id)}>{r.attributes.name}</a> },
          { header: 'Inverse name', cell: (r) => r.attributes.inverse_name },
          { header: 'Labels', cell: (r) => [r.attributes.label, r.attributes.inverse_label].filter(Boolean).join(' / ') || '—' },
          { header: 'Description', cell: (r) => r.attributes.description ?? '—' },
        ]}
      />
    </section>
  );
}

const SIDES = [
  ['left_object_types', 'Left object types'],
  ['right_object_types', 'Right object types'],
] as const;
type Side = (typeof SIDES)[number][0];
type Chosen = Record<Side, Set<string>>;
const NAME_FIELDS = ['name', 'inverse_name', ...TEXT_FIELDS];

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** The object types on each side as stored (none for a relation not created yet). */
function useStoredSides(id: string | undefined) {
  const [stored, setStored] = useState<Chosen | null>(id ? null : { left_object_types: new Set(), right_object_types: new Set() });
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    if (!id) return;
    try {
      const [left, right] = await Promise.all(SIDES.map(([side]) => api.listAll(`/model/relations/${id}/${side}`)));
      setStored({ left_object_types: new Set(left.map((t) => String(t.attributes.name))), right_object_types: new Set(right.map((t) => String(t.attributes.name))) });
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [id]);
  useEffect(() => {
    void load();
  }, [load]);
  return { stored, error, reload: load };
}

function RelationEditor({ id }: { id?: string }) {
  const { resource: relation, values, setValues, loadError, save, submit: write } = useResource(id ? `/model/relations/${id}` : null);
  const sides = useStoredSides(id);
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [sidesBusy, setSidesBusy] = useState(false);
  const [sidesError, setSidesError] = useState<unknown>(null);
  const toast = useToast();
  const form = useRef<HTMLFormElement>(null);
  const selection: Chosen | null = chosen ?? sides.stored;

  const namesDirty = !id ? NAME_FIELDS.some((f) => text(values[f])) : Boolean(relation) && NAME_FIELDS.some((f) => text(values[f]) !== text(relation!.attributes[f]));
  const changedSides = selection && sides.stored ? SIDES.filter(([side]) => !sameSet(selection[side], sides.stored![side])).map(([side]) => side) : [];
  const dirty = namesDirty || changedSides.length > 0;

  /** The names (when changed), then each changed side; true when everything is stored. */
  const saveAll = async (): Promise<boolean> => {
    setNotice(null);
    let relationId = id;
    if (!id || namesDirty) {
      const attributes = { name: values.name, inverse_name: values.inverse_name, ...nullIfEmpty(values, TEXT_FIELDS) };
      const saved = await write(() => (id ? api.update(`/model/relations/${id}`, 'relations', id, attributes) : api.create('/model/relations', 'relations', attributes)));
      if (!saved) return false;
      relationId = saved.data.id;
    }
    let sidesError: unknown = null;
    setSidesError(null);
    if (changedSides.length && selection) {
      setSidesBusy(true);
      try {
        for (const side of changedSides) {
          const data = [...selection[side]].map((name) => ({ type: 'object_types', id: name }));
          await api.relate('PATCH', `/model/relations/${relationId}/relationships/${side}`, data);
        }
      } catch (e) {
        sidesError = e;
        setSidesError(e);
      } finally {
        setSidesBusy(false);
      }
    }
    const sidesSaved = !sidesError;
    if (!id) {
      if (!sidesSaved) toast.error(sidesError, 'The relation was created, but its object types were not saved', { next: true });
      else toast.success(`Relation “${String(values.name)}” created.`, { next: true });
      forceNavigate(href('relations', relationId!));
      return sidesSaved;
    }
    if (sidesSaved) {
      await sides.reload();
      setChosen(null);
      setNotice('Changes saved.');
    }
    return sidesSaved;
  };
  useUnsavedChanges(dirty, saveAll);
  useSaveShortcut(form);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await saveAll();
  };
  const toggle = (side: Side, name: string) => {
    if (!selection) return;
    const next = new Set(selection[side]);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setChosen({ ...selection, [side]: next });
    setNotice(null);
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (id && !relation) return <Loading />;
  const busy = save.busy || sidesBusy;
  return (
    <section>
      <BackLink area="relations" label="Relations" />
      <div className="page-head">
        <h1>{relation ? String(relation.attributes.name) : 'New relation'}</h1>
        {dirty ? (
          <span className="badge warn" role="status">
            Unsaved changes
          </span>
        ) : null}
        <span className="spacer" />
        {relation ? (
          <ConfirmButton
            label="Delete relation"
            title="Delete this relation?"
            message={
              <p>
                The relation <strong>{String(relation.attributes.name)}</strong> and its inverse will be deleted. This cannot be undone.
              </p>
            }
            action={() => api.remove(`/model/relations/${relation.id}`)}
            onDone={() => forceNavigate(href('relations'))}
          />
        ) : null}
      </div>
      <form className="panel" onSubmit={submit} aria-label="Relation" ref={form}>
        <div className="form-grid">
          <Field label="Name" name="name" values={values} onChange={setValues} required hint="lower_snake_case, e.g. see_also" />
          <Field label="Inverse name" name="inverse_name" values={values} onChange={setValues} required hint="e.g. seen_also_by" />
          <Field label="Label" name="label" values={values} onChange={setValues} />
          <Field label="Inverse label" name="inverse_label" values={values} onChange={setValues} />
          <Field label="Description" name="description" type="textarea" values={values} onChange={setValues} className="wide" />
        </div>
        <ErrorNote error={sides.error} />
        {selection ? (
          <div className="two-cols">
            {SIDES.map(([side, title]) => (
              <SideChoices key={side} title={title} chosen={selection[side]} onToggle={(name) => toggle(side, name)} />
            ))}
          </div>
        ) : (
          <Loading />
        )}
        <ErrorNote error={save.error ?? sidesError} />
        <Notice text={notice} />
        <div className="actions">
          <span className="muted shortcut-hint">Ctrl+S saves</span>
          <button type="submit" className="primary" disabled={busy}>
            {id ? 'Save changes' : 'Create relation'}
          </button>
        </div>
      </form>
    </section>
  );
}

function SideChoices({ title, chosen, onToggle }: { title: string; chosen: Set<string>; onToggle: (name: string) => void }) {
  const { types, error } = useObjectTypes();
  return (
    <fieldset className="choices">
      <legend>{title}</legend>
      <ErrorNote error={error} />
      <div className="checks">
        {concreteTypes(types).map((t) => (
          <label key={t.name} className="inline">
            <input type="checkbox" checked={chosen.has(t.name)} onChange={() => onToggle(t.name)} />
            {t.name}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
