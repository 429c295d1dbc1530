// Bundles the compiled server (server/dist) into a few files beside it: main.bundle.js (what
// `npm start` runs), app.bundle.js and config.bundle.js (for the benchmark and embedders) and
// their shared chunk; backup.bundle.js, restore.bundle.js and model.bundle.js (`npm run backup`,
// `npm run restore`, `npm run model`) and image-helper.bundle.js (the image helper process,
// thumbs/sharp-pipeline.ts).
// Node 20 loads ESM packages file by file (kysely alone is 279 modules):
// measured, importing the unbundled server took 630-800 ms and 95 MB, the bundle 180-280 ms and
// 80 MB. Native addons and the modules loaded lazily (sharp, nodemailer) stay outside.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'server', 'dist');
// Chunks are named by hash: drop the previous build's.
for (const f of fs.readdirSync(dist)) if (/\.bundle(-[\w]+)?\.js$/.test(f)) fs.rmSync(path.join(dist, f));
await build({
  entryPoints: ['main.js', 'app.js', 'config.js', 'cli/backup.js', 'cli/restore.js', 'cli/model.js', 'thumbs/image-helper.js'].map((f) => path.join(dist, f)),
  outdir: dist,
  entryNames: '[name].bundle',
  chunkNames: 'shared.bundle-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'sharp', 'nodemailer'],
  // Packages written as CommonJS call require(); an ESM bundle needs one.
  banner: { js: "import { createRequire as __folioCreateRequire } from 'node:module'; const require = __folioCreateRequire(import.meta.url);" },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
