// What the signed-in user may do, from GET /auth/user (meta.admin, meta.rights per type), shared
// with every page: areas, buttons and status choices the server would refuse are not shown.
import { createContext, useContext } from 'react';

export interface Rights {
  /** The user's data has arrived (until then nothing admin-only is shown). */
  loaded: boolean;
  admin: boolean;
  userId: string | null;
  /** Per object type: actions, `update:own` style for the user's own objects only. */
  byType: Record<string, string[]>;
}

export const NO_RIGHTS: Rights = { loaded: false, admin: false, userId: null, byType: {} };

const RightsContext = createContext<Rights>(NO_RIGHTS);

export const RightsProvider = RightsContext.Provider;

export function useRights(): Rights {
  return useContext(RightsContext);
}

export type ObjectAction = 'read' | 'create' | 'update' | 'delete' | 'publish';

/** Whether the user may `action` objects of `type` (`object`: checked against its creator for `:own`). */
export function may(rights: Rights, action: ObjectAction, type: string, object?: { meta?: Record<string, unknown> } | null): boolean {
  if (rights.admin) return true;
  const list = rights.byType[type] ?? [];
  if (list.includes(action)) return true;
  if (!list.includes(`${action}:own`)) return false;
  return !object || String(object.meta?.created_by ?? '') === rights.userId;
}
