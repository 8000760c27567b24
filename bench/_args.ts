// The one argument parser of the bench, fuzz and generator scripts:
// node:util parseArgs (strict: unknown options and missing values are
// errors), with its errors cut to one line, plus number checks.

import { parseArgs, type ParseArgsConfig } from "node:util";

/**
 * `parseArgs` over `args` with `options`, strict, positionals allowed;
 * throws an Error with a one-line message on a bad command line.
 *
 * @example
 * ```ts
 * import { parseScriptArgs } from "./_args.ts";
 * const { values, positionals } = parseScriptArgs(["a.csv", "--runs=5", "--list"], {
 *   runs: { type: "string" },
 *   list: { type: "boolean" },
 * });
 * console.assert(values.runs === "5" && values.list === true && positionals[0] === "a.csv");
 * ```
 */
export function parseScriptArgs<O extends NonNullable<ParseArgsConfig["options"]>>(
  args: readonly string[],
  options: O,
): {
  values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"];
  positionals: string[];
} {
  try {
    const r = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: r.values, positionals: r.positionals };
  } catch (e) {
    const message = (e as Error).message.split("\n")[0]
      .replace(/\. To specify a positional argument.*$/, "");
    throw new Error(message);
  }
}

/**
 * An option's text as an integer >= `min` (undefined stays undefined).
 *
 * @example
 * ```ts
 * import { intArg } from "./_args.ts";
 * console.assert(intArg("--runs", "12", 1) === 12 && intArg("--runs", undefined, 1) === undefined);
 * ```
 */
export function intArg(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(n) || n < min) {
    throw new Error(`${name} expects an integer >= ${min}, got '${text}'`);
  }
  return n;
}

/**
 * An option's text as a finite number > `above` (undefined stays undefined).
 *
 * @example
 * ```ts
 * import { numberArg } from "./_args.ts";
 * console.assert(numberArg("--load", "1.5", 0) === 1.5);
 * ```
 */
export function numberArg(
  name: string,
  text: string | undefined,
  above: number,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || !(n > above)) {
    throw new Error(`${name} expects a number > ${above}, got '${text}'`);
  }
  return n;
}
