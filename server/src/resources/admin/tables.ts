// Tables of the administration family (migration 0121): configuration entries, endpoints and
// endpoint permissions.
import type { Generated } from 'kysely';

export interface ConfigTable {
  id: Generated<number>;
  name: string;
  context: string;
  content: string;
  application_id: number | null;
  created: string;
  modified: string;
}

export interface EndpointsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  enabled: boolean | number;
  created: string;
  modified: string;
}

export interface EndpointPermissionsTable {
  id: Generated<number>;
  endpoint_id: number | null;
  application_id: number | null;
  role_id: number | null;
  /** Bits 0-1: read, bits 2-3: write; each 0 no, 1 mine, 2 block, 3 yes (BEdita's encoding). */
  permission: number;
  created: string;
  modified: string;
}

export interface AdminTables {
  config: ConfigTable;
  endpoints: EndpointsTable;
  endpoint_permissions: EndpointPermissionsTable;
}
