// Object types and their custom properties (/model/object_types, /model/properties), and the
// property types those properties use (/model/property_types); the whole model as a file. Types
// read as words (their labels; the machine name beside); a new type opens on its roles and
// relations (TypeSetup); custom properties are edited (label, description, required) and
// reordered (their `position`), not only deleted.
import { useState, type FormEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { ConfirmButton, DeleteButton, Dialog } from '../../components/dialog';
import { ArrowDown, ArrowUp } from '../../components/icons';
import { useToast } from '../../components/toast';
import { TypeSetup } from './TypeSetup';
import { ErrorNote, Loading } from '../../components/feedback';
import { DataTable } from '../../components/data-table';
import { useResource } from '../../components/use-resource';
import { Field, SelectField, nullIfEmpty, type Values, FormFooter } from '../../components/fields';
import { invalidateObjectTypes, typeLabel, useObjectTypes } from '../../components/model';
import { forceNavigate, href, navigate, useHashQuery } from '../../components/route';
import { useAction, useList } from '../../components/use-list';
import { ModelFilePanel } from './ModelFile';
import { PropertyTypesSection, choicesOf, usePropertyTypes } from './PropertyTypes';
import { BackLink } from '../../components/page-head';

export function ModelPage({ route }: { route: string[] }) {
  return route[0] ? <TypeDetail name={route[0]} /> : <TypeList />;
}

function TypeList() {
  const { types, error } = useObjectTypes();
  const [values, setValues] = useState<Values>({ parent_name: 'objects' });
  const create = useAction();
  const parents = (types ?? []).filter((t) => t.abstract);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const attributes = { name: values.name, singular: values.singular, ...nullIfEmpty(values, ['description', 'parent_name']) };
    const r = await create.run(() => api.create('/model/object_types', 'object_types', attributes));
    if (r) {
      invalidateObjectTypes();
      // Straight on to who may use it and what it relates to.
      forceNavigate(`${href('model', String(r.data.attributes.name))}?setup=1`);
    }
  };

  return (
    <section>
      <h1>Object types</h1>
      <form className="panel" onSubmit={submit} aria-label="New object type">
        <h2>New object type</h2>
        <div className="form-grid">
          <Field label="Name" name="name" values={values} onChange={setValues} required hint="plural, lower_snake_case, e.g. recipes" />
          <Field label="Singular" name="singular" values={values} onChange={setValues} required hint="e.g. recipe" />
          <SelectField label="Parent type" name="parent_name" values={values} onChange={setValues} options={parents.map((t) => [t.name, t.label])} />
          <Field label="Description" name="description" values={values} onChange={setValues} />
        </div>
        <FormFooter error={create.error} busy={create.busy} label="Create type" />
      </form>
      <DataTable
        label="Object types"
        rows={types}
        error={error}
        loading={!types && !error}
        rowKey={(t) => t.name}
        empty="No object types."
        columns={[
          {
            header: 'Name',
            cell: (t) => (
              <>
                <a href={href('model', t.name)}>{t.label}</a> <code className="muted machine-name">{t.name}</code>{' '}
                {t.abstract ? <span className="badge" title="Abstract: its objects are those of its sub-types">group of types</span> : null}{' '}
                {!t.enabled ? <span className="badge warn">disabled</span> : null}
              </>
            ),
          },
          { header: 'Singular', cell: (t) => t.singularLabel },
          { header: 'Parent', cell: (t) => (t.parent ? typeLabel(types, t.parent) : '—') },
          { header: 'Description', cell: (t) => t.description ?? '—' },
        ]}
      />
      <ModelFilePanel />
      <PropertyTypesSection />
    </section>
  );
}

/** A machine name in words, as a form labels a property without a label ("cooking_time" → "Cooking time"). */
function fieldWords(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const propertyName = (p: Resource) => String(p.attributes.label || fieldWords(String(p.attributes.name)));

/** A property's label, description and whether it is required (its name and type stay: BEdita keeps them). */
function EditPropertyDialog({ property, onClose, onSaved }: { property: Resource; onClose: () => void; onSaved: () => void }) {
  const [values, setValues] = useState<Values>({ label: property.attributes.label ?? '', description: property.attributes.description ?? '', required: Boolean(property.attributes.required) });
  const { busy, error, run } = useAction();
  const toast = useToast();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const attributes = { label: String(values.label ?? '').trim() || null, description: String(values.description ?? '').trim() || null, required: Boolean(values.required) };
    if (await run(() => api.update(`/model/properties/${property.id}`, 'properties', property.id, attributes))) {
      invalidateObjectTypes();
      toast.success(`Property “${String(property.attributes.name)}” saved.`);
      onSaved();
    }
  };
  return (
    <Dialog title={`Edit property ${String(property.attributes.name)}`} onClose={onClose}>
      <form className="stack" onSubmit={submit} aria-label="Edit property">
        <p className="muted">
          Its name <code>{String(property.attributes.name)}</code> and type ({String(property.attributes.property_type_name)}) stay: they are how the API and stored values know it.
        </p>
        <Field label="Label" name="label" values={values} onChange={setValues} hint={`What editors read; empty: “${fieldWords(String(property.attributes.name))}”`} />
        <Field label="Description" name="description" values={values} onChange={setValues} />
        <Field label="Required" name="required" type="checkbox" values={values} onChange={setValues} />
        <FormFooter error={error} busy={busy} label="Save property" onCancel={onClose} />
      </form>
    </Dialog>
  );
}

/** BEdita's associations an admin may give a type: the extra data its objects carry. */
const ASSOCIATIONS: Array<[string, string, string]> = [
  ['Categories', 'Categories', 'objects pick categories of this type'],
  ['Tags', 'Tags', 'objects carry free tags'],
  ['DateRanges', 'Date ranges', 'objects carry start and end dates, as events do'],
];

function TypeDetail({ name }: { name: string }) {
  const { resource: type, values, setValues, loadError, notice, save, submit: write } = useResource(`/model/object_types/${name}`);
  const { types } = useObjectTypes();
  const [params] = useHashQuery();
  // A new type: the setup panel comes first (its heading takes the focus, so it is read out).
  const justCreated = params.setup === '1';
  const associations: string[] = values.associations ?? [];
  const toggle = (association: string, on: boolean) => {
    const next = on ? [...associations.filter((a) => a !== association), association] : associations.filter((a) => a !== association);
    setValues({ ...values, associations: next });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const attributes = {
      singular: values.singular,
      enabled: Boolean(values.enabled),
      is_translatable: Boolean(values.is_translatable),
      associations: associations.length ? associations : null,
      ...nullIfEmpty(values, ['description']),
    };
    if (await write(() => api.update(`/model/object_types/${type!.id}`, 'object_types', type!.id, attributes))) invalidateObjectTypes();
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!type) return <Loading />;
  return (
    <section>
      <BackLink area="model" label="Object types" />
      <div className="page-head">
        <h1>{typeLabel(types, name)}</h1>
        <code className="muted machine-name" title="Its name in the API">
          {name}
        </code>
        {type.attributes.is_abstract ? <span className="badge">group of types</span> : null}
        <span className="spacer" />
        <ConfirmButton
          label="Delete type"
          title="Delete this object type?"
          message={
            <p>
              The type <strong>{name}</strong> will be deleted. Types that still have objects, sub-types, or are core types cannot be deleted.
            </p>
          }
          action={() => api.remove(`/model/object_types/${type.id}`)}
          onDone={() => {
            invalidateObjectTypes();
            navigate('model');
          }}
        />
      </div>
      {justCreated ? <TypeSetup typeName={name} justCreated /> : null}
      <form className="panel" onSubmit={submit} aria-label="Object type">
        <div className="form-grid">
          <Field label="Singular" name="singular" values={values} onChange={setValues} required />
          <Field label="Description" name="description" values={values} onChange={setValues} />
          <Field label="Enabled" name="enabled" type="checkbox" values={values} onChange={setValues} />
          <Field label="Translatable" name="is_translatable" type="checkbox" values={values} onChange={setValues} />
        </div>
        <fieldset className="choices">
          <legend>Associations</legend>
          {ASSOCIATIONS.map(([value, label, hint]) => (
            <label key={value} className="inline">
              <input type="checkbox" checked={associations.includes(value)} onChange={(e) => toggle(value, e.target.checked)} />
              {label} <span className="hint">({hint})</span>
            </label>
          ))}
          {associations
            .filter((a) => !ASSOCIATIONS.some(([v]) => v === a))
            .map((a) => (
              <span key={a} className="badge" title="Set by the model; kept as is">
                {a}
              </span>
            ))}
        </fieldset>
        <FormFooter error={save.error} notice={notice} busy={save.busy} label="Save changes" />
      </form>
      <Properties typeName={name} />
      {justCreated ? null : <TypeSetup typeName={name} justCreated={false} />}
    </section>
  );
}

function Properties({ typeName }: { typeName: string }) {
  const list = useList('/model/properties', { 'filter[object_type_name]': typeName }, 100);
  const [editing, setEditing] = useState<Resource | null>(null);
  const toast = useToast();
  const move = useAction();
  // In their order: placed ones by position, the others after them by creation (as the schema lists them).
  const ordered = [...(list.result?.data ?? [])].sort(
    (a, b) => (Number(a.attributes.position) || Infinity) - (Number(b.attributes.position) || Infinity) || Number(a.id) - Number(b.id),
  );
  /** Move one property up or down: every property of the type gets its place (1, 2, …). */
  const reorder = async (p: Resource, by: -1 | 1) => {
    const from = ordered.findIndex((x) => x.id === p.id);
    const next = [...ordered];
    next.splice(from, 1);
    next.splice(from + by, 0, p);
    const done = await move.run(async () => {
      for (const [i, x] of next.entries()) {
        if (Number(x.attributes.position) !== i + 1) await api.update(`/model/properties/${x.id}`, 'properties', x.id, { position: i + 1 });
      }
      return true;
    });
    await list.reload();
    if (done) toast.success(`“${propertyName(p)}” moved ${by < 0 ? 'up' : 'down'}: forms show it ${ordered.length > 1 ? `at place ${from + by + 1} of ${ordered.length}` : 'first'}.`);
  };
  const [values, setValues] = useState<Values>({ property_type_name: 'string' });
  const { busy, error, run } = useAction();
  const { types: propertyTypes, error: typesError } = usePropertyTypes();
  const typeOptions: Array<[string, string]> = (propertyTypes ?? []).map((t) => {
    const choices = choicesOf(t);
    return [t.attributes.name, choices ? `${t.attributes.name} (choice list: ${choices.slice(0, 4).join(', ')}${choices.length > 4 ? '…' : ''})` : t.attributes.name];
  });
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const attributes = {
      name: values.name,
      property_type_name: values.property_type_name,
      object_type_name: typeName,
      required: Boolean(values.required),
      ...nullIfEmpty(values, ['description']),
    };
    if (await run(() => api.create('/model/properties', 'properties', attributes))) {
      setValues({ property_type_name: 'string' });
      await list.reload();
    }
  };
  return (
    <section>
      <h2>Custom properties</h2>
      <p className="muted">In the order the object form shows them; a label is the name editors read.</p>
      <ErrorNote error={move.error} />
      <DataTable
        label="Custom properties"
        rows={list.result ? ordered : null}
        error={list.error}
        loading={list.loading}
        empty="No custom properties."
        columns={[
          { header: 'Name', cell: (p) => p.attributes.name },
          { header: 'Label', cell: (p) => p.attributes.label ?? <span className="muted">{fieldWords(String(p.attributes.name))}</span> },
          { header: 'Type', cell: (p) => p.attributes.property_type_name },
          { header: 'Required', cell: (p) => (p.attributes.required ? 'Yes' : 'No') },
          { header: 'Description', cell: (p) => p.attributes.description ?? '—' },
        ]}
        actions={(p) => (
          <span className="row-actions">
            <button type="button" className="small" aria-label={`Move ${propertyName(p)} up`} disabled={move.busy || ordered[0]?.id === p.id} onClick={() => void reorder(p, -1)}>
              <ArrowUp aria-hidden size={14} />
            </button>
            <button type="button" className="small" aria-label={`Move ${propertyName(p)} down`} disabled={move.busy || ordered[ordered.length - 1]?.id === p.id} onClick={() => void reorder(p, 1)}>
              <ArrowDown aria-hidden size={14} />
            </button>
            <button type="button" className="small" aria-label={`Edit ${propertyName(p)}`} onClick={() => setEditing(p)}>
              Edit
            </button>
          <DeleteButton
            title="Delete this property?"
            message={
              <p>
                The property <strong>{p.attributes.name}</strong> and its values will be removed from every {typeName} object.
              </p>
            }
            action={() => api.remove(`/model/properties/${p.id}`)}
          />
          </span>
        )}
      />
      {editing ? (
        <EditPropertyDialog
          property={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      ) : null}
      <form className="panel" onSubmit={add} aria-label="New property">
        <h3>New property</h3>
        <div className="form-grid">
          <Field label="Property name" name="name" values={values} onChange={setValues} required />
          <SelectField label="Property type" name="property_type_name" values={values} onChange={setValues} options={typeOptions} />
          <Field label="Property description" name="description" values={values} onChange={setValues} />
          <Field label="Required" name="required" type="checkbox" values={values} onChange={setValues} />
        </div>
        <ErrorNote error={typesError} />
        <FormFooter error={error} busy={busy} label="Add property" primary={false} />
      </form>
    </section>
  );
}
