// What a family of endpoints declares to the composition root (app.ts createContext and
// createServer): its parts of the write kernel, its checks of every request, and its routes. A
// family registers nothing itself: the root assembles the kernel once from every family's parts,
// so the kernel is the same whichever families mount routes (a command-line tool mounts none).
import type { Request } from 'express';
import type { AppContext } from '../context.js';
import type { RouteDef } from '../http/router.js';
import type { KernelParts } from './objects/pipeline.js';

/** Run on every request after authentication, before any route; throws an ApiError to refuse it. */
export type RequestCheck = (req: Request) => void | Promise<void>;

export interface Family {
  name: string;
  /** Its parts of the write kernel (type extensions, write guards, observers). */
  kernel?(ctx: AppContext): KernelParts;
  /** Its checks of every request (API keys, endpoint permissions). */
  requestChecks?(ctx: AppContext): RequestCheck[];
  /** Its endpoints; what it starts with a server (queues, timers) starts here. */
  routes?(ctx: AppContext): RouteDef[] | Promise<RouteDef[]>;
}
