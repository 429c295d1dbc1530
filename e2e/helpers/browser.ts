// One real server (temp data dir) and one headless Chromium per e2e file, a signed-in admin page,
// and screenshots into test-artifacts/. The admin UI is built first when ui/dist is missing or
// older than its sources (a lock keeps parallel files from building at once).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { ADMIN, startServer, type TestServer } from '../../server/test/helpers/server.js';
import { waitUntil } from '../../server/test/helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = path.join(root, 'test-artifacts');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function uiIsFresh(): boolean {
  const index = path.join(root, 'ui/dist/index.html');
  if (!fs.existsSync(index)) return false;
  const sources = Math.max(newestMtime(path.join(root, 'ui/src')), fs.statSync(path.join(root, 'ui/index.html')).mtimeMs);
  return fs.statSync(index).mtimeMs >= sources;
}

async function ensureUiBuilt(): Promise<void> {
  if (uiIsFresh()) return;
  const lock = path.join(root, 'ui/.build-lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Another test file is building (or a stale lock older than two minutes is left behind).
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('timed out waiting for the admin UI build');
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  try {
    if (!uiIsFresh()) execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'ui/vite.config.ts', '--logLevel', 'error'], { cwd: root, stdio: 'inherit' });
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export interface E2E {
  server: TestServer;
  browser: Browser;
  page: Page;
  /** Screenshot of the page into test-artifacts/<name>.png (`viewport`: only what is on screen,
   *  e.g. a modal dialog, whose overlay covers the viewport and not the whole page). */
  shot(name: string, opts?: { viewport?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  await ensureUiBuilt();
  fs.mkdirSync(artifacts, { recursive: true });
  const server = await startServer(env);
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  } catch (e) {
    await server.close();
    throw e;
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.url });
  // A safety net against a hang, not a speed check: generous, so a loaded runner (the PostgreSQL
  // pass runs beside the browser tests) never trips it.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  return {
    server,
    browser,
    page,
    shot: async (name, opts = {}) => {
      // From the top, so sticky bars sit where a reader sees them in the full-page image.
      if (!opts.viewport) await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: !opts.viewport });
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** Open the admin and sign in through the login form. */
export async function signInAsAdmin(page: Page, hash = ''): Promise<void> {
  await signInAs(page, ADMIN.username, ADMIN.password, hash);
}

/** Forget the admin's session in this browser (every tab of the page's context), without signing out. */
export async function forgetSession(page: Page): Promise<void> {
  await page.evaluate(() => ['folio.session', 'folio.username', 'folio.session.ended'].forEach((k) => localStorage.removeItem(k)));
}

/** Open the admin (a fresh session) and sign in as this user through the login form. */
export async function signInAs(page: Page, username: string, password: string, hash = ''): Promise<void> {
  await page.goto('/admin/' + hash);
  await forgetSession(page);
  await page.reload();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: /^My account/ }).waitFor();
}

/** A user with one role of these permissions (made through the API); returns its token. */
export async function createRestrictedUser(server: TestServer, username: string, password: string, permissions: Record<string, string[]>): Promise<string> {
  const token = await server.adminToken();
  const role = await server.request('POST', '/roles', { token, body: { data: { type: 'roles', attributes: { name: `${username.replace(/-/g, '_')}_role`, permissions } } } });
  if (role.status !== 201) throw new Error(`create role failed: ${role.status} ${role.text}`);
  const user = await server.request('POST', '/users', { token, body: { data: { type: 'users', attributes: { username, password, name: username } } } });
  if (user.status !== 201) throw new Error(`create user failed: ${user.status} ${user.text}`);
  await server.request('POST', `/users/${user.body.data.id}/relationships/roles`, { token, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
  return (await server.request('POST', '/auth', { body: { username, password } })).body.meta.jwt;
}

/**
 * Run axe-core on the page as it is now and fail on any serious or critical violation, naming
 * each rule and the elements it found. The engine is evaluated through the DevTools protocol,
 * which the admin's Content-Security-Policy does not govern.
 */
export async function expectNoSeriousA11yViolations(page: Page, where: string): Promise<void> {
  const source = fs.readFileSync(path.join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (serious.length) {
    throw new Error(`${where}: ${serious.length} serious or critical accessibility violation(s):\n` + serious.map((v) => `- ${v.id} (${v.impact}): ${v.help}\n    ${v.targets.join('\n    ')}`).join('\n'));
  }
}

/** Create an object through the API (as the admin) and return its id. */
export async function createObject(server: TestServer, type: string, attributes: Record<string, unknown>): Promise<string> {
  const res = await server.request('POST', `/${type}`, { token: await server.adminToken(), body: { data: { type, attributes } } });
  if (res.status !== 201) throw new Error(`create ${type} failed: ${res.status} ${res.text}`);
  return String(res.body.data.id);
}

/**
 * Types into the focused rich-text editor and waits until the editor's document holds the text.
 * ProseMirror reads typed characters from the page after the key events: a shortcut pressed before
 * it has (Ctrl+B on a loaded machine) would give the pending space the new mark.
 */
export async function typeInEditor(page: Page, text: string): Promise<void> {
  await untilEditorFocused(page).catch(async (err: Error) => {
    throw new Error(`typeInEditor("${text}"): the editor never had the focus (${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200))}): ${err.message}`);
  });
  // One key at a time, each once the editor holds the text so far: on a loaded machine a space
  // typed in the same instant as the next letter at the end of a heading was lost
  // ("Beforeyousail": the editor's turning of the browser's no-break space into a plain one races
  // the next key; noted in the closing note). A typist never types faster than the page answers.
  for (let i = 1; i <= text.length; i++) {
    await page.keyboard.type(text[i - 1]);
    await page
      .waitForFunction(
        (typed) => {
          const dom = document.activeElement?.closest('.ProseMirror') as (Element & { editor?: { state: { doc: { textContent: string } } } }) | null;
          return dom?.editor?.state.doc.textContent.replace(/\u00a0/g, ' ').endsWith(typed) ?? false;
        },
        text.slice(0, i),
      )
      .catch(async (err: Error) => {
        const seen = await page.evaluate(() => {
          const dom = document.querySelector('.ProseMirror') as (Element & { editor?: { getHTML(): string } }) | null;
          return { focused: document.activeElement?.outerHTML.slice(0, 160), html: dom?.editor?.getHTML().slice(-300) };
        });
        throw new Error(`typeInEditor("${text}"): the editor does not end with "${text.slice(0, i)}": ${JSON.stringify(seen)}: ${err.message}`);
      });
  }
}

/**
 * Waits until a rich-text editor has the focus: it takes it back from a closed dialog or a clicked
 * button a frame later, and keys pressed before would go elsewhere (a space into a toolbar button
 * presses it).
 */
export async function untilEditorFocused(page: Page): Promise<void> {
  await page.waitForFunction(() => Boolean(document.activeElement?.closest('.ProseMirror')));
}

/**
 * Whether the focus reaches `target` (or, with `within`, an element inside it) within `ms`: the
 * admin UI moves the focus a turn after the click or key that asks for it (a new field, a
 * dialog), which a loaded machine runs after the click has returned. False when it never does.
 */
export async function focusReaches(target: Locator, { within = false, ms = 5_000 } = {}): Promise<boolean> {
  const handle = await target.elementHandle({ timeout: ms }).catch(() => null);
  if (!handle) return false;
  return target
    .page()
    .waitForFunction(([el, inside]) => (inside ? el.contains(document.activeElement) : el === document.activeElement), [handle, within] as const, { timeout: ms })
    .then(() => true)
    .catch(() => false);
}

/**
 * Waits until the editor's caret is inside `element` (a table cell, a link) after a click on it:
 * the editor learns of the click's caret from the browser's selectionchange, which a loaded
 * machine delivers late, and a table command or Ctrl+K before it acts where the caret was.
 */
export async function untilCaretIn(page: Page, element: Locator): Promise<void> {
  const handle = await element.elementHandle();
  await page.waitForFunction((el) => {
    type View = { state: { selection: { from: number } }; domAtPos(pos: number): { node: Node } };
    const dom = el?.closest('.ProseMirror') as (Element & { editor?: { view: View } }) | null;
    const view = dom?.editor?.view;
    return Boolean(view && el!.contains(view.domAtPos(view.state.selection.from).node));
  }, handle);
}

/**
 * Waits until the focused editor's own selection (not only the browser's) is what the keys made:
 * the `text` it spans, or, with `atLineEnd`, a caret at the end of its paragraph. The editor learns
 * of a selection moved by keys from the browser's `selectionchange`, which a loaded machine
 * delivers late; a shortcut pressed before it acts on the old selection.
 */
export async function untilEditorSelection(page: Page, want: { text: string } | { atLineEnd: true }): Promise<void> {
  await page.waitForFunction((w) => {
    type Sel = { from: number; to: number; empty: boolean; $from: { parentOffset: number; parent: { content: { size: number } } } };
    const dom = document.activeElement?.closest('.ProseMirror') as (Element & { editor?: { state: { selection: Sel; doc: { textBetween(a: number, b: number): string } } } }) | null;
    const state = dom?.editor?.state;
    if (!state) return false;
    const sel = state.selection;
    if ('text' in w) return state.doc.textBetween(sel.from, sel.to) === w.text;
    return sel.empty && sel.$from.parentOffset === sel.$from.parent.content.size;
  }, want);
}

/**
 * Runs `action` (a click, a key press) and waits for a toast with `text` raised after it: a toast of
 * the same text from an earlier action (they stay a few seconds) does not count, so the wait ends
 * when this action is done.
 */
export async function untilNewToast(page: Page, text: string, action: () => Promise<unknown>): Promise<void> {
  await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.setAttribute('data-seen', '')));
  await action();
  await page.locator('.toast:not([data-seen])', { hasText: text }).last().waitFor();
}

/**
 * Waits until `read()` gives `want` (deeply equal). For a part of the page that a fetch of its own
 * updates (a list, a tree, a field the user's data sets): read just after another sign of the
 * action, it may still show the state from before. When it never does, fails as assert.deepEqual
 * would, with the last value read.
 */
export async function untilEqual<T>(read: () => Promise<T>, want: T, what: string): Promise<void> {
  let last: { value: T } | undefined;
  try {
    await waitUntil(async () => {
      last = { value: await read() };
      return isDeepStrictEqual(last.value, want) ? true : undefined;
    }, what);
  } catch (err) {
    const seen = last as { value: T } | undefined;
    if (seen && /^timed out/.test((err as Error).message)) assert.deepEqual(seen.value, want, (err as Error).message);
    throw err;
  }
}

/**
 * The page as it is now at 1024×700 and 1366×850, light and dark: a full-page screenshot of each
 * (test-artifacts/<name>-<width>-<theme>.png, toasts closed first) and axe on each. Ends light.
 */
export async function shotsAtBothSizes(page: Page, name: string): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
  for (const [w, h] of [[1024, 700], [1366, 850]] as const) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      while (await dismiss.count()) await dismiss.first().click();
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(artifacts, `${name}-${w}-${scheme}.png`), fullPage: true });
      await expectNoSeriousA11yViolations(page, `${name} at ${w} in the ${scheme} theme`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A browser context of its own (its own storage: another person's browser) at this size. */
export async function contextAt(e: E2E, width: number, height: number) {
  const context = await e.browser.newContext({ viewport: { width, height }, baseURL: e.server.url });
  context.setDefaultTimeout(30_000);
  return context;
}
