// The relations of one object: for each relation name in its `relationships`, the related
// objects (paged), remove, and add by searching.
import { useState } from 'react';
import { api, type Resource } from '../../api/client';
import { Empty, ErrorNote, Pager } from '../../components/feedback';
import { StatusBadge } from '../../components/fields';
import { titleOf } from '../../components/format';
import { ObjectPicker } from '../../components/object-picker';
import { href } from '../../components/route';
import { useAction, useList } from '../../components/use-list';

const NOT_RELATIONS = new Set(['parents', 'parent', 'children', 'roles', 'streams', 'translations']);

/** `readOnly`: the user may not change the object (relationship writes are updates of it). */
export function RelationsPanel({ object, readOnly = false }: { object: Resource; readOnly?: boolean }) {
  const names = Object.keys(object.relationships ?? {}).filter((n) => !NOT_RELATIONS.has(n));
  return (
    <section aria-label="Relations">
      <h2>Relations</h2>
      {names.length === 0 ? <Empty>This type has no relations. Add them under Relations.</Empty> : null}
      {names.map((name) => (
        <Relation key={name} object={object} name={name} readOnly={readOnly} />
      ))}
    </section>
  );
}

function Relation({ object, name, readOnly }: { object: Resource; name: string; readOnly: boolean }) {
  const base = `/${object.type}/${object.id}`;
  const list = useList(`${base}/${name}`);
  const [adding, setAdding] = useState(false);
  const { busy, error, run } = useAction();
  const change = async (method: 'POST' | 'DELETE', target: Resource) => {
    await run(() => api.relate(method, `${base}/relationships/${name}`, [{ type: target.type, id: target.id }]));
    await list.reload();
  };
  return (
    <div className="panel" aria-label={`Relation ${name}`} role="group">
      <div className="page-head">
        <h3>{name.replace(/_/g, ' ')}</h3>
        <span className="spacer" />
        {readOnly ? null : (
          <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            {adding ? 'Done' : `Add to ${name}`}
          </button>
        )}
      </div>
      <ErrorNote error={list.error ?? error} />
      {list.result && list.result.data.length === 0 ? <p className="muted">Nothing related yet.</p> : null}
      <ul className="related">
        {list.result?.data.map((r) => (
          <li key={`${r.type}-${r.id}`}>
            <a className="grow" href={href('objects', r.type, r.id)}>
              {titleOf(r)}
            </a>
            <span className="muted">{r.type}</span>
            <StatusBadge status={r.attributes.status} />
            {readOnly ? null : (
              <button type="button" className="small" onClick={() => void change('DELETE', r)} disabled={busy} aria-label={`Remove ${titleOf(r)} from ${name}`}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {list.result && list.result.pagination.page_count > 1 ? <Pager pagination={list.result.pagination} onPage={list.setPage} label={`Pages of ${name}`} /> : null}
      {adding ? <ObjectPicker onPick={(r) => void change('POST', r)} busy={busy} label={`Find objects to add to ${name}`} /> : null}
    </div>
  );
}
