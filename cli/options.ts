// `evtsim simulate`'s command line: its option table (cli/option_table.ts)
// read by the one parser (cli/option_parser.ts) in DR_EVT's wording, with
// `-c FILE` config files applied where they stand, and its help.

import {
  type ConfigReader,
  NeedsConfigReader,
  optionHelp,
  type OptionValues,
  parseOptions,
} from "./option_parser.ts";
import { SIMULATE_OPTIONS, type SimulateOption } from "./option_table.ts";
import { CONSERVATIVE_NOTE } from "./_policy_notes.ts";

export { SIMULATE_OPTIONS };
export type { ConfigReader };

/** Parsed options: canonical name → value, typed by simulate's rows. */
export type ParsedOptions = OptionValues<SimulateOption>;

/** The result of parsing a command line. */
export interface ParsedCommandLine {
  readonly options: ParsedOptions;
  readonly positional: string[];
  /** Options whose value came from a config file (and was not overridden later). */
  readonly fromConfig: ReadonlySet<string>;
  /** Config files applied, in order. */
  readonly configFiles: readonly string[];
}

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
  return parseOptions(args, SIMULATE_OPTIONS, {
    command: "simulate",
    dialect: "drevt",
    ...(readConfig !== undefined ? { readConfig } : {}),
  });
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
  lines.push(...optionHelp(SIMULATE_OPTIONS));
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
