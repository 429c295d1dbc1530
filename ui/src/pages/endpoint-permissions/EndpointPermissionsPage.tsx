// Endpoint permissions (/admin/endpoint_permissions), for admins: who may read and write which
// endpoint (the first segment of a path: documents, users, config…). A rule names an endpoint, an
// application and a role, each or all; read and write are each allowed, not allowed, own only or
// blocked (a block refuses even when another rule allows). Once a rule concerns a request, a
// request no rule allows is refused; admins always pass.
import { useState, type FormEvent } from 'react';
import { endpointPermissions, type EndpointAccess, type EndpointPermissionAttributes, type Resource } from '../../api/client';
import { useApiAll } from '../../api/queries';
import { NamesError, useAdminNames } from '../../components/admin-names';
import { DataTable } from '../../components/data-table';
import { DeleteButton, Dialog } from '../../components/dialog';
import { FormFooter } from '../../components/fields';
import { PageHead } from '../../components/page-head';
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
  const rules = useApiAll<EndpointPermissionAttributes>('/admin/endpoint_permissions');
  const names: Names = { endpoints: useAdminNames('/admin/endpoints'), applications: useAdminNames('/admin/applications'), roles: useAdminNames('/roles') };
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const toast = useToast();
  const describe = (a: EndpointPermissionAttributes) =>
    `${nameIn(names.endpoints, a.endpoint_id, 'every endpoint')}, ${nameIn(names.roles, a.role_id, 'every role')}, ${nameIn(names.applications, a.application_id, 'every application')}`;
  /** A rule's endpoint, role or application: its name, or "Every …" when it names none. */
  const named = (list: Resource[], id: number | null, every: string, code = false) => {
    if (id == null) return <span className="muted">{every}</span>;
    return code ? <code>{nameIn(list, id, '')}</code> : nameIn(list, id, '');
  };
  return (
    <section>
      <PageHead title="Endpoint permissions">
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New permission
        </button>
      </PageHead>
      <p className="muted">
        Limit what a role or an application may read and write on an endpoint (the first part of a path, such as <code>documents</code>). Once a rule concerns a
        request, only what a rule allows passes; <strong>Blocked</strong> refuses even when another rule allows, <strong>Own only</strong> passes for the caller's own
        items. Without rules, roles decide alone. Administrators are never limited.
      </p>
      <NamesError path="/admin/endpoints" />
      <NamesError path="/roles" />
      <NamesError path="/admin/applications" />
      <DataTable
        label="Endpoint permissions"
        rows={rules.data ?? null}
        error={rules.error}
        loading={rules.isFetching}
        empty="No endpoint permissions: roles alone decide who may do what."
        columns={[
          { header: 'Endpoint', cell: (p) => named(names.endpoints, p.attributes.endpoint_id, 'Every endpoint', true) },
          { header: 'Role', cell: (p) => named(names.roles, p.attributes.role_id, 'Every role') },
          { header: 'Application', cell: (p) => named(names.applications, p.attributes.application_id, 'Every application') },
          { header: 'Read', cell: (p) => <AccessBadge access={p.attributes.read} /> },
          { header: 'Write', cell: (p) => <AccessBadge access={p.attributes.write} /> },
        ]}
        actions={(p) => {
          const label = describe(p.attributes);
          return (
            <>
              <button type="button" className="small" onClick={() => setEditing(p)} aria-label={`Edit permission: ${label}`}>
                Edit
              </button>
              <DeleteButton
                buttonTitle={`Delete permission: ${label}`}
                title="Delete this permission?"
                message={<p>The rule for {label} will be deleted; requests it concerned follow the remaining rules (or the roles alone when none is left).</p>}
                action={() => endpointPermissions.remove(p.id)}
                onDone={() => toast.success('Permission deleted.')}
              />
            </>
          );
        }}
      />
      {editing ? (
        <PermissionDialog
          rule={editing === 'new' ? null : editing}
          names={names}
          onClose={() => setEditing(null)}
          onSaved={() => {
            toast.success('Permission saved.');
            setEditing(null);
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
        <FormFooter error={error} busy={busy} label={rule ? 'Save changes' : 'Create permission'} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
