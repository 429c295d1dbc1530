// The annotations table (migration 0122).
import type { Generated } from 'kysely';

export interface AnnotationsTable {
  id: Generated<number>;
  object_id: number;
  user_id: number;
  description: string | null;
  /** JSON text or null. */
  params: string | null;
  created: string;
  modified: string;
}

export interface AnnotationTables {
  annotations: AnnotationsTable;
}
