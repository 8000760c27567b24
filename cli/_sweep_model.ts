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
  /** Position in id order: the row's place in the results, the Slurm array index. */
  readonly index: number;
  /** The cell's options as the spec spells them (trace, policy, total_nodes ...). */
  readonly options: Readonly<Record<string, CellValue>>;
  /** simulate's arguments for the cell (absolute paths; no output options). */
  readonly args: readonly string[];
}

/** A checked spec and its cells in id order. */
export interface Sweep {
  /** The spec file's absolute path. */
  readonly specPath: string;
  /** SHA-256 of the spec's text. */
  readonly specSha256: string;
  /** SHA-256 of the cells' canonical options in id order: what "the same sweep" means. */
  readonly cellsSha256: string;
  /** The names of the `options:` keys (extra result columns), sorted. */
  readonly optionKeys: readonly string[];
  readonly cells: readonly Cell[];
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
