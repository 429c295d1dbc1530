// The words of a user's search query, as every engine reads them: runs of letters, digits and
// underscores, at most 32 (a longer query adds nothing but cost).
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 32) ?? [];
}
