// Flat JSON bodies of /auth/change and /signup: an object of named fields, links that must be
// absolute http(s) URLs, and the links the mails carry.
import type { Request } from 'express';
import { badRequest } from '../../http/errors.js';

export function flatBody(req: Request, allowed: string[]): Record<string, unknown> {
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object', 'invalid_body');
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length) throw badRequest(`Unknown field "${unknown[0]}"; accepted: ${allowed.join(', ')}`, 'unknown_attribute');
  return body as Record<string, unknown>;
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || !v.trim()) throw badRequest(`"${name}" is required`, 'invalid_data');
  return v.trim();
}

/** An absolute http(s) URL (no javascript:, data: or relative links in mails). */
export function urlField(body: Record<string, unknown>, name: string, required: boolean): string | null {
  const v = body[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw badRequest(`"${name}" is required`, 'invalid_data');
    return null;
  }
  if (typeof v !== 'string' || v.length > 2048) throw badRequest(`"${name}" must be a URL`, 'invalid_data');
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw badRequest(`"${name}" must be an absolute URL`, 'invalid_data');
  }
  // Any scheme, as BEdita (`app://…` of a mobile app), but those that run or embed code in a mail reader.
  if (['javascript:', 'vbscript:', 'data:'].includes(url.protocol)) throw badRequest(`"${name}" cannot be a ${url.protocol} URL`, 'invalid_data');
  return v;
}

/** `{base}?uuid=…` (or `&uuid=` when the base already has a query), then any extra parameters. */
export function linkWithParams(base: string, params: Record<string, string | null>): string {
  const query = Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  return `${base}${base.includes('?') ? '&' : '?'}${query}`;
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
