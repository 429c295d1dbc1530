// Titles for object ids a page names (history entries, related ids in a change): one request for
// the readable ones; ids left out (trashed, removed, not readable) are simply not in the map.
import { useEffect, useState } from 'react';
import { api } from '../api/client';

export function useObjectTitles(ids: Iterable<string>): Map<string, string> {
  const [titles, setTitles] = useState<Map<string, string>>(new Map());
  const key = [...new Set(ids)].filter((id) => /^\d+$/.test(id)).sort().join(',');
  useEffect(() => {
    if (!key) return;
    let live = true;
    api.list('/objects', { 'filter[id]': key, page_size: 100 }).then(
      (r) => live && setTitles(new Map(r.data.map((o) => [o.id, String(o.attributes.title || o.attributes.uname || `#${o.id}`)]))),
      () => live && setTitles(new Map()),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return titles;
}
