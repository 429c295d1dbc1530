// Hash routing for the admin (#/objects/documents?q=x&page=2): no server routes needed beyond
// /admin, the browser's back button works, and list state (search, filters, sort, page) lives in
// the hash's query so a reload or Back brings it back. Every route change passes the unsaved-
// changes guard: a link click or navigate() is held before it happens; Back/Forward is undone
// and then asked about.
import { useEffect, useState } from 'react';
import { hasUnsavedChanges, requestLeave } from './unsaved';

const listeners = new Set<() => void>();
/** The hash the app shows now (the last one the guard let through). */
let accepted = window.location.hash;

function parts(hash: string): { path: string[]; query: URLSearchParams } {
  const raw = hash.replace(/^#\/?/, '');
  const at = raw.indexOf('?');
  const path = (at < 0 ? raw : raw.slice(0, at)).split('/').filter(Boolean).map(decodeURIComponent);
  return { path, query: new URLSearchParams(at < 0 ? '' : raw.slice(at + 1)) };
}

export function currentPath(): string[] {
  return parts(window.location.hash).path;
}

/** Go to a hash now, without asking (the guard already did, or there is nothing to lose). */
export function forceNavigate(hash: string, replace = false): void {
  const target = hash.startsWith('#') ? hash : '#' + hash;
  accepted = target;
  if (replace) window.history.replaceState(null, '', target);
  else if (window.location.hash !== target) window.history.pushState(null, '', target);
  for (const l of listeners) l();
}

/** Go to a hash unless unsaved changes are in the way, in which case the user is asked first. */
export function navigateTo(hash: string, replace = false): void {
  const target = hash.startsWith('#') ? hash : '#' + hash;
  if (target === accepted) return;
  if (hasUnsavedChanges()) requestLeave(() => forceNavigate(target, replace));
  else forceNavigate(target, replace);
}

window.addEventListener('hashchange', () => {
  const next = window.location.hash;
  if (next === accepted) return;
  if (hasUnsavedChanges()) {
    // Back/Forward (or a typed URL): show the edited page again, then ask.
    window.history.pushState(null, '', accepted || '#/');
    requestLeave(() => forceNavigate(next));
    return;
  }
  accepted = next;
  for (const l of listeners) l();
});

// In-app links are held before the browser navigates, so history stays as it was.
document.addEventListener(
  'click',
  (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a[href^="#"]');
    if (!a || a.getAttribute('target')) return;
    e.preventDefault();
    navigateTo(a.getAttribute('href')!);
  },
  true,
);

function useHash(): string {
  const [hash, setHash] = useState(accepted);
  useEffect(() => {
    const update = () => setHash(accepted);
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return hash;
}

export function useRoute(): string[] {
  return parts(useHash()).path;
}

export type QueryValues = Record<string, string | number | null | undefined>;

/**
 * The hash's query as a record, and a setter that merges changes into it (null or '' removes a
 * key). `replace` keeps the history entry (typing), otherwise Back returns to the previous state.
 */
export function useHashQuery(): [Record<string, string>, (changes: QueryValues, replace?: boolean) => void] {
  const hash = useHash();
  const { query } = parts(hash);
  const values = Object.fromEntries(query.entries());
  const set = (changes: QueryValues, replace = false) => {
    const { path, query: q } = parts(accepted);
    for (const [k, v] of Object.entries(changes)) {
      if (v === null || v === undefined || v === '') q.delete(k);
      else q.set(k, String(v));
    }
    const qs = q.toString();
    navigateTo('#/' + path.map(encodeURIComponent).join('/') + (qs ? `?${qs}` : ''), replace);
  };
  return [values, set];
}

export function href(...segments: (string | number)[]): string {
  return '#/' + segments.map((s) => encodeURIComponent(String(s))).join('/');
}

export function navigate(...segments: (string | number)[]): void {
  navigateTo(href(...segments));
}
