// If-Match on writes of one object (Concurrent edits): which version of the object the writer
// last saw. Single-object answers carry a strong ETag "v<version>-<digest>" (jsonapi.ts); the
// write kernel compares the version with the object's and answers 412 when another write came
// first. Without If-Match a write is unconditional.
import type { Request } from 'express';

/** The version a writer last saw: a number, '*' (any version passes), or null (no If-Match). */
export type ExpectedVersion = number | '*' | null;

/** The If-Match header as an expected version: `*`, or the version of one of Folio's ETags. */
export function expectedVersion(req: Request): ExpectedVersion {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '') return null;
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*')) return '*';
  // "v<version>-<digest>" as sent, or a bare "v<version>".
  for (const tag of tags) {
    const m = /^"v(\d{1,15})(?:-[A-Za-z0-9_-]*)?"$/.exec(tag);
    if (m) return Number(m[1]);
  }
  // A weak tag, or one that is not Folio's: never the current version (strong comparison).
  return -1;
}
