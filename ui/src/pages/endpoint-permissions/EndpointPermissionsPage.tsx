// Endpoint permissions (/admin/endpoint_permissions), for admins: who may read and write which
// endpoint (the first segment of a path: documents, users, config…). A rule names an endpoint, an
// application and a role, each or all; read and write are each allowed, not allowed, own only or
// blocked (a block refuses even when another rule allows). Once a rule concerns a request, a
// request no rule allows is refused; admins always pass.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { adminNames, endpointPermissions, type EndpointAccess, type EndpointPermissionAttributes, type Resource } from '../../api/client';
import { ConfirmButton, Dialog } from '../../components/dialog';
import { Empty, ErrorNote, Loading } from '../../components/feedback';
import { useToast } from '../../components/toast';
import { useAction } from '../../components/use-list';

type Rule = Resource<EndpointPermissionAttributes>;

const ACCESS: Array<[string, EndpointAccess, string]> = [
  ['true', true, 'Allowed'],
  ['false', false, 'Not allowed'],
  ['mine', 'mine', 'Own only'],
  ['block', 'block', 'Blocked'],
];
const accessKey = (a: EndpointAccess) => String(a);
const accessOf = (key: string): EndpointAccess => ACCESS.find(([k]) => k === key)?.[1] ?? false;
const accessLabel = (a: EndpointAccess) => ACCESS.find(([k]) => k === accessKey(a))?.[2] ?? String(a);
const BADGE: Record<string, string> = { true: 'on', false: 'off', mine: 'draft', block: 'warn' };

interface Names {
  endpoints: Resource[];
  applications: Resource[];
  roles: Resource[];
}

function nameIn(list: Resource[], id: number | null, all: string): string {
  if (id == null) return all;
  return String(list.find((r) => r.id === String(id))?.attributes.name ?? `#${id}`);
}

function AccessBadge({ access }: { access: EndpointAccess }) {
  return <span className={`badge ${BADGE[accessKey(access)] ?? ''}`}>{accessLabel(access)}</span>;
}

export function EndpointPermissionsPage() {
  const [all, setAll] = useState<Rule[] | null>(null);
  const [names, setNames] = useState<Names>({ endpoints: [], applications: [], roles: [] });
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const toast = useToast();
  const load = useCallback(() => endpointPermissions.list().then((r) => (setAll(r as Rule[]), setError(null)), setError), []);
  useEffect(() => void load(), [load]);
  useEffect(() => {
    Promise.all([adminNames.endpoints(), adminNames.applications(), adminNames.roles()]).then(([endpoints, applications, roles]) => setNames({ endpoints, applications, roles }), setError);
  }, []);
  const describe = (a: EndpointPermissionAttributes) =>
    `${nameIn(names.endpoints, a.endpoint_id, 'every endpoint')}, ${nameIn(names.roles, a.role_id, 'every role')}, ${nameIn(names.applications, a.application_id, 'every application')}`;
  return (
    <section>
      <div className="page-head">
        <h1>Endpoint permissions</h1>
        <span className="spacer" />
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New permission
        </button>
      </div>
      <p className="muted">
        Limit what a role or an application may read and write on an endpoint (the first part of a path, such as <code>documents</code>). Once a rule concerns a
        request, only what a rule allows passes; <strong>Blocked</strong> refuses even when another rule allows, <strong>Own only</strong> passes for the caller's own
        items. Without rules, roles decide alone. Administrators are never limited.
      </p>
      <ErrorNote error={error} />
      {!all && !error ? <Loading /> : null}
      {all && !all.length ? <Empty>No endpoint permissions: roles alone decide who may do what.</Empty> : null}
      {all?.length ? (
        <div className="table-wrap">
          <table aria-label="Endpoint permissions">
            <thead>
              <tr>
                <th>Endpoint</th>
                <th>Role</th>
                <th>Application</th>
                <th>Read</th>
                <th>Write</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {all.map((p) => {
                const a = p.attributes;
                const label = describe(a);
                return (
                  <tr key={p.id}>
                    <td>{a.endpoint_id == null ? <span className="muted">Every endpoint</span> : <code>{nameIn(names.endpoints, a.endpoint_id, '')}</code>}</td>
                    <td>{a.role_id == null ? <span className="muted">Every role</span> : nameIn(names.roles, a.role_id, '')}</td>
                    <td>{a.application_id == null ? <span className="muted">Every application</span> : nameIn(names.applications, a.application_id, '')}</td>
                    <td>
                      <AccessBadge access={a.read} />
                    </td>
                    <td>
                      <AccessBadge access={a.write} />
                    </td>
                    <td className="actions-cell">
                      <button type="button" className="small" onClick={() => setEditing(p)} aria-label={`Edit permission: ${label}`}>
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        className="danger small"
                        buttonTitle={`Delete permission: ${label}`}
                        title="Delete this permission?"
                        message={<p>The rule for {label} will be deleted; requests it concerned follow the remaining rules (or the roles alone when none is left).</p>}
                        action={() => endpointPermissions.remove(p.id)}
                        onDone={() => {
                          toast.success('Permission deleted.');
                          void load();
                        }}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {editing ? (
        <PermissionDialog
          rule={editing === 'new' ? null : editing}
          names={names}
          onClose={() => setEditing(null)}
          onSaved={() => {
            toast.success('Permission saved.');
            setEditing(null);
            void load();
          }}
        />
      ) : null}
    </section>
  );
}

interface Draft {
  endpoint_id: string;
  role_id: string;
  application_id: string;
  read: string;
  write: string;
}

function PermissionDialog({ rule, names, onClose, onSaved }: { rule: Rule | null; names: Names; onClose: () => void; onSaved: () => void }) {
  const a = rule?.attributes;
  const idText = (id: number | null | undefined) => (id == null ? '' : String(id));
  const [d, setD] = useState<Draft>({
    endpoint_id: idText(a?.endpoint_id),
    role_id: idText(a?.role_id),
    application_id: idText(a?.application_id),
    read: a ? accessKey(a.read) : 'true',
    write: a ? accessKey(a.write) : 'false',
  });
  const { busy, error, setError, run } = useAction();
  const set = (patch: Partial<Draft>) => {
    setD({ ...d, ...patch });
    setError(null);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const num = (v: string) => (v ? Number(v) : null);
    const attributes: EndpointPermissionAttributes = {
      endpoint_id: num(d.endpoint_id),
      role_id: num(d.role_id),
      application_id: num(d.application_id),
      read: accessOf(d.read),
      write: accessOf(d.write),
    };
    const saved = await run(() => (rule ? endpointPermissions.update(rule.id, attributes) : endpointPermissions.create(attributes)));
    if (saved) onSaved();
  };
  const pick = (label: string, key: 'endpoint_id' | 'role_id' | 'application_id', list: Resource[], all: string) => (
    <label>
      {label}
      <select value={d[key]} onChange={(e) => set({ [key]: e.target.value })}>
        <option value="">{all}</option>
        {list.map((r) => (
          <option key={r.id} value={r.id}>
            {String(r.attributes.name)}
            {r.attributes.enabled === false ? ' (disabled)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
  const access = (label: string, key: 'read' | 'write') => (
    <label>
      {label}
      <select value={d[key]} onChange={(e) => set({ [key]: e.target.value })}>
        {ACCESS.map(([k, , text]) => (
          <option key={k} value={k}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <Dialog title={rule ? 'Edit permission' : 'New endpoint permission'} onClose={onClose}>
      <form className="stack" onSubmit={submit} aria-label={rule ? 'Edit permission' : 'New endpoint permission'}>
        {pick('Endpoint', 'endpoint_id', names.endpoints, 'Every endpoint')}
        {pick('Role', 'role_id', names.roles, 'Every role')}
        {pick('Application', 'application_id', names.applications, 'Every application')}
        <div className="form-grid">
          {access('Read', 'read')}
          {access('Write', 'write')}
        </div>
        <p className="hint">Own only: passes for the caller's own items. Blocked: refused even when another rule allows.</p>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {rule ? 'Save changes' : 'Create permission'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
