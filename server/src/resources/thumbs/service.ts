// Thumbnails of media objects: presets and (with FOLIO_THUMBS_ALLOW_ANY) free options, generated
// with sharp now or in the background (`async` preset: a `thumbnail` job in the database that any
// instance renders), cached on disk by (stream, options) and remembered as not acceptable when
// sharp cannot read the file.
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import type { AppContext } from '../../context.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { AuthInfo } from '../../http/request.js';
import { MAX_PAGE_SIZE } from '../../http/query.js';
import { renderThumbnail, thumbFormat, type ThumbFit, type ThumbSpec } from '../../thumbs/sharp-pipeline.js';
import { streamFile, thumbFile, withLocalCopy } from '../../storage/storage.js';
import { findMediaObject } from '../streams/media-types.js';
import type { StreamService, StreamView } from '../streams/service.js';
import { getObjectsByIds } from '../objects/read.js';

declare module '../../context.js' {
  interface AppContext {
    /** Thumbnails of images (this module). */
    thumbs: ThumbService;
  }
}


export interface ThumbRequest {
  spec: ThumbSpec;
  /** Generate in the background and answer ready:false until the file exists. */
  async: boolean;
}

export const PRESETS: Record<string, ThumbRequest> = {
  default: { spec: { width: 800, height: 600, fit: 'inside', format: 'auto' }, async: false },
  small: { spec: { width: 100, fit: 'inside', format: 'auto' }, async: false },
  medium: { spec: { width: 400, fit: 'inside', format: 'auto' }, async: false },
  async: { spec: { width: 800, height: 600, fit: 'inside', format: 'auto' }, async: true },
};

/** Largest side a free-options thumbnail may ask for. */
const MAX_SIDE = 4096;
const FITS: ThumbFit[] = ['inside', 'cover', 'contain', 'fill', 'outside'];
const FORMATS: Record<string, ThumbSpec['format']> = { jpg: 'jpg', jpeg: 'jpg', png: 'png', webp: 'webp', auto: 'auto' };
/** Source types sharp reads; anything else is not acceptable for a thumbnail. */
const THUMBABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/tiff', 'image/avif', 'image/heif', 'image/heic', 'image/svg+xml']);

export interface ThumbEntry {
  id: string;
  uuid: string | null;
  ready: boolean;
  url?: string;
  acceptable?: false;
}

export interface ThumbResult {
  ready: boolean;
  acceptable: boolean;
  /** Path of the thumbnail's URL (below the base URL), when acceptable. */
  path?: string;
}

function intOption(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'string' || !/^\d{1,6}$/.test(value) || +value < min || +value > max) {
    throw badRequest(`options[${name}] must be an integer from ${min} to ${max}`, 'invalid_thumb_options');
  }
  return Number(value);
}

/** Free options: w, h, fit, fm (or format), q (or quality). */
function parseOptions(raw: unknown): ThumbSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest('options must be given as options[<name>]=<value>', 'invalid_thumb_options');
  const spec: ThumbSpec = { fit: 'inside', format: 'auto' };
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key === 'w' || key === 'width') spec.width = intOption(value, key, 1, MAX_SIDE);
    else if (key === 'h' || key === 'height') spec.height = intOption(value, key, 1, MAX_SIDE);
    else if (key === 'q' || key === 'quality') spec.quality = intOption(value, key, 1, 100);
    else if (key === 'fit') {
      if (!FITS.includes(value as ThumbFit)) throw badRequest(`options[fit] must be one of ${FITS.join(', ')}`, 'invalid_thumb_options');
      spec.fit = value as ThumbFit;
    } else if (key === 'fm' || key === 'format') {
      const f = typeof value === 'string' ? FORMATS[value.toLowerCase()] : undefined;
      if (!f) throw badRequest(`options[${key}] must be one of ${Object.keys(FORMATS).join(', ')}`, 'invalid_thumb_options');
      spec.format = f;
    } else throw badRequest(`Unknown thumbnail option "${key}"; known: w, h, fit, fm, q`, 'invalid_thumb_options');
  }
  return spec;
}

/** `preset=<name>` or `options[...]` (only when allowAny); neither means the default preset. */
export function parseThumbQuery(query: Record<string, unknown>, allowAny: boolean): ThumbRequest {
  const { preset, options } = query;
  if (preset !== undefined && options !== undefined) throw badRequest('Give either preset or options, not both', 'invalid_thumb_options');
  if (options !== undefined) {
    if (!allowAny) throw badRequest('Thumbnail options are not enabled on this server; use a preset', 'thumb_options_not_allowed');
    return { spec: parseOptions(options), async: false };
  }
  if (preset === undefined) return PRESETS.default;
  if (typeof preset !== 'string' || !Object.hasOwn(PRESETS, preset)) {
    throw badRequest(`Unknown preset "${String(preset)}"; presets: ${Object.keys(PRESETS).join(', ')}`, 'unknown_preset');
  }
  return PRESETS[preset];
}

/** Media ids from the path or `ids=` (comma list or array): positive integers, at most 100. */
export function parseMediaIds(pathId: string | undefined, ids: unknown): number[] {
  if (pathId !== undefined && ids !== undefined) throw badRequest('Give the media id in the path or in ids, not both', 'invalid_ids');
  const raw = pathId !== undefined ? [pathId] : ids === undefined ? [] : (Array.isArray(ids) ? ids : [ids]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [null]));
  const list = raw.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
  if (!list.length) throw badRequest('Give the media ids: /media/thumbs/{id} or /media/thumbs?ids=1,2', 'invalid_ids');
  if (list.length > MAX_PAGE_SIZE) throw badRequest(`At most ${MAX_PAGE_SIZE} ids at once`, 'invalid_ids');
  const out: number[] = [];
  for (const v of list) {
    if (typeof v !== 'string' || !/^\d{1,15}$/.test(v) || v === '0' || /^0+$/.test(v)) throw badRequest(`"${String(v)}" is not a media id`, 'invalid_ids');
    if (!out.includes(Number(v))) out.push(Number(v));
  }
  return out;
}

const specKey = (spec: ThumbSpec) =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify([spec.width ?? null, spec.height ?? null, spec.fit, spec.format, spec.quality ?? null]))
    .digest('hex')
    .slice(0, 24);

/** Thumbnails rendered at the same time: bounds CPU and decoder memory; others wait their turn. */
const MAX_PARALLEL_RENDERS = 2;

/** The job kind of `async` thumbnails, and what it carries. */
const THUMBNAIL_JOB = 'thumbnail';
interface ThumbnailJob {
  uuid: string;
  spec: ThumbSpec;
}
/** An async thumbnail that could not be made (not the source's fault) is tried again after these. */
const THUMBNAIL_RETRY_DELAYS_MS = [1000, 10_000, 60_000];

export class ThumbService {
  /** Generations in progress in this process, by target file, so one thumbnail is never made twice at once. */
  private jobs = new Map<string, Promise<boolean>>();
  private rendering = 0;
  private waiting: Array<() => void> = [];

  private async withRenderSlot<T>(work: () => Promise<T>): Promise<T> {
    while (this.rendering >= MAX_PARALLEL_RENDERS) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.rendering++;
    try {
      return await work();
    } finally {
      this.rendering--;
      this.waiting.shift()?.();
    }
  }

  constructor(
    private ctx: AppContext,
    private streams: StreamService,
  ) {
    ctx.jobs.define<ThumbnailJob>(THUMBNAIL_JOB, {
      retryDelaysMs: THUMBNAIL_RETRY_DELAYS_MS,
      describe: (job) => `thumbnail of stream ${job.uuid}`,
      run: async (job) => {
        const stream = await this.streams.findStream(job.uuid);
        if (!stream) return; // deleted meanwhile
        const { file, marker } = this.names(stream, job.spec);
        if ((await this.ctx.storage.exists(file)) || (await this.ctx.storage.exists(marker))) return;
        await this.generate(stream, job.spec);
      },
    });
  }

  private names(stream: StreamView, spec: ThumbSpec) {
    const key = specKey(spec);
    const format = thumbFormat(spec, stream.mime_type);
    return {
      name: `${key}.${format}`,
      format,
      file: thumbFile(stream.uuid, `${key}.${format}`),
      marker: thumbFile(stream.uuid, `${key}.failed`),
    };
  }

  /**
   * Make the thumbnail file; false (and a marker remembering it) when sharp cannot. The source is
   * read in place when local, else from a temp copy; the result is rendered to a temp file and put
   * into the storage. A storage that cannot be reached fails the request (no marker is written).
   */
  private generate(stream: StreamView, spec: ThumbSpec): Promise<boolean> {
    const { name, file, marker, format } = this.names(stream, spec);
    const jobKey = `${stream.uuid}/${name}`;
    const running = this.jobs.get(jobKey);
    if (running) return running;
    const storage = this.ctx.storage;
    const job = (async () => {
      const temp = storage.tempPath();
      try {
        const rendered = await withLocalCopy(storage, streamFile(stream.uuid), (source) =>
          this.withRenderSlot(() => renderThumbnail(source, temp, spec, format)).then(
            () => true,
            (err: Error) => {
              this.ctx.log(`thumbnail of stream ${stream.uuid} not possible: ${err.message}`);
              return false;
            },
          ),
        );
        if (rendered === null) {
          // Nothing to remember: the file may come back (a restore).
          this.ctx.log(`thumbnail of stream ${stream.uuid} not possible: its file is missing from ${storage.description}`);
          return false;
        }
        if (rendered) {
          await storage.put(file, temp);
          return true;
        }
        await fsp.writeFile(temp, '');
        await storage.put(marker, temp);
        return false;
      } finally {
        await fsp.rm(temp, { force: true });
      }
    })().finally(() => this.jobs.delete(jobKey));
    this.jobs.set(jobKey, job);
    return job;
  }

  /** The thumbnail of one stream: made now (or queued when `async`), or found in the cache. */
  async thumbnail(stream: StreamView, request: ThumbRequest): Promise<ThumbResult> {
    if (!THUMBABLE.has(stream.mime_type)) return { ready: false, acceptable: false };
    const { name, file, marker } = this.names(stream, request.spec);
    const storage = this.ctx.storage;
    const path = `/media/thumbs/${stream.uuid}/${name}`;
    if (await storage.exists(file)) return { ready: true, acceptable: true, path };
    if (await storage.exists(marker)) return { ready: false, acceptable: false };
    if (request.async) {
      // Queued once per (stream, options) while pending; whichever instance is free renders it.
      if (!this.jobs.has(`${stream.uuid}/${name}`)) {
        const job: ThumbnailJob = { uuid: stream.uuid, spec: request.spec };
        await this.ctx.jobs.enqueue(THUMBNAIL_JOB, job, { dedupeKey: `${THUMBNAIL_JOB}:${stream.uuid}:${specKey(request.spec)}` });
      }
      return { ready: false, acceptable: true, path };
    }
    const ok = await this.generate(stream, request.spec);
    return ok ? { ready: true, acceptable: true, path } : { ready: false, acceptable: false };
  }

  /** Thumbnail entries of media objects; an id that is unknown, not media or hidden gives 404. */
  async thumbnailsOf(auth: AuthInfo, ids: number[], request: ThumbRequest, base: string): Promise<ThumbEntry[]> {
    const objects = await Promise.all(ids.map((id) => findMediaObject(this.ctx, id)));
    // A thumbnail follows its media object's visibility (the read path decides).
    const readable = new Set((await getObjectsByIds(this.ctx, ids, { viewer: auth, trashed: 'any' })).map((r) => r.id));
    objects.forEach((o, i) => {
      const hidden = !o || !o.mediaRoot || (o.deleted && !auth.isAdmin) || !readable.has(o.id);
      if (hidden) throw notFound(`No media object ${ids[i]}`);
    });
    const streams = await this.streams.streamsOfObjects(ids);
    const entries: ThumbEntry[] = [];
    for (const id of ids) {
      const stream = streams.get(id)?.[0];
      // A private stream's thumbnails are for signed-in readers only.
      if (!stream || (stream.private_url && auth.userId === null)) {
        entries.push({ id: String(id), uuid: null, ready: false, acceptable: false });
        continue;
      }
      const t = await this.thumbnail(stream, request);
      const entry: ThumbEntry = { id: String(id), uuid: stream.uuid, ready: t.ready };
      if (t.path) entry.url = base + t.path;
      if (!t.acceptable) entry.acceptable = false;
      entries.push(entry);
    }
    return entries;
  }
}


/**
 * A thumbnail request bounded by `width` and/or `height` (kept ratio, never enlarged), made at
 * once; without either it is the default preset. For callers that take sizes from their own
 * clients (legacy posters' width/height), sizes are clamped to 1…4096.
 */
export function sizedThumbRequest(width?: number, height?: number): ThumbRequest {
  const clamp = (n?: number) => (n === undefined || !Number.isFinite(n) ? undefined : Math.min(MAX_SIDE, Math.max(1, Math.round(n))));
  const w = clamp(width);
  const h = clamp(height);
  if (w === undefined && h === undefined) return PRESETS.default;
  return { spec: { width: w, height: h, fit: 'inside', format: 'auto' }, async: false };
}
