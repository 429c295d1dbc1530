// History (admins): every create, change, trash, restore and removal across the site (GET /history),
// newest first, filtered by user, object, action and date — the filters kept in the URL, so a
// reload or Back returns to the same list. Objects are named by their titles (one request per
// page); an object's own page shows its versions in detail and restores them.
import { useState, type FormEvent } from 'react';
import type { Resource } from '../../api/client';
import { useApiAll } from '../../api/queries';
import { formatDate } from '../../components/format';
import { History as HistoryIcon } from '../../components/icons';
import { DataTable } from '../../components/data-table';
import { href, useHashQuery } from '../../components/route';
import { useObjectTitles } from '../../components/object-titles';
import { useList } from '../../components/use-list';

const ACTIONS: Array<[string, string]> = [
  ['create', 'Created'],
  ['update', 'Changed'],
  ['trash', 'Moved to the trash'],
  ['restore', 'Restored'],
  ['remove', 'Deleted for good'],
];
const actionLabel = (a: unknown) => ACTIONS.find(([v]) => v === a)?.[1] ?? String(a);

/** A `date` input's day as the instant it starts (or, `end`, ends) in the user's time zone. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!day) return undefined;
  const d = new Date(`${day}T00:00:00`);
  if (Number.isNaN(d.getTime())) return undefined;
  if (end) d.setDate(d.getDate() + 1);
  return new Date(d.getTime() - (end ? 1 : 0)).toISOString();
}

export function HistoryPage() {
  const [params, setParams] = useHashQuery();
  const page = Math.max(1, Number(params.page) || 1);
  const query = {
    sort: '-id',
    'filter[user_id]': params.user || undefined,
    'filter[resource_id]': params.object || undefined,
    'filter[user_action]': params.action || undefined,
    'filter[created][gte]': dayBound(params.from ?? '', false),
    'filter[created][lte]': dayBound(params.to ?? '', true),
  };
  const list = useList('/history', query, 25, null, [page, (p) => setParams({ page: p > 1 ? p : null })]);
  const entries = list.result?.data ?? [];
  const found = useObjectTitles(entries.map((h) => String(h.attributes.resource_id)));
  // Objects in the trash or removed are not listed: their title as the page's entries recorded it.
  const titles = new Map([...titlesRecorded(entries), ...found]);
  const users = useApiAll('/users').data ?? [];
  const [objectText, setObjectText] = useState(params.object ?? '');
  const filter = (changes: Record<string, string | null>) => setParams({ ...changes, page: null });
  const applyObject = (e: FormEvent) => {
    e.preventDefault();
    filter({ object: objectText.trim().replace(/^#/, '') || null });
  };

  return (
    <section>
      <h1>History</h1>
      <form className="toolbar" role="search" aria-label="Filter the history" onSubmit={applyObject}>
        <label>
          User
          <select value={params.user ?? ''} onChange={(e) => filter({ user: e.target.value || null })}>
            <option value="">Anyone</option>
            {users.map((u) => (
              <option key={u.id} value={u.id}>
                {String(u.attributes.username)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Action
          <select value={params.action ?? ''} onChange={(e) => filter({ action: e.target.value || null })}>
            <option value="">Any</option>
            {ACTIONS.map(([v, text]) => (
              <option key={v} value={v}>
                {text}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={params.from ?? ''} onChange={(e) => filter({ from: e.target.value || null })} />
        </label>
        <label>
          To
          <input type="date" value={params.to ?? ''} onChange={(e) => filter({ to: e.target.value || null })} />
        </label>
        <label>
          Object id
          <input inputMode="numeric" value={objectText} onChange={(e) => setObjectText(e.target.value)} placeholder="e.g. 12" size={8} />
        </label>
        <button type="submit">Filter</button>
        {Object.keys(params).some((k) => k !== 'page') ? (
          <button
            type="button"
            onClick={() => {
              setObjectText('');
              setParams({ user: null, action: null, from: null, to: null, object: null, page: null });
            }}
          >
            Clear filters
          </button>
        ) : null}
      </form>
      <DataTable
        label="History"
        pagerLabel="History pages"
        list={list}
        empty="Nothing in the history matches."
        emptyIcon={<HistoryIcon size={28} />}
        columns={[
          { header: 'When', cell: (h) => formatDate(h.attributes.created) },
          { header: 'Who', cell: (h) => (h.meta.username ? String(h.meta.username) : h.attributes.application_id ? `application #${h.attributes.application_id}` : '—') },
          { header: 'What', cell: (h) => actionLabel(h.attributes.user_action) },
          {
            header: 'Object',
            cell: (h) => {
              const id = String(h.attributes.resource_id);
              const type = String(h.meta.object_type ?? 'objects');
              const name = titles.get(id) ?? `#${id}`;
              return (
                <>
                  {h.attributes.user_action === 'remove' ? <span>{name}</span> : <a href={type === 'folders' ? href('folders', id) : href('objects', type, id)}>{name}</a>}{' '}
                  <span className="muted">{type}</span>
                </>
              );
            },
          },
          { header: 'Fields', className: 'muted', cell: (h) => Object.keys((h.attributes.changed as Record<string, unknown>) ?? {}).join(', ') || '—' },
        ]}
      />
    </section>
  );
}

/** The last title each object's entries on this page set (oldest first, so the newest wins). */
function titlesRecorded(entries: Resource[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const h of [...entries].reverse()) {
    const title = (h.attributes.changed as Record<string, unknown> | null)?.title;
    if (typeof title === 'string' && title) out.set(String(h.attributes.resource_id), title);
  }
  return out;
}
