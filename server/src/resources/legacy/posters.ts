// GET /posters/{id}, /poster/{id} and /posters?id=…: a thumbnail of the image that represents
// an object — the image related by `poster`, else the object itself if an image, else the image
// related by `attach`. `data.id` is always the id asked for.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import { baseUrl } from '../../http/links.js';
import { MAX_PAGE_SIZE } from '../../http/query.js';
import { PRESETS, type ThumbRequest } from '../thumbs/service.js';
import { listRelated, relationSide, type ObjectRow, type Reader } from './reader.js';
import { model } from '../objects/model.js';

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

/** The image that represents each object (poster relation, itself, attach relation), by object id. */
async function posterImages(r: Reader, objects: ObjectRow[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  // Images and their sub-types, from the model.
  const images = new Set([...model(r.ctx).types.values()].filter((t) => t.lineage.includes('images')).map((t) => t.id));
  const related = async (name: string) => {
    const rel = relationSide(r.ctx, name);
    const byObject = new Map<number, number[]>();
    for (const o of objects) {
      const links = await listRelated(r, o.id, rel, { page: 1, pageSize: MAX_PAGE_SIZE, offset: 0 });
      byObject.set(o.id, links.rows.filter((row) => images.has(row.object_type_id)).map((row) => row.id));
    }
    return byObject;
  };
  const [posters, attached] = [await related('poster'), await related('attach')];
  for (const o of objects) {
    const candidates = [...(posters.get(o.id) ?? []), ...(images.has(o.object_type_id) ? [o.id] : []), ...(attached.get(o.id) ?? [])];
    if (candidates.length) out.set(o.id, candidates[0]);
  }
  return out;
}

/** {id, uri} for each object: uri is the URL of a generated thumbnail of its image, or null. */
export async function posterEntries(ctx: AppContext, req: Request, r: Reader, objects: ObjectRow[], size: PosterSize) {
  const chosen = await posterImages(r, objects);
  const streams = ctx.streams;
  const thumbs = ctx.thumbs;
  const byImage = await streams.streamsOfObjects([...new Set(chosen.values())], r.viewer);
  const request: ThumbRequest =
    size.width === null && size.height === null
      ? PRESETS.default
      : { spec: { width: size.width ?? undefined, height: size.height ?? undefined, fit: 'inside', format: 'auto' }, async: false };
  const base = baseUrl(req);
  const out: Array<{ id: number; uri: string | null }> = [];
  for (const o of objects) {
    const image = chosen.get(o.id);
    const stream = image === undefined ? undefined : byImage.get(image)?.[0];
    const thumb = stream ? await thumbs.thumbnail(stream, request) : null;
    out.push({ id: o.id, uri: thumb?.ready && thumb.path ? base + thumb.path : null });
  }
  return out;
}
