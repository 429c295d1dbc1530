// GET /home: the endpoints this caller may use, derived from the declared routes (and one entry
// per enabled, concrete object type, with the methods its roles allow), with the formats served.
// Non-admins see none of the admin-only areas.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { Guard } from '../../http/auth.js';
import { sendMeta } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { Produces } from '../../http/negotiate.js';
import type { RouteDef, RouteRecord } from '../../http/router.js';
import { typeByName } from '../objects/model.js';
import { rightsOn } from '../permissions/rules.js';
import { endpointAccess } from '../admin/endpoints.js';

const FORMATS: Record<Produces, string[]> = {
  jsonapi: ['application/json', 'application/vnd.api+json'],
  atomic: ['application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"'],
  schema: ['application/schema+json'],
  legacy: ['application/json'],
  json: ['application/json'],
  any: ['*/*'],
};

/** Areas that answer resources of several types, as BEdita's Home marks them (`multiple_types`). */
const MULTIPLE_TYPES = new Set(['/admin', '/model', '/translations', '/trash']);

/** The BEdita 5 API release whose behaviour Folio answers with (`meta.version` of /home: BEdita clients compare it). */
export const BEDITA_API_VERSION = '5.30.2';

/**
 * BEdita's hints of an endpoint beside `allow` and `formats`: its label, whether it is an object
 * type's endpoint (`object_type`: the BEdita Manager makes a module of each) and whether it
 * answers several types (`multiple_types`: abstract types, /trash, /model…).
 */
function beditaHints(ctx: AppContext, key: string) {
  const name = key.slice(1);
  const type = typeByName(ctx, name);
  const label = name.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  return { display: { label }, object_type: !!type, multiple_types: type ? type.isAbstract : MULTIPLE_TYPES.has(key) };
}

function permitted(guard: Guard, req: Request): boolean {
  if (guard === 'anonymous') return true;
  if (guard === 'user') return req.auth.userId !== null;
  return req.auth.isAdmin;
}

/** Areas only admins use (a user's own account is reached through /auth/user). */
const ADMIN_AREAS = new Set(['/users', '/roles', '/applications', '/history', '/backups', '/webhooks']);
/** Areas read by admins and applications only (BEdita's `config`: an application reads its own). */
const APPLICATION_AREAS = new Set(['/config']);

function areaVisible(req: Request, key: string): boolean {
  if (req.auth.isAdmin) return true;
  if (ADMIN_AREAS.has(key)) return false;
  return !APPLICATION_AREAS.has(key) || req.auth.applicationId !== null;
}

/** Methods of a type's endpoint the caller's roles allow (GET always: it reads what it may). */
function typeMethodAllowed(ctx: AppContext, req: Request, typeName: string, method: string): boolean {
  if (req.auth.isAdmin || method === 'get') return true;
  const type = typeByName(ctx, typeName);
  if (!type) return false;
  const rights = rightsOn(req.auth.permissions, type);
  const action = ({ post: 'create', patch: 'update', delete: 'delete' } as const)[method as 'post' | 'patch' | 'delete'];
  return action !== undefined && rights[action] !== null;
}

export function homeRoutes(ctx: AppContext): RouteDef[] {
  const access = endpointAccess(ctx);
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
          if (!first || !areaVisible(req, `/${first}`)) continue;
          if (first.startsWith(':')) typeRoutes.push(r);
          else add(`/${first}`, r);
        }
        if (typeRoutes.length) {
          const types = await ctx.db.selectFrom('object_types').select('name').where('is_abstract', '=', false).where('enabled', '=', true).orderBy('name').execute();
          for (const t of types) {
            if (entries.has(`/${t.name}`) || !areaVisible(req, `/${t.name}`)) continue;
            for (const r of typeRoutes) if (typeMethodAllowed(ctx, req, t.name, r.method)) add(`/${t.name}`, r);
          }
        }
        // The endpoint permissions (/admin/endpoint_permissions) take out what they deny, as BEdita's Home.
        const resources: Record<string, unknown> = {};
        for (const key of [...entries.keys()].sort()) {
          const e = entries.get(key)!;
          const allow: string[] = [];
          for (const method of [...e.allow].sort()) if ((await access(req, key.slice(1), method)) === 'allowed') allow.push(method);
          if (allow.length) resources[key] = { href: base + key, hints: { allow, formats: [...e.formats], ...beditaHints(ctx, key) } };
        }
        sendMeta(req, res, { resources, project: { name: 'Folio' }, version: BEDITA_API_VERSION });
      },
    },
  ];
}
