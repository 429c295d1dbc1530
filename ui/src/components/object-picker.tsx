// Find existing objects by text (GET /objects?q=…) and pick one: used to add related objects
// and folder contents.
import { useState, type FormEvent } from 'react';
import type { Resource } from '../api/client';
import { Empty, ErrorNote, Loading, Pager } from './feedback';
import { StatusBadge } from './fields';
import { titleOf } from './format';
import { useList } from './use-list';

export function ObjectPicker({ onPick, types, busy, label = 'Find objects' }: { onPick: (r: Resource) => void; types?: string[]; busy?: boolean; label?: string }) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const list = useList(query === null ? null : '/objects', { q: query || undefined, 'filter[type]': types?.length ? types.join(',') : undefined }, 10);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation();
    setQuery(text.trim());
  };
  return (
    <div className="picker">
      <form className="toolbar" role="search" onSubmit={submit}>
        <label className="grow">
          {label}
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Title or text; empty lists all" />
        </label>
        <button type="submit">Find</button>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.result ? <Loading what="Searching" /> : null}
      {list.result && list.result.data.length === 0 ? <Empty>Nothing found.</Empty> : null}
      {list.result && list.result.data.length > 0 ? (
        <ul className="pick-list">
          {list.result.data.map((r) => (
            <li key={r.id}>
              <span>
                {titleOf(r)} <span className="muted">({r.type})</span> <StatusBadge status={r.attributes.status} />
              </span>
              <button type="button" className="small" onClick={() => onPick(r)} disabled={busy} aria-label={`Add ${titleOf(r)}`}>
                Add
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {list.result ? <Pager pagination={list.result.pagination} onPage={list.setPage} label="Search result pages" /> : null}
    </div>
  );
}
