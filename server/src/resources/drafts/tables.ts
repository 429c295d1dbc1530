// The drafts table (migration 0130): at most one draft per object, keyed by the object's id.
export interface DraftsTable {
  object_id: number;
  /** JSON object: the attributes the draft changes, as sent (validated against the type). */
  attributes: string;
  /** JSON object: relation name (or `parents`) → the resource identifiers it will hold. */
  relationships: string;
  /** JSON object (migration 0131): language → {status?, translated_fields?} to create or change, or null to remove. */
  translations: string;
  created: string;
  modified: string;
  created_by: number | null;
  modified_by: number | null;
  /** When review was asked for (POST /drafts/{id}/submit), or null. */
  submitted: string | null;
  /** A scheduled publication: its instant and the user whose rights apply it. */
  publish_at: string | null;
  publish_by: number | null;
}

export interface DraftTables {
  drafts: DraftsTable;
}
