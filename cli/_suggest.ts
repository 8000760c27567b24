// "Did you mean": the known name closest to a mistyped one, for the one-line
// usage errors (an option, an option's value, a command). A word that starts
// a known name (`--msec` → `--msec_output`, `--backfil` → `--backfill_policy`)
// or is a couple of typing slips away from one (`eassy` → `easy`) gets it;
// anything farther gets no guess, since a wrong guess misleads more than none.

/** Edit distance with adjacent transpositions (optimal string alignment). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate `word` most likely meant, or undefined. Case and `-`/`_` do
 * not count; a prefix of 3 or more characters picks the shortest name it
 * starts, and so does one of 5 or more one slip away from a start; otherwise
 * the nearest name within 1 edit per 3 characters (at least 1, at most 3).
 *
 * @example
 * ```ts
 * import { closest } from "./_suggest.ts";
 * console.assert(closest("eassy", ["easy", "conservative", "none"]) === "easy");
 * console.assert(closest("backfil", ["backfill_policy", "block_size"]) === "backfill_policy");
 * console.assert(closest("xyz", ["easy", "none"]) === undefined);
 * ```
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll("-", "_");
  const w = norm(word);
  if (w === "") return undefined;
  const shortest = (cs: string[]) => cs.reduce((best, c) => c.length < best.length ? c : best);
  if (w.length >= 3) {
    const starting = candidates.filter((c) => norm(c).startsWith(w));
    if (starting.length > 0) return shortest(starting);
  }
  // A slip in a longer start: `policy` for `policies`.
  if (w.length >= 5) {
    const near = candidates.filter((c) => distance(w, norm(c).slice(0, w.length)) === 1);
    if (near.length > 0) return shortest(near);
  }
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = distance(w, norm(c));
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** `; did you mean 'X'?` for the closest candidate, or "" when none is close. */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  show: (c: string) => string = (c) => c,
): string {
  const c = closest(word, candidates);
  return c === undefined ? "" : `; did you mean '${show(c)}'?`;
}
