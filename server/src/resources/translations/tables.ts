// Tables of the translations family: one row per object and language (BEdita 5's `translations`).
import type { Generated } from 'kysely';

export interface TranslationsTable {
  id: Generated<number>;
  object_id: number;
  /** A BCP 47 tag as the writer sent it (`it`, `pt-BR`). */
  lang: string;
  /** `on`, `draft` or `off`: anonymous clients read `on` ones only. */
  status: string;
  /** JSON object: field name → translated text. */
  translated_fields: string;
  created: string;
  modified: string;
  created_by: number | null;
  modified_by: number | null;
}

export interface TranslationTables {
  translations: TranslationsTable;
}
