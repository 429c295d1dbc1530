// What the administration pages name by id (endpoints, applications, roles), read once through
// the query cache and shared by every page that names them; an empty list until they arrive.
import type { Resource } from '../api/client';
import { useApiAll } from '../api/queries';

const NONE: Resource[] = [];

export function useAdminNames(path: '/admin/endpoints' | '/admin/applications' | '/roles'): Resource[] {
  return useApiAll(path).data ?? NONE;
}
