// Small helpers shared by the benchmark scripts: flag parsing, a plain-text
// table, and the log-log fit used by the scaling runs.

/** Parsed command line: `--name value` / `--flag` options and positionals. */
export interface Flags {
  /** `--name value` options by name. */
  readonly options: Map<string, string>;
  /** Bare `--switch` names. */
  readonly switches: Set<string>;
  /** Arguments that are not options, in order. */
  readonly positional: string[];
}

/**
 * Parses `--name value`, `--name=value` and bare `--switch` arguments.
 * `valued` lists the option names that take a value.
 */
export function parseFlags(args: readonly string[], valued: readonly string[]): Flags {
  const options = new Map<string, string>();
  const switches = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    if (!valued.includes(name)) {
      if (eq >= 0) throw new Error(`--${name} takes no value`);
      switches.add(name);
    } else if (eq >= 0) {
      options.set(name, a.slice(eq + 1));
    } else {
      if (i + 1 >= args.length) throw new Error(`--${name} needs a value`);
      options.set(name, args[++i]);
    }
  }
  return { options, switches, positional };
}

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
