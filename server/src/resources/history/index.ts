// The history family: an observer of the object write pipeline that records every change in the
// write's own transaction, and the history endpoints.
import type { AppContext } from '../../context.js';
import type { Family } from '../family.js';
import { historyRoutes } from './routes.js';
import { historyObserver } from './service.js';

export const historyFamily: Family = {
  name: 'history',
  kernel: () => ({ observers: [historyObserver] }),
  routes: historyRoutes,
};
