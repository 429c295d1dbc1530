// Object types and their custom properties (/model/object_types, /model/properties), and the
// property types those properties use (/model/property_types); the whole model as a file.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ConfirmButton, DeleteButton } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/feedback';
import { DataTable } from '../../components/data-table';
import { useResource } from '../../components/use-resource';
import { Field, SelectField, nullIfEmpty, type Values, FormFooter } from '../../components/fields';
import { invalidateObjectTypes, useObjectTypes } from '../../components/model';
import { href, navigate } from '../../components/route';
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
      navigate('model', String(r.data.attributes.name));
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
          <SelectField label="Parent type" name="parent_name" values={values} onChange={setValues} options={parents.map((t) => [t.name, t.name])} />
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
                <a href={href('model', t.name)}>{t.name}</a> {t.abstract ? <span className="badge">abstract</span> : null}{' '}
                {!t.enabled ? <span className="badge warn">disabled</span> : null}
              </>
            ),
          },
          { header: 'Singular', cell: (t) => t.singular },
          { header: 'Parent', cell: (t) => t.parent ?? '—' },
          { header: 'Description', cell: (t) => t.description ?? '—' },
        ]}
      />
      <ModelFilePanel />
      <PropertyTypesSection />
    </section>
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
        <h1>{name}</h1>
        {type.attributes.is_abstract ? <span className="badge">abstract</span> : null}
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
    </section>
  );
}

function Properties({ typeName }: { typeName: string }) {
  const list = useList('/model/properties', { 'filter[object_type_name]': typeName }, 100);
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
      <DataTable
        label="Custom properties"
        pagerLabel="Property pages"
        list={list}
        empty="No custom properties."
        columns={[
          { header: 'Name', cell: (p) => p.attributes.name },
          { header: 'Type', cell: (p) => p.attributes.property_type_name },
          { header: 'Required', cell: (p) => (p.attributes.required ? 'yes' : 'no') },
          { header: 'Description', cell: (p) => p.attributes.description ?? '—' },
        ]}
        actions={(p) => (
          <DeleteButton
            title="Delete this property?"
            message={
              <p>
                The property <strong>{p.attributes.name}</strong> and its values will be removed from every {typeName} object.
              </p>
            }
            action={() => api.remove(`/model/properties/${p.id}`)}
          />
        )}
      />
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
