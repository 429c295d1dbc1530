// What the object write pipeline tells its observers about every write it makes. History and
// webhooks are observers: they see every create, update, trash, restore and permanent delete of
// every type, whichever entry point (JSON API, /objects, /users, /folders, legacy, /operations)
// made it.
import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';

export type ObjectAction = 'create' | 'update' | 'trash' | 'restore' | 'remove';
/** Events derived from writes and the clock, for webhooks only (never history): see webhooks/publication.ts. */
export type PublicationAction = 'publish' | 'unpublish';
/** Events of the review of a draft, for webhooks only (resources/drafts/): named in full. */
export type DraftEvent = 'drafts.submitted';

export interface ObjectChange {
  action: ObjectAction;
  id: number;
  /** Concrete type name, e.g. 'documents', 'users', 'images'. */
  typeName: string;
  /** Who wrote: the signed-in user, or null (anonymous signup, system). */
  userId: number | null;
  /** The application (API key or client-credentials token) the write came through, if any. */
  applicationId: number | null;
  /**
   * New values of the fields that changed, keyed by field name (attributes and meta fields alike,
   * flat); on create every field set. Never a password.
   */
  changed: Record<string, unknown>;
  /** Base URL the write came in on (FOLIO_PUBLIC_URL or the request's), for links in payloads. */
  base: string | null;
}

export interface ObjectObserver {
  name: string;
  /** Inside the write's transaction, after the write: rows written here commit or roll back with it. */
  record?(trx: Transaction<Database>, changes: ObjectChange[]): Promise<void>;
  /** After the commit (never on rollback). Errors are logged and never reach the caller. */
  afterCommit?(changes: ObjectChange[]): void;
}
