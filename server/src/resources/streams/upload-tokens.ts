// Upload tokens (the legacy /files endpoint): the file becomes an unlinked stream and the client
// gets a random token for it; the first POST /objects that names the token creates the media
// object and links the stream. Tokens are single-use, bound to the uploader and expire after
// 24 hours (then their unlinked stream is deleted). Quota and file count are per user and count
// every file /files accepted that is still kept (used ones included).
import crypto from 'node:crypto';
import type { Request } from 'express';
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest, conflict } from '../../http/errors.js';
import { assertAccepts, mediaRootOf } from './media-types.js';
import { uploadInput } from './upload-input.js';

export const TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Delete expired unused tokens and their streams (the files go with them). */
export async function purgeExpiredUploads(ctx: AppContext): Promise<void> {
  const expired = await ctx.db.selectFrom('upload_tokens').select(['id', 'stream_uuid']).where('object_id', 'is', null).where('expires', '<=', nowIso()).execute();
  const streams = ctx.streams;
  for (const row of expired) {
    await ctx.db.deleteFrom('upload_tokens').where('id', '=', row.id).execute();
    const linked = await ctx.db.selectFrom('streams').select('object_id').where('uuid', '=', row.stream_uuid).executeTakeFirst();
    if (linked && linked.object_id === null) await streams.deleteStream(row.stream_uuid);
  }
}

async function checkLimits(ctx: AppContext, trx: Transaction<Database>, userId: number, size: number): Promise<void> {
  const { quota, files } = { quota: ctx.config.uploadQuotaBytes, files: ctx.config.uploadMaxFiles };
  if (quota === null && files === null) return;
  const used = await trx
    .selectFrom('upload_tokens')
    .select([sql<number>`coalesce(sum(file_size), 0)`.as('bytes'), sql<number>`count(*)`.as('n')])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  if (files !== null && Number(used.n) + 1 > files) {
    throw new ApiError(403, 'UPLOAD_FILES_LIMIT_EXCEEDED', `The upload would exceed the limit of ${files} files`);
  }
  if (quota !== null && Number(used.bytes) + size > quota) {
    throw new ApiError(403, 'UPLOAD_QUOTA_EXCEEDED', `The upload would exceed the quota of ${quota} bytes`);
  }
}

/** Store the request body as an unlinked stream for a later object of `typeName`; returns the token. */
export async function acceptUpload(ctx: AppContext, req: Request, typeName: string, fileName: string): Promise<string> {
  const userId = req.auth.userId!;
  if (!fileName.trim()) throw badRequest('The file name is missing', 'missing_parameter');
  const mediaRoot = mediaRootOf(ctx, typeName);
  if (!mediaRoot) throw badRequest(`Objects of type "${typeName}" take no file`, 'not_media');
  await purgeExpiredUploads(ctx);
  const streams = ctx.streams;
  const prepared = await streams.prepareUpload(req, uploadInput(req, fileName));
  const token = crypto.randomBytes(32).toString('base64url');
  await streams.storeWith(prepared, async (trx) => {
    assertAccepts(typeName, mediaRoot, prepared.mimeType);
    const same = await trx.selectFrom('streams').select('uuid').where('hash_sha256', '=', prepared.received.sha256).executeTakeFirst();
    if (same) throw conflict('The same file is already stored', 'file_already_present');
    await checkLimits(ctx, trx, userId, prepared.received.size);
    await streams.insertStream(trx, prepared, userId, null);
    const now = new Date();
    await trx
      .insertInto('upload_tokens')
      .values({
        token_hash: hashToken(token),
        user_id: userId,
        object_type: typeName,
        stream_uuid: prepared.uuid,
        file_size: prepared.received.size,
        object_id: null,
        created: nowIso(now),
        expires: nowIso(new Date(now.getTime() + TOKEN_TTL_MS)),
      })
      .execute();
  });
  return token;
}

/**
 * Inside the create transaction: take the caller's unused, unexpired token for a new object of
 * `typeName`; returns the stream to link. Any other token gives 400.
 */
export async function consumeUploadToken(trx: Transaction<Database>, token: unknown, userId: number, typeName: string): Promise<{ uuid: string; usedBy: (objectId: number) => Promise<void> }> {
  if (typeof token !== 'string' || !token) throw badRequest('"upload_token" must be a string', 'invalid_upload_token');
  const row = await trx
    .selectFrom('upload_tokens')
    .selectAll()
    .where('token_hash', '=', hashToken(token))
    .where('user_id', '=', userId)
    .where('object_id', 'is', null)
    .where('expires', '>', nowIso())
    .executeTakeFirst();
  if (!row) throw badRequest('The upload token is unknown, used or expired', 'invalid_upload_token');
  if (row.object_type !== typeName) throw badRequest(`The upload token is for a ${row.object_type} object, not ${typeName}`, 'invalid_upload_token');
  // Used once the object it brings its file to exists (in the same transaction).
  const usedBy = async (objectId: number) => {
    await trx.updateTable('upload_tokens').set({ object_id: objectId }).where('id', '=', row.id).execute();
  };
  return { uuid: row.stream_uuid, usedBy };
}

/**
 * Start the hourly clean-up of expired tokens and of streams left unlinked 24 hours after their
 * upload (also once soon after start); stopped when the server closes.
 */
export function scheduleUploadPurge(ctx: AppContext): void {
  const sweep = () =>
    ctx.tasks.run('purge expired uploads', async () => {
      await purgeExpiredUploads(ctx);
      await ctx.streams.purgeUnlinkedStreams();
    });
  if (!ctx.config.maintenanceTimers) return;
  const first = setTimeout(sweep, 60 * 1000);
  first.unref();
  const timer = setInterval(sweep, 60 * 60 * 1000);
  ctx.onClose.push(() => clearTimeout(first));
  timer.unref();
  ctx.onClose.push(() => clearInterval(timer));
}
