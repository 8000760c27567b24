// Steps of an `evtsim simulate` run that stand on their own: the engine's
// configuration from the options, the HTML report of a run, and the lines a
// run ends with. cli/simulate.ts runs them in order (options → inputs →
// configuration → run → outputs).

import type { SimulationConfig } from "../core/types.ts";
import type { Statistics } from "../core/statistics.ts";
import type { MetricsOptions, ResourceMetrics } from "../core/metrics.ts";
import type { MachineInput } from "../io/_machine_demands.ts";
import { readCapacitySchedule } from "../io/capacity_schedule.ts";
import { withFailures } from "./_failure_options.ts";
import { powerConfigOf } from "./_power_options.ts";
import { machineModel } from "./_machine_run.ts";
import type { ParsedOptions } from "./options.ts";
import type { SimulateOptionName } from "./option_table.ts";
import { statisticsBlock } from "./report.ts";
import type { Console } from "./_console.ts";

/** A string option's value, or undefined. */
export function str(o: ParsedOptions, name: SimulateOptionName): string | undefined {
  const v = o.get(name);
  return typeof v === "string" ? v : undefined;
}

/** A number option's value, or undefined. */
export function num(o: ParsedOptions, name: SimulateOptionName): number | undefined {
  const v = o.get(name);
  return typeof v === "number" ? v : undefined;
}

/** What the configuration needs besides the options: what the inputs and outputs settled. */
export interface ConfigContext {
  readonly totalNodes: number;
  readonly admission: string;
  readonly runTimeMode: SimulationConfig["runTimeMode"];
  readonly queues: SimulationConfig["queues"] | undefined;
  readonly fairshare: unknown;
  readonly machine: MachineInput | undefined;
  readonly pcon: boolean;
  /** The first input replays a recorded schedule. */
  readonly replay?: boolean;
  /** Whether --decisions names a file. */
  readonly decisions: boolean;
  readonly startTime: number;
  readonly timezone: string;
  /** Where a --failure_model's drawn failures are written. */
  readonly failureTrace: (text: string) => void;
  /** False when no resource row is read (the engine then makes none). */
  readonly resourceRows: boolean;
}

/** The engine's configuration for a simulate run. */
export async function simulationConfigOf(
  o: ParsedOptions,
  c: ConfigContext,
): Promise<SimulationConfig> {
  const { totalNodes, machine, timezone } = c;
  return {
    totalNodes,
    backfillPolicy: o.get("no_compression") === true
      ? "conservative_profile_no_compression"
      : c.admission,
    ...(pickerOf(o) !== undefined ? { picker: pickerOf(o) } : {}),
    ...(c.queues !== undefined ? { queues: c.queues } : {}),
    ...(machine !== undefined ? { resourceModel: await machineModel(machine) } : {}),
    ...(c.fairshare !== undefined ? { pickerSettings: { fairshare: c.fairshare } } : {}),
    // A machine run's outputs read the allocations, a pcon run's power
    // timeline its starts, from DISPATCH rows.
    decisions: !c.decisions
      ? machine !== undefined || c.pcon ? "heads" : false
      : str(o, "decisions_detail") === "all"
      ? true
      : "heads",
    priorityPolicy: priorityOf(o),
    runTimeMode: c.runTimeMode,
    runTimeDistribution: str(o, "run_time_distribution") as SimulationConfig[
      "runTimeDistribution"
    ],
    runTimeScale: num(o, "run_time_scale"),
    runTimeStddev: num(o, "run_time_stddev"),
    seed: num(o, "seed") ?? 0,
    jobStoreCapacity: num(o, "job_store_capacity"),
    jobStoreOverflow: str(o, "job_store_overflow") as SimulationConfig["jobStoreOverflow"],
    jobFlushInterval: num(o, "job_flush_interval"),
    resourceHistoryCapacity: num(o, "resource_history_capacity"),
    startTime: c.startTime,
    capacitySchedule: await withFailures(
      o,
      machine,
      c.startTime,
      timezone,
      c.failureTrace,
      !o.has("capacity_schedule") ? undefined : machine !== undefined
        // A machine's schedule names nodes and groups (io/machine_capacity.ts).
        ? await (await import("../io/machine_capacity.ts")).readMachineSchedule(
          str(o, "capacity_schedule")!,
          timezone,
          machine.machine,
          machine.nodes,
        )
        : await readCapacitySchedule(str(o, "capacity_schedule")!, timezone, totalNodes),
    ),
    onCapacityCut: str(o, "on_capacity_cut") as SimulationConfig["onCapacityCut"],
    onNodeFailure: str(o, "on_node_failure") as SimulationConfig["onNodeFailure"],
    requeueLimit: num(o, "requeue_limit"),
    capacitySemantics: str(o, "capacity_semantics") as SimulationConfig["capacitySemantics"],
    ...(c.resourceRows ? {} : { resourceRows: false }),
    ...await powerConfigOf(o, timezone, {
      machine: machine?.machine,
      replay: c.replay === true,
    }),
  };
}

// `-p fairshare` names the fairshare picker (DR_EVT's priority policies name
// the others); --picker wins over it.
function pickerOf(o: ParsedOptions): string | undefined {
  return str(o, "picker") ?? (str(o, "priority_policy") === "fairshare" ? "fairshare" : undefined);
}

function priorityOf(o: ParsedOptions): SimulationConfig["priorityPolicy"] {
  const p = str(o, "priority_policy") ?? "fcfs";
  return (p === "fairshare" ? "fcfs" : p) as SimulationConfig["priorityPolicy"];
}

/** The files a `--report` reads and writes, and how it is made. */
export interface RunReport {
  /** The schedule's name as given (the report's label). */
  readonly schedulePath: string;
  readonly schedule: string;
  readonly resources: string;
  readonly report: string;
  /** On a machine: its figures, as the stats JSON has them. */
  readonly machineRun: ResourceMetrics | undefined;
  readonly paths: readonly string[];
  readonly metricsOptions: MetricsOptions;
}

/** `--report`: the HTML report of the run, read back from the files just written. */
export async function writeRunReport(o: ParsedOptions, r: RunReport): Promise<void> {
  // ECharts loads only here.
  const { optionsLine, writeReport } = await import("./report_command.ts");
  await writeReport(
    [{
      label: r.schedulePath.replace(/^.*\//, "").replace(/\.csv$/i, ""),
      schedule: r.schedule,
      resources: r.resources,
      ...(r.machineRun === undefined ? {} : { resourceMetrics: r.machineRun }),
    }],
    r.report,
    {
      ...(r.paths.length === 1 ? { trace: r.paths[0] } : {}),
      runOptions: [optionsLine(Object.fromEntries(o))],
      metrics: r.metricsOptions,
    },
  );
}

/** The output files a run names (undefined: not asked for). */
export interface NamedOutputs {
  readonly schedule: string;
  readonly resources: string;
  readonly submissions: string | undefined;
  readonly statsJson: string | undefined;
  readonly decisions: string | undefined;
  readonly report: string | undefined;
}

/** The lines a run ends with: its statistics, then where each output went. */
export function printRunSummary(
  con: Console,
  stats: Statistics,
  msec: boolean,
  wall: number,
  readSeconds: number,
  sink: { key(name: string): string } | undefined,
  named: NamedOutputs,
): void {
  for (const line of statisticsBlock(stats, msec, wall, readSeconds)) con.out(line);
  if (sink !== undefined) {
    con.out(`Schedule written to Redis key: ${sink.key("csv")}`);
    con.out(`Resource timeline written to Redis key: ${sink.key("resources:csv")}`);
    con.out(`Statistics JSON written to Redis key: ${sink.key("stats_json")}`);
  } else {
    con.out(`Schedule written to: ${named.schedule}`);
    con.out(`Resource timeline written to: ${named.resources}`);
  }
  if (named.submissions !== undefined) {
    con.out(`Submission statistics written to: ${named.submissions}`);
  }
  if (named.statsJson !== undefined) con.out(`Statistics JSON written to: ${named.statsJson}`);
  if (named.decisions !== undefined) con.out(`Decisions written to: ${named.decisions}`);
  if (named.report !== undefined) con.out(`Report written to: ${named.report}`);
}
