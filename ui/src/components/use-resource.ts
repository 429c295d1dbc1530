// One resource being edited: loaded from its path, its attributes as form values, and a save
// that keeps the answer and says "Changes saved." (or shows the API error). A write gets the ETag
// the resource was loaded with (or last saved with), to send as If-Match.
import { useCallback, useEffect, useState } from 'react';
import { api, type Resource, type SingleResult } from '../api/client';
import type { Values } from './fields';
import { useAction } from './use-list';

/** `reloadKey`: any value whose change loads the resource again (e.g. after a version was restored). */
export function useResource(path: string | null, reloadKey: unknown = null) {
  const [resource, setResource] = useState<Resource | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [values, setValues] = useState<Values>({});
  const [loadError, setLoadError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useAction();

  useEffect(() => {
    if (!path) return;
    setResource(null);
    api.get(path).then((r) => {
      setResource(r.data);
      setEtag(r.etag);
      setValues({ ...r.data.attributes });
      setLoadError(null);
    }, setLoadError);
  }, [path, reloadKey]);

  const submit = useCallback(
    async (write: (ifMatch: string | null) => Promise<SingleResult>) => {
      setNotice(null);
      const r = await save.run(() => write(etag));
      if (r) {
        setResource(r.data);
        setEtag(r.etag);
        setNotice('Changes saved.');
      }
      return r;
    },
    [save.run, etag],
  );

  return { resource, etag, values, setValues, loadError, notice, save, submit };
}
