// Tables of terms and upload tokens (migration 0050-legacy).
import type { Generated } from 'kysely';

export interface TermsTable {
  id: Generated<number>;
  name: string;
  label: string;
  created: string;
}

export interface ObjectCategoriesTable {
  object_id: number;
  category_id: number;
}

export interface ObjectTagsTable {
  object_id: number;
  tag_id: number;
}

export interface GeoTagsTable {
  id: Generated<number>;
  object_id: number;
  title: string | null;
  address: string | null;
  latitude: number | null;
  longitude: number | null;
  gmaps_lookats: string | null;
}

export interface DateItemsTable {
  id: Generated<number>;
  object_id: number;
  start_date: string | null;
  end_date: string | null;
  days: string | null;
}

export interface UploadTokensTable {
  id: Generated<number>;
  /** SHA-256 of the token (the token itself is only ever known to the client). */
  token_hash: string;
  user_id: number;
  object_type: string;
  stream_uuid: string;
  file_size: number;
  /** The object created with the token; null while unused. */
  object_id: number | null;
  created: string;
  expires: string;
}

export interface LegacyTables {
  categories: TermsTable;
  tags: TermsTable;
  object_categories: ObjectCategoriesTable;
  object_tags: ObjectTagsTable;
  geo_tags: GeoTagsTable;
  date_items: DateItemsTable;
  upload_tokens: UploadTokensTable;
}
