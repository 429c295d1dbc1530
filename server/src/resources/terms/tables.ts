// Tables of terms and upload tokens (migrations 0050-legacy, 0110-terms-bedita).
import type { Generated } from 'kysely';

export interface TagsTable {
  id: Generated<number>;
  name: string;
  /** The plain label (`labels.default`, else the name as written). */
  label: string;
  /** JSON: language → label. */
  labels: string | null;
  enabled: Generated<boolean>;
  created: string;
  modified: string | null;
}

export interface CategoriesTable extends TagsTable {
  /** The object type the category belongs to; null for a legacy (type-less) category. */
  object_type_id: number | null;
  parent_id: number | null;
}

export interface ObjectCategoriesTable {
  object_id: number;
  category_id: number;
  /** BEdita's params of the category on the object (JSON), or null. */
  params?: string | null;
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
  /** JSON: BEdita's date range `params`. */
  params: string | null;
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

/** The point of each object's BEdita coords (a location's), kept by terms/coords.ts. */
export interface ObjectCoordsTable {
  object_id: number;
  latitude: number;
  longitude: number;
}

export interface LegacyTables {
  categories: CategoriesTable;
  tags: TagsTable;
  object_categories: ObjectCategoriesTable;
  object_tags: ObjectTagsTable;
  geo_tags: GeoTagsTable;
  object_coords: ObjectCoordsTable;
  date_items: DateItemsTable;
  upload_tokens: UploadTokensTable;
}
