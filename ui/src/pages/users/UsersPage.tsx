// Users: a searchable, paged list; a create form; a detail page to edit, set a password,
// block, give and take roles, and delete.
import { useState, type FormEvent } from 'react';
import { api, users, type Resource } from '../../api/client';
import type { UsersAttributes } from '../../api/schema-types';
import { ConfirmButton } from '../../components/dialog';
import { HistoryPanel } from '../../components/history-panel';
import { ErrorNote, Loading, Notice } from '../../components/feedback';
import { DataTable } from '../../components/data-table';
import { BackLink, PageHead } from '../../components/page-head';
import { useResource } from '../../components/use-resource';
import { Field, SelectField, USER_STATUS_OPTIONS, StatusBadge, nullIfEmpty, type Values, FormFooter, SearchBox, useFieldError } from '../../components/fields';
import { formatDate } from '../../components/format';
import { useCurrentUser } from '../../components/current-user';
import { href, navigate } from '../../components/route';
import { useAction, useList } from '../../components/use-list';
import { useToast } from '../../components/toast';

export function UsersPage({ route }: { route: string[] }) {
  if (route[0] === 'new') return <NewUser />;
  if (route[0]) return <UserDetail id={route[0]} />;
  return <UserList />;
}

function UserList() {
  const [query, setQuery] = useState('');
  // The roles come with the page (include=roles), so the list says what each user may do.
  const list = useList<UsersAttributes>(users.path(), { q: query || undefined, include: 'roles' });
  const included = list.result?.included ?? [];
  const rolesOf = (u: Resource) =>
    ((u.relationships?.roles?.data as Array<{ id: string }> | undefined) ?? [])
      .map((r) => included.find((i) => i.type === 'roles' && i.id === r.id))
      .filter((r): r is Resource => Boolean(r))
      .map((r) => String(r.attributes.name));
  return (
    <section>
      <PageHead title="Users">
        <a className="button primary" href={href('users', 'new')}>
          New user
        </a>
      </PageHead>
      <SearchBox label="Search users" placeholder="Username, name or email" onSearch={setQuery} />
      <DataTable
        label="Users"
        pagerLabel="User pages"
        list={list}
        empty={query ? `No user matches “${query}”.` : 'No users yet.'}
        columns={[
          {
            header: 'Username',
            cell: (u) => (
              <>
                <a href={href('users', u.id)}>{u.attributes.username}</a>
                {u.attributes.blocked ? <span className="badge warn"> blocked</span> : null}
              </>
            ),
          },
          { header: 'Name', cell: (u) => [u.attributes.name, u.attributes.surname].filter(Boolean).join(' ') || '—' },
          { header: 'Email', cell: (u) => u.attributes.email ?? '—' },
          {
            header: 'Roles',
            cell: (u) => {
              const names = rolesOf(u);
              return names.length ? (
                <span className="role-chips">
                  {names.map((n) => (
                    <span key={n} className="badge">
                      {n}
                    </span>
                  ))}
                </span>
              ) : (
                <span className="muted">No role</span>
              );
            },
          },
          { header: 'Status', cell: (u) => <StatusBadge status={u.attributes.status} words={USER_STATUS_OPTIONS} /> },
          { header: 'Last login', cell: (u) => formatDate(u.attributes.last_login) },
        ]}
      />
    </section>
  );
}

const PROFILE_FIELDS = ['name', 'surname', 'email', 'title', 'description'];

function ProfileFields({ values, onChange }: { values: Values; onChange: (v: Values) => void }) {
  return (
    <>
      <Field label="Name" name="name" values={values} onChange={onChange} />
      <Field label="Surname" name="surname" values={values} onChange={onChange} />
      <Field label="Email" name="email" type="email" values={values} onChange={onChange} />
      <SelectField label="Status" name="status" values={values} onChange={onChange} options={USER_STATUS_OPTIONS} />
    </>
  );
}

function NewUser() {
  const [values, setValues] = useState<Values>({ status: 'on' });
  const [roleIds, setRoleIds] = useState<Set<string>>(new Set());
  const roles = useList('/roles', {}, 100);
  const toast = useToast();
  const { busy, error, run } = useAction();
  // A refused password or username is said under its field, and goes once the field changes.
  const { problems, general } = useFieldError(error, values, ['username', 'password']);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const created = await run(() =>
      users.create({
        username: String(values.username ?? ''),
        password: String(values.password ?? ''),
        status: values.status,
        ...nullIfEmpty(values, ['name', 'surname', 'email']),
      }),
    );
    if (!created) return;
    // The roles are a second call (POST /users takes none): when it fails the user exists, and its page says what to do.
    if (roleIds.size) {
      try {
        await api.relate('POST', `/users/${created.data.id}/relationships/roles`, [...roleIds].map((id) => ({ type: 'roles', id })));
        toast.success(`User “${values.username}” created with ${roleIds.size === 1 ? 'its role' : `${roleIds.size} roles`}.`, { next: true });
      } catch (e) {
        toast.error(e, `User “${values.username}” created, but without roles; give them below`, { next: true });
      }
    } else toast.success(`User “${values.username}” created, without a role.`, { next: true });
    navigate('users', created.data.id);
  };
  return (
    <section>
      <BackLink area="users" label="Users" />
      <h1>New user</h1>
      <form className="panel" onSubmit={submit} aria-label="New user">
        <div className="form-grid">
          <Field label="Username" name="username" values={values} onChange={setValues} required autoComplete="off" problem={problems.username} />
          <Field label="Password" name="password" type="password" values={values} onChange={setValues} required autoComplete="new-password" problem={problems.password} />
          <ProfileFields values={values} onChange={setValues} />
        </div>
        <fieldset className="choices">
          <legend>Roles</legend>
          <ErrorNote error={roles.error} />
          {roles.result?.data.map((r) => (
            <label key={r.id} className="inline">
              <input
                type="checkbox"
                checked={roleIds.has(r.id)}
                onChange={(e) => setRoleIds((all) => {
                  const next = new Set(all);
                  if (e.target.checked) next.add(r.id);
                  else next.delete(r.id);
                  return next;
                })}
              />
              {String(r.attributes.name)}
              {r.attributes.description ? <span className="muted"> — {String(r.attributes.description)}</span> : null}
            </label>
          ))}
          <span className="hint">Without a role the user reads only what the public reads, and edits only their own account.</span>
        </fieldset>
        <ErrorNote error={general} />
        <div className="actions">
          <a className="button" href={href('users')}>
            Cancel
          </a>
          <button type="submit" className="primary" disabled={busy}>
            Create user
          </button>
        </div>
      </form>
    </section>
  );
}

function UserDetail({ id }: { id: string }) {
  const me = useCurrentUser();
  // Bumped when the history panel restored a version: the user loads again.
  const [version, setVersion] = useState(0);
  const { resource: user, etag, values, setValues, loadError, notice, save, submit: write } = useResource<UsersAttributes>(users.path(id), version);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const attributes = { ...nullIfEmpty(values, PROFILE_FIELDS), status: values.status, blocked: Boolean(values.blocked) };
    await write((ifMatch) => users.update(id, attributes, { ifMatch }));
  };

  if (loadError) return <ErrorNote error={loadError} />;
  if (!user) return <Loading />;
  return (
    <section>
      <BackLink area="users" label="Users" />
      <div className="page-head">
        <h1>{user.attributes.username}</h1>
        <StatusBadge status={user.attributes.status} words={USER_STATUS_OPTIONS} />
        {user.attributes.blocked ? <span className="badge warn">blocked</span> : null}
        <span className="spacer" />
        <ConfirmButton
          label="Delete user"
          title="Delete this user?"
          message={
            <p>
              The user <strong>{user.attributes.username}</strong> will be deleted.
            </p>
          }
          action={() => users.remove(id, { ifMatch: etag })}
          onDone={() => navigate('users')}
        />
      </div>
      <form className="panel" onSubmit={submit} aria-label="Profile">
        <h2>Profile</h2>
        <div className="form-grid">
          <ProfileFields values={values} onChange={setValues} />
          <Field label="Blocked (cannot sign in)" name="blocked" type="checkbox" values={values} onChange={setValues} />
        </div>
        <p className="muted">
          Last login {formatDate(user.attributes.last_login)} · failed logins {user.attributes.num_login_err ?? 0} · created{' '}
          {formatDate(user.meta.created)}
        </p>
        <FormFooter error={save.error} notice={notice} busy={save.busy} label="Save changes" />
      </form>
      <div className="two-cols">
        {me?.id === id ? (
          <section className="panel" aria-label="Set password">
            <h2>Your password</h2>
            <p className="muted">
              Your own password changes under <a href={href('profile')}>My account</a>, which asks for the current one.
            </p>
          </section>
        ) : (
          <PasswordForm id={id} />
        )}
        <UserRoles id={id} />
      </div>
      <HistoryPanel objectPath={`/users/${id}`} refresh={user} onRestored={() => setVersion((v) => v + 1)} />
    </section>
  );
}

function PasswordForm({ id }: { id: string }) {
  const [values, setValues] = useState<Values>({ password: '' });
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    if (await run(() => users.update(id, { password: String(values.password ?? '') }))) {
      setValues({ password: '' });
      setNotice('Password changed.');
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Set password">
      <h2>Set a new password</h2>
      <Field label="New password" name="password" type="password" values={values} onChange={setValues} required autoComplete="new-password" />
      <ErrorNote error={error} />
      <Notice text={notice} />
      <div className="actions">
        <button type="submit" disabled={busy}>
          Set password
        </button>
      </div>
    </form>
  );
}

function UserRoles({ id }: { id: string }) {
  const mine = useList(`/users/${id}/roles`, {}, 100);
  const all = useList('/roles', {}, 100);
  const [choice, setChoice] = useState('');
  const { busy, error, run } = useAction();
  const have = new Set(mine.result?.data.map((r) => r.id) ?? []);
  const available = (all.result?.data ?? []).filter((r) => !have.has(r.id));

  const change = async (method: 'POST' | 'DELETE', roleId: string) => {
    await run(() => api.relate(method, `/users/${id}/relationships/roles`, { type: 'roles', id: roleId }));
    setChoice('');
    await mine.reload();
  };

  return (
    <section className="panel" aria-label="Roles">
      <h2>Roles</h2>
      <ErrorNote error={mine.error ?? all.error} />
      {mine.result && mine.result.data.length === 0 ? <p className="muted">No roles.</p> : null}
      <ul className="chips">
        {mine.result?.data.map((r) => (
          <li key={r.id}>
            {r.attributes.name}
            <button type="button" className="link small" aria-label={`Take role ${r.attributes.name}`} onClick={() => void change('DELETE', r.id)} disabled={busy}>
              ✕
            </button>
          </li>
        ))}
      </ul>
      <div className="toolbar">
        <label className="grow">
          Role to give
          <select value={choice} onChange={(e) => setChoice(e.target.value)}>
            <option value="">Choose a role…</option>
            {available.map((r) => (
              <option key={r.id} value={r.id}>
                {r.attributes.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void change('POST', choice)} disabled={!choice || busy}>
          Give role
        </button>
      </div>
      <ErrorNote error={error} />
    </section>
  );
}
