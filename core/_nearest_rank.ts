// The percentile rule of the metric set, in a file of its own: the flat
// metric set (core/metrics.ts) and its breakdowns (core/_metrics_breakdowns.ts)
// both use it, and the breakdowns need not import core/metrics.ts back.

/**
 * The nearest-rank percentile of ascending `sorted` values: the smallest
 * value with at least `p` percent of the values at or below it, i.e.
 * `sorted[ceil(p / 100 × n) − 1]` (the first value for p = 0); null for none.
 *
 * @example
 * ```ts
 * import { nearestRank } from "@evtsim/evtsim";
 * const xs = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
 * console.assert(nearestRank(xs, 50) === 5 && nearestRank(xs, 95) === 10);
 * ```
 */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const rank = Math.ceil((p / 100) * n);
  return sorted[Math.min(n, Math.max(1, rank)) - 1];
}
