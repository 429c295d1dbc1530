// A paged list from the API through the query cache (api/queries.ts): the page, the data, loading
// and error, and a reload; and an action (a write) with its pending state and error.
import { useMutation } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ListResult, Query } from '../api/client';
import { useApiList } from '../api/queries';

/**
 * `refresh`: any value whose change reloads the list (e.g. a counter bumped elsewhere).
 * `pageState`: the page held elsewhere (the URL), instead of in this hook.
 */
export function useList<A = Record<string, any>>(path: string | null, query: Query = {}, pageSize = 20, refresh: unknown = null, pageState?: [number, (page: number) => void]) {
  const [ownPage, setOwnPage] = useState(1);
  const [page, setPage] = pageState ?? [ownPage, setOwnPage];
  const key = JSON.stringify(query);

  // A new filter starts from page 1 (a page kept in the URL is reset by whoever changes the filter).
  useEffect(() => {
    if (!pageState) setOwnPage(1);
  }, [path, key]); // eslint-disable-line react-hooks/exhaustive-deps

  const q = useApiList(path, { ...query, page, page_size: pageSize });
  const { refetch } = q;
  const reload = useCallback(async () => void (await refetch()), [refetch]);

  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else void refetch();
  }, [refresh]); // eslint-disable-line react-hooks/exhaustive-deps

  // A page emptied by a delete: step back to the last page that has items.
  const r = q.isPlaceholderData ? undefined : q.data;
  const emptied = r !== undefined && r.data.length === 0 && page > 1;
  useEffect(() => {
    if (emptied) setPage(Math.max(1, r.pagination.page_count));
  }, [emptied]); // eslint-disable-line react-hooks/exhaustive-deps

  return { result: (q.data as ListResult<A> | undefined) ?? null, error: q.error, loading: q.isFetching, page, setPage, reload };
}

/**
 * Run an action (a mutation: its writes mark what they change as stale in the query cache),
 * keeping its pending state and error for the form that triggered it.
 */
export function useAction() {
  const mutation = useMutation({ mutationFn: (fn: () => Promise<unknown>) => fn() });
  const [shown, setShown] = useState<{ error: unknown } | null>(null);
  const { mutateAsync, reset } = mutation;
  const run = useCallback(
    async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
      setShown(null);
      try {
        return (await mutateAsync(fn)) as T;
      } catch {
        return undefined;
      }
    },
    [mutateAsync],
  );
  /** Show another error than the action's (or none). */
  const setError = useCallback(
    (error: unknown) => {
      reset();
      setShown(error ? { error } : null);
    },
    [reset],
  );
  return { busy: mutation.isPending, error: shown ? shown.error : mutation.error, setError, run };
}

/** What useList gives: a page of resources with attributes `A`, its states and its pager. */
export type PagedList<A = Record<string, any>> = ReturnType<typeof useList<A>>;
