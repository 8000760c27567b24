// The option schema of every `evtsim` command (`OptionSpec`, read by the one
// parser, cli/option_parser.ts) and the option table of `evtsim simulate`: DR_EVT's names (with underscores),
// their short letters, value placeholders for the help, and the value limits
// DR_EVT applies (docs/porting-from-drevt.md, "Options"; option_values.ts checks
// them). The command-line parser (options.ts) and the config-file reader
// (config_file.ts) share it, so an option is checked the same way wherever it
// is given.

import { lookupOf, placeholderOf } from "./option_parser.ts";

/** The kinds of value an option takes. */
export type Kind = "string" | "int" | "number" | "flag" | "enum";

/** One option of a command (its name, kind, short letter, placeholder, help and checks). */
export interface OptionSpec {
  /** Canonical DR_EVT name (underscores). */
  readonly name: string;
  readonly short?: string;
  readonly kind: Kind;
  readonly values?: readonly string[];
  /** Placeholder of the value in the help (N, FILE, T ...). */
  readonly placeholder?: string;
  readonly help: string;
  /** Accepted for DR_EVT compatibility; parsed and checked but has no effect. */
  readonly compatOnly?: boolean;
  /** Older DR_EVT names that map onto this option. */
  readonly aliases?: readonly string[];
  /** Smallest allowed value (inclusive). */
  readonly min?: number;
  /** Values must be strictly greater than this. */
  readonly above?: number;
  /** Largest allowed value (inclusive). */
  readonly max?: number;
  /** A power of two (with min/max giving the range). */
  readonly powerOfTwo?: boolean;
  /** Not allowed in a `--config` file. */
  readonly commandLineOnly?: boolean;
  /** Enum values that DR_EVT knows but evtsim does not support, with the reason. */
  readonly unsupported?: Readonly<Record<string, string>>;
  /**
   * What a refused value should have been, as the other commands word it
   * (`--jobs expects a positive integer, got '0'`); simulate's rows give none.
   */
  readonly expects?: string;
  /**
   * The value when the option is not given, read by `value(name)` of a parse
   * (cli/option_parser.ts); simulate's rows give none (their defaults
   * depend on the trace and the other options).
   */
  readonly default?: string | number | boolean;
}

// Every option `simulate` accepts, typed row by row (its names and kinds).
const SIMULATE_ROWS = [
  {
    name: "infile",
    short: "i",
    kind: "string",
    placeholder: "FILE",
    help: "input trace (or give it as the positional argument)",
  },
  {
    name: "infile_list",
    short: "L",
    kind: "string",
    placeholder: "FILE",
    help: "file listing trace files (one per line, relative to the list) to load progressively",
  },
  {
    name: "config",
    short: "c",
    kind: "string",
    placeholder: "FILE",
    commandLineOnly: true,
    help: "YAML or JSON file of DR_EVT Simulation_Params fields (total_nodes: 128 ...); " +
      "options before it are overridden by it, options after it win",
  },
  {
    name: "outfile",
    short: "o",
    kind: "string",
    placeholder: "FILE",
    help:
      "schedule CSV (default <input name>_sim.csv in the current folder); a name ending in .swf writes SWF (an SWF input's fields kept), .parquet writes Parquet",
  },
  {
    name: "resource_trace",
    short: "R",
    kind: "string",
    placeholder: "FILE",
    help: "resource CSV (default <outfile stem>_resources.csv)",
  },
  {
    name: "stats_json",
    kind: "string",
    placeholder: "FILE",
    help:
      "also write every statistic, the metric set (wait, slowdown ... percentiles) and the options as JSON",
  },
  {
    name: "bsld_tau",
    kind: "number",
    placeholder: "S",
    above: 0,
    help: "bounded-slowdown threshold tau of the --stats_json metrics, in seconds (default 10)",
  },
  {
    name: "measure_window",
    kind: "string",
    placeholder: "START:END",
    help: "the --stats_json metrics measure only jobs submitted in [START, END) seconds; " +
      "the others are counted as jobs_excluded",
  },
  {
    name: "trim",
    kind: "string",
    placeholder: "WARMUP,COOLDOWN",
    help: "instead of --measure_window: the --stats_json metrics leave out the first WARMUP " +
      "and last COOLDOWN jobs in submit order (each a fraction in [0, 1) of the jobs that " +
      "ran to their end, or a whole number of jobs), counted as jobs_excluded",
  },
  {
    name: "report",
    kind: "string",
    placeholder: "FILE",
    help: "also write the run's HTML report (charts, summary; see 'evtsim help report')",
  },
  {
    name: "resource_columns",
    kind: "enum",
    values: ["drevt", "per_resource"],
    help:
      "resource timeline columns: DR_EVT's (drevt, default), or per_resource: a NAME_free,NAME_used pair per resource type added (nodes on a whole-node machine)",
  },
  {
    name: "extended_output",
    kind: "flag",
    help:
      "add job_id,wait_time,bounded_slowdown,trace_job_id,trace_user,nodes columns to the schedule (CSV or Parquet; nodes in Slurm hostlist form)",
  },
  {
    name: "total_nodes",
    short: "n",
    kind: "int",
    placeholder: "N",
    min: 1,
    help: "nodes in the machine (default 795; SWF: the log's MaxProcs/MaxNodes)",
  },
  {
    name: "machine",
    kind: "string",
    placeholder: "FILE",
    help:
      "a machine of node groups (YAML/JSON: count, resources, partitions, labels) instead of -n; jobs ask per node for cores/memory/gpus in a partition (docs/machines.md)",
  },
  {
    name: "backfill_policy",
    short: "b",
    kind: "enum",
    values: ["easy", "conservative", "none"],
    help:
      "backfilling (default easy); conservative is DR_EVT's strict rule, not textbook conservative backfilling (--admission conservative_profile): see the note below",
  },
  {
    name: "priority_policy",
    short: "p",
    kind: "enum",
    values: ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf", "fairshare"],
    help: "queue order (default fcfs; fairshare: the fairshare picker, see --queues)",
  },
  {
    name: "picker",
    kind: "string",
    placeholder: "NAME",
    help:
      "job picker: builtin_fcfs, sjf, ljf, fairshare or one from --policy_module (default: from --priority_policy)",
  },
  {
    name: "admission",
    kind: "string",
    placeholder: "NAME",
    help:
      "backfill (admission) policy by registered name, e.g. one from --policy_module (overrides -b)",
  },
  {
    name: "external_command",
    kind: "string",
    placeholder: "CMD",
    help:
      "with --admission external: a command (run by sh) that decides every scheduling round, one JSON line each way (docs/external-schedulers.md)",
  },
  {
    name: "no_compression",
    kind: "flag",
    help:
      "with --admission conservative_profile: reservations never move earlier except to start now",
  },
  {
    name: "policy_module",
    kind: "string",
    placeholder: "FILE",
    help:
      "a TypeScript/JavaScript module exporting `pickers` and/or `admissions` to register by name",
  },
  {
    name: "queues",
    kind: "string",
    placeholder: "FILE",
    help:
      "queue definitions (YAML or JSON): name, priority, max_running, open, picker, project, partition (with --machine), preempt_mode (off, requeue, cancel, suspend: docs/preemption.md), grace_time (seconds); and a fairshare: block",
  },
  {
    name: "decisions",
    kind: "string",
    placeholder: "FILE",
    help: "also write the scheduling decisions (DISPATCH, PEND with a reason) as JSON Lines",
  },
  {
    name: "decisions_detail",
    kind: "enum",
    values: ["heads", "all"],
    help:
      "with --decisions: PEND rows of the jobs each round examines (default heads: every DISPATCH, PENDs of the blocked heads; about 10-15% on a run) or of every waiting job (all: quadratic in the queue length)",
  },
  {
    name: "redis_uri",
    kind: "string",
    placeholder: "URI",
    help:
      "write the schedule, the resource timeline and the statistics JSON to Redis (redis://host:port[/db]) instead of --outfile and --resource_trace; needs --redis_key_prefix",
  },
  {
    name: "redis_key_prefix",
    kind: "string",
    placeholder: "PREFIX",
    help:
      "with --redis_uri: the keys' namespace (PREFIX:csv, PREFIX:resources:csv, PREFIX:job:<id> ...); a reused prefix is replaced",
  },
  {
    name: "checkpoint_file",
    kind: "string",
    placeholder: "FILE",
    help:
      "write a restart checkpoint to FILE (atomically) every --checkpoint_interval_jobs completed jobs and after each --infile_list file; if FILE exists when the run starts, continue from it; removed when the run completes",
  },
  {
    name: "checkpoint_interval_jobs",
    kind: "int",
    placeholder: "N",
    min: 1,
    help: "with --checkpoint_file: a checkpoint after each N more completed jobs (N > 0)",
  },
  {
    name: "record",
    kind: "string",
    placeholder: "FILE",
    help: "record the session (events and decisions) to a .replay log; see 'evtsim help replay'",
  },
  {
    name: "snapshot_interval",
    kind: "int",
    placeholder: "N",
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
    placeholder: "FILE",
    help: "continue the run a snapshot (.replay log or JSON) was taken from; give its trace",
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
    placeholder: "F",
    above: 0,
    aliases: ["duration_scale"],
    help: "distribution scale F > 0 (default 1)",
  },
  {
    name: "run_time_stddev",
    short: "V",
    kind: "number",
    placeholder: "S",
    min: 0,
    aliases: ["duration_stddev"],
    help: "distribution spread S >= 0 (default 0)",
  },
  {
    name: "seed",
    short: "s",
    kind: "int",
    placeholder: "N",
    help: "seed of the run-time generator (default 0)",
  },
  {
    name: "trace_format",
    short: "f",
    kind: "enum",
    values: ["simple", "lassen", "swf", "sacct"],
    help: "input format (default simple; swf for .swf/.swf.gz files, sacct for .psv/.sacct " +
      "files and files whose header is sacct --parsable2's)",
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
    placeholder: "ZONE",
    help: "zone for calendar timestamps without an offset (default America/Los_Angeles)",
  },
  { name: "msec_output", short: "M", kind: "flag", help: "write times with three decimals" },
  {
    name: "max_jobs",
    short: "j",
    kind: "int",
    placeholder: "N",
    min: 0,
    help: "read at most N data lines, counted across every file of --infile_list (0 = all)",
  },
  {
    name: "max_time",
    short: "t",
    kind: "number",
    placeholder: "T",
    help: "stop after processing events at time T; unfinished jobs are not written",
  },
  {
    name: "sim_start_time",
    kind: "string",
    placeholder: "T",
    help: "warm start time for replay input (epoch seconds or calendar time)",
  },
  {
    name: "capacity_schedule",
    kind: "string",
    placeholder: "FILE",
    help:
      "CSV time,capacity: usable node count over time; with --machine, CSV time,nodes,state: a node or group going down or up",
  },
  {
    name: "on_capacity_cut",
    kind: "enum",
    values: ["drain", "kill"],
    help:
      "running jobs beyond a capacity cut: run on, the nodes leave as they end (drain, default), or end now as killed",
  },
  {
    name: "node_failures",
    kind: "string",
    placeholder: "FILE",
    help:
      "with --machine: CSV time,node,state: a node or group failing (down) or repaired (up); the jobs on a failing node end at once",
  },
  {
    name: "failure_model",
    kind: "string",
    placeholder: "SPEC",
    help:
      "with --machine: draw node failures, mtbf=S,repair=S,until=T[,seed=N]: exponential times up and down per node, up to time T",
  },
  {
    name: "failures_out",
    kind: "string",
    placeholder: "FILE",
    help:
      "write the node failures of the run (--node_failures, --failure_model) as a failure trace",
  },
  {
    name: "on_node_failure",
    kind: "enum",
    values: ["kill", "requeue"],
    help:
      "jobs on a failing node: end as killed (kill, default) or go back to waiting with the same id (requeue)",
  },
  {
    name: "requeue_limit",
    kind: "int",
    placeholder: "N",
    min: 0,
    help:
      "with --on_node_failure requeue: a job requeued N times is killed at its next failure (default 3)",
  },
  {
    name: "capacity_semantics",
    kind: "enum",
    values: ["evtsim", "drevt"],
    help:
      "a job larger than the capacity now is held while later jobs start (evtsim, default), or blocks the queue as in DR_EVT (drevt)",
  },
  {
    name: "power_cap",
    kind: "number",
    placeholder: "W",
    min: 0,
    help:
      "a power cap in watts: a start that would take the machine's draw over it waits (PEND power_cap); the resource CSV gets a power column (docs/power.md)",
  },
  {
    name: "power_cap_schedule",
    kind: "string",
    placeholder: "FILE",
    help:
      "CSV time,watts: the power cap from each time on (before the first row: --power_cap, else none)",
  },
  {
    name: "idle_watts",
    kind: "number",
    placeholder: "W",
    min: 0,
    help: "watts each node draws while it holds no job (default 0; with -n, not --machine)",
  },
  {
    name: "busy_watts",
    kind: "number",
    placeholder: "W",
    min: 0,
    help:
      "watts each node draws while it holds a job (default 0), besides the job's own draw (a pcon trace's avgpcon)",
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
    placeholder: "N",
    min: 1,
    help:
      "processors per node for --swf_unit nodes (default MaxProcs / MaxNodes from the header, else 1)",
  },
  {
    name: "swf_replay_wait",
    kind: "flag",
    help: "replay an SWF log with its recorded waits instead of simulating it",
  },
  {
    name: "submission_stats",
    kind: "string",
    placeholder: "FILE",
    help: "replay: CSV of nodes busy when each job was submitted",
  },
  {
    name: "job_store_capacity",
    short: "K",
    kind: "int",
    placeholder: "N",
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
    placeholder: "N",
    min: 0,
    help: "write and reclaim finished records every N completions (0 = when full)",
  },
  {
    name: "resource_history_capacity",
    short: "H",
    kind: "int",
    placeholder: "N",
    min: 0,
    help: "resource rows buffered before writing (0 = 512)",
  },
  {
    name: "check_memory_pressure",
    short: "m",
    kind: "number",
    placeholder: "F",
    above: 0,
    max: 1,
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
    placeholder: "N",
    min: 4,
    max: 256,
    powerOfTwo: true,
    compatOnly: true,
    help: "accepted for compatibility: a power of 2 from 4 to 256",
  },
  {
    name: "wait_queue_capacity",
    short: "A",
    kind: "int",
    placeholder: "N",
    min: 0,
    compatOnly: true,
    aliases: ["circular_capacity"],
    help: "accepted for compatibility (N >= 0)",
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
  {
    name: "num_max_candidates",
    kind: "int",
    placeholder: "N",
    min: 1,
    compatOnly: true,
    help: "accepted for compatibility (N > 0)",
  },
  {
    name: "trace_type",
    kind: "enum",
    values: ["standard", "pcon"],
    help:
      "pcon: every job has avgpcon,minpcon,maxpcon columns, and the resource CSV gets their sums over the running jobs (default standard)",
  },
  {
    name: "progress",
    kind: "flag",
    commandLineOnly: true,
    help: "show progress on stderr even when it is not a terminal",
  },
  { name: "no_progress", kind: "flag", commandLineOnly: true, help: "never show progress" },
  { name: "verbose", short: "v", kind: "flag", help: "print the parameters before the run" },
  {
    name: "debug",
    kind: "flag",
    commandLineOnly: true,
    help: "when a policy fails (--policy_module), also print the stack of what it threw",
  },
  { name: "help", short: "h", kind: "flag", commandLineOnly: true, help: "show this help" },
] as const satisfies readonly OptionSpec[];

/** Every option `simulate` accepts. */
export const SIMULATE_OPTIONS: readonly OptionSpec[] = SIMULATE_ROWS;

/** A row of simulate's option table, as written (its name and kind typed). */
export type SimulateOption = (typeof SIMULATE_ROWS)[number];

/** The name of one of simulate's options. */
export type SimulateOptionName = SimulateOption["name"];

/** `--name`, `--kebab-name`, `--alias` and `-x` → spec. */
export const OPTION_LOOKUP: ReadonlyMap<string, OptionSpec> = lookupOf(SIMULATE_OPTIONS);

export { placeholderOf };
