// Roles: list and create; a detail page to edit, delete, set the permissions (a matrix of types
// × actions) and see the role's users. Unchangeable
// roles are shown as such and their controls are disabled (the API refuses them with 403).
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { useResource } from '../../components/use-resource';
import { Field, nullIfEmpty, type Values, FormFooter } from '../../components/fields';
import { formatDate } from '../../components/format';
import { href, navigate } from '../../components/route';
import { useAction, useList } from '../../components/use-list';
import { RolePermissions } from './role-permissions';
import { DataTable } from '../../components/data-table';
import { BackLink } from '../../components/page-head';

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
        <FormFooter error={error} busy={busy} label="Create role" />
      </form>
      <DataTable
        label="Roles"
        pagerLabel="Role pages"
        list={list}
        empty="No roles yet."
        columns={[
          {
            header: 'Name',
            cell: (r) => (
              <>
                <a href={href('roles', r.id)}>{r.attributes.name}</a> {r.meta.unchangeable ? <span className="badge">unchangeable</span> : null}
              </>
            ),
          },
          { header: 'Description', cell: (r) => r.attributes.description ?? '—' },
          { header: 'Created', cell: (r) => formatDate(r.meta.created) },
        ]}
      />
    </section>
  );
}

function RoleDetail({ id }: { id: string }) {
  const { resource: role, values, setValues, loadError, notice, save, submit: write } = useResource(`/roles/${id}`);
  const users = useList(`/roles/${id}/users`);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await write(() => api.update(`/roles/${id}`, 'roles', id, { name: values.name, ...nullIfEmpty(values, ['description']) }));
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!role) return <Loading />;
  const fixed = Boolean(role.meta.unchangeable);
  return (
    <section>
      <BackLink area="roles" label="Roles" />
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
        <FormFooter error={save.error} notice={notice} busy={save.busy || fixed} label="Save changes" />
      </form>
      <RolePermissions role={role} disabled={fixed} />
      <h2>Users with this role</h2>
      <ListView list={users} empty="No user has this role." label="Pages of users">
        {(data) => (
          <ul className="panel">
            {data.map((u) => (
              <li key={u.id}>
                <a href={href('users', u.id)}>{u.attributes.username}</a>
              </li>
            ))}
          </ul>
        )}
      </ListView>
    </section>
  );
}
