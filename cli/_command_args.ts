// Argument parsing for `evtsim replay` and `evtsim dump` (node:util
// parseArgs), with simulate's conventions: every option has an underscore
// and a kebab-case spelling, and a bad command line is one usage error line.

import { parseArgs } from "node:util";
import { EvtsimError } from "../core/errors.ts";
import { didYouMean } from "./_suggest.ts";

/** One option: its value type, short letter and help text. */
export interface CommandOption {
  readonly type: "string" | "boolean";
  readonly short?: string;
  /** Placeholder of the value in the help (e.g. FILE). */
  readonly value?: string;
  readonly help: string;
}

/** Parsed values by canonical (underscore) name, and the positional arguments. */
export interface CommandArgs {
  readonly values: Map<string, string | boolean>;
  readonly positionals: string[];
}

/** Parses `args` against `options`; throws a usage `EvtsimError` naming the bad option. */
export function parseCommandArgs(
  args: readonly string[],
  options: Readonly<Record<string, CommandOption>>,
  command: string,
): CommandArgs {
  const spec: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, o] of Object.entries(options)) {
    spec[name] = { type: o.type, ...(o.short === undefined ? {} : { short: o.short }) };
    const kebab = name.replaceAll("_", "-");
    if (kebab !== name) spec[kebab] = { type: o.type };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    const m = (e as Error).message;
    const option = /'(-[^' ]+)/.exec(m)?.[1] ?? "";
    const code = (e as { code?: string }).code;
    const what = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
      ? `unknown option '${option}'${
        option.startsWith("--")
          ? didYouMean(option.slice(2), Object.keys(options), (n) => `--${n}`)
          : ""
      }`
      : /argument missing/.test(m)
      ? `option '${option}' needs a value`
      : /does not take an argument/.test(m)
      ? `option '${option}' takes no value`
      : /argument is ambiguous/.test(m)
      ? `option '${option}' has a value starting with '-': write ${option}=VALUE`
      : m.split(".")[0];
    throw new EvtsimError("usage", `${what} (see 'evtsim ${command} --help')`);
  }
  const values = new Map<string, string | boolean>();
  for (const [key, v] of Object.entries(parsed.values)) {
    if (v === undefined) continue;
    values.set(key.replaceAll("-", "_"), v as string | boolean);
  }
  return { values, positionals: parsed.positionals };
}

/** The help lines of an option table. */
export function optionHelp(options: Readonly<Record<string, CommandOption>>): string[] {
  const lines: string[] = [];
  for (const [name, o] of Object.entries(options)) {
    const short = o.short === undefined ? "    " : `-${o.short}, `;
    lines.push(`  ${short}--${name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`);
    lines.push(`        ${o.help}`);
  }
  return lines;
}

/** A number option's value; a usage error for anything else. */
export function numberValue(args: CommandArgs, name: string, min = -Infinity): number | undefined {
  const raw = args.values.get(name);
  if (raw === undefined) return undefined;
  const v = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(v)) {
    throw new EvtsimError("usage", `--${name} expects a number, got '${raw}'`);
  }
  if (v < min) throw new EvtsimError("usage", `--${name} must be >= ${min}, got ${raw}`);
  return v;
}

/** An option's value, one of `allowed` (a usage error naming them otherwise). */
export function oneOfValue<T extends string>(
  args: CommandArgs,
  name: string,
  allowed: readonly T[],
): T {
  const v = stringValue(args, name);
  if (v === undefined || !(allowed as readonly string[]).includes(v)) {
    throw new EvtsimError(
      "usage",
      `--${name} expects one of ${allowed.join(", ")}, got '${v ?? ""}'`,
    );
  }
  return v as T;
}

/** A string option's value. */
export function stringValue(args: CommandArgs, name: string): string | undefined {
  const v = args.values.get(name);
  return typeof v === "string" ? v : undefined;
}
