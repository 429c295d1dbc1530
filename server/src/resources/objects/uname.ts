// Unique names: generated from the title (or the type's singular), and made unique with a
// -2, -3… suffix when taken by any object, trashed ones included. Never refused.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200);
}

export async function uniqueUname(db: Kysely<Database>, wanted: string | null | undefined, fallback: string, excludeId?: number): Promise<string> {
  let base = slugify(wanted ?? '');
  if (!base) base = `${slugify(fallback) || 'object'}-${crypto.randomBytes(3).toString('hex')}`;
  // Every candidate is `base` or `base-<n>`: a range on the unique index (LIKE could not use it,
  // and scanned every uname on each create).
  let q = db
    .selectFrom('objects')
    .select('uname')
    .where((eb) => eb.or([eb('uname', '=', base), eb.and([eb('uname', '>=', `${base}-`), eb('uname', '<', `${base}.`)])]));
  if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
  const taken = new Set((await q.execute()).map((r) => r.uname));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
