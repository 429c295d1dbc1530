// The rank of a SQLite search: folio_rank (server/native/folio-rank.c) where it could be built,
// else SQLite's own bm25. Both order a search's matches the same way; folio_rank skips the pass
// over a one-word search's whole lists that bm25 makes for an IDF that cannot change the order
// (the window's statement at 1.1 million documents: 80-96 -> 37-44 ms; decisions, "A one-word
// search is ranked without its IDF pass").
//
// Decided once per process, at the first connection: every connection of the process (each
// database's own, its reader threads) then ranks with the same function, as the plans made from
// the first are shared.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

export type SearchRank = 'folio_rank' | 'bm25';

export const LIBRARY = `folio-rank.${process.platform === 'darwin' ? 'dylib' : process.platform === 'win32' ? 'dll' : 'so'}`;

/**
 * The built extension: server/native/build/ of the checkout this code runs from (server/dist,
 * its bundle, electron/dist/server), looked for from `from` (this module's folder) upwards; in a
 * packed desktop app, beside the archive (asarUnpack), where a library can be loaded from.
 */
export function findRankLibrary(from = path.dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = from;
  for (let up = 0; up < 8; up++) {
    const candidate = path.join(dir, 'server', 'native', 'build', LIBRARY).replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

let decided: { rank: SearchRank; library: string | null; why: string } | null = null;

/**
 * Loads folio_rank into `db` (a connection just opened) and tells which rank this process's searches
 * use. The first connection decides: a library that is missing or does not load leaves bm25, said
 * once through `log`. Later connections load what the first did; one that then fails throws (the
 * same file loaded before).
 */
export function loadSearchRank(db: Database.Database, log?: (line: string) => void): SearchRank {
  if (!decided) {
    const library = findRankLibrary();
    if (!library) decided = { rank: 'bm25', library: null, why: `${LIBRARY} not built (npm run build builds it where a C compiler is)` };
    else {
      try {
        db.loadExtension(library);
        decided = { rank: 'folio_rank', library, why: '' };
        return decided.rank;
      } catch (err) {
        decided = { rank: 'bm25', library: null, why: `${library} did not load: ${(err as Error).message}` };
      }
    }
    log?.(`search: ranking with bm25 (${decided.why})`);
    return decided.rank;
  }
  if (decided.library) db.loadExtension(decided.library);
  return decided.rank;
}

/** The rank function of this process's searches, and the library a reader thread loads for it (null: bm25, nothing to load). */
export function searchRank(): { rank: SearchRank; library: string | null } {
  return decided ? { rank: decided.rank, library: decided.library } : { rank: 'bm25', library: null };
}
