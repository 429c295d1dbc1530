// A paged list loaded from the API: the page, the data, loading and error, and a reload.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type ListResult, type Query } from '../api/client';

/**
 * `refresh`: any value whose change reloads the list (e.g. a counter bumped elsewhere).
 * `pageState`: the page held elsewhere (the URL), instead of in this hook.
 */
export function useList(path: string | null, query: Query = {}, pageSize = 20, refresh: unknown = null, pageState?: [number, (page: number) => void]) {
  const [ownPage, setOwnPage] = useState(1);
  const [page, setPage] = pageState ?? [ownPage, setOwnPage];
  const [result, setResult] = useState<ListResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const key = JSON.stringify(query);
  const seq = useRef(0);

  // A new filter starts from page 1 (a page kept in the URL is reset by whoever changes the filter).
  useEffect(() => {
    if (!pageState) setOwnPage(1);
  }, [path, key]); // eslint-disable-line react-hooks/exhaustive-deps

  const load = useCallback(async () => {
    if (!path) return;
    const mine = ++seq.current;
    setLoading(true);
    try {
      const r = await api.list(path, { ...JSON.parse(key), page, page_size: pageSize });
      if (mine !== seq.current) return;
      // A page emptied by a delete: step back to the last page that has items.
      if (r.data.length === 0 && page > 1) {
        setPage(Math.max(1, r.pagination.page_count));
        return;
      }
      setResult(r);
      setError(null);
    } catch (e) {
      if (mine === seq.current) setError(e);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path, key, page, pageSize, refresh]);

  useEffect(() => {
    void load();
  }, [load]);

  return { result, error, loading, page, setPage, reload: load };
}

/** Run an action, keeping its pending state and error for the form that triggered it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
