// The one command-line parser of every `evtsim` command, getopt style as
// DR_EVT's: `--name value`, `--name=value`, `-x value`, `-xVALUE` (`-n128`)
// and bundled flags (`-Mv`, `-Mn128`); every option has its underscore and
// its kebab-case spelling; a bad command line is one usage-error line with a
// "did you mean" for a mistyped long option. Options apply in command-line
// order; an option named `config` applies a config file where it stands
// (simulate's `-c FILE`), so options before it are overridden by it and
// options after it win. A command declares its options as rows of
// `OptionSpec` (cli/option_table.ts has the type and simulate's rows) and
// gets their values typed by each row's kind.
//
// Two wordings of a refused value are kept, as the commands have always
// worded them: simulate's (DR_EVT's option names and checks, "-n: must be >=
// 1, got 0") and the other commands' ("--port expects a number, got 'x'",
// with the help hint on every parse error, and a separate value starting
// with '-' refused). `topo` reads its flags as TopoQueue does, with Go's
// `flag` grammar and messages (the `go` dialect). This module loads nothing but the error type and the
// suggester: a sweep worker parses with it (cli/sweep_cell_command.ts).

import { EvtsimError } from "../core/errors.ts";
import type { OptionSpec } from "./option_table.ts";
import { parseValue } from "./option_values.ts";
import { didYouMean } from "./_suggest.ts";

/** An option's value as parsed: a flag is `true`, an int or number a number. */
export type OptionValue = string | number | boolean;

/** The value type a row of kind `K` (with enum values `V`) parses to. */
export type ValueOf<S extends OptionSpec> = S extends { readonly kind: "flag" } ? true
  : S extends { readonly kind: "int" | "number" } ? number
  : S extends { readonly kind: "enum"; readonly values: readonly (infer V)[] } ? V
  : string;

/**
 * Parsed options by canonical (underscore) name, typed by the table: with a
 * table declared `as const satisfies readonly OptionSpec[]`, `get("port")`
 * is a `number | undefined` and `get("executor")` its enum's union.
 */
export interface OptionValues<S extends OptionSpec = OptionSpec>
  extends ReadonlyMap<string, OptionValue> {
  get<N extends S["name"]>(name: N): ValueOf<Extract<S, { readonly name: N }>> | undefined;
}

/** A row's value type, without `undefined` when the row has a default. */
export type ValueOrDefault<S extends OptionSpec> = S extends { readonly default: unknown }
  ? ValueOf<S>
  : ValueOf<S> | undefined;

/** Reads a config file into option assignments (cli/config_file.ts; injected by tests). */
export type ConfigReader = (
  path: string,
) => ReadonlyArray<readonly [string, OptionValue]>;

/**
 * How a command reads and words its command line (see the header): `go` is
 * TopoQueue's, Go's `flag` package (`topo`).
 */
export type Dialect = "drevt" | "plain" | "go";

/** What the parse needs to know besides the table. */
export interface ParseSettings {
  /** The command, for the `(see 'evtsim COMMAND --help')` hint. */
  readonly command: string;
  readonly dialect: Dialect;
  /** Reads a `--config` file; without it a command line with one throws {@link NeedsConfigReader}. */
  readonly readConfig?: ConfigReader;
  /** Words of options not in the table are kept as positionals instead of refused (compare). */
  readonly keepUnknown?: boolean;
}

/** The result of parsing a command line. */
export interface ParsedArgs<S extends OptionSpec = OptionSpec> {
  readonly options: OptionValues<S>;
  readonly positional: string[];
  /** Options whose value came from a config file (and was not overridden later). */
  readonly fromConfig: ReadonlySet<string>;
  /** Config files applied, in order. */
  readonly configFiles: readonly string[];
  /** An option's value as given, or its row's default. */
  value<N extends S["name"]>(name: N): ValueOrDefault<Extract<S, { readonly name: N }>>;
}

/** Thrown when a command line has a config file and no reader was given. */
export class NeedsConfigReader extends Error {}

const lookups = new WeakMap<readonly OptionSpec[], Map<string, OptionSpec>>();

/** `--name`, `--kebab-name`, `--alias` and `-x` → row of `table`. */
export function lookupOf(table: readonly OptionSpec[]): ReadonlyMap<string, OptionSpec> {
  let m = lookups.get(table);
  if (m !== undefined) return m;
  m = new Map();
  for (const o of table) {
    for (const n of [o.name, ...(o.aliases ?? [])]) {
      m.set("--" + n, o);
      m.set("--" + n.replaceAll("_", "-"), o);
    }
    if (o.short !== undefined) m.set("-" + o.short, o);
  }
  lookups.set(table, m);
  return m;
}

/**
 * Parses `args` (the words after the command) against `table`.
 *
 * @example
 * ```ts
 * import { parseOptions } from "./option_parser.ts";
 * import type { OptionSpec } from "./option_table.ts";
 * const table = [
 *   { name: "port", kind: "number", min: 0, placeholder: "N", help: "HTTP port" },
 *   { name: "dry_run", kind: "flag", help: "print only" },
 *   { name: "format", kind: "enum", values: ["csv", "parquet"], default: "csv", help: "format" },
 * ] as const satisfies readonly OptionSpec[];
 * const p = parseOptions(["--port=8080", "--dry-run", "spec.yaml"], table, {
 *   command: "demo",
 *   dialect: "plain",
 * });
 * const port: number | undefined = p.options.get("port");
 * console.assert(port === 8080 && p.options.get("dry_run") === true);
 * const format: "csv" | "parquet" = p.value("format"); // not given: the row's default
 * console.assert(format === "csv");
 * console.assert(p.positional[0] === "spec.yaml");
 * ```
 */
export function parseOptions<S extends OptionSpec>(
  args: readonly string[],
  table: readonly S[],
  settings: ParseSettings,
): ParsedArgs<S> {
  const lookup = lookupOf(table);
  const run = new Parse(table, settings);
  for (let i = 0; i < args.length; i++) {
    if (settings.dialect === "go") {
      const last = run.goWord(args, i, lookup);
      if (last === undefined) break;
      i = last;
      continue;
    }
    const arg = args[i];
    if (arg === "--") {
      run.positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      run.positional.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const key = eq > 0 ? arg.slice(0, eq) : arg;
      const spec = lookup.get(key);
      if (spec === undefined && settings.keepUnknown === true) {
        run.positional.push(arg);
        continue;
      }
      if (spec === undefined) throw run.unknown(key);
      if (spec.kind === "flag") {
        if (eq > 0) throw run.usage(`option '${key}' takes no value`);
        run.set(spec, true);
        continue;
      }
      const raw = eq > 0 ? arg.slice(eq + 1) : run.next(key, args[++i]);
      run.apply(spec, key, raw);
      continue;
    }
    if (settings.keepUnknown === true && !lookup.has("-" + arg[1])) {
      run.positional.push(arg);
      continue;
    }
    i = run.cluster(arg, args, i, lookup);
  }
  const options = run.options as OptionValues<S>;
  return {
    options,
    positional: run.positional,
    fromConfig: run.fromConfig,
    configFiles: run.configFiles,
    value: (name) => (options.get(name) ?? table.find((o) => o.name === name)?.default) as never,
  };
}

// One parse's state and the steps that change it.
class Parse {
  readonly options = new Map<string, OptionValue>();
  readonly positional: string[] = [];
  readonly fromConfig = new Set<string>();
  readonly configFiles: string[] = [];

  constructor(
    private readonly table: readonly OptionSpec[],
    private readonly settings: ParseSettings,
  ) {}

  set(spec: OptionSpec, value: OptionValue): void {
    this.options.set(spec.name, value);
    this.fromConfig.delete(spec.name);
  }

  apply(spec: OptionSpec, key: string, raw: string): void {
    if (spec.name === "config") {
      const read = this.settings.readConfig;
      if (read === undefined) throw new NeedsConfigReader();
      this.configFiles.push(raw);
      for (const [name, value] of read(raw)) {
        this.options.set(name, value);
        this.fromConfig.add(name);
      }
      return;
    }
    this.set(spec, optionValue(spec, key, raw, this.settings.dialect));
  }

  // A cluster of short options: flags, then at most one option taking the
  // rest of the word (or the next word) as its value. Returns the index of
  // the last word used.
  cluster(
    arg: string,
    args: readonly string[],
    i: number,
    lookup: ReadonlyMap<string, OptionSpec>,
  ): number {
    for (let j = 1; j < arg.length; j++) {
      const key = "-" + arg[j];
      const spec = lookup.get(key);
      if (spec === undefined) {
        throw this.usage(`unknown option '${key}'${arg.length > 2 ? ` in '${arg}'` : ""}`, true);
      }
      if (spec.kind === "flag") {
        this.set(spec, true);
        continue;
      }
      const rest = arg.slice(j + 1);
      const raw = rest !== "" ? rest : this.next(key, args[++i]);
      this.apply(spec, key, raw);
      break;
    }
    return i;
  }

  // Go's flag package (TopoQueue's command line): `-name value` or
  // `-name=value`, with one dash or two; parsing stops at the first word
  // that is not a flag (it and the rest are positional) and at `-h`.
  // Returns the index of the last word used, or undefined when parsing stops.
  goWord(
    args: readonly string[],
    i: number,
    lookup: ReadonlyMap<string, OptionSpec>,
  ): number | undefined {
    const a = args[i];
    if (a === "--" || !a.startsWith("-") || a === "-") {
      this.positional.push(...args.slice(a === "--" ? i + 1 : i));
      return undefined;
    }
    const body = a.startsWith("--") ? a.slice(2) : a.slice(1);
    if (body === "" || body.startsWith("-") || body.startsWith("=")) {
      throw this.usage(`bad flag syntax: ${a}`);
    }
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const spec = lookup.get("--" + name) ?? lookup.get("-" + name);
    if (spec === undefined) throw this.usage(`flag provided but not defined: -${name}`);
    if (spec.kind === "flag") {
      this.set(spec, true);
      return spec.name === "help" ? undefined : i;
    }
    if (eq < 0 && i + 1 >= args.length) throw this.usage(`flag needs an argument: -${name}`);
    this.apply(spec, `-${name}`, eq >= 0 ? body.slice(eq + 1) : args[++i]);
    return i;
  }

  // The separate word after an option that takes a value.
  next(key: string, raw: string | undefined): string {
    if (raw === undefined) throw this.usage(`option '${key}' needs a value`);
    if (this.settings.dialect === "plain" && raw.length > 1 && raw.startsWith("-")) {
      // An option's value or a forgotten one: the other commands always
      // asked for `--name=VALUE` then.
      throw this.usage(`option '${key}' has a value starting with '-': write ${key}=VALUE`);
    }
    return raw;
  }

  unknown(key: string): EvtsimError {
    const names = this.table.flatMap((o) => [o.name, ...(o.aliases ?? [])]);
    return this.usage(
      `unknown option '${key}'${didYouMean(key.slice(2), names, (n) => `--${n}`)}`,
      true,
    );
  }

  // simulate's parse errors name the help only for an unknown option.
  usage(what: string, unknown = false): EvtsimError {
    // Go's messages follow the command's name, as TopoQueue prints them.
    if (this.settings.dialect === "go") {
      return new EvtsimError("usage", `${this.settings.command}: ${what}`);
    }
    const hint = unknown || this.settings.dialect === "plain"
      ? ` (see 'evtsim ${this.settings.command} --help')`
      : "";
    return new EvtsimError("usage", what + hint);
  }
}

/**
 * An option's value from its text, or a usage error worded in `dialect`
 * (`key` as the user wrote the option; the plain wording names the row),
 * or with the row's `expects` phrase when it has one.
 *
 * @example
 * ```ts
 * import { optionValue } from "./option_parser.ts";
 * const port = { name: "port", kind: "number", min: 0, help: "HTTP port" } as const;
 * console.assert(optionValue(port, "--port", "8080", "plain") === 8080);
 * try {
 *   optionValue(port, "--port", "x", "plain");
 *   console.assert(false);
 * } catch (e) {
 *   console.assert((e as Error).message === "--port expects a number, got 'x'");
 * }
 * ```
 */
export function optionValue(
  spec: OptionSpec,
  key: string,
  raw: string,
  dialect: Dialect,
): OptionValue {
  // A row's own phrase (`expects`) words its refusal in either dialect.
  if (dialect === "drevt" && spec.expects === undefined) {
    const r = parseValue(spec, raw);
    if (r.error !== undefined) throw new EvtsimError("usage", `${key}: ${r.error}`);
    return r.value!;
  }
  const problem = plainProblem(spec, raw);
  if (problem === undefined) {
    return spec.kind === "int" || spec.kind === "number" ? Number(raw) : raw;
  }
  const what = spec.expects !== undefined ? `expects ${spec.expects}, got '${raw}'` : problem;
  return fail(`--${spec.name} ${what}`);
}

function fail(message: string): never {
  throw new EvtsimError("usage", message);
}

// The other commands' wording: a number as JavaScript reads it, then its
// least value, then (an int) its wholeness; an enum's values listed.
function plainProblem(spec: OptionSpec, raw: string): string | undefined {
  if (spec.kind === "enum") {
    const values = spec.values ?? [];
    return values.includes(raw) ? undefined : `expects one of ${values.join(", ")}, got '${raw}'`;
  }
  if (spec.kind !== "int" && spec.kind !== "number") return undefined;
  const v = raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(v)) return "expects a number, got '" + raw + "'";
  if (spec.min !== undefined && v < spec.min) return `must be >= ${spec.min}, got ${raw}`;
  if (spec.kind === "int" && !Number.isInteger(v)) return `expects an integer, got ${v}`;
  return undefined;
}

/**
 * The value placeholder shown in the help.
 *
 * @example
 * ```ts
 * import { placeholderOf } from "./option_parser.ts";
 * console.assert(placeholderOf({ name: "nodes", kind: "int", help: "" }) === "N");
 * console.assert(placeholderOf({ name: "out", kind: "string", placeholder: "FILE", help: "" }) === "FILE");
 * console.assert(placeholderOf({ name: "b", kind: "enum", values: ["easy", "none"], help: "" }) === "easy|none");
 * ```
 */
export function placeholderOf(o: OptionSpec): string {
  if (o.kind === "flag") return "";
  if (o.kind === "enum") return o.values!.filter((v) => o.unsupported?.[v] === undefined).join("|");
  return o.placeholder ?? (o.kind === "int" ? "N" : o.kind === "number" ? "X" : "VALUE");
}

/**
 * The help lines of a table: `  -x, --name VALUE` and the help below it.
 *
 * @example
 * ```ts
 * import { optionHelp } from "./option_parser.ts";
 * const lines = optionHelp([{ name: "out", short: "o", kind: "string", placeholder: "FILE", help: "where" }]);
 * console.assert(lines.join("\n") === "  -o, --out FILE\n        where");
 * ```
 */
export function optionHelp(table: readonly OptionSpec[]): string[] {
  const lines: string[] = [];
  for (const o of table) {
    const value = placeholderOf(o);
    const names = (o.short ? `-${o.short}, ` : "    ") + `--${o.name}` +
      (value === "" ? "" : ` ${value}`);
    lines.push(`  ${names}`, `        ${o.help}`);
  }
  return lines;
}
