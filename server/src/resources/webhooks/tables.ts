// Tables of the webhooks family (migration 0071-webhooks).
import type { Generated } from 'kysely';

export interface WebhooksTable {
  id: Generated<number>;
  name: string;
  url: string;
  /** JSON array of event names, or ["*"]. */
  events: string;
  /** JSON array of object type names (abstract ones cover their sub-types); [] = every type. */
  types: string;
  enabled: boolean | number;
  secret: string;
  created: string;
  modified: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  uuid: string;
  webhook_id: number;
  event: string;
  resource_type: string;
  resource_id: string;
  user_id: number | null;
  base: string | null;
  body: string | null;
  created: string;
  state: DeliveryState;
  attempts: Generated<number>;
  max_attempts: number;
  status: number | null;
  error: string | null;
  last_attempt: string | null;
  delivered: string | null;
  next_at: number;
  lease_until: number | null;
  lease_owner: string | null;
}

/** Whether anonymous clients could see an object when it was last looked at (publication.ts). */
export interface PublicationStatesTable {
  object_id: number;
  public: boolean | number;
  changed: string;
}

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  publication_states: PublicationStatesTable;
}
