// The permissions panel of a role's page: the matrix, saved with PATCH /roles/{id}.
import { useEffect, useState } from 'react';
import { api, type Resource } from '../../api/client';
import { ErrorNote } from '../../components/feedback';
import { FormFooter } from '../../components/fields';
import { useObjectTypes } from '../../components/model';
import { useAction } from '../../components/use-list';
import { PermissionsMatrix, type PermissionRules } from './permissions-matrix';

export function RolePermissions({ role, disabled }: { role: Resource; disabled: boolean }) {
  const { types, error: typesError } = useObjectTypes();
  const stored = (role.attributes.permissions as PermissionRules | undefined) ?? {};
  const [rules, setRules] = useState<PermissionRules>(stored);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  useEffect(() => setRules((role.attributes.permissions as PermissionRules | undefined) ?? {}), [role]);
  const save = async () => {
    setNotice(null);
    const saved = await run(() => api.update(`/roles/${role.id}`, 'roles', role.id, { permissions: rules }));
    if (saved) {
      setRules((saved.data.attributes.permissions as PermissionRules) ?? {});
      setNotice('Permissions saved.');
    }
  };
  return (
    <form
      className="panel"
      aria-label="Permissions"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>Permissions</h2>
      <p className="muted">
        What users with this role may do with objects of each type: <strong>all</strong> objects, their <strong>own</strong> (those they
        created) or <strong>none</strong>. Without <em>read</em> they see only published objects; without <em>publish</em> they cannot set
        or change the status “on”. A user may do what any of their roles allows.
      </p>
      <ErrorNote error={typesError} />
      {types ? <PermissionsMatrix value={rules} types={types} onChange={setRules} disabled={disabled} /> : null}
      <FormFooter error={error} notice={notice} busy={busy || disabled} label="Save permissions" />
    </form>
  );
}
