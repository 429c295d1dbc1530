// Hash routing for the admin (#/users/5): no server routes needed beyond /admin, and the browser's
// back button works.
import { useEffect, useState } from 'react';

export function currentPath(): string[] {
  return window.location.hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
}

export function useRoute(): string[] {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onHash = () => setPath(currentPath());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return path;
}

export function href(...segments: (string | number)[]): string {
  return '#/' + segments.map((s) => encodeURIComponent(String(s))).join('/');
}

export function navigate(...segments: (string | number)[]): void {
  window.location.hash = href(...segments).slice(1);
}
