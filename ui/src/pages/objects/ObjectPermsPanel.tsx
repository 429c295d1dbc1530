// Object permissions on the object page (admins only): restrict the object — and, for a folder,
// everything below it — to some roles; an empty choice lifts the restriction. A restriction
// inherited from a folder above is shown, and is changed on that folder.
import { useEffect, useState } from 'react';
import { api, type Resource, type SingleResult } from '../../api/client';
import { ErrorNote, Notice } from '../../components/feedback';
import { useRights } from '../../components/rights';
import { href } from '../../components/route';
import { useAction } from '../../components/use-list';

interface Perms {
  roles: string[];
  inherited: boolean;
}

/** `etag`: the version the page edits (a save of the object's meta names it too). */
export function ObjectPermsPanel({ object, etag, onSaved }: { object: Resource; etag: string | null; onSaved: (r: SingleResult) => void }) {
  const rights = useRights();
  const [roles, setRoles] = useState<string[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const perms = (object.meta.perms as Perms | undefined) ?? null;
  const own = perms && !perms.inherited ? perms.roles : [];
  const [chosen, setChosen] = useState<string[]>(own);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();

  useEffect(() => setChosen(perms && !perms.inherited ? perms.roles : []), [object]);
  useEffect(() => {
    if (!rights.admin) return;
    api.list('/roles', { page_size: 100, sort: 'name' }).then((r) => setRoles(r.data.map((role) => String(role.attributes.name))), setLoadError);
  }, [rights.admin]);

  if (!rights.admin) return null;
  /** The roles an admin may restrict it to (administrators always see it), and any still chosen. */
  const choices = roles ? [...new Set([...roles.filter((name) => name !== 'admin'), ...chosen])] : [];
  const toggle = (name: string) => setChosen(chosen.includes(name) ? chosen.filter((n) => n !== name) : [...chosen, name]);
  const save = async () => {
    setNotice(null);
    const saved = await run(() => api.update(`/${object.type}/${object.id}`, object.type, object.id, {}, { perms: { roles: chosen } }, { ifMatch: etag }));
    if (saved) {
      onSaved(saved);
      setNotice(chosen.length ? 'The object is restricted to the chosen roles.' : 'Everyone who may read this type may read it.');
    }
  };
  return (
    <section className="panel" aria-label="Object permissions">
      <h2>Permissions</h2>
      <p className="muted">
        Only users with one of the chosen roles (and administrators) may see this object
        {object.type === 'folders' ? ' and everything in this folder' : ''}. Choose none to lift the restriction.
      </p>
      {perms?.inherited ? (
        <p role="note">
          Restricted by a folder above it to: <strong>{perms.roles.join(', ') || 'administrators'}</strong>.
        </p>
      ) : null}
      <ErrorNote error={loadError} />
      {roles && !choices.length ? (
        <p role="note">
          There is no role to choose yet besides the administrators'. <a href={href('roles')}>Create a role</a> to restrict this object to its users.
        </p>
      ) : null}
      {choices.length ? (
        <fieldset className="checks">
          <legend>Roles that may see it</legend>
          {choices.map((name) => (
              <label key={name} className="inline">
                <input type="checkbox" checked={chosen.includes(name)} onChange={() => toggle(name)} /> {name}
              </label>
            ))}
        </fieldset>
      ) : null}
      <ErrorNote error={error} />
      <Notice text={notice} />
      <button type="button" onClick={() => void save()} disabled={busy || !roles || (!choices.length && !own.length)}>
        Save permissions
      </button>
    </section>
  );
}
