// Setting up a type where it is made: which roles may use it (an own rule per role, saved with
// PATCH /roles/{id}) and which relations it takes part in (POST / DELETE on a relation's side).
// A type no role reaches says so: only administrators can use its objects until a role does.
// Right after "Create type" the page opens here, so a new type is never left in no role and no
// relation without a word.
import { useEffect, useMemo, useRef, useState } from 'react';
import { api, type Resource } from '../../api/client';
import { ErrorNote, Loading } from '../../components/feedback';
import { typeLabel, useObjectTypes } from '../../components/model';
import { rightsMayHaveChanged } from '../../components/rights';
import { useToast } from '../../components/toast';
import { useAction } from '../../components/use-list';
import { ACTIONS, ruleKey, type PermissionRules } from '../roles/permissions-matrix';

const ACTION_WORDS: Record<(typeof ACTIONS)[number], string> = { read: 'Read', create: 'Create', update: 'Change', delete: 'Delete', publish: 'Publish' };

interface RoleRow {
  role: Resource;
  /** The actions the role has on the type now (own rule, or the rule it follows). */
  actions: string[];
  /** The key of the rule it follows when the type has none of its own (`objects`, `*`). */
  follows: string | null;
}

export function TypeSetup({ typeName, justCreated }: { typeName: string; justCreated: boolean }) {
  const { types } = useObjectTypes();
  const [roles, setRoles] = useState<Resource[] | null>(null);
  const [relations, setRelations] = useState<Resource[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    Promise.all([api.listAll('/roles'), api.listAll('/model/relations', { include: 'left_object_types,right_object_types' })]).then(
      ([r, rel]) => {
        if (!live) return;
        setRoles(r.filter((x) => x.attributes.name !== 'admin'));
        setRelations(rel);
        setLoadError(null);
      },
      (e) => live && setLoadError(e),
    );
    return () => {
      live = false;
    };
  }, [version]);
  const label = typeLabel(types, typeName);
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = Boolean(roles && relations);
  useEffect(() => {
    if (justCreated && loaded) heading.current?.focus();
  }, [justCreated, loaded]);
  const rows: RoleRow[] = useMemo(
    () =>
      (roles ?? []).map((role) => {
        const rules = (role.attributes.permissions as PermissionRules | undefined) ?? {};
        const key = ruleKey(rules, typeName, types ?? []);
        return { role, actions: key ? rules[key] : [], follows: key && key !== typeName ? key : null };
      }),
    [roles, typeName, types],
  );
  if (loadError) return <ErrorNote error={loadError} />;
  if (!roles || !relations) return <Loading />;
  const unreached = rows.every((r) => !r.actions.length);
  return (
    <section className="panel type-setup" aria-labelledby="type-setup-title">
      <h2 id="type-setup-title" tabIndex={-1} ref={heading}>
        {justCreated ? `Next: who may use ${label}, and what they relate to` : 'Roles and relations'}
      </h2>
      {unreached ? (
        <p className="notice warn-note" role="note">
          No role may use {label} yet: only administrators can read or write them. Tick what each role may do below.
        </p>
      ) : null}
      <RoleChoices typeName={typeName} label={label} rows={rows} onSaved={() => setVersion((v) => v + 1)} />
      <RelationChoices typeName={typeName} label={label} relations={relations} onSaved={() => setVersion((v) => v + 1)} />
    </section>
  );
}

function RoleChoices({ typeName, label, rows, onSaved }: { typeName: string; label: string; rows: RoleRow[]; onSaved: () => void }) {
  const initial = useMemo(() => new Map(rows.map((r) => [r.role.id, r.actions.filter((a) => !a.includes(':'))])), [rows]);
  const [chosen, setChosen] = useState(initial);
  useEffect(() => setChosen(initial), [initial]);
  const { busy, error, run } = useAction();
  const toast = useToast();
  const changed = rows.filter((r) => [...(chosen.get(r.role.id) ?? [])].sort().join() !== [...(initial.get(r.role.id) ?? [])].sort().join());
  const toggle = (roleId: string, action: string, on: boolean) => {
    const now = chosen.get(roleId) ?? [];
    const next = on ? ACTIONS.filter((a) => a === action || now.includes(a)) : now.filter((a) => a !== action);
    setChosen(new Map(chosen).set(roleId, next));
  };
  const save = async () => {
    const done = await run(async () => {
      for (const r of changed) {
        const rules = { ...((r.role.attributes.permissions as PermissionRules | undefined) ?? {}) };
        // Keep the `:own` reach the role had on the type beside the actions ticked here.
        const own = r.actions.filter((a) => a.includes(':') && !(chosen.get(r.role.id) ?? []).includes(a.split(':')[0]));
        rules[typeName] = [...(chosen.get(r.role.id) ?? []), ...own];
        await api.update(`/roles/${r.role.id}`, 'roles', r.role.id, { permissions: rules });
      }
      return true;
    });
    if (!done) return;
    rightsMayHaveChanged();
    toast.success(`What ${changed.length === 1 ? 'one role' : `${changed.length} roles`} may do with ${label} is saved.`);
    onSaved();
  };
  if (!rows.length) return <p className="muted">There are no roles besides admin yet: create one in Roles to let editors use {label}.</p>;
  return (
    <>
      <div className="table-wrap">
      <table aria-label={`What each role may do with ${label}`}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            {ACTIONS.map((a) => (
              <th key={a} scope="col">
                {ACTION_WORDS[a]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.role.id}>
              <th scope="row">
                {String(r.role.attributes.name)}
                {r.follows ? <span className="muted small-note"> (as {r.follows === '*' ? 'every type' : r.follows})</span> : null}
              </th>
              {ACTIONS.map((a) => {
                const own = r.actions.includes(`${a}:own`) && !(chosen.get(r.role.id) ?? []).includes(a);
                return (
                  <td key={a}>
                    <label className="inline">
                      <input type="checkbox" checked={(chosen.get(r.role.id) ?? []).includes(a)} onChange={(e) => toggle(r.role.id, a, e.target.checked)} />
                      <span className="visually-hidden">
                        {ACTION_WORDS[a]} {label} ({String(r.role.attributes.name)})
                      </span>
                      {own ? <span className="muted small-note">own only</span> : null}
                    </label>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" className="primary" disabled={busy || !changed.length} onClick={() => void save()}>
          Save what roles may do
        </button>
      </div>
    </>
  );
}

const sideNames = (rel: Resource, side: 'left_object_types' | 'right_object_types') => ((rel.relationships?.[side]?.data as Array<{ id: string }> | undefined) ?? []).map((d) => d.id);

function RelationChoices({ typeName, label, relations, onSaved }: { typeName: string; label: string; relations: Resource[]; onSaved: () => void }) {
  const { types } = useObjectTypes();
  const { busy, error, run } = useAction();
  const toast = useToast();
  const nameOf = (id: string) => {
    const t = (types ?? []).find((x) => x.id === id || x.name === id);
    return t ? t.label : id;
  };
  const typeId = (types ?? []).find((t) => t.name === typeName)?.id ?? typeName;
  // A box shows its new state at once (the relations are read again after the write).
  const [pending, setPending] = useState(new Map<string, boolean>());
  useEffect(() => setPending(new Map()), [relations]);
  const has = (rel: Resource, side: 'left_object_types' | 'right_object_types') => pending.get(`${rel.id}/${side}`) ?? sideNames(rel, side).some((id) => id === typeId || id === typeName);
  const set = async (rel: Resource, side: 'left_object_types' | 'right_object_types', on: boolean) => {
    setPending((p) => new Map(p).set(`${rel.id}/${side}`, on));
    const done = await run(async () => {
      await api.relate(on ? 'POST' : 'DELETE', `/model/relations/${rel.id}/relationships/${side}`, [{ type: 'object_types', id: typeName }]);
      return true;
    });
    if (!done) {
      setPending((p) => {
        const next = new Map(p);
        next.delete(`${rel.id}/${side}`);
        return next;
      });
      return;
    }
    const words = side === 'left_object_types' ? `${label} can have “${String(rel.attributes.label ?? rel.attributes.name)}”` : `${label} can be “${String(rel.attributes.inverse_label ?? rel.attributes.inverse_name)}”`;
    toast.success(on ? `${words} now.` : `${words.replace(' can ', ' can no longer ')}.`);
    onSaved();
  };
  if (!relations.length) return <p className="muted">There are no relations yet: create one in Relations to link {label} to other objects.</p>;
  return (
    <fieldset className="plain relation-choices">
      <legend>Relations</legend>
      <p className="muted">A relation links an object on its left to objects on its right (an article has a poster; an image is the poster of an article).</p>
      <ul>
        {relations.map((rel) => {
          const name = String(rel.attributes.label ?? rel.attributes.name);
          const inverse = String(rel.attributes.inverse_label ?? rel.attributes.inverse_name);
          return (
            <li key={rel.id}>
              <div>
                <span className="relation-name">{name}</span>{' '}
                <span className="muted">
                  {sideNames(rel, 'left_object_types').map(nameOf).join(', ') || 'no type yet'} → {sideNames(rel, 'right_object_types').map(nameOf).join(', ') || 'no type yet'}
                </span>
              </div>
              <div className="relation-sides">
              <label className="inline">
                <input type="checkbox" checked={has(rel, 'left_object_types')} disabled={busy} onChange={(e) => void set(rel, 'left_object_types', e.target.checked)} />
                {label} have “{name}”
              </label>
              <label className="inline">
                <input type="checkbox" checked={has(rel, 'right_object_types')} disabled={busy} onChange={(e) => void set(rel, 'right_object_types', e.target.checked)} />
                {label} are “{inverse}”
              </label>
              </div>
            </li>
          );
        })}
      </ul>
      <ErrorNote error={error} />
    </fieldset>
  );
}
