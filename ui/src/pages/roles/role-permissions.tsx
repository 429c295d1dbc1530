// The permissions panel of a role's page: the matrix, saved with PATCH /roles/{id}. Unsaved
// changes are marked and guarded like every form (components/unsaved.tsx); a save tells the shell
// that rights may have changed, so the signed-in user's buttons follow at once.
import { useEffect, useState } from 'react';
import { api, type Resource } from '../../api/client';
import { ErrorNote } from '../../components/feedback';
import { FormFooter } from '../../components/fields';
import { useObjectTypes } from '../../components/model';
import { rightsMayHaveChanged } from '../../components/rights';
import { useUnsavedChanges } from '../../components/unsaved';
import { useAction } from '../../components/use-list';
import { PermissionsMatrix, type PermissionRules } from './permissions-matrix';

const rulesOf = (role: Resource): PermissionRules => (role.attributes.permissions as PermissionRules | undefined) ?? {};

/** Rules in one spelling (keys and actions sorted), to tell a real change from a reordering. */
function canonical(rules: PermissionRules): string {
  return JSON.stringify(
    Object.keys(rules)
      .sort()
      .map((k) => [k, [...rules[k]].sort()]),
  );
}

export function RolePermissions({ role, disabled }: { role: Resource; disabled: boolean }) {
  const { types, error: typesError } = useObjectTypes();
  const [saved, setSaved] = useState<PermissionRules>(() => rulesOf(role));
  const [rules, setRules] = useState<PermissionRules>(saved);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    setSaved(rulesOf(role));
    setRules(rulesOf(role));
  }, [role]);
  const dirty = !disabled && canonical(rules) !== canonical(saved);
  const save = async (): Promise<boolean> => {
    setNotice(null);
    const answer = await run(() => api.update(`/roles/${role.id}`, 'roles', role.id, { permissions: rules }));
    if (!answer) return false;
    const stored = (answer.data.attributes.permissions as PermissionRules) ?? {};
    setSaved(stored);
    setRules(stored);
    setNotice('Permissions saved.');
    rightsMayHaveChanged();
    return true;
  };
  useUnsavedChanges(dirty, save);
  return (
    <form
      className="panel"
      aria-label="Permissions"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="permissions-head">
        <h2>Permissions</h2>
        {dirty ? (
          <span className="badge warn" role="status">
            Unsaved changes
          </span>
        ) : null}
      </div>
      <p className="muted">
        What users with this role may do with objects of each type: <strong>all</strong> objects, their <strong>own</strong> (those they
        created) or <strong>none</strong>. Without <em>read</em> they see only published objects; without <em>publish</em> they cannot set
        or change the status “on”. A user may do what any of their roles allows.
      </p>
      <ErrorNote error={typesError} />
      {types ? (
        <PermissionsMatrix
          value={rules}
          types={types}
          onChange={(next) => {
            setRules(next);
            setNotice(null);
          }}
          disabled={disabled}
        />
      ) : null}
      <FormFooter error={error} notice={notice} busy={busy || disabled} label="Save permissions" />
    </form>
  );
}
