// Languages an editor translates into: a short list of common BCP 47 tags with their names, the
// name of any other tag (from the browser's Intl data), and the shape check the server applies.

/** Common languages, in English, ordered by name. */
export const COMMON_LANGUAGES: Array<[tag: string, name: string]> = [
  ['ar', 'Arabic'],
  ['zh-Hans', 'Chinese (Simplified)'],
  ['zh-Hant', 'Chinese (Traditional)'],
  ['cs', 'Czech'],
  ['da', 'Danish'],
  ['nl', 'Dutch'],
  ['en', 'English'],
  ['en-GB', 'English (United Kingdom)'],
  ['en-US', 'English (United States)'],
  ['fi', 'Finnish'],
  ['fr', 'French'],
  ['de', 'German'],
  ['el', 'Greek'],
  ['he', 'Hebrew'],
  ['hi', 'Hindi'],
  ['hu', 'Hungarian'],
  ['id', 'Indonesian'],
  ['it', 'Italian'],
  ['ja', 'Japanese'],
  ['ko', 'Korean'],
  ['nb', 'Norwegian Bokmål'],
  ['pl', 'Polish'],
  ['pt', 'Portuguese'],
  ['pt-BR', 'Portuguese (Brazil)'],
  ['ro', 'Romanian'],
  ['ru', 'Russian'],
  ['es', 'Spanish'],
  ['sv', 'Swedish'],
  ['tr', 'Turkish'],
  ['uk', 'Ukrainian'],
  ['vi', 'Vietnamese'],
];

/**
 * A BCP 47 language tag as the server accepts it: a 2–3 letter language (or 4–8 registered),
 * then optional script, region, variants and extensions; at most 64 characters.
 */
const TAG =
  /^(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?(?:-(?:[a-z\d]{5,8}|\d[a-z\d]{3}))*(?:-[\da-wy-z](?:-[a-z\d]{2,8})+)*(?:-x(?:-[a-z\d]{1,8})+)?$/i;

export function isLanguageTag(tag: string): boolean {
  return tag.length <= 64 && TAG.test(tag);
}

/** The tag as usually written: language lower case, script title case, region upper case. */
export function normalizeTag(tag: string): string {
  const parts = tag.trim().replace(/_/g, '-').split('-');
  return parts
    .map((p, i) => {
      if (i === 0) return p.toLowerCase();
      if (p.length === 4 && /^[a-z]+$/i.test(p)) return p.charAt(0).toUpperCase() + p.slice(1).toLowerCase();
      if (p.length === 2) return p.toUpperCase();
      return p.toLowerCase();
    })
    .join('-');
}

let names: Intl.DisplayNames | null | undefined;

/** A language's name in English ("Italian" for `it`), the tag itself when unknown. */
export function languageName(tag: string): string {
  const known = COMMON_LANGUAGES.find(([t]) => t.toLowerCase() === tag.toLowerCase());
  if (known) return known[1];
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames(['en'], { type: 'language' });
    } catch {
      names = null;
    }
  }
  try {
    return names?.of(tag) ?? tag;
  } catch {
    return tag;
  }
}
