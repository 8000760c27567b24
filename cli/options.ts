// The command-line parser of `evtsim simulate`, getopt style as DR_EVT's:
// `--name value`, `--name=value`, `-x value`, `-xVALUE` (`-n128`) and bundled
// flags (`-Mv`, `-Mn128`). Options apply in command-line order; `-c FILE`
// applies a config file where it stands, so options before it are
// overridden by it and options after it win, as in DR_EVT. A small
// table-driven parser rather than node:util parseArgs, because every option
// needs two long spellings, DR_EVT's value checks, legacy aliases and
// one-line errors saying which option was wrong and what it accepts.

import { EvtsimError } from "../core/errors.ts";
import { OPTION_LOOKUP, type OptionSpec, placeholderOf, SIMULATE_OPTIONS } from "./option_table.ts";
import { parseValue } from "./option_values.ts";
import { didYouMean } from "./_suggest.ts";
import { CONSERVATIVE_NOTE } from "./_policy_notes.ts";

export { SIMULATE_OPTIONS };

/** Parsed options: canonical name → value. */
export type ParsedOptions = Map<string, string | number | boolean>;

/** The result of parsing a command line. */
export interface ParsedCommandLine {
  readonly options: ParsedOptions;
  readonly positional: string[];
  /** Options whose value came from a config file (and was not overridden later). */
  readonly fromConfig: ReadonlySet<string>;
  /** Config files applied, in order. */
  readonly configFiles: readonly string[];
}

/** Reads a config file into option assignments (injected by tests). */
export type ConfigReader = (
  path: string,
) => ReadonlyArray<readonly [string, string | number | boolean]>;

class NeedsConfigReader extends Error {}

/**
 * Parses `args` (after the subcommand), reading `-c/--config` files with the
 * config reader, which (with zod and yaml) is loaded only when a command
 * line has one, to keep start-up short.
 *
 * @example
 * ```ts
 * import { parseCommandLineAsync } from "./options.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/run.yaml`, "total_nodes: 64\nbackfill_policy: none\n");
 * const p = await parseCommandLineAsync(["-n", "8", "-c", `${dir}/run.yaml`, "-b", "easy"]);
 * // The config overrides -n before it; -b after it wins.
 * console.assert(p.options.get("total_nodes") === 64 && p.options.get("backfill_policy") === "easy");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function parseCommandLineAsync(args: readonly string[]): Promise<ParsedCommandLine> {
  try {
    return parseCommandLine(args);
  } catch (e) {
    if (!(e instanceof NeedsConfigReader)) throw e;
    const { readConfigFile } = await import("./config_file.ts");
    return parseCommandLine(args, readConfigFile);
  }
}

/**
 * Parses `args` (after the subcommand). Without `readConfig`, a command line
 * with `-c/--config` cannot be parsed (use {@link parseCommandLineAsync}).
 *
 * @example
 * ```ts
 * import { parseCommandLine } from "./options.ts";
 * const p = parseCommandLine(["jobs.csv", "-n128", "-Mv", "--backfill-policy=none"]);
 * console.assert(p.options.get("total_nodes") === 128 && p.options.get("verbose") === true);
 * console.assert(p.options.get("backfill_policy") === "none" && p.positional[0] === "jobs.csv");
 * ```
 */
export function parseCommandLine(
  args: readonly string[],
  readConfig?: ConfigReader,
): ParsedCommandLine {
  const options: ParsedOptions = new Map();
  const positional: string[] = [];
  const fromConfig = new Set<string>();
  const configFiles: string[] = [];
  const set = (spec: OptionSpec, value: string | number | boolean): void => {
    options.set(spec.name, value);
    fromConfig.delete(spec.name);
  };
  const apply = (spec: OptionSpec, key: string, raw: string): void => {
    if (spec.name === "config") {
      if (readConfig === undefined) throw new NeedsConfigReader();
      configFiles.push(raw);
      for (const [name, value] of readConfig(raw)) {
        options.set(name, value);
        fromConfig.add(name);
      }
      return;
    }
    const r = parseValue(spec, raw);
    if (r.error !== undefined) throw new EvtsimError("usage", `${key}: ${r.error}`);
    set(spec, r.value!);
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const key = eq > 0 ? arg.slice(0, eq) : arg;
      const spec = OPTION_LOOKUP.get(key);
      if (spec === undefined) throw unknown(key);
      if (spec.kind === "flag") {
        if (eq > 0) throw new EvtsimError("usage", `option '${key}' takes no value`);
        set(spec, true);
        continue;
      }
      const raw = eq > 0 ? arg.slice(eq + 1) : args[++i];
      if (raw === undefined) throw needsValue(key);
      apply(spec, key, raw);
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    // A cluster of short options: flags, then at most one option taking the
    // rest of the word (or the next word) as its value.
    for (let j = 1; j < arg.length; j++) {
      const key = "-" + arg[j];
      const spec = OPTION_LOOKUP.get(key);
      if (spec === undefined) {
        throw new EvtsimError(
          "usage",
          `unknown option '${key}'${arg.length > 2 ? ` in '${arg}'` : ""} ` +
            "(see 'evtsim simulate --help')",
        );
      }
      if (spec.kind === "flag") {
        set(spec, true);
        continue;
      }
      const rest = arg.slice(j + 1);
      const raw = rest !== "" ? rest : args[++i];
      if (raw === undefined) throw needsValue(key);
      apply(spec, key, raw);
      break;
    }
  }
  return { options, positional, fromConfig, configFiles };
}

function unknown(key: string): EvtsimError {
  const names = SIMULATE_OPTIONS.flatMap((o) => [o.name, ...(o.aliases ?? [])]);
  const guess = didYouMean(key.replace(/^--/, ""), names, (n) => `--${n}`);
  return new EvtsimError(
    "usage",
    `unknown option '${key}'${guess} (see 'evtsim simulate --help')`,
  );
}

function needsValue(key: string): EvtsimError {
  return new EvtsimError("usage", `option '${key}' needs a value`);
}

/** The `--help` text. */
export function simulateHelp(): string {
  const lines = [
    "usage: evtsim simulate TRACE [options]",
    "",
    "Simulates batch scheduling of TRACE (DR_EVT CSV, Lassen CSV, SWF, or a Slurm accounting",
    "export from sacct --parsable2) and writes the schedule CSV and the resource CSV. Options",
    "use DR_EVT's names; kebab-case spellings work too, and short options take attached values",
    "and bundle (-n128, -Mv). Relative paths are taken from the folder the command was run in.",
    "",
  ];
  for (const o of SIMULATE_OPTIONS) {
    const value = placeholderOf(o);
    const names = (o.short ? `-${o.short}, ` : "    ") + `--${o.name}` +
      (value === "" ? "" : ` ${value}`);
    lines.push(`  ${names}`);
    lines.push(`        ${o.help}`);
  }
  lines.push(
    "",
    "Note: " + CONSERVATIVE_NOTE[0],
    ...CONSERVATIVE_NOTE.slice(1).map((l) => `      ${l}`),
    "",
    "Examples:",
    "  evtsim simulate jobs.csv -n 128",
    "  evtsim simulate jobs.csv -n 128 -b conservative -p fcfs_conservative -o out/sched.csv",
    "  evtsim simulate log.swf.gz --stats_json stats.json --extended_output",
    "  evtsim simulate log.swf.gz -o sched.swf   (the log as simulated: its header, job numbers,",
    "                                            users, queues, partitions and statuses kept)",
    "  evtsim simulate jobs.csv -n 128 -o sched.parquet --extended_output",
    "  evtsim simulate jobs.psv -n 16 -z Europe/Berlin   (sacct -a -X --parsable2 --format=...)",
    "  evtsim simulate -c run.yaml -n 256      (the config's total_nodes is overridden)",
    "  evtsim simulate jobs.csv --machine gpu_machine.yaml --admission none",
    "                                          (node groups with cores, memory, GPUs and partitions;",
    "                                          jobs ask per node: num_cores, memory, gpus, partition)",
    "",
    "Exit status: 0 on success, 1 on a usage, input or output error, 130/143 when interrupted.",
  );
  return lines.join("\n");
}
