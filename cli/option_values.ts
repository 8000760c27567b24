// Checking an option's value against its entry in the option table: the
// text of a number, DR_EVT's ranges (power of 2, > 0, >= 0 ...), enum values,
// and exactness (a value a double cannot hold is refused, never rounded).

import type { OptionSpec } from "./option_table.ts";
import { didYouMean } from "./_suggest.ts";

/** Largest integer a double holds exactly; larger option values are refused. */
export const LARGEST_EXACT = Number.MAX_SAFE_INTEGER;

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Converts an option's text value, or returns the reason it is refused
 * (a phrase without the option name).
 *
 * @example
 * ```ts
 * import { SIMULATE_OPTIONS } from "./option_table.ts";
 * import { parseValue } from "./option_values.ts";
 * const nodes = SIMULATE_OPTIONS.find((o) => o.name === "total_nodes")!;
 * console.assert(parseValue(nodes, "128").value === 128);
 * console.assert(parseValue(nodes, "9007199254740993").error!.includes("exactly"));
 * ```
 */
export function parseValue(
  spec: OptionSpec,
  raw: string,
): { value?: string | number; error?: string } {
  switch (spec.kind) {
    case "string":
    case "flag":
      return { value: raw };
    case "enum":
      return enumProblem(spec, raw) ?? { value: raw };
    case "int":
    case "number": {
      const text = raw.trim();
      if (!NUMBER_TEXT.test(text)) {
        return {
          error: `expects ${spec.kind === "int" ? "an integer" : "a number"}, got '${raw}'`,
        };
      }
      const problem = rangeProblem(spec, Number(text), text);
      return problem !== undefined ? { error: problem } : { value: Number(text) };
    }
  }
}

function enumProblem(spec: OptionSpec, raw: string): { error: string } | undefined {
  if (!spec.values!.includes(raw)) {
    const guess = didYouMean(raw, spec.values!.filter((v) => spec.unsupported?.[v] === undefined));
    return { error: `unknown value '${raw}' (expected ${spec.values!.join(", ")})${guess}` };
  }
  const why = spec.unsupported?.[raw];
  return why !== undefined ? { error: why } : undefined;
}

/**
 * Why a converted value is out of range for `spec`, or undefined when it is
 * fine. `shown` is how to print the value (the user's text).
 *
 * @example
 * ```ts
 * import { SIMULATE_OPTIONS } from "./option_table.ts";
 * import { rangeProblem } from "./option_values.ts";
 * const blockSize = SIMULATE_OPTIONS.find((o) => o.name === "block_size")!;
 * console.assert(rangeProblem(blockSize, 64) === undefined);
 * console.assert(rangeProblem(blockSize, 3) === "must be a power of 2 from 4 to 256, got 3");
 * ```
 */
export function rangeProblem(spec: OptionSpec, v: number, shown = String(v)): string | undefined {
  if (!Number.isFinite(v) || Math.abs(v) > LARGEST_EXACT) {
    return `${shown} cannot be represented exactly (values up to ${LARGEST_EXACT})`;
  }
  if (spec.kind === "int" && !Number.isInteger(v)) return `expects an integer, got '${shown}'`;
  if (spec.powerOfTwo === true) {
    const ok = v >= (spec.min ?? 1) && v <= (spec.max ?? Infinity) && (v & (v - 1)) === 0;
    return ok ? undefined : `must be a power of 2 from ${spec.min} to ${spec.max}, got ${shown}`;
  }
  if (spec.above !== undefined && !(v > spec.above)) {
    return spec.max !== undefined
      ? `must be > ${spec.above} and <= ${spec.max}, got ${shown}`
      : `must be > ${spec.above}, got ${shown}`;
  }
  if (spec.min !== undefined && v < spec.min) return `must be >= ${spec.min}, got ${shown}`;
  if (spec.max !== undefined && v > spec.max) {
    return spec.above !== undefined
      ? `must be > ${spec.above} and <= ${spec.max}, got ${shown}`
      : `must be <= ${spec.max}, got ${shown}`;
  }
  return undefined;
}

/**
 * Why an enum value is refused, or undefined.
 *
 * @example
 * ```ts
 * import { SIMULATE_OPTIONS } from "./option_table.ts";
 * import { enumValueProblem } from "./option_values.ts";
 * const traceType = SIMULATE_OPTIONS.find((o) => o.name === "trace_type")!;
 * console.assert(enumValueProblem(traceType, "pcon") === undefined);
 * const problem = enumValueProblem(traceType, "pconn");
 * console.assert(problem === "unknown value 'pconn' (expected standard, pcon); did you mean 'pcon'?", problem);
 * ```
 */
export function enumValueProblem(spec: OptionSpec, raw: string): string | undefined {
  return enumProblem(spec, raw)?.error;
}
