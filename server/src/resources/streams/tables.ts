// Tables of the media family: `streams` holds one row per stored file (its bytes live in the
// file store at a path derived from the uuid).
export interface StreamsTable {
  uuid: string;
  object_id: number | null;
  file_name: string;
  mime_type: string;
  file_size: number;
  hash_md5: string;
  hash_sha1: string;
  hash_sha256: string;
  width: number | null;
  height: number | null;
  created: string;
  modified: string;
  created_by: number | null;
  /** The bytes need an authenticated reader of the object (BEdita's `private_url`). */
  private_url: boolean | number;
}

export interface MediaTables {
  streams: StreamsTable;
}
