/**
 * "Did you mean `x`?" for misspelt keys: the closest known key by Levenshtein distance, when it
 * is close enough to be a plausible typo rather than an unrelated word.
 */

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate within a third of the key's length (at least 2 edits), or null. */
export function suggestKey(key: string, candidates: readonly string[]): string | null {
  const limit = Math.max(2, Math.floor(key.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : null;
}
