// Typed table interfaces for kysely. Each family adds its tables in its own interface below and
// to `Database`; booleans read back as 0/1 on SQLite, so read them with Boolean().
import type { Generated } from 'kysely';
import type { AccountsTables } from '../resources/accounts/tables.js';
import type { FolderTables } from '../resources/folders/tables.js';
import type { HistoryTables } from '../resources/history/tables.js';
import type { LegacyTables } from '../resources/terms/tables.js';
import type { ObjectsFamilyTables } from '../resources/objects/tables.js';
import type { MediaTables } from '../resources/streams/tables.js';
import type { PermissionTables } from '../resources/permissions/tables.js';
import type { WebhookTables } from '../resources/webhooks/tables.js';
import type { JobTables } from '../jobs/tables.js';
import type { TranslationTables } from '../resources/translations/tables.js';
import type { AdminTables } from '../resources/admin/tables.js';
import type { AnnotationTables } from '../resources/annotations/tables.js';
import type { DraftTables } from '../resources/drafts/tables.js';

type Bool = boolean | number;

export interface ObjectTypesTable {
  id: Generated<number>;
  name: string;
  singular: string;
  description: string | null;
  parent_id: number | null;
  is_abstract: Bool;
  enabled: Bool;
  core_type: Bool;
  revision: number;
  created: string;
  modified: string;
  /** BEdita's `table` (plugin syntax, e.g. `BEdita/Core.Objects`). */
  table_name: Generated<string>;
  /** JSON list of associations (`Categories`, `Tags`, `DateRanges`…) or null. */
  associations: string | null;
  /** JSON list of the properties left out of the type, or null. */
  hidden: string | null;
  is_translatable: Generated<Bool>;
  /** JSON object (property → always / never translatable) or null. */
  translation_rules: string | null;
  /** Template of the site's preview link of a draft ({type}, {id}, {uname}, {token}), or null. */
  preview_url: string | null;
}

export interface ObjectsTable {
  id: Generated<number>;
  object_type_id: number;
  status: string;
  uname: string;
  title: string | null;
  description: string | null;
  body: string | null;
  lang: string | null;
  extra: string | null;
  properties: string | null;
  locked: Bool;
  deleted: Bool;
  published: string | null;
  created: string;
  modified: string;
  created_by: number | null;
  modified_by: number | null;
  /** Moved by the write kernel on every recorded write (edit conflicts, strong ETags). */
  version: Generated<number>;
  /** The publication window (UTC ISO instants; null: open): anonymous clients see `on` objects inside it. */
  publish_start: string | null;
  publish_end: string | null;
}

export interface UsersTable {
  id: number;
  username: string;
  password_hash: string | null;
  email: string | null;
  name: string | null;
  surname: string | null;
  blocked: Bool;
  last_login: string | null;
  last_login_err: string | null;
  num_login_err: number;
  verified: string | null;
  /** NFKC + case-folded username and email (users/account-key.ts), unique. */
  username_key: string;
  email_key: string | null;
  /** Raised to end every session at once: access tokens carry the version they were issued under. */
  session_version: Generated<number>;
}

export interface RolesTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  unchangeable: Bool;
  /** JSON: {type name or "*": [actions]} (see resources/permissions/rules.ts). */
  permissions: Generated<string>;
  created: string;
  modified: string;
}

export interface RolesUsersTable {
  id: Generated<number>;
  role_id: number;
  user_id: number;
  created: string;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number | null;
  application_id: number | null;
  created: string;
}

export interface CoreTables {
  object_types: ObjectTypesTable;
  objects: ObjectsTable;
  users: UsersTable;
  roles: RolesTable;
  roles_users: RolesUsersTable;
  refresh_tokens: RefreshTokensTable;
}

export interface Database
  extends CoreTables,
    ObjectsFamilyTables,
    FolderTables,
    AccountsTables,
    MediaTables,
    LegacyTables,
    WebhookTables,
    HistoryTables,
    PermissionTables,
    JobTables,
    TranslationTables,
    AdminTables,
    AnnotationTables,
    DraftTables {}
