// The admin's first-load JavaScript, gzipped: the entry script and the chunks it preloads, as
// listed in ui/dist/index.html (lazy chunks such as the rich-text editor are not counted).
// Prints each file and the total; exits 1 above the budget (250 kB).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export const BUDGET_BYTES = 250 * 1000;

export function entrySize(dist = 'ui/dist') {
  const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="\/admin\/([^"]+\.js)"/g)].map((m) => m[1]);
  const sizes = files.map((f) => ({ file: f, gzip: zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length }));
  return { sizes, total: sizes.reduce((n, s) => n + s.gzip, 0) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { sizes, total } = entrySize();
  for (const s of sizes) console.log(`${s.file}\t${(s.gzip / 1000).toFixed(1)} kB gzip`);
  console.log(`first-load JavaScript: ${(total / 1000).toFixed(1)} kB gzip (budget ${BUDGET_BYTES / 1000} kB)`);
  process.exit(total > BUDGET_BYTES ? 1 : 0);
}
