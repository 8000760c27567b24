// `evtsim sweep SPEC`: the product of a spec's traces, policies, machine
// sizes, run-time modes, seeds and options, one `simulate` run per cell, run
// here by a pool of processes or on Slurm as a job array; `evtsim sweep
// collect DIR` merges a Slurm sweep's results; `evtsim sweep-cell` runs one
// cell (what both executors run). See 'evtsim help sweep'.

import { EvtsimError } from "../core/errors.ts";
import { optionHelp, type ParsedArgs, parseOptions } from "./option_parser.ts";
import type { OptionSpec } from "./option_table.ts";
import type { Console, SimulateDeps } from "./simulate.ts";
import {
  absoluteDir,
  checkSameSweep,
  type MergeSummary,
  prepareFolder,
  readCellResults,
  readRecord,
  sweepOf,
  writeResults,
} from "./_sweep_results.ts";
import { absolutePath, cellAt, PATH_OPTIONS, type Sweep } from "./_sweep_model.ts";
import { checkOutputPaths } from "./paths.ts";
import type { Prestarted } from "./_sweep_local.ts";

// `evtsim sweep-cell` (what the workers run) has its own module.
export { sweepCellCommand } from "./sweep_cell_command.ts";

/** `evtsim sweep`'s options. */
export const SWEEP_OPTIONS = [
  {
    name: "results",
    kind: "string",
    placeholder: "DIR",
    help: "the results folder (default: the spec's name without .yaml, plus _results)",
  },
  {
    name: "jobs",
    kind: "int",
    min: 1,
    short: "j",
    placeholder: "N",
    help: "local: worker processes, cells run at once (default: the number of cores)",
  },
  {
    name: "retry_failed",
    kind: "flag",
    help: "run the failed cells again (local: with the cells that have no result yet)",
  },
  {
    name: "executor",
    kind: "enum",
    default: "local",
    values: ["local", "slurm"],
    expects: "local or slurm",
    help: "where the cells run (default local)",
  },
  {
    name: "partition",
    kind: "string",
    placeholder: "P",
    help: "slurm: the partition (#SBATCH --partition)",
  },
  {
    name: "sbatch_options",
    kind: "string",
    placeholder: "'OPTS'",
    help: "slurm: more sbatch options, one #SBATCH line each, e.g.\n" +
      "        --sbatch_options='--time=00:30:00 --account=proj --mem=2G'",
  },
  {
    name: "max_parallel",
    kind: "int",
    min: 1,
    placeholder: "K",
    help: "slurm: array tasks running at once (--array=...%K)",
  },
  {
    name: "dry_run",
    kind: "flag",
    help: "slurm: print the sbatch script; write and submit nothing",
  },
  {
    name: "evtsim",
    kind: "string",
    placeholder: "CMD",
    help: "slurm: the command line the tasks run evtsim with (default: this Deno, its\n" +
      "        permissions and this main.ts, by absolute paths)",
  },
  {
    name: "format",
    kind: "enum",
    default: "csv",
    values: ["csv", "parquet"],
    expects: "csv or parquet",
    help: "parquet: also write DIR/results.parquet (the rows of results.csv; kept current\n" +
      "        by every later merge of the folder); local executor and collect (default csv)",
  },
  {
    name: "max_cells",
    kind: "int",
    min: 1,
    placeholder: "N",
    help: "refuse a spec of more than N cells before planning it (default 100000)",
  },
  {
    name: "progress",
    kind: "flag",
    help: "local: show the progress bar even when not on a terminal",
  },
  { name: "no_progress", kind: "flag", help: "local: never show the progress bar" },
  { name: "help", kind: "flag", short: "h", help: "show this help" },
] as const satisfies readonly OptionSpec[];

type SweepOption = (typeof SWEEP_OPTIONS)[number];

/** The text of `evtsim help sweep`. */
export function sweepHelp(): string {
  return [
    "usage: evtsim sweep SPEC [--results DIR] [--jobs N] [--retry_failed] [--executor local|slurm]",
    "                         [--partition P] [--max_parallel K] [--sbatch_options 'OPTS']",
    "                         [--dry_run] [--evtsim CMD] [--max_cells N] [--format csv|parquet]",
    "       evtsim sweep collect DIR [--format csv|parquet]",
    "       evtsim sweep-cell SPEC --cell INDEX --results DIR",
    "",
    "Runs every combination (cell) of a spec's lists, each an ordinary 'evtsim simulate' run,",
    "and writes one row per cell to DIR/results.csv and DIR/results.json, in the spec's order",
    "(INDEX, below): the cell's id, index and options (total_nodes: the size the run used,",
    "the trace header's when the spec gives none), then the metric set and fairness figures",
    "of the metrics glossary, docs/metrics.md (jobs, wait_mean_s ... bsld_max, utilization,",
    "makespan_s, throughput_jobs_per_s in simulated time; users, jain_bsld, worst_user,",
    "worst_user_bsld_mean). On a machine (options: machine: FILE) utilization counts node",
    "equivalents (on each node a job held, its largest fraction of any resource) and the rows",
    "end with utilization_<resource> (cores, gpus, ...: each resource's utilization).",
    "--format parquet adds DIR/results.parquet, the same rows. The",
    "files hold no wall-clock figure, so they are the same bytes whichever executor ran the",
    "cells; each cell's wall time (and jobs simulated per wall second) is in DIR/timings.csv.",
    "",
    "The spec (YAML; paths are taken from the spec's folder; a scalar is a list of one):",
    "  traces: [demo_trace.csv]           # required: CSV or SWF traces",
    "  policies: [easy, sjf+easy]         # ADMISSION or PICKER+ADMISSION (default [easy]);",
    "                                     #   conservative is DR_EVT's strict rule, textbook",
    "                                     #   conservative backfilling is conservative_profile",
    "  total_nodes: [64, 128]             # default: simulate's (795, or the SWF header's)",
    "  run_time_modes: [actual, limit]    # actual, limit, distribution (default [actual])",
    "  seeds: [0, 1]                      # default [0]",
    "  options:                           # any other simulate option, by its underscore name;",
    "    swf_unit: nodes                  #   a list multiplies the cells",
    "    run_time_scale: [1, 1.5]",
    "Outputs (outfile, stats_json, record, decisions, report ...) are sweep's own and refused",
    "in options; a bad spec is one line SPEC:LINE: field: problem, before anything is written.",
    "",
    "A spec of more than --max_cells cells (default 100000) is refused, with its count, before",
    "any cell is planned. SIGINT or SIGTERM stops the sweep and its running cells; a cell",
    "stopped has no result, so a rerun runs it.",
    "",
    "A cell's INDEX is its place in the spec's product order: traces, policies, total_nodes,",
    "run_time_modes, seeds, then the options: lists as the spec lists them, each list in its",
    "own order, the last list changing fastest (so cell I is computed from I, and planning",
    "costs the same for 6 cells as for 100,000). Its id is the first 12 hex digits of the",
    "SHA-256 of its options as canonical JSON (keys sorted, the trace as the spec spells it).",
    "Each cell's result is DIR/cells/ID.json (status ok with its row, or failed with its",
    "error). A rerun skips the cells that have a result: --retry_failed runs the failed ones",
    "again. DIR/sweep.json records the spec; a folder of another spec (or of the same lists",
    "in another order, or written by an older evtsim) is refused.",
    "",
    "Executors:",
    "  local  (default) --jobs N worker processes, each running cell after cell ('evtsim",
    "         sweep-cell --stdin'): warm after its first cell, each trace parsed once per",
    "         worker, every result the bytes of the cell run alone; a progress bar on a",
    "         terminal; a failed cell is reported and the others go on (a worker that",
    "         crashes fails its cell, and a new one takes the rest).",
    "  slurm  writes DIR/sweep.sbatch, a job array with one task per cell to run (array",
    "         index = cell INDEX: the cells with no result, and with --retry_failed the",
    "         failed ones too), and submits it with sbatch; the output of task i goes to",
    "         DIR/logs/JOBID_i.out. While a job this folder submitted is still in the",
    "         queue, nothing more is submitted (so no cell runs twice). Then 'evtsim sweep",
    "         collect DIR' writes the results of the cells that ran fine and lists the",
    "         missing and failed ones.",
    "",
    "options:",
    ...optionHelp(SWEEP_OPTIONS),
    "",
    "Exit status: 0 when every cell has a result and none failed; 1 otherwise (or on a usage,",
    "spec or file error).",
  ].join("\n");
}

/** Runs `evtsim sweep ARGS`; returns the exit code. */
export async function sweepCommand(
  args: readonly string[],
  con: Console,
  deps: SimulateDeps = {},
): Promise<number> {
  const a = parseOptions(args, SWEEP_OPTIONS, { command: "sweep", dialect: "plain" });
  if (a.options.get("help") === true) {
    con.out(sweepHelp());
    return 0;
  }
  const format = a.value("format");
  if (a.positional[0] === "collect") {
    const other = [...a.options.keys()].filter((k) => k !== "format");
    if (other.length > 0) throw new EvtsimError("usage", `sweep collect takes no --${other[0]}`);
    if (a.positional.length !== 2) {
      throw new EvtsimError("usage", "usage: evtsim sweep collect DIR");
    }
    return await collect(a.positional[1], con, format === "parquet");
  }
  if (a.positional.length !== 1) {
    throw new EvtsimError(
      "usage",
      a.positional.length === 0
        ? "no sweep spec given (see 'evtsim help sweep')"
        : `unexpected arguments: ${a.positional.slice(1).join(" ")}`,
    );
  }
  const executor = a.value("executor");
  const only = executor === "local"
    ? ["partition", "max_parallel", "sbatch_options", "dry_run", "evtsim"]
    : ["jobs", "progress", "no_progress", "format"];
  for (const name of only) {
    if (a.options.has(name)) {
      throw new EvtsimError("usage", `--${name} is not an option of --executor ${executor}`);
    }
  }
  const jobs = a.options.get("jobs") ?? navigator.hardwareConcurrency ?? 1;
  const maxParallel = a.options.get("max_parallel");
  const specArg = a.positional[0];
  const resultsArg = a.options.get("results") ?? `${specArg.replace(/\.ya?ml$/i, "")}_results`;
  const dir = absoluteDir(resultsArg);
  const maxCells = a.options.get("max_cells");
  // Local workers start now and load their modules while the spec is read
  // and the folder prepared (at most a worker per core; more start later
  // when --jobs asks for them).
  let prestarted: Prestarted | undefined;
  if (executor === "local" && Deno.permissions.querySync({ name: "run" }).state === "granted") {
    const { Prestarted } = await import("./_sweep_local.ts");
    prestarted = new Prestarted(absoluteDir(specArg), dir, jobs);
  }
  try {
    return await planAndRun(a, con, deps, {
      format,
      executor,
      jobs,
      maxParallel,
      specArg,
      resultsArg,
      dir,
      maxCells,
      prestarted,
    });
  } finally {
    await prestarted?.close();
  }
}

/** What a sweep run settled from its command line before the spec is read. */
interface SweepRun {
  readonly format: string;
  readonly executor: "local" | "slurm";
  readonly jobs: number;
  readonly maxParallel: number | undefined;
  readonly specArg: string;
  readonly resultsArg: string;
  readonly dir: string;
  readonly maxCells: number | undefined;
  readonly prestarted: Prestarted | undefined;
}

// Reads the spec, finds the cells still to run, and runs them here or as a
// Slurm job array.
async function planAndRun(
  a: ParsedArgs<SweepOption>,
  con: Console,
  deps: SimulateDeps,
  { format, executor, jobs, maxParallel, specArg, resultsArg, dir, maxCells, prestarted }: SweepRun,
): Promise<number> {
  const { readSweepSpec } = await import("./_sweep_spec.ts");
  const sweep = await readSweepSpec(specArg, maxCells);
  checkSweepOutputs(dir, sweep);
  const recorded = await readRecord(dir);
  if (recorded !== undefined) checkSameSweep(resultsArg, recorded, sweep);
  const retry = a.options.get("retry_failed") === true;
  const have = recorded === undefined ? new Map() : await readCellResults(dir, sweep);
  const failedBefore = [...have.values()].filter((r) => r.status === "failed");
  const missing: number[] = [];
  for (let i = 0; i < sweep.count; i++) if (!have.has(i)) missing.push(i);
  const todo = retry
    ? [...failedBefore.map((r) => r.index), ...missing].sort((x, y) => x - y)
    : missing;

  if (executor === "slurm") {
    const { runSlurm, sbatchOptionLines } = await import("./_sweep_slurm.ts");
    return await runSlurm({
      sweep,
      dir,
      shown: resultsArg,
      todo,
      retry,
      partition: a.options.get("partition"),
      sbatchOptions: sbatchOptionLines(a.options.get("sbatch_options")),
      maxParallel,
      evtsim: a.options.get("evtsim"),
      dryRun: a.options.get("dry_run") === true,
    }, con);
  }
  const { checkRunPermission, runLocal } = await import("./_sweep_local.ts");
  checkRunPermission("sweep (each cell is a process)");
  await prepareFolder(dir, sweep);
  const show = a.options.get("no_progress") !== true &&
    (a.options.get("progress") === true || con.isTerminal);
  const started = performance.now();
  const { failed: failedNow, ended } = await runLocal(
    sweep,
    dir,
    todo,
    jobs,
    con,
    show,
    deps.progressSink,
    prestarted,
  );
  // The workers exit while the results are merged.
  let summary: MergeSummary;
  try {
    summary = await writeResults(dir, sweep, format === "parquet");
  } finally {
    await ended;
  }
  if (!retry) {
    for (const r of failedBefore) {
      con.err(
        `evtsim: sweep: cell ${r.index} (${r.id}) failed in an earlier run: ${r.error} ` +
          "(--retry_failed runs it again)",
      );
    }
  }
  con.err(
    `sweep: ${todo.length} cells run in ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );
  con.out(
    `sweep: ${sweep.count} cells: ${todo.length} run, ${
      sweep.count - todo.length
    } already done; ${summary.ok} ok, ${summary.failed.length} failed` +
      (failedNow.length > 0 ? ` (${failedNow.length} in this run)` : ""),
  );
  printWritten(con, resultsArg, summary, sweep);
  return summary.failed.length > 0 || summary.missing.length > 0 ? 1 : 0;
}

/**
 * The one output rule (cli/paths.ts) for a sweep: none of the files it
 * writes into the results folder may be its spec, a trace or an option's file.
 */
function checkSweepOutputs(dir: string, sweep: Sweep): void {
  const inputs = new Map<string, string>([[sweep.specPath, "the sweep spec"]]);
  // The files a sweep reads: its spec, traces and the options' files.
  for (const [name, values] of sweep.axes) {
    if (name !== "trace" && !PATH_OPTIONS.has(name)) continue;
    const what = name === "trace" ? "a trace of the spec" : `its ${name} file`;
    for (const v of values) inputs.set(absolutePath(String(v), sweep.folder), what);
  }
  checkOutputPaths(
    [
      "sweep.json",
      "spec.yaml",
      "results.csv",
      "results.json",
      "results.parquet",
      "timings.csv",
      "sweep.sbatch",
    ]
      .map((name) => [`--results (${name})`, `${dir}/${name}`] as const),
    [...inputs].map(([path, what]) => ({ what, path })),
  );
}

function printWritten(con: Console, shown: string, s: MergeSummary, sweep: Sweep): void {
  con.out(
    `Results written to: ${shown}/results.csv${
      s.parquet ? `, ${shown}/results.parquet` : ""
    } and ${shown}/results.json (${s.ok} of ${sweep.count} cells)`,
  );
}

const cells = (n: number) => n === 1 ? "1 cell" : `${n} cells`;

/** `evtsim sweep collect DIR`. */
async function collect(shown: string, con: Console, parquet: boolean): Promise<number> {
  const dir = absoluteDir(shown);
  const sweep = await sweepOf(undefined, dir);
  const s = await writeResults(dir, sweep, parquet);
  for (const i of s.missing) {
    const id = cellAt(sweep, i).id;
    con.err(`evtsim: sweep collect: cell ${i} (${id}) is missing (no result yet)`);
  }
  for (const r of s.failed) {
    con.err(`evtsim: sweep collect: cell ${r.index} (${r.id}) failed: ${r.error}`);
  }
  printWritten(con, shown, s, sweep);
  if (s.missing.length + s.failed.length === 0) return 0;
  con.err(
    `evtsim: sweep collect: ${cells(s.missing.length)} missing, ${s.failed.length} failed: ` +
      `the results hold only the ${cells(s.ok)} that ran fine`,
  );
  return 1;
}
