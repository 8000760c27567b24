// One error type for every user-facing failure, so that shells can print a
// single clear line and pick an exit code without stack traces.

/**
 * Where in an input file a problem was found.
 *
 * @example
 * ```ts
 * import { type ErrorLocation, EvtsimError } from "@evtsim/evtsim";
 * const where: ErrorLocation = { file: "trace.csv", line: 12, field: "time_limit" };
 * const e = new EvtsimError("input", "expected a non-negative number", where);
 * if (e.location.line !== 12 || e.message !== "trace.csv:12: time_limit: expected a non-negative number") {
 *   throw new Error(e.message);
 * }
 * ```
 */
export interface ErrorLocation {
  /** The file being read. */
  readonly file?: string;
  /** 1-based line number in that file. */
  readonly line?: number;
  /** The column or field that was wrong. */
  readonly field?: string;
}

/**
 * Broad class of an error; decides nothing but helps callers branch.
 * `"policy"`: a picker or admission policy failed (it threw, returned a
 * promise, or used its session after it ended); the message names it.
 *
 * @example
 * ```ts
 * import { type ErrorKind, EvtsimError, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 8 });
 * sim.advanceTo(100);
 * let kind: ErrorKind | undefined;
 * try {
 *   sim.advanceTo(50);
 * } catch (e) {
 *   if (e instanceof EvtsimError) kind = e.kind;
 * }
 * // Moving the clock backwards is a "time" error, and the failed call changed nothing.
 * if (kind !== "time" || sim.currentTime !== 100) throw new Error(`got ${kind}`);
 * ```
 */
export type ErrorKind = "input" | "usage" | "time" | "capacity" | "state" | "policy";

/**
 * The error evtsim throws for bad input, bad usage or a broken API contract
 * (for example advancing the clock backwards). `message` is one line that
 * names the file, line and field when they are known.
 *
 * @example
 * ```ts
 * import { EvtsimError } from "@evtsim/evtsim";
 * const e = new EvtsimError("input", "expected a number", { file: "t.csv", line: 3, field: "num_nodes" });
 * console.assert(e.message === "t.csv:3: num_nodes: expected a number");
 * ```
 */
export class EvtsimError extends Error {
  /** Broad class of the error. */
  readonly kind: ErrorKind;
  /** Where it was found, when it came from a file. */
  readonly location: ErrorLocation;

  /**
   * Makes an error whose message is `detail` prefixed with the location
   * (`file:line: field: detail`), as far as it is known.
   */
  constructor(kind: ErrorKind, detail: string, location: ErrorLocation = {}) {
    super(formatLocated(detail, location));
    this.name = "EvtsimError";
    this.kind = kind;
    this.location = location;
  }
}

function formatLocated(detail: string, loc: ErrorLocation): string {
  let prefix = "";
  if (loc.file !== undefined) prefix += loc.file;
  if (loc.line !== undefined) prefix += (prefix ? ":" : "line ") + loc.line;
  if (prefix) prefix += ": ";
  if (loc.field !== undefined) prefix += loc.field + ": ";
  return prefix + detail;
}
