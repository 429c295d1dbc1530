// The job queue's table (migration 0090-jobs).
import type { Generated } from 'kysely';

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  payload: string | null;
  dedupe_key: string | null;
  state: 'pending' | 'failed';
  attempts: Generated<number>;
  last_error: string | null;
  created: string;
  next_at: number;
  lease_until: number | null;
  lease_owner: string | null;
  /** BEdita's fields of a job made through /async_jobs (Folio's own jobs keep the defaults). */
  priority: Generated<number>;
  max_attempts: Generated<number>;
  expires: string | null;
}

export interface JobTables {
  jobs: JobsTable;
}
