// How usernames and emails are compared, for uniqueness and for login: Unicode NFKC, then case
// folded (upper then lower case, so that `ß` and `SS`, `ſ` and `s` meet). Stored next to the value
// as `username_key` / `email_key`, each under a unique index.

export function accountKey(value: string): string {
  return value.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/** Control, format (zero-width, bidi) and space characters: never part of a username. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\s]/u;

export const hasInvisibleCharacters = (value: string) => INVISIBLE.test(value);
