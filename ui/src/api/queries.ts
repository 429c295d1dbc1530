// Server state for the admin: one TanStack Query cache in front of api/client.ts. Every read is
// keyed by its API path, its query and the shape asked for (a page, one resource, every page), so
// components asking for the same path share one request and one answer, and an answer for a key no
// longer shown (an earlier search) lands in its own entry, never over the newer one; a read no
// longer wanted is cancelled. A write that succeeds marks what it may have changed as stale: shown
// queries load again, the others when next shown.
import { QueryClient, keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { api, lastUsername, onApiWrite, onSessionChange, type ListResult, type Query, type Resource, type SingleResult } from './client';

export const queryClient = new QueryClient({
  defaultOptions: {
    // Errors are shown at once (the API's refusals do not get better by asking again); a form
    // is not reloaded under the user's hands because the window got focus back.
    queries: { retry: false, refetchOnWindowFocus: false },
    mutations: { retry: false },
  },
});

type CachedQuery = { queryKey: QueryKey };

type Shape = 'list' | 'one' | 'all';

/** The cache key of a read: `['api', path, query, shape]`. */
export function apiKey(path: string, query: Query = {}, shape: Shape = 'list'): QueryKey {
  return ['api', path, query, shape];
}

/** The family of a path: its first segment (`/users/5/roles` → `users`). */
const familyOf = (path: unknown) => String(path).split(/[/?]/).find(Boolean) ?? '';

/**
 * Families whose writes change nothing outside their group (the other writes can change any
 * object, its history, trash, folders or titles, so they mark every read as stale).
 */
const CONTAINED = [['applications', 'admin', 'config'], ['webhooks'], ['backups']];

/** Mark as stale what a write to `path` may have changed. Reads of an object just deleted (its
 *  translations, history, relations) are marked but not asked again: they could only answer 404. */
export function invalidateAfterWrite(path: string, method = 'PATCH'): Promise<void> {
  const group = CONTAINED.find((g) => g.includes(familyOf(path)));
  const gone = method === 'DELETE' && /^\/[^/?]+\/[^/?]+$/.test(path) ? path : null;
  const underGone = (key: unknown) => gone !== null && (String(key) === gone || String(key).startsWith(`${gone}/`));
  const changed = (q: CachedQuery) => q.queryKey[0] === 'api' && (!group || group.includes(familyOf(q.queryKey[1])));
  return Promise.all([
    queryClient.invalidateQueries({ predicate: (q) => changed(q) && !underGone(q.queryKey[1]) }),
    gone ? queryClient.invalidateQueries({ predicate: (q) => changed(q) && underGone(q.queryKey[1]), refetchType: 'none' }) : null,
  ]).then(() => undefined);
}

onApiWrite((path, method) => void invalidateAfterWrite(path, method));
// Signed out, or another user signs in where a session expired: nothing read for the previous
// user is shown to the next.
let cachedFor = lastUsername();
onSessionChange((state) => {
  const user = state === 'none' ? '' : lastUsername();
  if (state === 'none' || (state === 'active' && user !== cachedFor)) queryClient.clear();
  cachedFor = user;
});

function readOf(path: string, query: Query, shape: Shape, maxPages = 10) {
  return ({ signal }: { signal: AbortSignal }): Promise<ListResult | SingleResult | Resource[]> =>
    shape === 'one' ? api.get(path, query, { signal }) : shape === 'all' ? api.listAll(path, query, maxPages, { signal }) : api.list(path, query, { signal });
}

/** The query of one page of a list: its key and its read (what useApiList observes). */
export function listQuery(path: string, query: Query = {}) {
  return { queryKey: apiKey(path, query, 'list'), queryFn: readOf(path, query, 'list') as (c: { signal: AbortSignal }) => Promise<ListResult> };
}

/** One page of a list (`null` path: nothing asked yet); the previous page stays shown while the next loads. */
export function useApiList(path: string | null, query: Query = {}) {
  return useQuery({ ...listQuery(path ?? '', query), enabled: path !== null, placeholderData: keepPreviousData });
}

/** Every item of a list, page by page (at most `maxPages` pages of 100). */
export function useApiAll<A = Record<string, any>>(path: string | null, query: Query = {}, maxPages = 10) {
  return useQuery({
    queryKey: apiKey(path ?? '', query, 'all'),
    queryFn: readOf(path ?? '', query, 'all', maxPages) as (c: { signal: AbortSignal }) => Promise<Resource<A>[]>,
    enabled: path !== null,
  });
}

/** One resource with its ETag. */
export function useApiOne(path: string | null, query: Query = {}) {
  return useQuery({
    queryKey: apiKey(path ?? '', query, 'one'),
    queryFn: readOf(path ?? '', query, 'one') as (c: { signal: AbortSignal }) => Promise<SingleResult>,
    enabled: path !== null,
  });
}

/** One resource as it is on the server now (never an older cached copy), kept in the cache. */
export function fetchOne<A = Record<string, any>>(path: string, query: Query = {}): Promise<SingleResult<A>> {
  return queryClient.fetchQuery({ queryKey: apiKey(path, query, 'one'), queryFn: readOf(path, query, 'one') as () => Promise<SingleResult<A>>, staleTime: 0 });
}

/** One page of a list as it is on the server now, kept in the cache. */
export function fetchList<A = Record<string, any>>(path: string, query: Query = {}): Promise<ListResult<A>> {
  return queryClient.fetchQuery({ queryKey: apiKey(path, query, 'list'), queryFn: readOf(path, query, 'list') as () => Promise<ListResult<A>>, staleTime: 0 });
}

/** Every item of a list as it is on the server now, kept in the cache. */
export function fetchAll(path: string, query: Query = {}, maxPages = 10): Promise<Resource[]> {
  return queryClient.fetchQuery({ queryKey: apiKey(path, query, 'all'), queryFn: readOf(path, query, 'all', maxPages) as () => Promise<Resource[]>, staleTime: 0 });
}
