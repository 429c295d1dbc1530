// /drafts (JSON API; each draft answers as its object will be once published, `type` the object's
// own type, with `meta.draft`): list, read, create or change (PATCH), discard, publish (now or at
// `publish_at`), submit for review, and preview links. The rules are in ./service.ts (who sees a
// draft), ./publish.ts (publishing through the write kernel) and ./preview.ts (preview tokens).
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { badRequest, notFound } from '../../http/errors.js';
import { expectedVersion } from '../../http/if-match.js';
import { isPlainObject, resourceInput, sendList, sendMeta, sendNoContent, sendResource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { pathId } from '../../http/params.js';
import { parseListQuery } from '../../http/query.js';
import { outsideRequest, readContext } from '../../http/read-context.js';
import type { RouteDef } from '../../http/router.js';
import { ANONYMOUS } from '../../identity.js';
import type { Family } from '../family.js';
import { typeById } from '../objects/model.js';
import { objectWriteInput } from '../objects/schema.js';
import { inTransaction, whenCommitted } from '../objects/pipeline.js';
import { getObject, getObjectsByIds, SYSTEM } from '../objects/read.js';
import { sendWritten } from '../objects/routes.js';
import { checkPreviewOf, previewToken, previewUrl, verifyPreviewToken } from './preview.js';
import { publishDraft, publishInstant, scheduleDraft, scheduleDraftPublications } from './publish.js';
import { DRAFT_LIST_SPEC, discardDraft, draftDocument, draftInput, draftsExtension, draftTag, draftView, editableIfMatch, listDrafts, requireDraft, saveDraft, type Drafted, type DraftRow } from './service.js';

export const draftsFamily: Family = {
  name: 'drafts',
  kernel: () => ({ extensions: [draftsExtension] }),
  routes: draftsRoutes,
};

function draftsRoutes(ctx: AppContext): RouteDef[] {
  scheduleDraftPublications(ctx);
  /** A draft's answer, with its own ETag (draftTag: not the live object's) and, with `lang`, its translation included. */
  const send = async (req: Request, res: Response, found: Drafted & { draft: DraftRow }, status = 200, headers: Record<string, string> = {}) => {
    const { data, included } = await draftDocument(readContext(req), ctx, found);
    sendResource(req, res, data, { status, included: included.length ? included : undefined, headers: { ETag: draftTag(found.row, found.draft), ...headers } });
  };
  const ifMatch = (req: Request) => req.headers['if-match'];

  /** GET /drafts/{id}?preview_token=…: that draft, to whoever holds the token, read-only. */
  const preview = async (req: Request, res: Response, token: string) => {
    const claims = verifyPreviewToken(ctx, token);
    const id = pathId(req);
    const draft = await ctx.db.selectFrom('drafts').selectAll().where('object_id', '=', id).executeTakeFirst();
    checkPreviewOf(claims, id, draft);
    // A trashed object's draft is not shown (nor said to exist).
    const row = await getObject(ctx, id, { viewer: SYSTEM });
    if (!row) return checkPreviewOf(claims, id, undefined);
    const rc = outsideRequest(ANONYMOUS, baseUrl(req), typeof req.query.lang === 'string' && req.query.lang ? req.query.lang : null);
    const { data, included } = await draftDocument(rc, ctx, { row, type: typeById(ctx, row.object_type_id)!, draft: draft! });
    sendResource(req, res, data, { included: included.length ? included : undefined, headers: { 'Cache-Control': 'no-store' } });
  };

  return [
    {
      method: 'get',
      path: '/drafts',
      guard: 'user',
      handler: async (req, res) => {
        const q = parseListQuery(req, DRAFT_LIST_SPEC);
        const { rows, count } = await listDrafts(ctx, req.auth, q);
        const objects = new Map((await getObjectsByIds(ctx, rows.map((r) => r.object_id), { viewer: req.auth })).map((o) => [o.id, o]));
        const data = [];
        for (const draft of rows) {
          const row = objects.get(draft.object_id);
          if (row) data.push(await draftView(readContext(req), ctx, { row, type: typeById(ctx, row.object_type_id)!, draft }));
        }
        sendList(req, res, data, { count, page: q.page, pageSize: q.pageSize });
      },
    },
    {
      method: 'get',
      path: '/drafts/:id',
      guard: 'anonymous',
      handler: async (req, res) => {
        const token = req.query.preview_token;
        if (token !== undefined) {
          if (typeof token !== 'string' || !token) throw badRequest('"preview_token" must be one token', 'invalid_preview_token');
          return preview(req, res, token);
        }
        await send(req, res, await requireDraft(ctx, req.auth, pathId(req)));
      },
    },
    {
      method: 'patch',
      path: '/drafts/:id',
      guard: 'user',
      writes: ['drafts'],
      handler: async (req, res) => {
        const id = await inTransaction(ctx, undefined, async (trx) => {
          const found = await editableIfMatch(ctx, req.auth, pathId(req), ifMatch(req), trx);
          const input = objectWriteInput(ctx, req, found.type, found.row.id);
          await saveDraft(ctx, req.auth, found, draftInput(ctx, found.type, input), trx);
          return found.row.id;
        });
        await send(req, res, await requireDraft(ctx, req.auth, id));
      },
    },
    {
      method: 'delete',
      path: '/drafts/:id',
      guard: 'user',
      writes: ['drafts'],
      handler: async (req, res) => {
        await inTransaction(ctx, undefined, async (trx) => {
          const { row, draft } = await editableIfMatch(ctx, req.auth, pathId(req), ifMatch(req), trx);
          if (!draft) throw notFound(`No draft of object ${row.id}`);
          await discardDraft(ctx, row.id, trx);
        });
        sendNoContent(res);
      },
    },
    {
      method: 'post',
      path: '/drafts/:id/publish',
      guard: 'user',
      writes: ['objects', 'drafts', 'jobs'],
      handler: async (req, res) => {
        const body = req.body as unknown;
        if (body !== undefined && body !== null && !isPlainObject(body)) throw badRequest('The body must be a JSON object, or none', 'invalid_body');
        const at = isPlainObject(body) ? body.publish_at : undefined;
        if (at !== undefined && at !== null) {
          await scheduleDraft(ctx, req.auth, pathId(req), publishInstant(at));
          return send(req, res, await requireDraft(ctx, req.auth, pathId(req)), 202);
        }
        // If-Match: the live object's ETag ("v…": its version), or the draft's ("d<version>-…":
        // that version of the live object and the draft as read).
        const draftTagSent = /^"d(\d{1,15})-/.exec(ifMatch(req)?.trim() ?? '');
        const row = draftTagSent
          ? await publishDraft(ctx, req.auth, pathId(req), Number(draftTagSent[1]), undefined, ifMatch(req))
          : await publishDraft(ctx, req.auth, pathId(req), expectedVersion(req));
        await sendWritten(req, res, ctx, row!.id);
      },
    },
    {
      method: 'post',
      path: '/drafts/:id/submit',
      guard: 'user',
      writes: ['drafts', 'webhook_deliveries'],
      handler: async (req, res) => {
        await inTransaction(ctx, undefined, async (trx) => {
          const { row, type } = await requireDraft(ctx, req.auth, pathId(req), trx);
          await trx.updateTable('drafts').set({ submitted: nowIso() }).where('object_id', '=', row.id).execute();
          const event = { action: 'drafts.submitted' as const, id: row.id, typeName: type.name, userId: req.auth.userId, applicationId: req.auth.applicationId, changed: {}, base: baseUrl(req) };
          if (ctx.webhooks && (await ctx.webhooks.enqueue(trx, [event]))) whenCommitted(ctx, trx, () => ctx.webhooks?.wake());
        });
        await send(req, res, await requireDraft(ctx, req.auth, pathId(req)));
      },
    },
    {
      method: 'post',
      path: '/drafts/:id/preview',
      guard: 'user',
      writes: [],
      handler: async (req, res) => {
        const { row, type, draft } = await requireDraft(ctx, req.auth, pathId(req));
        const token = previewToken(ctx, draft);
        sendMeta(req, res, { preview_token: token, preview_url: previewUrl(baseUrl(req), type, row, token), expires: new Date(Date.now() + ctx.config.previewTtl * 1000).toISOString() });
      },
    },
  ];
}
