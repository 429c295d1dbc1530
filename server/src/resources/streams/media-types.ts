// Media types and the files they take: the core media type a type descends from (images, videos,
// audio, files; custom sub-types inherit its rule), and media objects as linking and thumbnails
// need them.
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest } from '../../http/errors.js';
import { SYSTEM } from '../objects/kernel.js';
import { typeById, typeByName } from '../objects/model.js';
import { getObject } from '../objects/read.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Core media types and the files they take; custom sub-types inherit from their core ancestor. */
const MEDIA_ACCEPTS: Record<string, (mime: string) => boolean> = {
  images: (m) => m.startsWith('image/'),
  videos: (m) => m.startsWith('video/') || m === 'application/ogg',
  audio: (m) => m.startsWith('audio/') || m === 'application/ogg',
  files: () => true,
  media: () => true,
};

export function assertAccepts(type: string, mediaRoot: string, mimeType: string): void {
  const accepts = MEDIA_ACCEPTS[mediaRoot] ?? MEDIA_ACCEPTS.media;
  if (!accepts(mimeType)) throw badRequest(`${type} do not accept files of type ${mimeType}`, 'mime_type_not_accepted');
}

/** The core media type a type descends from ('images', …, or 'media' for a custom direct sub-type), or null. */
export function mediaRootOf(ctx: AppContext, typeName: string): string | null {
  return typeByName(ctx, typeName)?.lineage.find((n) => n in MEDIA_ACCEPTS) ?? null;
}

/** An object (trashed ones too) with its type name and media root, for linking and thumbnails. */
export async function findMediaObject(ctx: AppContext, id: number, db?: Db) {
  const row = await getObject(ctx, id, { trashed: 'any', db, viewer: SYSTEM });
  const type = row && typeById(ctx, row.object_type_id);
  if (!row || !type) return undefined;
  return { id: row.id, status: row.status, deleted: Boolean(row.deleted), type: type.name, mediaRoot: mediaRootOf(ctx, type.name) };
}


