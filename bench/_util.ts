// Small helpers shared by the benchmark scripts: a plain-text table and the
// log-log fit used by the scaling runs (argument parsing is in _args.ts).

const NUMERIC_CELL = /^(n\/a|-|[>~]?[-+]?[0-9][0-9.,]*( ?(MiB|x|s|%))?( \(partial\))?|)$/;

/** Renders rows as a left/right aligned text table (numbers right-aligned). */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const numeric = header.map((_, c) =>
    rows.length > 0 && rows.every((r) => NUMERIC_CELL.test(r[c] ?? ""))
  );
  const line = (cells: readonly string[]) =>
    cells.map((cell, c) => numeric[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))
      .join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Formats a rate with thousands separators, e.g. `123,456`. */
export function formatRate(perSecond: number): string {
  return Number.isFinite(perSecond) ? Math.round(perSecond).toLocaleString("en-US") : "n/a";
}

/** Formats kibibytes as MiB with one decimal, or `n/a`. */
export function formatKiB(kib: number | undefined): string {
  return kib === undefined ? "n/a" : `${(kib / 1024).toFixed(1)} MiB`;
}

/**
 * Least-squares fit of `log y = a + b log x`; returns the exponent `b`
 * (NaN with fewer than two usable points). Wall time ~ n^b.
 *
 * @example
 * ```ts
 * import { fitExponent } from "./_util.ts";
 * console.assert(Math.abs(fitExponent([1, 2, 4], [3, 12, 48]) - 2) < 1e-12);
 * ```
 */
export function fitExponent(xs: readonly number[], ys: readonly number[]): number {
  const pts: [number, number][] = [];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    if (xs[i] > 0 && ys[i] > 0) pts.push([Math.log(xs[i]), Math.log(ys[i])]);
  }
  if (pts.length < 2) return NaN;
  const mx = pts.reduce((s, p) => s + p[0], 0) / pts.length;
  const my = pts.reduce((s, p) => s + p[1], 0) / pts.length;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of pts) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  }
  return sxx === 0 ? NaN : sxy / sxx;
}

/** A tiny seeded uniform generator in [0, 1) for micro-benchmark fixtures. */
export function seededRandom(seed: number): () => number {
  let s = (Math.trunc(seed) >>> 0) || 1;
  return () => {
    // xorshift32: quality is irrelevant here, only repeatability.
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Index of the first element of sorted `xs` not less than `x` under `cmp`. */
export function lowerBound<T>(xs: readonly T[], x: T, cmp: (a: T, b: T) => number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(xs[mid], x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
