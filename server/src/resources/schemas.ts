// JSON Schemas that families contribute for /model/schema/{type} (roles, applications, streams…):
// a family registers a builder at wiring time; the model family serves what is registered.
import type { AppContext } from '../context.js';

/** A JSON Schema (draft 06) document; `base` is the server's base URL, used in `$id`. */
export type SchemaBuilder = (base: string) => Record<string, unknown>;

function registry(ctx: AppContext): Map<string, SchemaBuilder> {
  const services = ctx.services as { resourceSchemas?: Map<string, SchemaBuilder> };
  return (services.resourceSchemas ??= new Map());
}

export function registerResourceSchema(ctx: AppContext, type: string, build: SchemaBuilder): void {
  registry(ctx).set(type, build);
}

/** The schema registered for `type`, or null when no family contributed one. */
export function resourceSchema(ctx: AppContext, type: string, base: string): Record<string, unknown> | null {
  const build = registry(ctx).get(type);
  return build ? build(base) : null;
}
