// GET /status: the service's health (503 when the database does not answer, so that a load
// balancer's health check takes the instance out); debug mode adds versions, plugins and errors.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { sendMeta } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';

const require = createRequire(import.meta.url);

export function versions(): Record<string, string> {
  const out: Record<string, string> = { node: process.versions.node };
  for (const name of ['express', 'kysely', 'better-sqlite3', 'pg', 'sharp']) {
    try {
      out[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      /* not installed */
    }
  }
  return out;
}

/**
 * Folio's version from its package.json, found by walking up from this module: the compiled
 * files and the bundle (server/dist/*.bundle.js) sit at different depths.
 */
export function ownVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'folio' && pkg.version) return pkg.version;
    } catch {
      /* none here */
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

export function statusRoutes(ctx: AppContext): RouteDef[] {
  const folioVersion = ownVersion();
  return [
    {
      method: 'get',
      path: '/status',
      guard: 'anonymous',
      handler: async (req, res) => {
        const errors: string[] = [];
        try {
          await sql`select 1`.execute(ctx.db);
        } catch (err) {
          errors.push(`database: ${(err as Error).message}`);
        }
        const status: Record<string, unknown> = { environment: ctx.config.debug ? 'development' : 'production' };
        if (ctx.config.debug) {
          Object.assign(status, { errors, debug: true, plugins: [], database: ctx.dialect.name, versions: { folio: folioVersion, ...versions() } });
        }
        sendMeta(req, res, { status }, errors.length ? 503 : 200);
      },
    },
  ];
}
