// Tables of the permissions family: object permissions (an object restricted to roles; on a
// folder, everything below it too) and the counters of per-client rate limits.

export interface ObjectPermsTable {
  object_id: number;
  created: string;
  created_by: number | null;
}

export interface ObjectPermRolesTable {
  object_id: number;
  role_id: number;
}

export interface RateHitsTable {
  /** Which limit: 'login' (failed password logins) or 'mail' (mail-sending requests). */
  bucket: string;
  /** The client's IP address. */
  client: string;
  /** Start of the fixed window, epoch milliseconds. */
  window_start: number;
  hits: number;
}

export interface PermissionTables {
  object_perms: ObjectPermsTable;
  object_perm_roles: ObjectPermRolesTable;
  rate_hits: RateHitsTable;
}
