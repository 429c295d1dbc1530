// The data version read along with an object, instead of in a round trip (PostgreSQL) or a pragma
// (SQLite) of its own.
//
// Every request reads the data version before it consults a cache (app.ts): another instance's
// write answered before the request began must be seen, caches included (CONTRACT, several
// instances). On PostgreSQL that read is a round trip, about a sixth of an uncached read by id's
// CPU; on SQLite `pragma data_version` (another process's commits), about a tenth. A read by id (`GET /{type}/{id}`, the hottest route) may instead go ahead on the version as
// last seen and take the version rows along in the statement that reads the object: one snapshot,
// taken after the request began. When they are the ones the request started from, no write
// committed between the last look and that snapshot, so every cache the request used (the
// signed-in identity, the model, the object-permission flag, the endpoint policy, the publication
// epoch) was current then; the answer is as fresh as with the read first. When they moved, the
// request is answered again from the start, the version now read (VersionMoved).
//
// Nothing is sent before the request is confirmed: the route confirms with its read; any other
// way out (an error, a cached answer, a path the route does not read by id) first reads the
// version as usual (confirmByRefresh) and starts again if it moved. Only routes that declare it
// (RouteDef.readsAlong) are taken this way. On SQLite the value read along is `data_version`, read
// in the statement's own read transaction: a request may go ahead on a value this process read
// earlier in the same turn of the event loop (even in a phase before the one that received it),
// and the read confirms that no other connection committed since.
import type { DataVersion } from './data-version.js';

/** A request taken with the version read along (DataVersion.along present): what it started from, and whether that was confirmed. */
export interface ReadAlong {
  /**
   * The database's counter as last seen when the request began (DataVersion.along.seen()): this
   * process's own writes under way are left out (they only empty caches, which are then read
   * afresh); any commit, this process's or another's, between then and the read moves it.
   */
  readonly expected: number;
  confirmed: boolean;
}

/** The version moved between the request's start and its read: answer it again from the start. */
export class VersionMoved extends Error {
  constructor() {
    super('the data version moved while the request was read along');
  }
}

/** Where the request keeps its ReadAlong (undefined: the version was read first, as usual). */
export const READ_ALONG = Symbol('data version read along');

export type WithReadAlong = { [READ_ALONG]?: ReadAlong };

export const readAlongOf = (req: object): ReadAlong | undefined => (req as WithReadAlong)[READ_ALONG];

/** The column a read selects to take the version rows along (DataVersion.along.column). */
export const READ_ALONG_COLUMN = 'folio_versions';

/**
 * Whether no other process committed since the request began: the counter did not move, or moved
 * only by this process's own commits, which it has seen (its caches were emptied by their writes
 * and read afresh; a write that committed after the request began need not be in its answer).
 */
const unchanged = (dataVersion: DataVersion, check: ReadAlong) => {
  const along = dataVersion.along;
  return along !== undefined && (along.seen() === check.expected || along.onlyOwnSince(check.expected));
};

/** Takes in the version rows read with the object (`text`: the column's value) and confirms, or throws VersionMoved. */
export function confirmAlong(dataVersion: DataVersion, check: ReadAlong, text: unknown): void {
  if (check.confirmed) return;
  dataVersion.along?.see(text);
  if (!unchanged(dataVersion, check)) throw new VersionMoved();
  check.confirmed = true;
}

/** Confirms by reading the version (a read that carried none, an error, a cached answer), or throws VersionMoved. */
export async function confirmByRefresh(dataVersion: DataVersion, check: ReadAlong): Promise<void> {
  if (check.confirmed) return;
  const fresh = dataVersion.refresh();
  if (typeof fresh !== 'number') await fresh;
  if (!unchanged(dataVersion, check)) throw new VersionMoved();
  check.confirmed = true;
}
