// Relations of the model: list, create, edit names/labels/description, choose left and right
// object types, delete (the API's 403 when objects use it is shown in the dialog).
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { ErrorNote, Loading, Notice } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { useResource } from '../../components/use-resource';
import { Field, nullIfEmpty, FormFooter } from '../../components/fields';
import { concreteTypes, useObjectTypes } from '../../components/model';
import { href, navigate } from '../../components/route';
import { useAction, useList } from '../../components/use-list';

const TEXT_FIELDS = ['label', 'inverse_label', 'description'];

export function RelationsPage({ route }: { route: string[] }) {
  if (route[0] === 'new') return <RelationEditor />;
  if (route[0]) return <RelationEditor id={route[0]} />;
  return <RelationList />;
}

function RelationList() {
  const list = useList('/model/relations');
  return (
    <section>
      <div className="page-head">
        <h1>Relations</h1>
        <span className="spacer" />
        <a className="button primary" href={href('relations', 'new')}>
          New relation
        </a>
      </div>
      <p className="muted">A relation reads “left types — name — right types”; its inverse name reads from the right side.</p>
      <ListView list={list} empty="No relations yet." label="Relation pages">
        {(relations) => (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Inverse name</th>
                <th>Labels</th>
                <th>Description</th>
              </tr>
            </thead>
            <tbody>
              {relations.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={href('relations', r.id)}>{r.attributes.name}</a>
                  </td>
                  <td>{r.attributes.inverse_name}</td>
                  <td>{[r.attributes.label, r.attributes.inverse_label].filter(Boolean).join(' / ') || '—'}</td>
                  <td>{r.attributes.description ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        )}
      </ListView>
    </section>
  );
}

function RelationEditor({ id }: { id?: string }) {
  const { resource: relation, values, setValues, loadError, notice, save, submit: write } = useResource(id ? `/model/relations/${id}` : null);
  const { busy, error } = save;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const attributes = { name: values.name, inverse_name: values.inverse_name, ...nullIfEmpty(values, TEXT_FIELDS) };
    const saved = await write(() => (id ? api.update(`/model/relations/${id}`, 'relations', id, attributes) : api.create('/model/relations', 'relations', attributes)));
    if (saved && !id) navigate('relations', saved.data.id);
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (id && !relation) return <Loading />;
  return (
    <section>
      <p>
        <a href={href('relations')}>‹ Relations</a>
      </p>
      <div className="page-head">
        <h1>{relation ? String(relation.attributes.name) : 'New relation'}</h1>
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
            onDone={() => navigate('relations')}
          />
        ) : null}
      </div>
      <form className="panel" onSubmit={submit} aria-label="Relation">
        <div className="form-grid">
          <Field label="Name" name="name" values={values} onChange={setValues} required hint="lower_snake_case, e.g. see_also" />
          <Field label="Inverse name" name="inverse_name" values={values} onChange={setValues} required hint="e.g. seen_also_by" />
          <Field label="Label" name="label" values={values} onChange={setValues} />
          <Field label="Inverse label" name="inverse_label" values={values} onChange={setValues} />
          <Field label="Description" name="description" type="textarea" values={values} onChange={setValues} className="wide" />
        </div>
        <FormFooter error={error} notice={notice} busy={busy} label={id ? 'Save changes' : 'Create relation'} />
      </form>
      {relation ? (
        <div className="two-cols">
          <RelationSide relationId={relation.id} side="left_object_types" title="Left object types" />
          <RelationSide relationId={relation.id} side="right_object_types" title="Right object types" />
        </div>
      ) : (
        <p className="muted">Choose the left and right object types after creating the relation.</p>
      )}
    </section>
  );
}

function RelationSide({ relationId, side, title }: { relationId: string; side: string; title: string }) {
  const { types, error: typesError } = useObjectTypes();
  const current = useList(`/model/relations/${relationId}/${side}`, {}, 100);
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const saved = new Set(current.result?.data.map((t) => String(t.attributes.name)) ?? []);
  const selection = chosen ?? saved;
  const choices = concreteTypes(types);

  const toggle = (name: string) => {
    const next = new Set(selection);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setChosen(next);
    setNotice(null);
  };
  const save = async () => {
    const data = [...selection].map((name) => ({ type: 'object_types', id: name }));
    if ((await run(() => api.relate('PATCH', `/model/relations/${relationId}/relationships/${side}`, data))) !== undefined) {
      setChosen(null);
      setNotice('Types saved.');
      await current.reload();
    }
  };
  return (
    <fieldset className="panel">
      <legend>{title}</legend>
      <ErrorNote error={typesError ?? current.error} />
      {!current.result ? <Loading /> : null}
      <div className="checks">
        {choices.map((t) => (
          <label key={t.name} className="inline">
            <input type="checkbox" checked={selection.has(t.name)} onChange={() => toggle(t.name)} />
            {t.name}
          </label>
        ))}
      </div>
      <ErrorNote error={error} />
      <Notice text={notice} />
      <div className="actions">
        <button type="button" onClick={() => void save()} disabled={busy || chosen === null}>
          Save {title.toLowerCase()}
        </button>
      </div>
    </fieldset>
  );
}
