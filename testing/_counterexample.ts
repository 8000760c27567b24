// The counterexample report, shared by `deno task fuzz` (fuzz/, which also
// writes the files) and `fuzzScheduler` (which returns it): the property, the
// seed and path, the error, the trace as a DR_EVT CSV, and the commands that
// reproduce the failure. Private: the public entry is testing/fuzz_scheduler.ts.

import type { CapacityChange, JobSpec, SimulationConfig } from "../core/types.ts";
import {
  absolutePath,
  type CommandSetting,
  currentSetting,
  evtsimCommand,
} from "./_cli_command.ts";
import { defaultRegistry } from "../schedulers/registry.ts";

/** Header of the trace CSV written for a counterexample. */
export const TRACE_HEADER = "job_submit_time,num_nodes,time_limit,actual_run_time";

const BUILT_IN_PICKERS = new Set(["builtin_fcfs", "sjf", "ljf"]);
const DREVT_ADMISSIONS = new Set(["none", "easy", "conservative"]);

/**
 * A number as a trace value: plain decimal notation, since the trace reader
 * takes no exponents. `exact` is false when that loses precision (tiny or
 * huge fractional values).
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

/** The picker's and admission policy's names when they are values of the caller's own. */
export function ownPolicies(config: SimulationConfig): { picker?: string; admission?: string } {
  const picker = typeof config.picker === "object" ? config.picker.name : config.picker;
  const a = config.admission;
  // A value of evtsim's registry is named on the command line as it is.
  const own = a !== undefined && defaultRegistry().admissions.get(a.name) !== a;
  return {
    ...(picker !== undefined && !BUILT_IN_PICKERS.has(picker) ? { picker } : {}),
    ...(own ? { admission: a.name } : {}),
  };
}

/**
 * `evtsim simulate` options that give `config` (the trace and capacity files
 * aside). A picker or admission policy value is named with `--picker` or
 * `--admission`; one of the caller's own also needs `--policy_module`, which
 * `policyModule` fills in.
 */
export function cliOptions(config: SimulationConfig, policyModule?: string): string[] {
  const o: string[] = ["--total_nodes", String(config.totalNodes)];
  const add = (name: string, v: string | number | undefined, skip?: string | number) => {
    if (v !== undefined && v !== skip) o.push(`--${name}`, String(v));
  };
  add("priority_policy", config.priorityPolicy ?? "fcfs");
  const picker = typeof config.picker === "object" ? config.picker.name : config.picker;
  const backfill = config.backfillPolicy ?? "easy";
  if (config.admission !== undefined) add("admission", config.admission.name);
  else if (DREVT_ADMISSIONS.has(backfill)) add("backfill_policy", backfill);
  else add("admission", backfill);
  add("picker", picker);
  const own = ownPolicies(config);
  if (own.picker !== undefined || own.admission !== undefined) {
    add("policy_module", policyModule ?? "MODULE.ts");
  }
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

/** A word as a POSIX shell reads it back. */
export const quote = (s: string): string =>
  /^[\w./=:-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;

/** The configuration as JSON, policy values shown by their names. */
export function configJson(config: SimulationConfig): string {
  return JSON.stringify(
    config,
    (key, v) =>
      (key === "picker" || key === "admission") && typeof v === "object" && v !== null
        ? `${v.name} (your own)`
        : v,
  );
}

/** What a report says about one failure. */
export interface ReportInput {
  readonly property: string;
  readonly description: string;
  readonly seed: number;
  readonly path: string;
  readonly numRuns: number;
  readonly numShrinks: number;
  /** What failed (one or more lines). */
  readonly error: string;
  readonly config: SimulationConfig;
  readonly trace: readonly JobSpec[];
  /** The case feeds the trace live (the CLI runs it as one batch). */
  readonly live: boolean;
  /** Where the trace CSV is (or is to be saved). */
  readonly tracePath: string;
  /** Where the capacity schedule CSV is, when the case has one. */
  readonly capacityPath?: string;
  /** Files written besides the trace (label, path). */
  readonly files?: readonly (readonly [string, string])[];
  /** The command (or call) that replays the failing case. */
  readonly reproduce: string;
  /** `--policy_module` for a picker or admission policy of the caller's own. */
  readonly policyModule?: string;
  /** How the CLI view runs evtsim (default: this process's: see _cli_command.ts). */
  readonly setting?: CommandSetting;
}

/** A report and its parts. */
export interface Report {
  /** The report, as `deno task fuzz` prints it. */
  readonly text: string;
  /** The trace CSV (also in the report). */
  readonly traceCsv: string;
  /** The capacity schedule CSV, when the case has one. */
  readonly capacityCsv?: string;
  /** The `evtsim simulate` command that runs the trace (saved at `tracePath`). */
  readonly command: string;
}

/** The report of a failure (see the module comment). */
export function counterexampleReport(f: ReportInput): Report {
  const trace = traceCsv(f.trace);
  const schedule = f.config.capacitySchedule ?? [];
  const capacity = schedule.length > 0 ? capacityCsv(schedule) : undefined;
  const capacityPath = f.capacityPath ?? f.tracePath.replace(/(\.csv)?$/, "-capacity.csv");
  // Runs from the user's folder: evtsim (installed) or this clone's task, absolute paths.
  const setting = f.setting ?? currentSetting();
  const abs = (path: string) => absolutePath(path, setting);
  const command = [
    `${evtsimCommand(setting, quote)} simulate`,
    quote(abs(f.tracePath)),
    ...cliOptions(f.config, f.policyModule === undefined ? undefined : abs(f.policyModule))
      .map(quote),
    ...(capacity !== undefined ? ["--capacity_schedule", quote(abs(capacityPath))] : []),
    "--outfile",
    quote(abs(f.tracePath.replace(/(\.csv)?$/, "_sim.csv"))),
  ].join(" ");
  const caveats: string[] = [];
  if (!trace.exact) caveats.push("some times lost precision in the CSV; the exact case has them");
  if (f.live) {
    caveats.push("the property feeds the trace live (see the plan); the CLI runs it as one batch");
  }
  const own = ownPolicies(f.config);
  if ((own.picker !== undefined || own.admission !== undefined) && f.policyModule === undefined) {
    const names = [own.picker, own.admission].filter((x) => x !== undefined).join(" and ");
    caveats.push(`MODULE.ts: a module exporting ${names} (see --policy_module)`);
  }
  const indent = (text: string) => text.trimEnd().split("\n").map((l) => `  ${l}`);
  const text = [
    `property: ${f.property}`,
    `  ${f.description}`,
    `failed after ${f.numRuns} run(s), shrunk ${f.numShrinks} time(s)`,
    `seed: ${f.seed}`,
    `path: ${f.path}`,
    `config: ${configJson(f.config)}`,
    `jobs: ${f.trace.length}`,
    "",
    "error:",
    ...indent(f.error),
    "",
    `trace CSV (${f.tracePath}):`,
    ...indent(trace.text),
    ...(capacity !== undefined
      ? ["", `capacity schedule (${capacityPath}):`, ...indent(capacity)]
      : []),
    ...(f.files !== undefined && f.files.length > 0
      ? ["", "files:", ...f.files.map(([label, path]) => `  ${label}: ${path}`)]
      : []),
    "",
    "reproduce:",
    `  ${f.reproduce}`,
    "CLI view:",
    `  ${command}`,
    ...caveats.map((x) => `note: ${x}`),
  ].join("\n") + "\n";
  return { text, traceCsv: trace.text, capacityCsv: capacity, command };
}
