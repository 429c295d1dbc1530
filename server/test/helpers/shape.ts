// Whole-document checks: the test writes the expected document out in full, with a matcher where
// the server makes the value up (ids, dates, ETags, uuids). Every member not written out fails the
// check, so a change in links or meta cannot slip through a test that picked a few fields.
import assert from 'node:assert/strict';

/** Stands in the expected document for a value the server makes up. */
export class Matcher {
  constructor(
    readonly name: string,
    readonly test: (value: unknown) => boolean,
  ) {}
}

const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const anId = new Matcher('an id', (v) => typeof v === 'string' && /^[1-9]\d*$/.test(v));
export const aDate = new Matcher('an ISO 8601 date-time', (v) => typeof v === 'string' && isoDate.test(v) && !Number.isNaN(Date.parse(v)));
export const aUuid = new Matcher('a uuid', (v) => typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v));
/** A strong ETag of a single object: "v<version>-<digest>". */
export const anEtag = new Matcher('a strong ETag "v<version>-<digest>"', (v) => typeof v === 'string' && /^"v\d+-[^"]+"$/.test(v));
export const anInteger = new Matcher('an integer', (v) => Number.isInteger(v));
export const like = (pattern: RegExp) => new Matcher(`a string like ${pattern}`, (v) => typeof v === 'string' && pattern.test(v));

/** `expected` with each matcher replaced by the actual value when it matches, else by what it wanted. */
function substitute(expected: unknown, actual: unknown): unknown {
  if (expected instanceof Matcher) return expected.test(actual) ? actual : `<${expected.name}>`;
  if (Array.isArray(expected)) return expected.map((e, i) => substitute(e, Array.isArray(actual) ? actual[i] : undefined));
  if (expected && typeof expected === 'object') {
    const a = actual && typeof actual === 'object' ? (actual as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(expected).map(([k, e]) => [k, substitute(e, a[k])]));
  }
  return expected;
}

/** Deep, strict equality of the whole of `actual` with `expected`, matchers standing for made-up values. */
export function assertShape(actual: unknown, expected: unknown, message?: string): void {
  assert.deepStrictEqual(actual, substitute(expected, actual), message);
}
