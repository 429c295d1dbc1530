// Unique names: generated from the title (or the type's singular), and made unique with a
// -2, -3… suffix when taken by any object, trashed ones included. Never refused.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { SYSTEM, visibleObjects } from './read.js';
import { preparedList } from '../../db/prepared.js';
import type { Database } from '../../db/tables.js';

/** BEdita's prefixes of generated unames, by the type whose objects (sub-types' too) get them. */
const UNAME_PREFIXES: Record<string, string> = { media: 'media-', profiles: 'profile-', users: 'user-' };

/**
 * The uname BEdita generates for a new object of a type with this lineage (nearest first): its
 * source (the title; a user's username) after the type's prefix; null when the source is empty.
 */
export function generatedUname(lineage: string[], source: unknown): string | null {
  if (typeof source !== 'string' || !slugify(source)) return null;
  const prefix = lineage.map((name) => UNAME_PREFIXES[name]).find((p) => p !== undefined) ?? '';
  return prefix + source;
}

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
}

/**
 * Which of the names are taken by an object other than the first value's id (-1: any object);
 * prepared per count of names: every create asks.
 */
const unamesTaken = preparedList<{ uname: string }>((db, p, n) =>
  // Every object holds its uname, trashed ones included, whoever reads.
  visibleObjects(null, SYSTEM, db, { trashed: 'any' })
    .select('uname')
    .where('id', '!=', p(0))
    .where('uname', 'in', Array.from({ length: n - 1 }, (_, i) => p(i + 1))),
);

/** Suffixes tried first: most names are free or have a few namesakes. */
const FIRST = [2, 3, 4, 5, 6, 7, 8, 9];
/** Then these, to find how far the taken suffixes go (4^k up to beyond any realistic count). */
const FAR = Array.from({ length: 14 }, (_, k) => 4 ** (k + 2));
/** Candidates per narrowing query. */
const SPREAD = 16;

/**
 * `wanted` made URL-friendly and unique: itself when free, else `<base>-<n>`. The smallest free n
 * when there are few namesakes; with many (past 9), a free n right after a taken one, found with a handful
 * of indexed look-ups (each query asks whether up to 16 candidate names are taken) instead of
 * reading every namesake, so creating the 10,000th "Untitled" costs what the 10th did.
 */
/**
 * The names creates try first, in the insert itself (ON CONFLICT DO NOTHING), saving the look-up
 * when they are free: each wanted name made URL-friendly, or right after the last suffix handed out
 * for it (the hint); namesakes among `wanted` try the suffixes after it, one each. Null where the
 * name is random anyway (no usable title).
 */
export function firstUnameGuesses(hints: Map<string, number>, wanted: Array<string | null | undefined>): Array<{ name: string; taken(): void; used(): void } | null> {
  const next = new Map<string, number>();
  return wanted.map((w) => {
    const base = slugify(w ?? '');
    if (!base) return null;
    const hint = hints.get(base);
    const n = next.get(base) ?? (hint === undefined ? 1 : hint + 1);
    next.set(base, n + 1);
    return {
      name: n === 1 ? base : `${base}-${n}`,
      // Taken meanwhile (or the hint is stale): the look-up decides, and leaves its own hint.
      taken: () => hints.delete(base),
      used: () => void (n > 1 && rememberSuffix(hints, base, n)),
    };
  });
}

export async function uniqueUname(
  db: Kysely<Database>,
  hints: Map<string, number>,
  wanted: string | null | undefined,
  fallback: string,
  excludeId?: number,
): Promise<string> {
  const remember = (b: string, n: number) => rememberSuffix(hints, b, n);
  let base = slugify(wanted ?? '');
  if (!base) base = `${slugify(fallback) || 'object'}-${crypto.randomBytes(3).toString('hex')}`;
  const name = (n: number) => (n === 1 ? base : `${base}-${n}`);
  const taken = async (ns: number[]) => new Set((await unamesTaken(db, [excludeId ?? -1, ...ns.map(name)])).map((r) => r.uname));

  // The last suffix handed out for this base (past 9, so the low ones were all taken then) is a
  // good guess at where the taken ones end: one look-up of two names when it holds.
  const hint = hints.get(base);
  if (hint !== undefined) {
    const guess = await taken([hint, hint + 1]);
    if (guess.has(name(hint)) && !guess.has(name(hint + 1))) return remember(base, hint + 1);
  }
  const first = await taken([1, ...FIRST]);
  const near = [1, ...FIRST].find((n) => !first.has(name(n)));
  if (near !== undefined) return name(near);
  const far = await taken(FAR);
  let hi = FAR.find((n) => !far.has(name(n)));
  if (hi === undefined) return `${base}-${crypto.randomBytes(6).toString('hex')}`;
  let lo = FAR[FAR.indexOf(hi) - 1] ?? FIRST[FIRST.length - 1];
  // lo is taken and hi is free: narrow down to a free n whose n-1 is taken.
  while (hi - lo > 1) {
    const step = Math.max(1, Math.floor((hi - lo) / (SPREAD + 1)));
    const points: number[] = [];
    for (let n = lo + step; n < hi && points.length < SPREAD; n += step) points.push(n);
    const t = await taken(points);
    const free = points.findIndex((n) => !t.has(name(n)));
    if (free === -1) lo = points[points.length - 1];
    else {
      hi = points[free];
      if (free > 0) lo = points[free - 1];
    }
  }
  return remember(base, hi);
}

/**
 * `hints` (AppContext.unameHints): per base name, the last suffix past 9 handed out; only a guess,
 * checked against the database before it is used. Bounded.
 */
const HINTS = 1000;

function rememberSuffix(hints: Map<string, number>, base: string, n: number): string {
  hints.delete(base);
  hints.set(base, n);
  if (hints.size > HINTS) hints.delete(hints.keys().next().value!);
  return `${base}-${n}`;
}
