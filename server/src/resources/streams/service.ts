// Streams: storing an uploaded body as a stream (temp file, checks, row, rename), reading them
// under their media object's visibility, linking them to media objects and removing them with
// their files. No req/res here, so other families reuse it (legacy /files, posters):
//   const streams = streamService(ctx);
//   const p = await streams.prepareUpload(req, uploadInput(req, name));  // size, type checks; temp file
//   streams.streamsWithSha256(p.received.sha256) / streams.discard(p)    // refuse after preparing
//   await streams.storeWith(p, (trx) => streams.insertStream(trx, p, userId, objectIdOrNull));
//   streams.linkStream(uuid, {id, type}, userId) / streams.deleteStream(uuid)
//   thumbService(ctx).thumbnail(stream, sizedThumbRequest(w, h))          // ../thumbs/service.ts
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest, conflict, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { ANONYMOUS, type AuthInfo } from '../../http/request.js';
import { isAnonymous } from '../../identity.js';
import { isUuid, streamFile } from '../../storage/storage.js';
import { receiveToTemp, UploadAbortedError, UploadTooLargeError, type ReceivedFile } from '../../storage/receive.js';
import { probeImage } from '../../thumbs/sharp-pipeline.js';
import { isSubtypeOf } from '../objects/model.js';
import { getObjectsByIds, SYSTEM, visibleObjectsTable, visibleWhere } from '../objects/read.js';
import { declaredMimeType, resolveMimeType } from './mime.js';
import { assertAccepts, findMediaObject } from './media-types.js';
import { safeFileName, tooLarge, type UploadInput } from './upload-input.js';
import type { StreamsTable } from './tables.js';
import { apply, type KernelWrite, type PartOutcome } from '../objects/kernel.js';
import { inTransaction } from '../objects/pipeline.js';

declare module '../../context.js' {
  interface AppContext {
    /** Uploaded files: storing, linking, reading (this module). */
    streams: StreamService;
  }
}


type Db = Kysely<Database> | Transaction<Database>;

/** What a command does to a media object's stream (the media extension's part of the kernel). */
export type StreamPart =
  | { upload: PreparedStream }
  | { link: string; type?: string }
  | { unlink: string }
  | { remove: string };

declare module '../objects/kernel.js' {
  interface ObjectParts {
    stream?: StreamPart;
  }
}

export type StreamRow = Selectable<StreamsTable>;

/** A stream row with what visibility needs to know about its media object. */
export interface StreamView extends StreamRow {
  object_type: string | null;
  object_status: string | null;
  object_deleted: boolean;
  /** The end of the media object's publication window, if it has one. */
  object_publish_end: string | null;
}

/** An upload received and checked, not yet stored: its file is still a temp file. */
export interface PreparedStream {
  uuid: string;
  received: ReceivedFile;
  fileName: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  /** BEdita's `private_url`: the bytes need an authenticated reader. */
  privateUrl?: boolean;
}



/**
 * Whether `auth`, who may read a stream's media object, may also download its bytes, and so see
 * its metadata (file name, hashes, size, dimensions): a private stream needs a signed-in user.
 */
export const mayDownload = (auth: AuthInfo, s: Pick<StreamRow, 'private_url'>): boolean => !s.private_url || auth.userId !== null;

export class StreamService {
  /** Stream uuids of objects being purged, between onPurge and afterPurge. */
  private purging = new Map<number, string[]>();

  constructor(private ctx: AppContext) {}

  private get store() {
    return this.ctx.storage;
  }

  private get db() {
    return this.ctx.db;
  }

  /** Receive and check an upload body; the caller stores it with insertStream + placeFile or discards it. */
  async prepareUpload(source: Readable, input: UploadInput): Promise<PreparedStream> {
    const limit = this.ctx.config.uploadMaxBytes;
    const declared = declaredMimeType(input.contentType, input.contentEncoding);
    if (input.contentLength !== undefined && input.contentLength > limit) {
      source.resume();
      throw tooLarge(limit);
    }
    let received: ReceivedFile;
    try {
      received = await receiveToTemp(source, this.store, limit);
    } catch (err) {
      if (err instanceof UploadTooLargeError) throw tooLarge(limit);
      if (err instanceof UploadAbortedError) throw new ApiError(400, 'request_aborted', err.message);
      throw err;
    }
    try {
      if (received.size === 0) throw badRequest('The file is empty', 'empty_file');
      const fileName = safeFileName(input.fileName);
      const mimeType = await resolveMimeType(declared, received.head, fileName);
      const size = mimeType.startsWith('image/') ? await probeImage(received.tempFile) : null;
      return { uuid: crypto.randomUUID(), received, fileName, mimeType, width: size?.width ?? null, height: size?.height ?? null, privateUrl: input.privateUrl };
    } catch (err) {
      await fsp.rm(received.tempFile, { force: true });
      throw err;
    }
  }

  /** Insert the row of a prepared stream (inside the caller's transaction). */
  async insertStream(db: Db, p: PreparedStream, actorId: number | null, objectId: number | null = null): Promise<void> {
    const now = nowIso();
    await db
      .insertInto('streams')
      .values({
        uuid: p.uuid,
        object_id: objectId,
        file_name: p.fileName,
        mime_type: p.mimeType,
        file_size: p.received.size,
        hash_md5: p.received.md5,
        hash_sha1: p.received.sha1,
        hash_sha256: p.received.sha256,
        width: p.width,
        height: p.height,
        created: now,
        modified: now,
        created_by: actorId,
        private_url: Boolean(p.privateUrl),
      })
      .execute();
  }

  /** Put the prepared file into the storage under its stream's key (its temp file is consumed). */
  placeFile(p: PreparedStream): Promise<void> {
    return this.store.put(streamFile(p.uuid), p.received.tempFile);
  }

  /** Forget a prepared or stored stream's files after a failed transaction (never throws: the first error is what counts). */
  async discard(p: PreparedStream): Promise<void> {
    await fsp.rm(p.received.tempFile, { force: true });
    await this.removeFiles(p.uuid);
  }

  /**
   * Remove a stream's file and thumbnails once no row names them. A storage that cannot be reached
   * then does not undo the committed delete: the leftover is logged (it is never served, having no row).
   */
  private async removeFiles(uuid: string): Promise<void> {
    try {
      await this.store.removeStream(uuid);
    } catch (err) {
      this.ctx.log(`streams: could not remove the files of stream ${uuid} from ${this.store.description}: ${(err as Error)?.message ?? err}`);
    }
  }

  /**
   * Place the prepared file, then run `work` (which inserts rows) in one transaction; on failure
   * nothing stays, neither rows nor files. The file goes first, outside the transaction: a bucket
   * upload may take seconds and must not hold the database's write lock meanwhile; until the
   * commit no row names the file's fresh uuid, so no one can see it.
   */
  async storeWith<T>(p: PreparedStream, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    try {
      await this.placeFile(p);
      return await inTransaction(this.ctx, undefined, (trx) => work(trx), { alone: true });
    } catch (err) {
      await this.discard(p);
      throw err;
    }
  }

  /** Receive an upload and store it as a stream (linked to `objectId` when given); returns its row. */
  async storeStream(source: Readable, input: UploadInput, actorId: number | null, objectId: number | null = null): Promise<StreamView> {
    const p = await this.prepareUpload(source, input);
    await this.storeWith(p, (trx) => this.insertStream(trx, p, actorId, objectId));
    return (await this.findStream(p.uuid))!;
  }

  private selectStreams(db: Db = this.db) {
    return db
      .selectFrom('streams')
      .leftJoin(visibleObjectsTable(this.ctx, SYSTEM, db, { trashed: 'any' }), 'objects.id', 'streams.object_id')
      .leftJoin('object_types', 'object_types.id', 'objects.object_type_id')
      .selectAll('streams')
      .select(['object_types.name as object_type', 'objects.status as object_status', 'objects.deleted as object_deleted', 'objects.publish_end as object_publish_end']);
  }

  /** A row of selectStreams as a StreamView (booleans and sizes normalised). */
  toView(row: Omit<StreamView, 'object_deleted'> & { object_deleted: unknown }): StreamView {
    return { ...row, object_deleted: Boolean(row.object_deleted), file_size: Number(row.file_size), private_url: Boolean(row.private_url) };
  }

  async findStream(uuid: string, db: Db = this.db): Promise<StreamView | undefined> {
    if (!isUuid(uuid)) return undefined;
    const row = await this.selectStreams(db).where('streams.uuid', '=', uuid).executeTakeFirst();
    return row ? this.toView(row) : undefined;
  }

  /** The stream if `auth` may see it, else 404 (see canRead). */
  async readableStream(auth: AuthInfo, uuid: string): Promise<StreamView> {
    const s = await this.findStream(uuid.toLowerCase());
    // A private stream asks anonymous clients and application tokens to sign in (401).
    if (s && !mayDownload(auth, s)) throw unauthorized('This file needs a signed-in reader', 'private_stream');
    if (!s || !(await this.canRead(auth, [s])).has(s.uuid)) throw notFound(`No stream ${uuid}`);
    return s;
  }

  /**
   * POST /streams/clone/{uuid} (BEdita's StreamsController::clone): a new, unlinked stream of the
   * caller's with the same bytes, name, type and privacy as one the caller may read.
   */
  async cloneStream(auth: AuthInfo, uuid: string): Promise<StreamView> {
    const s = await this.readableStream(auth, uuid);
    const tempFile = this.store.tempPath();
    if (!(await this.store.copyTo(streamFile(s.uuid), tempFile))) throw notFound(`The file of stream ${uuid} is missing`);
    const received = { tempFile, size: s.file_size, md5: s.hash_md5, sha1: s.hash_sha1, sha256: s.hash_sha256, head: Buffer.alloc(0) };
    const p: PreparedStream = { uuid: crypto.randomUUID(), received, fileName: s.file_name, mimeType: s.mime_type, width: s.width, height: s.height, privateUrl: Boolean(s.private_url) };
    await this.storeWith(p, (trx) => this.insertStream(trx, p, auth.userId, null));
    return (await this.findStream(p.uuid))!;
  }

  /**
   * Which streams `auth` may see (uuids): admins all; an unlinked stream only its uploader; a
   * linked one whoever may read its media object (the read path decides: status, role and
   * object permissions), never while the object is in the trash.
   */
  async canRead(auth: AuthInfo, streams: StreamView[]): Promise<Set<string>> {
    if (auth.isAdmin) return new Set(streams.map((s) => s.uuid));
    const linked = streams.filter((s) => s.object_id !== null && !s.object_deleted).map((s) => s.object_id!);
    const readable = new Set((await getObjectsByIds(this.ctx, linked, { viewer: auth })).map((r) => r.id));
    const out = new Set<string>();
    for (const s of streams) {
      if (!mayDownload(auth, s)) continue;
      const seen = s.object_id === null ? auth.userId !== null && s.created_by === auth.userId : readable.has(s.object_id);
      if (seen) out.add(s.uuid);
    }
    return out;
  }

  /**
   * Whether anonymous clients may read `s` too, which `auth` may read: only then may its bytes sit
   * in shared caches (`Cache-Control: public`). Unlinked, trashed, unpublished or restricted: no.
   */
  /**
   * How long shared caches may keep bytes anonymous clients read now: `maxSeconds`, or less when
   * the media object's publication window ends sooner (they must not outlive it); null: private.
   */
  async publicSeconds(auth: AuthInfo, s: StreamView, maxSeconds: number): Promise<number | null> {
    if (!(await this.readableByAnyone(auth, s))) return null;
    if (!s.object_publish_end) return maxSeconds;
    return Math.max(0, Math.min(maxSeconds, Math.floor((Date.parse(s.object_publish_end) - Date.now()) / 1000)));
  }

  async readableByAnyone(auth: AuthInfo, s: StreamView): Promise<boolean> {
    // An anonymous request was let through by this very check (readableStream).
    if (isAnonymous(auth)) return true;
    return (await this.canRead(ANONYMOUS, [s])).has(s.uuid);
  }

  /** Streams with these exact bytes (legacy /files answers 409 for a duplicate). */
  async streamsWithSha256(sha256: string): Promise<StreamView[]> {
    const rows = await this.selectStreams().where('streams.hash_sha256', '=', sha256).execute();
    return rows.map((r) => this.toView(r));
  }

  /** Streams by uuid (the `id` query form), those `auth` may not see left out. */
  async streamsByUuid(auth: AuthInfo, uuids: string[]): Promise<StreamView[]> {
    const valid = uuids.map((u) => u.toLowerCase()).filter(isUuid);
    if (!valid.length) return [];
    const rows = (await this.selectStreams().where('streams.uuid', 'in', valid).orderBy('streams.created').orderBy('streams.uuid').execute()).map((r) => this.toView(r));
    const shown = await this.canRead(auth, rows);
    return rows.filter((s) => shown.has(s.uuid));
  }

  /** The visibility condition of stream lists, as a query. */
  visibleQuery(auth: AuthInfo) {
    const q = this.selectStreams();
    if (auth.isAdmin) return q;
    return q.where((eb) => {
      const linked = eb.and([eb('objects.deleted', '=', false), visibleWhere(this.ctx, auth, eb) ?? eb.lit(true)]);
      // Without a signed-in user, private streams are not listed (their bytes need one).
      if (auth.userId === null) return eb.and([linked, eb('streams.private_url', '=', false)]);
      return eb.or([eb.and([eb('streams.object_id', 'is', null), eb('streams.created_by', '=', auth.userId)]), linked]);
    });
  }

  /**
   * Streams of these objects (for decorating media objects), by object id; with `viewer`, a reader
   * of the objects, only those it may download (mayDownload).
   */
  async streamsOfObjects(ids: number[], viewer?: AuthInfo): Promise<Map<number, StreamView[]>> {
    const out = new Map<number, StreamView[]>();
    if (!ids.length) return out;
    const rows = await this.selectStreams().where('streams.object_id', 'in', ids).orderBy('streams.created').orderBy('streams.uuid').execute();
    for (const r of rows) {
      const v = this.toView(r);
      if (viewer && !mayDownload(viewer, v)) continue;
      const list = out.get(v.object_id!) ?? [];
      list.push(v);
      out.set(v.object_id!, list);
    }
    return out;
  }

  /**
   * Link a stream the actor may read to a media object (or unlink it with null): an update of
   * the media object, a command of the write kernel (the object is read as the actor reads it:
   * 404 when hidden, exactly as a missing one; then the stream part below runs).
   */
  async linkStream(uuid: string, target: { id: string; type: string } | null, actor: AuthInfo): Promise<void> {
    const stream = await this.readableStream(actor, uuid);
    if (target === null) {
      if (stream.object_id === null) return;
      await apply(this.ctx, { action: 'update', target: { key: stream.object_id, trashed: 'any' }, actor, changes: { parts: { stream: { unlink: stream.uuid } } } });
      return;
    }
    if (!/^\d{1,15}$/.test(target.id)) throw badRequest('data.id must be a media object id', 'invalid_body');
    await apply(this.ctx, { action: 'update', target: { key: Number(target.id) }, actor, changes: { parts: { stream: { link: stream.uuid, type: target.type } } } });
  }

  /**
   * The stream part of a command (the media extension owns it): a new upload's stream, linking
   * or unlinking one, deleting a linked one. A locked object's file stays as it is for everyone
   * but admins. Files leave storage after the commit.
   */
  async applyStreamPart(w: KernelWrite, part: StreamPart): Promise<PartOutcome> {
    const { trx, row, actor } = w;
    if ('upload' in part) {
      await this.insertStream(trx, part.upload, actor.userId, row.id);
      return { changed: { stream: part.upload.uuid } };
    }
    if (Boolean(row.locked) && !actor.isAdmin && w.action === 'update') throw forbidden(`Object ${row.id} is locked: its file cannot change`, 'object_locked');
    if ('unlink' in part) {
      await trx.updateTable('streams').set({ object_id: null, modified: nowIso() }).where('uuid', '=', part.unlink).where('object_id', '=', row.id).execute();
      return { changed: { stream: null } };
    }
    if ('remove' in part) {
      await trx.deleteFrom('streams').where('uuid', '=', part.remove).where('object_id', '=', row.id).execute();
      return { changed: { stream: null } };
    }
    const stream = await this.findStream(part.link, trx);
    if (!stream) throw notFound(`No stream ${part.link}`);
    const obj = await findMediaObject(this.ctx, row.id, trx);
    if (!obj) throw notFound(`No object ${row.id}`);
    if (part.type !== undefined && !isSubtypeOf(this.ctx, obj.type, part.type)) throw new ApiError(409, 'type_mismatch', `Object ${row.id} is of type ${obj.type}, not ${part.type}`);
    if (!obj.mediaRoot) throw badRequest(`${obj.type} is not a media type: streams link only to media objects`, 'not_media');
    if (stream.object_id === row.id) return {};
    if (stream.object_id !== null) throw conflict(`Stream ${stream.uuid} is already linked to another object`, 'stream_already_linked');
    assertAccepts(obj.type, obj.mediaRoot, stream.mime_type);
    const other = await trx.selectFrom('streams').select('uuid').where('object_id', '=', row.id).executeTakeFirst();
    if (other) throw conflict(`Object ${row.id} already has stream ${other.uuid}; unlink it first`, 'object_has_stream');
    await trx.updateTable('streams').set({ object_id: row.id, modified: nowIso() }).where('uuid', '=', stream.uuid).execute();
    return { changed: { stream: stream.uuid } };
  }

  /**
   * DELETE /streams/{uuid} by `actor`: deleting a linked stream is an update of its media object
   * (a kernel command: read, guarded, recorded; refused on a locked object but for admins); an
   * unlinked one is its uploader's alone. The files go after the commit.
   */
  async deleteStreamAs(uuid: string, actor: AuthInfo): Promise<void> {
    const stream = await this.readableStream(actor, uuid);
    if (stream.object_id !== null) {
      await apply(this.ctx, { action: 'update', target: { key: stream.object_id, trashed: 'any' }, actor, changes: { parts: { stream: { remove: stream.uuid } } } });
      await this.removeFiles(stream.uuid);
      return;
    }
    await this.db.deleteFrom('streams').where('uuid', '=', stream.uuid).where('object_id', 'is', null).execute();
    await this.removeFiles(stream.uuid);
  }

  /**
   * Streams never linked to an object are deleted `unlinkedStreamHours` (24) after their upload,
   * files included (a scheduled job; upload tokens expire as long after).
   */
  async purgeUnlinkedStreams(now = Date.now()): Promise<number> {
    const before = nowIso(new Date(now - this.ctx.config.unlinkedStreamHours * 3600_000));
    const old = await this.db.selectFrom('streams').select('uuid').where('object_id', 'is', null).where('created', '<=', before).execute();
    for (const { uuid } of old) {
      // Linked meanwhile: kept.
      const res = await this.db.deleteFrom('streams').where('uuid', '=', uuid).where('object_id', 'is', null).executeTakeFirst();
      if (Number(res.numDeletedRows)) await this.removeFiles(uuid);
    }
    return old.length;
  }

  /** Those of `uuids` that no stream row names (the orphan sweep: files whose row never committed or is gone). */
  async unnamedUuids(uuids: string[]): Promise<string[]> {
    const named = new Set<string>();
    for (let i = 0; i < uuids.length; i += 500) {
      const rows = await this.db.selectFrom('streams').select('uuid').where('uuid', 'in', uuids.slice(i, i + 500)).execute();
      for (const r of rows) named.add(r.uuid);
    }
    return uuids.filter((u) => !named.has(u));
  }

  /** Delete a stream and, after the commit, its files (server code: expired uploads). */
  async deleteStream(uuid: string): Promise<void> {
    const stream = await this.findStream(uuid.toLowerCase());
    if (!stream) throw notFound(`No stream ${uuid}`);
    await this.db.deleteFrom('streams').where('uuid', '=', stream.uuid).execute();
    await this.removeFiles(stream.uuid);
  }

  /** Purge hooks: rows go inside the purge transaction, files after its commit. */
  async onPurge(trx: Transaction<Database>, ids: number[]): Promise<void> {
    if (!ids.length) return;
    const rows = await trx.selectFrom('streams').select(['uuid', 'object_id']).where('object_id', 'in', ids).execute();
    await trx.deleteFrom('streams').where('object_id', 'in', ids).execute();
    for (const r of rows) this.purging.set(r.object_id!, [...(this.purging.get(r.object_id!) ?? []), r.uuid]);
  }

  async afterPurge(ids: number[]): Promise<void> {
    for (const id of ids) {
      for (const uuid of this.purging.get(id) ?? []) await this.removeFiles(uuid);
      this.purging.delete(id);
    }
  }
}
