// The option table of `evtsim simulate`: DR_EVT's names (with underscores),
// their short letters, and kebab-case spellings. A small table-driven parser
// rather than node:util parseArgs, because every option needs two long
// spellings, DR_EVT's enum checks, legacy aliases that rewrite values
// (--duration_mode exact → --run_time_mode limit) and one-line errors that
// say which option was wrong and what it accepts.

import { EvtsimError } from "../core/errors.ts";

/** The kinds of value an option takes. */
type Kind = "string" | "int" | "number" | "flag" | "enum";

interface OptionSpec {
  /** Canonical DR_EVT name (underscores). */
  readonly name: string;
  readonly short?: string;
  readonly kind: Kind;
  readonly values?: readonly string[];
  readonly help: string;
  /** Accepted for DR_EVT compatibility; parsed and checked but has no effect. */
  readonly compatOnly?: boolean;
  /** Older DR_EVT names that map onto this option. */
  readonly aliases?: readonly string[];
  readonly min?: number;
}

/** Every option `simulate` accepts. */
export const SIMULATE_OPTIONS: readonly OptionSpec[] = [
  {
    name: "infile",
    short: "i",
    kind: "string",
    help: "input trace (or give it as the positional argument)",
  },
  {
    name: "infile_list",
    short: "L",
    kind: "string",
    help: "file listing trace files (one per line) to load progressively",
  },
  {
    name: "outfile",
    short: "o",
    kind: "string",
    help: "schedule CSV (default <input stem>_sim.csv)",
  },
  {
    name: "resource_trace",
    short: "R",
    kind: "string",
    help: "resource CSV (default <outfile stem>_resources.csv)",
  },
  {
    name: "total_nodes",
    short: "n",
    kind: "int",
    min: 1,
    help: "nodes in the machine (default 795; SWF: the log's MaxProcs/MaxNodes)",
  },
  {
    name: "backfill_policy",
    short: "b",
    kind: "enum",
    values: ["easy", "conservative", "none"],
    help: "backfilling (default easy)",
  },
  {
    name: "priority_policy",
    short: "p",
    kind: "enum",
    values: ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"],
    help: "queue order (default fcfs)",
  },
  {
    name: "run_time_mode",
    short: "r",
    kind: "enum",
    values: ["actual", "limit", "distribution"],
    help: "actual run time: the trace's column, the time limit, or a seeded draw (default actual)",
  },
  {
    name: "duration_mode",
    short: "d",
    kind: "enum",
    values: ["exact", "column", "distribution"],
    help: "old DR_EVT name: exact = --run_time_mode limit, column = actual",
  },
  {
    name: "run_time_distribution",
    short: "D",
    kind: "enum",
    values: ["normal", "lognormal", "uniform"],
    aliases: ["duration_distribution"],
    help: "distribution for --run_time_mode distribution (default normal)",
  },
  {
    name: "run_time_scale",
    short: "S",
    kind: "number",
    aliases: ["duration_scale"],
    help: "distribution scale f > 0 (default 1)",
  },
  {
    name: "run_time_stddev",
    short: "V",
    kind: "number",
    min: 0,
    aliases: ["duration_stddev"],
    help: "distribution spread s >= 0 (default 0)",
  },
  { name: "seed", short: "s", kind: "int", help: "seed of the run-time generator (default 0)" },
  {
    name: "trace_format",
    short: "f",
    kind: "enum",
    values: ["simple", "lassen", "swf"],
    help: "input format (default simple; swf for .swf/.swf.gz files)",
  },
  {
    name: "timestamp_format",
    short: "T",
    kind: "enum",
    values: ["epoch", "iso"],
    compatOnly: true,
    help: "accepted for compatibility; input timestamps are detected per value, output is numeric",
  },
  {
    name: "timezone",
    short: "z",
    kind: "string",
    help: "zone for calendar timestamps without an offset (default America/Los_Angeles)",
  },
  { name: "msec_output", short: "M", kind: "flag", help: "write times with three decimals" },
  {
    name: "max_jobs",
    short: "j",
    kind: "int",
    min: 0,
    help: "read at most N data lines (0 = all)",
  },
  {
    name: "max_time",
    short: "t",
    kind: "number",
    help: "stop after processing events at this time; unfinished jobs are not written",
  },
  {
    name: "sim_start_time",
    kind: "string",
    help: "warm start time for replay input (epoch or calendar)",
  },
  {
    name: "capacity_schedule",
    kind: "string",
    help: "CSV time,capacity: usable node count over time",
  },
  {
    name: "overrun",
    kind: "enum",
    values: ["kill", "run", "inflate"],
    help:
      "jobs whose run time exceeds the limit: end at the limit, run in full, or raise the limit (default: run for CSV, kill for SWF)",
  },
  {
    name: "swf_unit",
    kind: "enum",
    values: ["procs", "nodes"],
    help: "SWF job size unit: processors as nodes, or nodes via --procs_per_node (default procs)",
  },
  {
    name: "procs_per_node",
    kind: "int",
    min: 1,
    help: "processors per node for --swf_unit nodes (default 1)",
  },
  {
    name: "swf_replay_wait",
    kind: "flag",
    help: "replay an SWF log with its recorded waits instead of simulating it",
  },
  {
    name: "submission_stats",
    kind: "string",
    help: "replay: CSV of nodes busy when each job was submitted",
  },
  {
    name: "job_store_capacity",
    short: "K",
    kind: "int",
    min: 0,
    help: "job records held in memory (0 = unbounded)",
  },
  {
    name: "job_store_overflow",
    short: "W",
    kind: "enum",
    values: ["abort", "grow"],
    help: "when the store is full after reclaiming (default grow)",
  },
  {
    name: "job_flush_interval",
    kind: "int",
    min: 0,
    help: "write and reclaim finished records every N completions (0 = when full)",
  },
  {
    name: "resource_history_capacity",
    short: "H",
    kind: "int",
    min: 0,
    help: "resource rows buffered before writing (0 = 4096)",
  },
  {
    name: "check_memory_pressure",
    short: "m",
    kind: "number",
    help: "0 < F <= 1: refuse to grow the job store beyond F x available memory",
  },
  {
    name: "queue_impl",
    short: "q",
    kind: "enum",
    values: ["circular", "deque", "multimap", "block"],
    compatOnly: true,
    help: "accepted for compatibility: every DR_EVT queue gives the same schedule",
  },
  {
    name: "block_size",
    short: "Q",
    kind: "int",
    compatOnly: true,
    help: "accepted for compatibility",
  },
  {
    name: "wait_queue_capacity",
    short: "A",
    kind: "int",
    compatOnly: true,
    aliases: ["circular_capacity"],
    help: "accepted for compatibility",
  },
  {
    name: "wait_queue_overflow",
    short: "G",
    kind: "enum",
    values: ["abort", "grow"],
    compatOnly: true,
    aliases: ["circular_overflow"],
    help: "accepted for compatibility",
  },
  { name: "num_max_candidates", kind: "int", compatOnly: true, help: "accepted for compatibility" },
  {
    name: "trace_type",
    kind: "enum",
    values: ["standard"],
    compatOnly: true,
    help: "only standard traces are supported",
  },
  {
    name: "progress",
    kind: "flag",
    help: "show progress on stderr even when it is not a terminal",
  },
  { name: "no_progress", kind: "flag", help: "never show progress" },
  {
    name: "queues",
    kind: "string",
    help: "queues file (YAML or JSON): name, priority, max_running, open, picker, project",
  },
  { name: "picker", kind: "string", help: "job picker by name (default builtin_fcfs)" },
  {
    name: "record",
    kind: "string",
    help: "record the session (events and decisions) to a .replay log; see 'evtsim replay'",
  },
  {
    name: "snapshot_interval",
    kind: "int",
    min: 0,
    help: "with --record: a snapshot every N events (default 1000; 0 = only the first)",
  },
  {
    name: "record_decisions",
    kind: "enum",
    values: ["heads", "all"],
    help: "with --record: PEND rows of the blocked heads only (default) or of every waiting job",
  },
  {
    name: "from_snapshot",
    kind: "string",
    help: "continue the run a snapshot (.replay log or JSON) was taken from; give its trace",
  },
  { name: "verbose", short: "v", kind: "flag", help: "print the parameters before the run" },
  { name: "help", short: "h", kind: "flag", help: "show this help" },
];

/** Parsed options: canonical name → value. */
export type ParsedOptions = Map<string, string | number | boolean>;

/** The result of parsing a command line. */
export interface ParsedCommandLine {
  readonly options: ParsedOptions;
  readonly positional: string[];
}

function lookup(): Map<string, OptionSpec> {
  const m = new Map<string, OptionSpec>();
  for (const o of SIMULATE_OPTIONS) {
    for (const n of [o.name, ...(o.aliases ?? [])]) {
      m.set("--" + n, o);
      m.set("--" + n.replaceAll("_", "-"), o);
    }
    if (o.short !== undefined) m.set("-" + o.short, o);
  }
  return m;
}

const TABLE = lookup();

/**
 * Parses `args` (after the subcommand). `--name value`, `--name=value` and
 * `-x value` are accepted; flags take no value.
 */
export function parseCommandLine(args: readonly string[]): ParsedCommandLine {
  const options: ParsedOptions = new Map();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const key = eq > 0 && arg.startsWith("--") ? arg.slice(0, eq) : arg;
    const spec = TABLE.get(key);
    if (spec === undefined) {
      throw new EvtsimError("usage", `unknown option '${key}' (see 'evtsim simulate --help')`);
    }
    let raw: string | undefined;
    if (spec.kind === "flag") {
      if (eq > 0 && arg.startsWith("--")) {
        throw new EvtsimError("usage", `option '${key}' takes no value`);
      }
      options.set(spec.name, true);
      continue;
    }
    if (eq > 0 && arg.startsWith("--")) raw = arg.slice(eq + 1);
    else {
      raw = args[++i];
      if (raw === undefined) throw new EvtsimError("usage", `option '${key}' needs a value`);
    }
    options.set(spec.name, convert(spec, key, raw));
  }
  return { options, positional };
}

function convert(spec: OptionSpec, key: string, raw: string): string | number {
  switch (spec.kind) {
    case "string":
      return raw;
    case "enum":
      if (!spec.values!.includes(raw)) {
        throw new EvtsimError(
          "usage",
          `unknown value '${raw}' for ${key} (expected ${spec.values!.join(", ")})`,
        );
      }
      return raw;
    case "int":
    case "number": {
      const v = raw.trim() === "" ? NaN : Number(raw);
      if (!Number.isFinite(v) || (spec.kind === "int" && !Number.isInteger(v))) {
        throw new EvtsimError(
          "usage",
          `${key} expects ${spec.kind === "int" ? "an integer" : "a number"}, got '${raw}'`,
        );
      }
      if (spec.min !== undefined && v < spec.min) {
        throw new EvtsimError("usage", `${key} must be >= ${spec.min}, got ${raw}`);
      }
      return v;
    }
    case "flag":
      return raw;
  }
}

/** The `--help` text. */
export function simulateHelp(): string {
  const lines = [
    "usage: evtsim simulate TRACE [options]",
    "",
    "Simulates batch scheduling of TRACE (DR_EVT CSV, Lassen CSV or SWF) and writes the schedule",
    "CSV and the resource CSV. Options use DR_EVT's names; kebab-case spellings work too.",
    "",
  ];
  for (const o of SIMULATE_OPTIONS) {
    const names = (o.short ? `-${o.short}, ` : "    ") + `--${o.name}` +
      (o.kind === "flag" ? "" : o.kind === "enum" ? ` ${o.values!.join("|")}` : " VALUE");
    lines.push(`  ${names}`);
    lines.push(`        ${o.help}`);
  }
  lines.push("", "Exit status: 0 on success, 1 on a usage or input error.");
  return lines.join("\n");
}
