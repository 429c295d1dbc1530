// Reading ids from the URL and the query, and resource identifiers from relationship bodies.
import type { Request } from 'express';
import { ApiError, badRequest, notFound } from './errors.js';
import { identifiersInput } from './jsonapi.js';
import { flatValues } from './query.js';

const INT = /^[1-9]\d{0,14}$/;

/** The integer `:id` of the URL; anything else cannot name a resource (404). */
export function pathId(req: Request, name = 'id'): number {
  const raw = String(req.params[name] ?? '');
  if (!INT.test(raw)) throw notFound(`No resource with id "${raw}"`);
  return Number(raw);
}

/** `?id=1,2` (or `id[]=1&id[]=2`; another parameter's `name`, e.g. BEdita's `ids`): the ids given; undefined when absent. */
export function queryIds(req: Request, name = 'id'): number[] | undefined {
  const raw = req.query[name];
  if (raw === undefined) return undefined;
  const ids = flatValues(raw, name);
  if (!ids.length || !ids.every((v) => INT.test(v))) throw badRequest(`${name} must be a comma-separated list of integer ids`, 'invalid_filter');
  return ids.map(Number);
}

/** The ids of a relationship body `{data: {type, id}}` or `{data: [...]}`, all of type `type`. */
export function relatedIds(req: Request, type: string): number[] {
  return identifiersInput(req).map((item, i) => {
    if (item.type !== type) throw new ApiError(409, 'type_mismatch', `data[${i}].type must be "${type}"`);
    if (!INT.test(item.id)) throw badRequest(`data[${i}].id must be an integer id`, 'invalid_body');
    return Number(item.id);
  });
}
