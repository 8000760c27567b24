// The shapes of a sweep (its cells, ids and paths), kept apart from the spec
// reader so that a cell's process, which needs only these, does not load the
// YAML and schema libraries.

import { sha256Hex } from "../io/_sha256.ts";

/** A value of one option of a cell. */
export type CellValue = string | number | boolean;

/** One cell of a sweep: one ordinary `simulate` run. */
export interface Cell {
  /** First 12 hex digits of the SHA-256 of {@link canonicalJson} of `options`. */
  readonly id: string;
  /** Position in the spec's product order: the row's place in the results, the Slurm array index. */
  readonly index: number;
  /** The cell's options as the spec spells them (trace, policy, total_nodes ...). */
  readonly options: Readonly<Record<string, CellValue>>;
  /** simulate's arguments for the cell (absolute paths; no output options). */
  readonly args: readonly string[];
}

/** One list of a spec: the cell option it sets and its values, as the spec lists them. */
export type Axis = readonly [name: string, values: readonly CellValue[]];

/**
 * A checked spec. Its cells are not stored: cell `i` is computed from `i`
 * ({@link cellAt}), so a sweep of 100,000 cells costs no more to plan than
 * one of six.
 */
export interface Sweep {
  /** The spec file's absolute path. */
  readonly specPath: string;
  /** The spec's folder: where its relative paths start. */
  readonly folder: string;
  /** SHA-256 of the spec's text. */
  readonly specSha256: string;
  /** SHA-256 of the axes (names and values, in order): what "the same sweep" means. */
  readonly cellsSha256: string;
  /** The names of the `options:` keys (extra result columns), sorted. */
  readonly optionKeys: readonly string[];
  /**
   * The lists whose product is the cells: trace, policy, total_nodes,
   * run_time_mode, seed, then the `options:` keys as the spec lists them.
   */
  readonly axes: readonly Axis[];
  /** The number of cells: the product of the axes' lengths. */
  readonly count: number;
}

/** SHA-256 of the axes: two sweeps with the same one have the same cells at the same indices. */
export function axesSha256(axes: readonly Axis[]): string {
  return sha256Hex(JSON.stringify(axes));
}

/**
 * Cell `index` of `sweep`: the index in mixed radix over the axes, the
 * first axis slowest and the last fastest (the spec's product order).
 */
export function cellAt(sweep: Sweep, index: number): Cell {
  let k = index;
  const digits: number[] = new Array(sweep.axes.length);
  for (let a = sweep.axes.length - 1; a >= 0; a--) {
    const n = sweep.axes[a][1].length;
    digits[a] = k % n;
    k = Math.floor(k / n);
  }
  const options: Record<string, CellValue> = {};
  sweep.axes.forEach(([name, values], a) => options[name] = values[digits[a]]);
  return { id: cellId(options), index, options, args: cellArgs(options, sweep.folder) };
}

/** Options whose value is a file: taken from the spec's folder. */
export const PATH_OPTIONS: ReadonlySet<string> = new Set([
  "queues",
  "machine",
  "capacity_schedule",
  "node_failures",
  "policy_module",
  "from_snapshot",
]);

/** simulate's arguments for a cell, paths made absolute from the spec's folder. */
function cellArgs(options: Readonly<Record<string, CellValue>>, folder: string): string[] {
  const args = [absolutePath(String(options.trace), folder)];
  for (const [name, v] of Object.entries(options)) {
    if (name === "trace") continue;
    if (name === "policy") {
      const [picker, admission] = String(v).includes("+") ? String(v).split("+") : [undefined, v];
      args.push(`--admission=${admission}`);
      if (picker !== undefined) args.push(`--picker=${picker}`);
    } else if (typeof v === "boolean") {
      if (v) args.push(`--${name}`);
    } else {
      args.push(`--${name}=${PATH_OPTIONS.has(name) ? absolutePath(String(v), folder) : v}`);
    }
  }
  return args;
}

/**
 * Keys sorted, no spaces: the text a cell id is the hash of.
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./_sweep_model.ts";
 * console.assert(canonicalJson({ seed: 0, policy: "easy" }) === '{"policy":"easy","seed":0}');
 * ```
 */
export function canonicalJson(options: Readonly<Record<string, CellValue>>): string {
  return JSON.stringify(
    Object.fromEntries(Object.keys(options).sort().map((k) => [k, options[k]])),
  );
}

/** The id of a cell with these options. */
export function cellId(options: Readonly<Record<string, CellValue>>): string {
  return sha256Hex(canonicalJson(options)).slice(0, 12);
}

/** `path` made absolute (a relative one is taken from `dir`). */
export function absolutePath(path: string, dir: string): string {
  const joined = path.startsWith("/") ? path : `${dir}/${path}`;
  const out: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}
