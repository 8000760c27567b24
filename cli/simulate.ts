// `evtsim simulate`: read the trace, feed the reducer, write the rows. No
// scheduling logic lives here.

import { EvtsimError } from "../core/errors.ts";
import { initialState } from "../api/initial_state.ts";
import type { SimState } from "../core/state.ts";
import { type Input, step } from "../core/step.ts";
import { statistics } from "../core/queries.ts";
import type { JobSpec, SimulationConfig } from "../core/types.ts";
import { readCapacitySchedule } from "../io/capacity_schedule.ts";
import { memoryPressureLimit } from "../api/memory.ts";
import { parseTimestamp } from "../io/timestamps.ts";
import {
  formatFor,
  type LoadedInput,
  loadInput,
  type LoadOptions,
  readInfileList,
} from "./load.ts";
import { parseCommandLine, type ParsedOptions, simulateHelp } from "./options.ts";
import { RunOutputs } from "./outputs.ts";
import { Progress } from "./progress.ts";
import { statisticsBlock } from "./report.ts";
import { policyConfig, RunHooks } from "./record_hooks.ts";

/** Where the command writes its text. */
export interface Console {
  out(line: string): void;
  err(line: string): void;
  /** Whether stderr is a terminal (progress is shown only then by default). */
  readonly isTerminal: boolean;
}

const DRAIN_CHUNK = 4096;

/** Runs `evtsim simulate ARGS`; returns the exit code. */
export async function simulateCommand(args: readonly string[], con: Console): Promise<number> {
  const { options: o, positional } = parseCommandLine(args);
  if (o.get("help") === true) {
    con.out(simulateHelp());
    return 0;
  }
  const started = performance.now();
  const given = sourcesOf(o, positional);
  const sources: Sources = given.list !== undefined
    ? { paths: await readInfileList(given.list), list: given.list }
    : given;
  const runTimeMode = runTimeModeOf(o);
  const timezone = str(o, "timezone") ?? "America/Los_Angeles";
  const firstPath = sources.paths[0];
  const format = formatFor(firstPath, str(o, "trace_format"));
  const loadOptions: LoadOptions = {
    format,
    timezone,
    maxJobs: num(o, "max_jobs") ?? 0,
    runTimeMode,
    overrun: str(o, "overrun") as LoadOptions["overrun"],
    swfUnit: (str(o, "swf_unit") ?? "procs") as "procs" | "nodes",
    procsPerNode: num(o, "procs_per_node") ?? 1,
    swfReplayWait: o.get("swf_replay_wait") === true,
    requireSorted: sources.list !== undefined,
  };

  // Reading is timed on its own so that a slow parse shows up as such.
  let readSeconds = 0;
  const load = async (path: string): Promise<LoadedInput> => {
    const t0 = performance.now();
    const input = await loadInput(path, loadOptions);
    readSeconds += (performance.now() - t0) / 1000;
    return input;
  };
  // The first file is read before any output is opened, so most input errors
  // leave nothing behind.
  const first = await load(firstPath);
  for (const m of first.messages) con.err(m);
  if (first.mode === "replay" && sources.paths.length > 1) {
    throw new EvtsimError("usage", "--infile_list takes simulation traces, not replay traces");
  }
  const startTime = startTimeOf(o, timezone, first.mode);
  const totalNodes = num(o, "total_nodes") ?? first.machineSize ?? 795;
  const config: SimulationConfig = {
    totalNodes,
    backfillPolicy: (str(o, "backfill_policy") ?? "easy") as SimulationConfig["backfillPolicy"],
    priorityPolicy: (str(o, "priority_policy") ?? "fcfs") as SimulationConfig["priorityPolicy"],
    runTimeMode,
    runTimeDistribution: str(o, "run_time_distribution") as SimulationConfig["runTimeDistribution"],
    runTimeScale: num(o, "run_time_scale"),
    runTimeStddev: num(o, "run_time_stddev"),
    seed: num(o, "seed") ?? 0,
    jobStoreCapacity: num(o, "job_store_capacity"),
    jobStoreOverflow: str(o, "job_store_overflow") as SimulationConfig["jobStoreOverflow"],
    jobFlushInterval: num(o, "job_flush_interval"),
    resourceHistoryCapacity: num(o, "resource_history_capacity"),
    startTime,
    capacitySchedule: o.has("capacity_schedule")
      ? await readCapacitySchedule(str(o, "capacity_schedule")!, timezone, totalNodes)
      : undefined,
    ...(await policyConfig(o)),
  };
  const memoryFraction = num(o, "check_memory_pressure");
  if (memoryFraction !== undefined && !(memoryFraction > 0 && memoryFraction <= 1)) {
    throw new EvtsimError(
      "usage",
      `--check_memory_pressure must be in (0, 1], got ${memoryFraction}`,
    );
  }
  const maxTime = num(o, "max_time");
  if (maxTime !== undefined && maxTime < startTime) {
    throw new EvtsimError("usage", `--max_time ${maxTime} is before the start time ${startTime}`);
  }
  let state = initialState(config, { replay: first.mode === "replay" });
  const run = await RunHooks.create(o, state, first.mode); // --record, --from_snapshot
  state = run.state;
  if (o.get("verbose") === true) printParams(con, config, sources.paths);

  const msec = o.get("msec_output") === true;
  const schedulePath = str(o, "outfile") ?? defaultOutfile(sources.list ?? firstPath);
  const paths = {
    schedule: schedulePath,
    resources: str(o, "resource_trace") ?? defaultResourceFile(schedulePath),
    submissions: str(o, "submission_stats"),
  };
  const total = sources.paths.length === 1
    ? (first.mode === "replay" ? first.recorded.length : first.jobs.length)
    : 0;
  const progress = new Progress(
    "simulating",
    total,
    o.get("no_progress") !== true && (o.get("progress") === true || con.isTerminal),
  );
  let recorded: string[] = [];
  const outputs = new RunOutputs(
    paths,
    { queueColumn: first.queueColumn, msec },
    con.err,
    state.config.totalNodes,
  );
  try {
    state = await run.start();
    const apply = (input: Input): void => {
      const before = state;
      const t0 = performance.now();
      const r = step(state, input);
      state = r.state;
      outputs.write(r.rows);
      run.record(input, before, r, t0);
    };
    const memoryLimit = memoryFraction !== undefined
      ? () => memoryPressureLimit(memoryFraction)
      : undefined;
    if (first.mode === "replay") {
      replayAll(first, apply, progress);
    } else {
      let previousLast = -Infinity;
      for (let k = 0; k < sources.paths.length; k++) {
        const input: LoadedInput = k === 0 ? first : await load(sources.paths[k]);
        if (k > 0) { for (const m of input.messages) con.err(m); }
        const jobs = run.skip(input.jobs);
        if (jobs.length > 0 && jobs[0].submitTime < previousLast) {
          throw new EvtsimError(
            "input",
            `first job's submit time ${
              jobs[0].submitTime
            } is before the previous file's last submit time ${previousLast}; files must be in submit-time order`,
            { file: sources.paths[k], line: 2 },
          );
        }
        if (jobs.length > 0) previousLast = jobs[jobs.length - 1].submitTime;
        feedJobs(jobs, apply, () => state, progress, maxTime, memoryLimit);
      }
    }
    apply(
      maxTime !== undefined
        ? { kind: "advanceTo", time: Math.max(maxTime, state.time) }
        : { kind: "runToCompletion" },
    );
    apply({ kind: "finish" });
    progress.update(total);
    progress.done();
    outputs.commit();
    recorded = run.commit(state);
  } catch (e) {
    progress.done();
    outputs.abort();
    run.abort();
    throw e;
  }

  const wall = (performance.now() - started) / 1000;
  for (const line of statisticsBlock(statistics(state), msec, wall, readSeconds)) con.out(line);
  con.out(`Schedule written to: ${paths.schedule}`);
  con.out(`Resource timeline written to: ${paths.resources}`);
  if (paths.submissions !== undefined) {
    con.out(`Submission statistics written to: ${paths.submissions}`);
  }
  for (const line of recorded) con.out(line);
  return 0;
}

// Jobs go in as chunks; before each chunk the clock runs up to (not
// including) the chunk's first submit time. That is the streaming contract,
// so the result equals appending everything at once, while finished records
// are reclaimed and written as the run goes and progress can be shown.
function feedJobs(
  jobs: readonly JobSpec[],
  apply: (input: Input) => void,
  current: () => SimState,
  progress: Progress,
  maxTime: number | undefined,
  memoryLimit: (() => number) | undefined,
): void {
  for (let i = 0; i < jobs.length; i += DRAIN_CHUNK) {
    const chunk = jobs.slice(i, i + DRAIN_CHUNK);
    const t = chunk[0].submitTime;
    const limit = maxTime === undefined ? t : Math.min(t, maxTime);
    if (limit > current().time) apply({ kind: "runUntilExclusive", time: limit });
    apply({
      kind: "appendJobs",
      jobs: chunk,
      maxStoreCapacity: memoryLimit?.(),
    });
    progress.update(current().stats.jobsCompleted);
  }
}

function replayAll(input: LoadedInput, apply: (input: Input) => void, progress: Progress): void {
  const jobs = input.recorded;
  for (let i = 0; i < jobs.length; i += DRAIN_CHUNK) {
    apply({ kind: "replayJobs", jobs: jobs.slice(i, i + DRAIN_CHUNK) });
    progress.update(Math.min(jobs.length, i + DRAIN_CHUNK));
  }
}

// --- option helpers -----------------------------------------------------

function str(o: ParsedOptions, name: string): string | undefined {
  const v = o.get(name);
  return typeof v === "string" ? v : undefined;
}

function num(o: ParsedOptions, name: string): number | undefined {
  const v = o.get(name);
  return typeof v === "number" ? v : undefined;
}

interface Sources {
  readonly paths: string[];
  readonly list?: string;
}

function sourcesOf(o: ParsedOptions, positional: string[]): Sources {
  if (positional.length > 1) {
    throw new EvtsimError("usage", `unexpected arguments: ${positional.slice(1).join(" ")}`);
  }
  const infile = str(o, "infile");
  const list = str(o, "infile_list");
  const given = [positional[0], infile, list].filter((x) => x !== undefined);
  if (given.length === 0) {
    throw new EvtsimError("usage", "no input trace given (see 'evtsim simulate --help')");
  }
  if (given.length > 1) {
    throw new EvtsimError(
      "usage",
      "give exactly one of: a trace argument, --infile, --infile_list",
    );
  }
  return list !== undefined ? { paths: [], list } : { paths: [given[0]!] };
}

function runTimeModeOf(o: ParsedOptions): "actual" | "limit" | "distribution" {
  const mode = str(o, "run_time_mode");
  const legacy = str(o, "duration_mode");
  if (mode !== undefined && legacy !== undefined) {
    throw new EvtsimError(
      "usage",
      "give --run_time_mode or its old name --duration_mode, not both",
    );
  }
  if (legacy !== undefined) {
    return legacy === "exact" ? "limit" : legacy === "column" ? "actual" : "distribution";
  }
  return (mode ?? "actual") as "actual" | "limit" | "distribution";
}

function startTimeOf(o: ParsedOptions, timezone: string, mode: "simulation" | "replay"): number {
  const raw = str(o, "sim_start_time");
  if (raw === undefined) return 0;
  let t: number;
  try {
    t = parseTimestamp(raw.trim(), timezone);
  } catch (e) {
    throw new EvtsimError("usage", `--sim_start_time: ${(e as Error).message}`);
  }
  if (t > 0 && mode !== "replay") {
    throw new EvtsimError(
      "usage",
      "--sim_start_time (warm start) needs replay input (begin_time and end_time columns)",
    );
  }
  return t;
}

/** `<input without .csv/.swf/.swf.gz>_sim.csv`, as DR_EVT names it. */
export function defaultOutfile(input: string): string {
  const stem = input.replace(/\.swf\.gz$/i, "").replace(/\.(csv|swf|txt|list)$/i, "");
  return `${stem}_sim.csv`;
}

/** `<outfile without .csv>_resources.csv`. */
export function defaultResourceFile(outfile: string): string {
  return outfile.toLowerCase().endsWith(".csv")
    ? `${outfile.slice(0, -4)}_resources.csv`
    : `${outfile}_resources.csv`;
}

function printParams(con: Console, c: SimulationConfig, paths: string[]): void {
  con.out("------ Sim params ------");
  con.out(` - input: ${paths.join(", ")}`);
  for (const [k, v] of Object.entries(c)) {
    if (v !== undefined && k !== "capacitySchedule") con.out(` - ${k}: ${v}`);
  }
}
