// GET /posters/{id}, /poster/{id} and /posters?id=…: a thumbnail of the image that represents
// an object — the image related by `poster`, else the object itself if an image, else the image
// related by `attach`. `data.id` is always the id asked for.
import type { Request } from 'express';
import { badRequest } from '../../http/errors.js';
import { MAX_PAGE_SIZE } from '../../http/query.js';

export interface PosterSize {
  width: number | null;
  height: number | null;
}

function dimension(value: unknown, name: string): number | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || !/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 4000) {
    throw badRequest(`${name} must be an integer between 1 and 4000`, 'invalid_parameter');
  }
  return Number(value);
}

export function posterSize(req: Request): PosterSize {
  return { width: dimension(req.query.width, 'width'), height: dimension(req.query.height, 'height') };
}

/** The `id` list of /posters?id=1,2,3 (also id[]=…): at most the maximum page size, checked first. */
export function posterIds(req: Request): string[] {
  const raw = req.query.id;
  if (raw === undefined || raw === '') throw badRequest('The "id" parameter is required (comma-separated object ids)', 'missing_parameter');
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => {
    if (typeof v !== 'string') throw badRequest('"id" must be a comma-separated list of ids', 'invalid_parameter');
    return v.split(',').map((s) => s.trim()).filter(Boolean);
  });
  if (!list.length) throw badRequest('The "id" parameter is required (comma-separated object ids)', 'missing_parameter');
  if (list.length > MAX_PAGE_SIZE) throw badRequest(`At most ${MAX_PAGE_SIZE} ids may be asked for at once`, 'too_many_ids');
  return list;
}
