// Publication windows and the caches: what anonymous clients may see changes not only
// with writes but when a `publish_start` or `publish_end` passes. The data version every cache
// checks (data-version.ts) is wrapped here so that it also moves when the next bound passes: a
// cached answer or count never outlives the window it was read in, with no job and no timer.
//
// Reads compare windows with `visibleAt()`, the instant the current *epoch* began, rather than
// the clock: between two bounds every instant gives the same answer, so compiled queries (and
// the read cache, keyed by their parameters) stay the same for the whole epoch. An epoch ends
// when the next bound after its start passes, and when a window was set meanwhile
// (DataVersion.windows(): a write may set a bound between the epoch's start and now); the next
// bound is then read again. Other writes leave the epoch, and what is kept by it: a list's
// statements, its count and anchors keep their parameters across an edit of content.
import type { DataVersion } from './data-version.js';

export interface PublishEpochs extends DataVersion {
  /** The instant reads compare publication windows with (ISO, UTC): the current epoch's start. */
  visibleAt(): string;
}

/** Versions of the wrapped counter stay apart from epoch moves (2^32 epochs of room). */
const EPOCH = 2 ** 32;

/**
 * `nextBound(after)`: the earliest `publish_start` or `publish_end` strictly after the ISO instant
 * `after` (epoch ms), or null when there is none; read after every change of the data.
 */
export function withPublishEpochs(inner: DataVersion, nextBound: (after: string) => Promise<number | null>, log: (line: string) => void): PublishEpochs {
  let epoch = 0;
  let start = Date.now();
  let seen = NaN;
  /** The next bound after `start`: a number, null (none), or undefined while being read. */
  let bound: number | null | undefined;
  let reading = 0;
  /** inner.windows() when the bound was asked for. */
  let boundWindows = NaN;
  /** `start` as ISO text, and the start it was written for. */
  let startText: string | null = null;
  let startTextOf = NaN;

  const read = () => {
    const mine = ++reading;
    boundWindows = inner.windows();
    const from = new Date(start).toISOString();
    nextBound(from).then(
      (b) => {
        if (mine === reading) bound = b;
      },
      (err) => log(`publication windows: could not read the next bound: ${(err as Error)?.message ?? err}`),
    );
  };
  /** Starts a new epoch when the data changed or the next bound has passed. */
  const check = () => {
    const v = inner.current();
    const now = Date.now();
    if (v !== seen) {
      seen = v;
      // No window set since the bound was read (and it is still to come, or there is none): no
      // bound lies between the epoch's start and now, and the epoch goes on. Else a new one, and
      // its next bound read.
      if (bound === undefined || inner.windows() !== boundWindows || (typeof bound === 'number' && now >= bound)) {
        start = now;
        bound = undefined;
        read();
      }
    } else if (typeof bound === 'number' && now >= bound) {
      epoch++;
      start = now;
      bound = undefined;
      read();
    }
    return v;
  };
  return {
    current: () => check() + epoch * EPOCH,
    refresh() {
      const r = inner.refresh();
      return typeof r === 'number' ? (check(), r + epoch * EPOCH) : r.then((x) => (check(), x + epoch * EPOCH));
    },
    model: () => inner.model(),
    settings: () => inner.settings(),
    windows: () => inner.windows(),
    accounts: () => inner.accounts(),
    lists: () => inner.lists(),
    bump: () => inner.bump(),
    along: inner.along,
    visibleAt() {
      check();
      // While the next bound is being read, the clock itself (a bound may pass meanwhile).
      if (bound === undefined) return new Date(Date.now()).toISOString();
      // The epoch's start, written once per epoch (every read by id asks).
      if (startText === null || startTextOf !== start) {
        startTextOf = start;
        startText = new Date(start).toISOString();
      }
      return startText;
    },
  };
}
