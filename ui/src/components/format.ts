// Small display helpers shared by the pages.
export function formatDate(value: unknown): string {
  if (typeof value !== 'string' || !value) return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function titleOf(r: { id: string; attributes: Record<string, any> }): string {
  const a = r.attributes;
  return String(a.title || a.name || a.username || a.uname || `#${r.id}`);
}

/** Rich text as the words a reader sees: tags dropped, whitespace collapsed. */
export function plainText(html: string): string {
  if (!/<[a-z][^>]*>/i.test(html)) return html.replace(/\s+/g, ' ').trim();
  const doc = new DOMParser().parseFromString(html, 'text/html');
  // Blocks read as separate words ("Opening Open daily", not "OpeningOpen daily").
  for (const block of doc.body.querySelectorAll('p, li, h1, h2, h3, h4, h5, h6, br, div, td, th')) block.append(' ');
  return (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
}
