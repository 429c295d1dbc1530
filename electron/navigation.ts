// What the app's windows may load: only pages of the embedded server. Web links open in the system
// browser; anything else (file:, javascript:, other schemes) is refused.
export type NavigationVerdict = 'allow' | 'external' | 'deny';

const web = (url: URL) => url.protocol === 'http:' || url.protocol === 'https:';

function parse(target: string): URL | null {
  try {
    return new URL(target);
  } catch {
    return null;
  }
}

/** Navigation or window.open of `target` while the server answers at `serverOrigin`. */
export function classifyNavigation(target: string, serverOrigin: string | null): NavigationVerdict {
  const url = parse(target);
  if (!url) return 'deny';
  if (serverOrigin && web(url) && url.origin === new URL(serverOrigin).origin) return 'allow';
  if (web(url) || url.protocol === 'mailto:') return 'external';
  return 'deny';
}

/**
 * Whether the app's windows may fetch `target`: the embedded server, the app's own files (the
 * settings page), in-page data and blob URLs, and the developer tools. No remote content.
 */
export function isLocalResource(target: string, serverOrigin: string | null): boolean {
  const url = parse(target);
  if (!url) return false;
  if (['file:', 'data:', 'blob:', 'devtools:'].includes(url.protocol)) return true;
  return classifyNavigation(target, serverOrigin) === 'allow';
}
