// Roles: list and create; a detail page to edit, delete and see the role's users. Unchangeable
// roles are shown as such and their controls are disabled (the API refuses them with 403).
import { useEffect, useState, type FormEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { Empty, ErrorNote, Loading, Notice, Pager } from '../../components/feedback';
import { Field, nullIfEmpty, type Values } from '../../components/fields';
import { formatDate } from '../../components/format';
import { href, navigate } from '../../components/route';
import { useAction, useList } from '../../components/use-list';

export function RolesPage({ route }: { route: string[] }) {
  return route[0] ? <RoleDetail id={route[0]} /> : <RoleList />;
}

function RoleFields({ values, onChange, disabled }: { values: Values; onChange: (v: Values) => void; disabled?: boolean }) {
  return (
    <>
      <Field label="Name" name="name" values={values} onChange={onChange} required maxLength={32} disabled={disabled} />
      <Field label="Description" name="description" values={values} onChange={onChange} disabled={disabled} />
    </>
  );
}

function RoleList() {
  const list = useList('/roles');
  const [values, setValues] = useState<Values>({});
  const { busy, error, run } = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (await run(() => api.create('/roles', 'roles', { name: values.name, ...nullIfEmpty(values, ['description']) }))) {
      setValues({});
      await list.reload();
    }
  };
  return (
    <section>
      <h1>Roles</h1>
      <form className="panel" onSubmit={create} aria-label="New role">
        <h2>New role</h2>
        <div className="form-grid">
          <RoleFields values={values} onChange={setValues} />
        </div>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Create role
          </button>
        </div>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.result ? <Loading /> : null}
      {list.result && list.result.data.length === 0 ? <Empty>No roles yet.</Empty> : null}
      {list.result && list.result.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {list.result.data.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={href('roles', r.id)}>{r.attributes.name}</a> {r.meta.unchangeable ? <span className="badge">unchangeable</span> : null}
                  </td>
                  <td>{r.attributes.description ?? '—'}</td>
                  <td>{formatDate(r.meta.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager pagination={list.result?.pagination ?? null} onPage={list.setPage} label="Role pages" />
    </section>
  );
}

function RoleDetail({ id }: { id: string }) {
  const [role, setRole] = useState<Resource | null>(null);
  const [values, setValues] = useState<Values>({});
  const [loadError, setLoadError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useAction();
  const users = useList(`/roles/${id}/users`);

  useEffect(() => {
    api.get(`/roles/${id}`).then((r) => {
      setRole(r.data);
      setValues({ ...r.data.attributes });
    }, setLoadError);
  }, [id]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    const r = await save.run(() => api.update(`/roles/${id}`, 'roles', id, { name: values.name, ...nullIfEmpty(values, ['description']) }));
    if (r) {
      setRole(r.data);
      setNotice('Changes saved.');
    }
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!role) return <Loading />;
  const fixed = Boolean(role.meta.unchangeable);
  return (
    <section>
      <p>
        <a href={href('roles')}>‹ Roles</a>
      </p>
      <div className="page-head">
        <h1>{role.attributes.name}</h1>
        {fixed ? <span className="badge">unchangeable</span> : null}
        <span className="spacer" />
        <ConfirmButton
          label="Delete role"
          title="Delete this role?"
          message={
            <p>
              The role <strong>{role.attributes.name}</strong> will be deleted; its users lose it.
            </p>
          }
          action={() => api.remove(`/roles/${id}`)}
          onDone={() => navigate('roles')}
          disabled={fixed}
          buttonTitle={fixed ? 'An unchangeable role cannot be deleted' : undefined}
        />
      </div>
      <form className="panel" onSubmit={submit} aria-label="Role">
        {fixed ? <p className="muted">This role is unchangeable: it cannot be edited or deleted.</p> : null}
        <div className="form-grid">
          <RoleFields values={values} onChange={setValues} disabled={fixed} />
        </div>
        <ErrorNote error={save.error} />
        <Notice text={notice} />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.busy || fixed}>
            Save changes
          </button>
        </div>
      </form>
      <h2>Users with this role</h2>
      <ErrorNote error={users.error} />
      {users.result && users.result.data.length === 0 ? <Empty>No user has this role.</Empty> : null}
      {users.result && users.result.data.length > 0 ? (
        <ul className="panel">
          {users.result.data.map((u) => (
            <li key={u.id}>
              <a href={href('users', u.id)}>{u.attributes.username}</a>
            </li>
          ))}
        </ul>
      ) : null}
      <Pager pagination={users.result?.pagination ?? null} onPage={users.setPage} label="Pages of users" />
    </section>
  );
}
