// The signed-in user, provided by the shell to every page (null while it loads).
import { createContext, useContext } from 'react';
import type { CurrentUser } from '../api/client';

export const CurrentUserContext = createContext<CurrentUser | null>(null);

export function useCurrentUser(): CurrentUser | null {
  return useContext(CurrentUserContext);
}
