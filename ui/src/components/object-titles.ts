// Titles for object ids a page names (history entries, related ids in a change): one request for
// the readable ones; ids left out (trashed, removed, not readable) are simply not in the map.
import { useMemo } from 'react';
import { useApiList } from '../api/queries';

export function useObjectTitles(ids: Iterable<string>): Map<string, string> {
  const key = [...new Set(ids)].filter((id) => /^\d+$/.test(id)).sort().join(',');
  const q = useApiList(key ? '/objects' : null, { 'filter[id]': key, page_size: 100 });
  return useMemo(() => new Map((key && q.data?.data ? q.data.data : []).map((o) => [o.id, String(o.attributes.title || o.attributes.uname || `#${o.id}`)])), [key, q.data]);
}
