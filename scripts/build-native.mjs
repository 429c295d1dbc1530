// Builds server/native/folio-rank.c, the SQLite extension that ranks one-word searches without
// bm25's full pass over the word's documents (see the file), into server/native/build. It needs a
// C compiler (`CC`, else `cc`), which a machine that built better-sqlite3 from source has; the
// headers are the SQLite that better-sqlite3 bundles. Without a compiler, or on Windows, it says so
// and ends well: Folio then ranks with SQLite's own bm25, in the same order (db/dialect/sqlite-rank.ts).
// Part of `npm run build` (so of `npm install`); builds again only when the source or the
// headers are newer than the library.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'server', 'native', 'folio-rank.c');
const suffix = process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so';
const out = path.join(root, 'server', 'native', 'build', `folio-rank.${suffix}`);
const say = (line) => console.log(`build-native: ${line}`);

function headers() {
  try {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'deps', 'sqlite3');
    return fs.existsSync(path.join(dir, 'sqlite3ext.h')) ? dir : null;
  } catch {
    return null;
  }
}

const include = headers();
if (process.platform === 'win32') {
  say('not built on Windows (no cc): searches rank with bm25');
} else if (!include) {
  say("better-sqlite3's SQLite headers not found: searches rank with bm25");
} else {
  const newest = Math.max(fs.statSync(source).mtimeMs, fs.statSync(path.join(include, 'sqlite3ext.h')).mtimeMs);
  if (fs.existsSync(out) && fs.statSync(out).mtimeMs >= newest) {
    say(`${path.relative(root, out)} is up to date`);
  } else {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    const args = ['-O2', '-fPIC', process.platform === 'darwin' ? '-dynamiclib' : '-shared', '-I', include, source, '-o', tmp, '-lm'];
    try {
      execFileSync(process.env.CC || 'cc', args, { stdio: ['ignore', 'inherit', 'inherit'] });
      fs.renameSync(tmp, out);
      say(`built ${path.relative(root, out)}`);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      say(`not built (${err.code === 'ENOENT' ? 'no C compiler: set CC' : err.message.split('\n')[0]}): searches rank with bm25`);
    }
  }
}
