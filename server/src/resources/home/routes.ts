// GET /home: the endpoints this caller may use, derived from the declared routes (and one entry
// per enabled, concrete object type), with the methods allowed and the formats served.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { Guard } from '../../http/auth.js';
import { sendMeta } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { Produces } from '../../http/negotiate.js';
import type { RouteDef, RouteRecord } from '../../http/router.js';

const FORMATS: Record<Produces, string[]> = {
  jsonapi: ['application/json', 'application/vnd.api+json'],
  atomic: ['application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"'],
  schema: ['application/schema+json'],
  legacy: ['application/json'],
  any: ['*/*'],
};

function permitted(guard: Guard, req: Request): boolean {
  if (guard === 'anonymous') return true;
  if (guard === 'user') return req.auth.userId !== null;
  return req.auth.isAdmin;
}

export function homeRoutes(ctx: AppContext): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/home',
      guard: 'anonymous',
      handler: async (req, res) => {
        const base = baseUrl(req);
        const entries = new Map<string, { allow: Set<string>; formats: Set<string> }>();
        const add = (key: string, r: RouteRecord) => {
          const e = entries.get(key) ?? { allow: new Set(), formats: new Set() };
          e.allow.add(r.method.toUpperCase());
          FORMATS[r.produces].forEach((f) => e.formats.add(f));
          entries.set(key, e);
        };
        const typeRoutes: RouteRecord[] = [];
        for (const r of ctx.routes) {
          if (!permitted(r.guard, req) || r.path === '/home') continue;
          const first = r.path.split('/')[1] ?? '';
          if (!first) continue;
          if (first.startsWith(':')) typeRoutes.push(r);
          else add(`/${first}`, r);
        }
        if (typeRoutes.length) {
          const types = await ctx.db.selectFrom('object_types').select('name').where('is_abstract', '=', false).where('enabled', '=', true).orderBy('name').execute();
          for (const t of types) if (!entries.has(`/${t.name}`)) for (const r of typeRoutes) add(`/${t.name}`, r);
        }
        const resources: Record<string, unknown> = {};
        for (const key of [...entries.keys()].sort()) {
          const e = entries.get(key)!;
          resources[key] = { href: base + key, hints: { allow: [...e.allow].sort(), formats: [...e.formats] } };
        }
        sendMeta(req, res, { resources });
      },
    },
  ];
}
