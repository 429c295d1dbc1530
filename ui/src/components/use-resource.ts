// One resource being edited: read through the query cache (api/queries.ts), its attributes as
// form values, and a save that keeps the answer and says "Changes saved." (or shows the API
// error). A write gets the ETag the form's values were taken from, to send as If-Match. A newer
// copy (loaded again after a write elsewhere on the page) replaces the values only while the form
// is untouched, and then with its ETag: edits are never swapped for the server's copy unasked.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Resource, SingleResult } from '../api/client';
import { apiKey, useApiOne } from '../api/queries';
import type { Values } from './fields';
import { useAction } from './use-list';

/** `reloadKey`: any value whose change loads the resource again and takes it into the form (e.g. after a version was restored). */
export function useResource<A = Record<string, any>>(path: string | null, reloadKey: unknown = null) {
  const client = useQueryClient();
  const q = useApiOne(path);
  const [values, setValues] = useState<Values>({});
  const [etag, setEtag] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useAction();
  // The values as taken from the server (untouched while `values` is this very object), and for which path.
  const taken = useRef<{ path: string | null; values: Values | null }>({ path: null, values: null });
  const force = useRef(false);

  const { refetch } = q;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else {
      force.current = true;
      void refetch();
    }
  }, [reloadKey]); // eslint-disable-line react-hooks/exhaustive-deps

  const data = q.data;
  useEffect(() => {
    if (!data) return;
    const untouched = taken.current.path === path && taken.current.values === values;
    if (taken.current.path !== path || untouched || force.current) {
      const next = { ...data.data.attributes };
      taken.current = { path, values: next };
      force.current = false;
      setValues(next);
      setEtag(data.etag);
    }
  }, [data]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = useCallback(
    async (write: (ifMatch: string | null) => Promise<SingleResult<A>>) => {
      setNotice(null);
      const r = await save.run(() => write(etag));
      if (r) {
        // What was saved is the server's copy now: the form counts as untouched again.
        taken.current = { path, values };
        setEtag(r.etag);
        if (path) client.setQueryData(apiKey(path, {}, 'one'), r);
        setNotice('Changes saved.');
      }
      return r;
    },
    [save.run, etag, path, values, client],
  );

  // Until the resource of this path has arrived, nothing is shown (not the previous path's).
  const resource = taken.current.path === path && data ? (data.data as Resource<A>) : null;
  return { resource, etag, values, setValues, loadError: q.error, notice, save, submit };
}
