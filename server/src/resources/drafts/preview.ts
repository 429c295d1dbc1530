// Preview links of drafts. A preview token is an HS256 JWT (the algorithm fixed on both sides)
// naming one object and the creation instant of its draft, with `exp` FOLIO_PREVIEW_TTL seconds
// ahead. It is signed with a key derived from the server secret for this one purpose, so an
// access token is never a preview token nor the other way round. A token opens that draft only,
// read-only: another object's draft, a draft discarded and made again, an expired or altered
// token are refused with a code that says so, and nothing of any object.
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AppContext } from '../../context.js';
import { ApiError, unauthorized } from '../../http/errors.js';
import type { ObjectType } from '../objects/model.js';
import type { ObjectRow } from '../objects/rows.js';
import type { DraftRow } from './service.js';

const PURPOSE = 'draft-preview';

interface PreviewClaims {
  pur: typeof PURPOSE;
  /** The object whose draft it opens. */
  obj: number;
  /** The draft's `created`: a draft discarded and made again is another draft. */
  dc: string;
}

const keys = new WeakMap<AppContext, Buffer>();
function previewKey(ctx: AppContext): Buffer {
  let key = keys.get(ctx);
  if (!key) keys.set(ctx, (key = crypto.createHmac('sha256', ctx.jwtSecret).update('folio draft preview').digest()));
  return key;
}

export function previewToken(ctx: AppContext, draft: Pick<DraftRow, 'object_id' | 'created'>): string {
  const claims: PreviewClaims = { pur: PURPOSE, obj: draft.object_id, dc: draft.created };
  return jwt.sign(claims, previewKey(ctx), { algorithm: 'HS256', expiresIn: ctx.config.previewTtl });
}

const mismatch = () => new ApiError(403, 'preview_token_mismatch', 'This preview token does not open this draft', 'Forbidden');

/** The object id and draft creation a token names: 401 when expired or not a valid token. */
export function verifyPreviewToken(ctx: AppContext, token: string): PreviewClaims {
  let claims: jwt.JwtPayload | string;
  try {
    claims = jwt.verify(token, previewKey(ctx), { algorithms: ['HS256'] });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw unauthorized('This preview token has expired: ask for a new preview link', 'expired_preview_token');
    throw unauthorized('This is not a valid preview token', 'invalid_preview_token');
  }
  if (typeof claims !== 'object' || claims.pur !== PURPOSE || !Number.isSafeInteger(claims.obj) || typeof claims.dc !== 'string') {
    throw unauthorized('This is not a valid preview token', 'invalid_preview_token');
  }
  return claims as unknown as PreviewClaims;
}

/** 403 unless `claims` name this object and this very draft. */
export function checkPreviewOf(claims: PreviewClaims, objectId: number, draft: Pick<DraftRow, 'created'> | undefined): void {
  if (claims.obj !== objectId || !draft || draft.created !== claims.dc) throw mismatch();
}

/**
 * The link to preview the draft: the type's `preview_url` template filled in (each value
 * URL-encoded), else the admin UI's preview page.
 */
export function previewUrl(base: string, type: ObjectType, row: Pick<ObjectRow, 'id' | 'uname'>, token: string): string {
  if (!type.previewUrl) return `${base}/admin/preview/${row.id}?token=${encodeURIComponent(token)}`;
  const values: Record<string, string> = { type: type.name, id: String(row.id), uname: row.uname, token };
  return type.previewUrl.replace(/\{(type|id|uname|token)\}/g, (_, name: string) => encodeURIComponent(values[name]));
}
