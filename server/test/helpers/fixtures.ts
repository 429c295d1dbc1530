// Content the reliability suites work on, made through the API with whatever families are
// mounted: an editor (non-admin) account, documents (on and draft), a folder, an image.
import sharp from 'sharp';
import type { TestServer } from './server.js';
import { ADMIN_ROLE, createUser } from './users.js';

export { createUser };

export const EDITOR = { username: 'editor', password: 'editor-secret-1' };
export const SECOND_ADMIN = { username: 'admin2', password: 'admin2-secret-1' };

export interface Fixtures {
  /** Ids of existing resources (objects, users, roles, streams) to aim requests at. */
  ids: string[];
  /** Object type names with an endpoint. */
  types: string[];
  /**
   * Access tokens by who holds them: `admin` (a second admin when /users exists, so that hostile
   * requests against the first one cannot lock the suite out), `editor` (no role) when /users exists.
   */
  tokens: Record<string, string>;
  /** A refresh token of the admin. */
  refresh: string;
  editorId?: string;
  adminId?: string;
  draftId?: string;
  onId?: string;
  folderId?: string;
  imageId?: string;
  streamId?: string;
}

/** A small real PNG (sharp is a dependency anyway). */
export function tinyPng(seed = 0): Promise<Buffer> {
  return sharp({ create: { width: 8, height: 8, channels: 3, background: { r: seed % 256, g: (seed >> 8) % 256, b: 7 } } })
    .png()
    .toBuffer();
}

export function hasRoute(s: TestServer, method: string, path: string): boolean {
  return s.server.ctx.routes.some((r) => r.method === method && r.matcher(path));
}

export async function createFixtures(s: TestServer): Promise<Fixtures> {
  const admin = await s.login();
  const token = admin.jwt;
  const fx: Fixtures = { ids: ['1', '2'], types: ['documents', 'folders', 'images'], tokens: { admin: token }, refresh: admin.renew };
  const add = (id: unknown) => {
    if (id !== undefined && id !== null) fx.ids.push(String(id));
    return id === undefined || id === null ? undefined : String(id);
  };
  if (hasRoute(s, 'post', '/users')) {
    const editor = await createUser(s, token, EDITOR);
    fx.editorId = add(editor?.id);
    if (editor) fx.tokens.editor = editor.jwt;
    const admin2 = await createUser(s, token, { ...SECOND_ADMIN, roles: [ADMIN_ROLE] });
    if (admin2) {
      fx.tokens.admin = admin2.jwt;
      fx.adminId = admin2.id;
    }
  }
  if (hasRoute(s, 'post', '/documents')) {
    const on = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Public page', status: 'on', body: 'hello' } } } });
    fx.onId = add(on.body?.data?.id);
    const draft = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Secret draft', status: 'draft' } } } });
    fx.draftId = add(draft.body?.data?.id);
  }
  if (hasRoute(s, 'post', '/folders')) {
    const f = await s.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Root folder', status: 'on' } } } });
    fx.folderId = add(f.body?.data?.id);
  }
  if (hasRoute(s, 'post', '/images/upload/x.png')) {
    const up = await s.request('POST', '/images/upload/pixel.png', { token, raw: await tinyPng(1), headers: { 'Content-Type': 'image/png' } });
    fx.imageId = add(up.body?.data?.id);
    fx.streamId = add(up.body?.included?.[0]?.id);
  } else if (hasRoute(s, 'post', '/streams/upload/x.png')) {
    const up = await s.request('POST', '/streams/upload/pixel.png', { token, raw: await tinyPng(1), headers: { 'Content-Type': 'image/png' } });
    fx.streamId = add(up.body?.data?.id);
  }
  // Hostile requests may aim at anyone but the admin the suite itself works as.
  fx.ids = [...new Set(fx.ids)].filter((id) => id !== fx.adminId);
  return fx;
}
