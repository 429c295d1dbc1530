// Objects: browse by type with search and status filter; create and edit through a form made
// from the type's schema; set status; move to the trash; manage relations.
import { useEffect, useState, type FormEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { SelectField, STATUS_OPTIONS, StatusBadge, type Values, FormFooter, SearchBox } from '../../components/fields';
import { formatDate, titleOf } from '../../components/format';
import { concreteTypes, isMediaType, useObjectTypes } from '../../components/model';
import { href, navigate } from '../../components/route';
import { SchemaFields, attributesFromForm, changedAttributes, formFromAttributes, useSchema, type FormProperty } from '../../components/schema-form';
import { useAction, useList } from '../../components/use-list';
import { MediaPreview } from '../media/MediaPage';
import { may, useRights } from '../../components/rights';
import { ObjectPermsPanel } from './ObjectPermsPanel';
import { RelationsPanel } from './RelationsPanel';

/** Types with their own area in the admin. */
const OWN_AREA = new Set(['users', 'folders']);

export function ObjectsPage({ route }: { route: string[] }) {
  const [type, id] = route;
  if (type && id === 'new') return <ObjectEditor type={type} />;
  if (type && id) return <ObjectEditor type={type} id={id} />;
  return <ObjectList type={type ?? ''} />;
}

function ObjectList({ type }: { type: string }) {
  const { types, error: typesError } = useObjectTypes();
  const rights = useRights();
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('');
  const choices = concreteTypes(types).filter((t) => !OWN_AREA.has(t.name));
  const list = useList(type ? `/${type}` : '/objects', {
    q: query || undefined,
    'filter[status]': status || undefined,
    'filter[type]': type ? undefined : choices.length ? choices.map((t) => t.name).join(',') : undefined,
  });
  return (
    <section>
      <div className="page-head">
        <h1>Objects</h1>
        <span className="spacer" />
        {type && may(rights, 'create', type) ? (
          <a className="button primary" href={href('objects', type, 'new')}>
            New {types?.find((t) => t.name === type)?.singular ?? type}
          </a>
        ) : null}
      </div>
      <ErrorNote error={typesError} />
      <SearchBox label="Search" placeholder="Words in title, description or body" onSearch={setQuery}>
        <label>
          Type
          <select value={type} onChange={(e) => navigate('objects', ...(e.target.value ? [e.target.value] : []))}>
            <option value="">All types</option>
            {choices.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Any status</option>
            {STATUS_OPTIONS.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </SearchBox>
      <ListView
        list={list}
        empty={query || status ? 'No object matches these filters.' : type ? `No ${type} yet.` : 'No objects yet. Choose a type to create one.'}
        label="Object pages"
      >
        {(objects) => <ObjectTable objects={objects} />}
      </ListView>
    </section>
  );
}

function ObjectTable({ objects }: { objects: Resource[] }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Title</th>
            <th>Type</th>
            <th>Status</th>
            <th>Modified</th>
          </tr>
        </thead>
        <tbody>
          {objects.map((o) => (
            <tr key={o.id}>
              <td>
                <a href={href('objects', o.type, o.id)}>{titleOf(o)}</a>
              </td>
              <td>{o.type}</td>
              <td>
                <StatusBadge status={o.attributes.status} />
              </td>
              <td>{formatDate(o.meta.modified)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ObjectEditor({ type, id }: { type: string; id?: string }) {
  const { properties, error: schemaError } = useSchema(type);
  const { types } = useObjectTypes();
  const [object, setObject] = useState<Resource | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const rights = useRights();

  useEffect(() => {
    setObject(null);
    if (id) api.get(`/${type}/${id}`).then((r) => setObject(r.data), setLoadError);
  }, [type, id]);

  const error = schemaError ?? loadError;
  if (error) return <ErrorNote error={error} />;
  if (!properties || (id && !object)) return <Loading />;
  return (
    <section>
      <p>
        <a href={href('objects', type)}>‹ {type}</a>
      </p>
      <ObjectForm key={object?.id ?? 'new'} type={type} object={object} properties={properties} onSaved={setObject} />
      {object && isMediaType(types, type) ? <MediaPreview object={object} /> : null}
      {object ? <RelationsPanel object={object} readOnly={!may(rights, 'update', type, object)} /> : null}
      {object ? <ObjectPermsPanel object={object} onSaved={setObject} /> : null}
    </section>
  );
}

function ObjectForm({
  type,
  object,
  properties,
  onSaved,
}: {
  type: string;
  object: Resource | null;
  properties: FormProperty[];
  onSaved: (r: Resource) => void;
}) {
  const [values, setValues] = useState<Values>(() => ({
    ...formFromAttributes(properties, object?.attributes ?? {}),
    status: String(object?.attributes.status ?? 'draft'),
  }));
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const locked = Boolean(object?.meta.locked);
  // Only what the user's roles allow: no Publish without `publish`, no trash without `delete`.
  const rights = useRights();
  const canWrite = object ? may(rights, 'update', type, object) : may(rights, 'create', type);
  const canPublish = may(rights, 'publish', type, object);
  const canDelete = Boolean(object) && may(rights, 'delete', type, object);
  const published = object?.attributes.status === 'on';
  const statusOptions = canPublish || published ? STATUS_OPTIONS : STATUS_OPTIONS.filter(([v]) => v !== 'on');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    const saved = await run(async () => {
      const attributes = { ...attributesFromForm(properties, values), status: values.status };
      if (!object) {
        const clean = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== null));
        return api.create(`/${type}`, type, clean);
      }
      const before = { ...attributesFromForm(properties, formFromAttributes(properties, object.attributes)), status: object.attributes.status };
      return api.update(`/${type}/${object.id}`, type, object.id, changedAttributes(before, attributes));
    });
    if (!saved) return;
    if (!object) {
      navigate('objects', type, saved.data.id);
      return;
    }
    onSaved(saved.data);
    setNotice('Changes saved.');
  };

  return (
    <>
      <div className="page-head">
        <h1>{object ? titleOf(object) : `New ${type}`}</h1>
        {object ? <StatusBadge status={object.attributes.status} /> : null}
        {locked ? <span className="badge">locked</span> : null}
        <span className="spacer" />
        {canDelete && object ? (
          <ConfirmButton
            label="Move to trash"
            title="Move this object to the trash?"
            message={<p>You can restore it from the trash later.</p>}
            action={() => api.remove(`/${type}/${object.id}`)}
            onDone={() => navigate('objects', type)}
            disabled={locked}
            buttonTitle={locked ? 'A locked object cannot be deleted' : undefined}
          />
        ) : null}
      </div>
      <form className="panel" onSubmit={submit} aria-label={object ? 'Edit object' : 'New object'}>
        <div className="form-grid">
          <SelectField
            label="Status"
            name="status"
            values={values}
            onChange={setValues}
            options={statusOptions}
            disabled={locked || !canWrite || (published && !canPublish)}
          />
          <SchemaFields properties={properties} values={values} onChange={setValues} />
        </div>
        {object ? (
          <p className="muted">
            #{object.id} · created {formatDate(object.meta.created)} · modified {formatDate(object.meta.modified)} · published{' '}
            {formatDate(object.meta.published)}
          </p>
        ) : null}
        {canWrite ? (
          <FormFooter error={error} notice={notice} busy={busy} label={object ? 'Save changes' : 'Create'} />
        ) : (
          <p className="muted">Your roles let you read this object, not change it.</p>
        )}
      </form>
    </>
  );
}
