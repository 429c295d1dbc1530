// What the administration pages name by id (endpoints, applications, roles), read once through
// the query cache and shared by every page that names them; an empty list until they arrive.
// A page that shows them also shows a NamesError for each: when they cannot be read, ids stand in for the
// names and the admin is told why, not left with a silent "#3".
import type { Resource } from '../api/client';
import { useApiAll } from '../api/queries';
import { ErrorNote } from './feedback';

const NONE: Resource[] = [];

type NamesPath = '/admin/endpoints' | '/admin/applications' | '/roles';

export function useAdminNames(path: NamesPath): Resource[] {
  return useApiAll(path).data ?? NONE;
}

const WHAT: Record<NamesPath, string> = { '/admin/endpoints': 'endpoint', '/admin/applications': 'application', '/roles': 'role' };

/** A failure to read the names of `path` (the query useAdminNames shares), as an error note. */
export function NamesError({ path }: { path: NamesPath }) {
  const { error } = useApiAll(path);
  if (!error) return null;
  return (
    <div>
      <p className="muted">The {WHAT[path]} names could not be read: numbers are shown instead.</p>
      <ErrorNote error={error} />
    </div>
  );
}
