// Turns a shrunk counterexample into files a person can act on: the trace as
// a DR_EVT CSV (and the capacity schedule, if any) for the CLI view, the exact
// case as JSON, and a note with the property, the seed and path, and the
// commands that reproduce the failure.

import type { CapacityChange, JobSpec, SimulationConfig } from "../core/types.ts";
import type { FuzzCase } from "./properties.ts";

/** Header of the trace file written for a counterexample. */
export const TRACE_HEADER = "job_submit_time,num_nodes,time_limit,actual_run_time";

/** A failed property, as the runner found it. */
export interface Failure {
  readonly property: string;
  readonly description: string;
  /** fast-check seed of the run that failed. */
  readonly seed: number;
  /** fast-check path of the shrunk counterexample (replay with seed + path). */
  readonly path: string;
  readonly numRuns: number;
  readonly numShrinks: number;
  /** What the property said (the error message). */
  readonly error: string;
  readonly counterexample: FuzzCase;
}

/** The files written for a failure and the note printed for it. */
export interface WrittenCounterexample {
  readonly tracePath: string;
  readonly capacityPath?: string;
  readonly casePath: string;
  readonly notePath: string;
  /** The note's text (also the `.txt` file's content). */
  readonly note: string;
}

/**
 * A number as a trace value: plain decimal notation, since the trace reader
 * takes no exponents. `exact` is false when that loses precision (tiny or
 * huge fractional values); the JSON file keeps the exact value.
 */
export function csvNumber(x: number): { text: string; exact: boolean } {
  const s = String(x);
  if (!/e/i.test(s)) return { text: s, exact: true };
  const fixed = x.toFixed(20).replace(/\.?0+$/, "");
  return { text: fixed, exact: Number(fixed) === x };
}

/**
 * The trace as DR_EVT CSV (`job_submit_time,num_nodes,time_limit,actual_run_time`).
 * A missing actual run time is written as the limit, which is what the
 * engine uses for it under `runTimeMode: "actual"`.
 *
 * @example
 * ```ts
 * import { traceCsv } from "./counterexample.ts";
 * console.assert(traceCsv([{ submitTime: 0, numNodes: 2, timeLimit: 5 }]).text ===
 *   "job_submit_time,num_nodes,time_limit,actual_run_time\n0,2,5,5\n");
 * ```
 */
export function traceCsv(trace: readonly JobSpec[]): { text: string; exact: boolean } {
  let exact = true;
  const cell = (x: number) => {
    const c = csvNumber(x);
    exact &&= c.exact;
    return c.text;
  };
  const lines = trace.map((j) =>
    [j.submitTime, j.numNodes, j.timeLimit, j.actualRunTime ?? j.timeLimit].map(cell).join(",")
  );
  return { text: [TRACE_HEADER, ...lines].join("\n") + "\n", exact };
}

/** A capacity schedule as the CSV `--capacity_schedule` reads. */
export function capacityCsv(schedule: readonly CapacityChange[]): string {
  const lines = schedule.map((c) => `${csvNumber(c.time).text},${c.capacity}`);
  return ["time,capacity", ...lines].join("\n") + "\n";
}

/** `evtsim simulate` options that give `config` (the trace and capacity files aside). */
export function cliOptions(config: SimulationConfig): string[] {
  const o: string[] = ["--total_nodes", String(config.totalNodes)];
  const add = (name: string, v: string | number | undefined, skip?: string | number) => {
    if (v !== undefined && v !== skip) o.push(`--${name}`, String(v));
  };
  add("priority_policy", config.priorityPolicy ?? "fcfs");
  add("backfill_policy", config.backfillPolicy ?? "easy");
  add("run_time_mode", config.runTimeMode, "actual");
  add("run_time_distribution", config.runTimeDistribution);
  add("run_time_scale", config.runTimeScale);
  add("run_time_stddev", config.runTimeStddev);
  add("seed", config.seed);
  add("job_store_capacity", config.jobStoreCapacity, 0);
  add("job_store_overflow", config.jobStoreOverflow, "grow");
  add("job_flush_interval", config.jobFlushInterval, 0);
  add("resource_history_capacity", config.resourceHistoryCapacity, 0);
  return o;
}

const quote = (s: string) => (/^[\w./=:-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** The command that replays the failing case through the fuzz runner. */
export function replayCommand(f: Pick<Failure, "property" | "seed" | "path">): string {
  return `deno task fuzz --only ${quote(f.property)} --seed ${f.seed} --path ${quote(f.path)}`;
}

/**
 * Writes the counterexample of `f` into `dir` (created if missing) as
 * `<property>-<seed>.csv` (trace), `-capacity.csv` (if the case has a capacity
 * schedule), `.json` (the exact case) and `.txt` (the note).
 */
export async function writeCounterexample(dir: string, f: Failure): Promise<WrittenCounterexample> {
  await Deno.mkdir(dir, { recursive: true });
  const stem = `${dir.replace(/\/+$/, "")}/${f.property}-${f.seed}`;
  const c = f.counterexample;
  const trace = traceCsv(c.trace);
  const tracePath = `${stem}.csv`;
  await Deno.writeTextFile(tracePath, trace.text);
  const schedule = c.config.capacitySchedule ?? [];
  const capacityPath = schedule.length > 0 ? `${stem}-capacity.csv` : undefined;
  if (capacityPath !== undefined) await Deno.writeTextFile(capacityPath, capacityCsv(schedule));
  const casePath = `${stem}.json`;
  await Deno.writeTextFile(casePath, JSON.stringify(c, null, 2) + "\n");

  const cli = [
    "deno task evtsim simulate",
    quote(tracePath),
    ...cliOptions(c.config).map(quote),
    ...(capacityPath !== undefined ? ["--capacity_schedule", quote(capacityPath)] : []),
    "--outfile",
    quote(`${stem}_sim.csv`),
  ].join(" ");
  const caveats: string[] = [];
  if (!trace.exact) caveats.push("some times lost precision in the CSV; the .json is exact");
  if (c.plan !== undefined && c.plan.length > 0) {
    caveats.push(
      "the property feeds the trace live (plan in the .json); the CLI runs it as one batch",
    );
  }
  const note = [
    `property: ${f.property}`,
    `  ${f.description}`,
    `failed after ${f.numRuns} run(s), shrunk ${f.numShrinks} time(s)`,
    `seed: ${f.seed}`,
    `path: ${f.path}`,
    `config: ${JSON.stringify(c.config)}`,
    `jobs: ${c.trace.length}`,
    "",
    "error:",
    ...f.error.split("\n").map((l) => `  ${l}`),
    "",
    "files:",
    `  trace: ${tracePath}`,
    ...(capacityPath !== undefined ? [`  capacity schedule: ${capacityPath}`] : []),
    `  exact case: ${casePath}`,
    "",
    "reproduce:",
    `  ${replayCommand(f)}`,
    "CLI view:",
    `  ${cli}`,
    ...caveats.map((x) => `note: ${x}`),
  ].join("\n") + "\n";
  const notePath = `${stem}.txt`;
  await Deno.writeTextFile(notePath, note);
  return { tracePath, capacityPath, casePath, notePath, note };
}
