// Deterministic, realistic-looking text for the seed: words drawn with a Zipf-like frequency
// (a few very common words, a long tail of rare ones), so full-text queries match a realistic
// share of the objects. A seeded PRNG keeps every run's data identical.
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'to', 'sa', 'vel', 'qu', 'an', 'der', 'is', 'po', 'lum', 'na', 'tri', 'ex', 'or', 'bel', 'cen', 'dra'];

export interface TextSource {
  words: string[];
  sentence(min: number, max: number): string;
  /** A body of roughly `bytes` characters, in paragraphs. */
  body(bytes: number): string;
  /** The word of a given frequency rank (0 = most common). */
  wordOfRank(rank: number): string;
}

/** The seed's text (bench/lib/seed.ts): the scenarios draw their search words from the same vocabulary. */
export const SEED_TEXT = 42;

export function textSource(seed = SEED_TEXT, vocabulary = 20_000): TextSource {
  const rnd = prng(seed);
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < vocabulary) {
    const n = 1 + Math.floor(rnd() * 4);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rnd() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  // Zipf: P(rank r) ∝ 1/(r+1); sampled by binary search over the cumulative weights.
  const cumulative = new Float64Array(vocabulary);
  let total = 0;
  for (let r = 0; r < vocabulary; r++) cumulative[r] = total += 1 / (r + 1);
  const word = () => {
    const x = rnd() * total;
    let lo = 0;
    let hi = vocabulary - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
  const sentence = (min: number, max: number) => {
    const n = min + Math.floor(rnd() * (max - min + 1));
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(word());
    const s = parts.join(' ');
    return s.charAt(0).toUpperCase() + s.slice(1);
  };
  // Bodies are built from a pool of paragraphs: cheap to make 100,000 of, still varied.
  const paragraphs = Array.from({ length: 4000 }, () => {
    const sentences: string[] = [];
    const n = 3 + Math.floor(rnd() * 6);
    for (let i = 0; i < n; i++) sentences.push(sentence(6, 18) + '.');
    return `<p>${sentences.join(' ')}</p>`;
  });
  return {
    words,
    sentence,
    body(bytes) {
      let out = '';
      while (out.length < bytes) out += paragraphs[Math.floor(rnd() * paragraphs.length)] + '\n';
      return out;
    },
    wordOfRank: (rank) => words[rank],
  };
}
