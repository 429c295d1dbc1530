// Tables of the history family (migration 0070-history).
import type { Generated } from 'kysely';
import type { ObjectAction } from '../objects/changes.js';

export interface HistoryTable {
  id: Generated<number>;
  resource_id: number;
  /** 'objects' for every object type. */
  resource_type: string;
  /** Concrete type name at the time of the write. */
  object_type: string;
  user_id: number | null;
  application_id: number | null;
  user_action: ObjectAction;
  /** JSON object of the changed fields' new values. */
  changed: string;
  created: string;
}

export interface HistoryTables {
  history: HistoryTable;
}
