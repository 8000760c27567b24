// Writing a simulation's rows as DR_EVT's CSV files, for library users: the
// schedule (one row per finished job) and the resource timeline, as whole
// texts or line by line from a sink. The layout is the `evtsim` command's.

import type { JobRow, ResourceRow } from "../core/types.ts";
import { RESOURCE_HEADER, resourceLine } from "./resource_csv.ts";
import { type ScheduleCsvOptions, scheduleHeader, scheduleLine } from "./schedule_csv.ts";

export type { ScheduleCsvOptions };

/**
 * Layout of the resource timeline CSV.
 *
 * @example
 * ```ts
 * import { resourceCsvLine, type ResourceCsvOptions } from "@evtsim/evtsim/io";
 * const msec: ResourceCsvOptions = { msec: true };
 * console.assert(resourceCsvLine({ time: 1.5, freeNodes: 2, allocatedNodes: 6 }, msec) === "1.500,2,6");
 * ```
 */
export interface ResourceCsvOptions {
  /** Three decimals instead of whole seconds. */
  readonly msec?: boolean;
}

/**
 * The schedule CSV's header line (no newline): DR_EVT's columns, with the
 * queue column only when `queueColumn` names one.
 *
 * @example
 * ```ts
 * import { scheduleCsvHeader } from "@evtsim/evtsim/io";
 * console.assert(
 *   scheduleCsvHeader({ queueColumn: "queue" }) ===
 *     "job_submit_time,begin_time,end_time,num_nodes,exit_status,queue,time_limit",
 * );
 * ```
 */
export function scheduleCsvHeader(options: ScheduleCsvOptions = {}): string {
  return scheduleHeader(options);
}

/**
 * One job row as a schedule CSV line (no newline). Times are whole seconds
 * (truncated) unless `msec`.
 *
 * @example
 * ```ts
 * import { Simulation } from "@evtsim/evtsim";
 * import { scheduleCsvHeader, scheduleCsvLine } from "@evtsim/evtsim/io";
 * // Write the schedule as rows become final, e.g. to a file's writer.
 * const lines = [scheduleCsvHeader()];
 * const sim = new Simulation({ totalNodes: 8 }, { onJobRow: (r) => lines.push(scheduleCsvLine(r)) });
 * sim.appendJob({ submitTime: 0, numNodes: 8, timeLimit: 60.5 });
 * sim.finish();
 * console.assert(lines[1] === "0,0,60,8,0,60");
 * ```
 */
export function scheduleCsvLine(row: JobRow, options: ScheduleCsvOptions = {}): string {
  return scheduleLine(row, options);
}

/**
 * A whole schedule CSV file: the header and one line per row, each ending
 * in a newline.
 *
 * @example
 * ```ts
 * import { Simulation } from "@evtsim/evtsim";
 * import { scheduleCsv } from "@evtsim/evtsim/io";
 * const sim = new Simulation({ totalNodes: 8 });
 * sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, { submitTime: 0, numNodes: 8, timeLimit: 10 }]);
 * const text = scheduleCsv(sim.finish().jobs);
 * console.assert(text.endsWith("\n0,0,10,8,0,10\n0,10,20,8,0,10\n"));
 * ```
 */
export function scheduleCsv(rows: Iterable<JobRow>, options: ScheduleCsvOptions = {}): string {
  const out = [scheduleHeader(options)];
  for (const r of rows) out.push(scheduleLine(r, options));
  return out.join("\n") + "\n";
}

/**
 * The resource timeline CSV's header line (no newline).
 *
 * @example
 * ```ts
 * import { resourceCsvHeader } from "@evtsim/evtsim/io";
 * console.assert(resourceCsvHeader() === "time,free_nodes,allocated_nodes");
 * ```
 */
export function resourceCsvHeader(): string {
  return RESOURCE_HEADER;
}

/**
 * One resource row as a CSV line (no newline).
 *
 * @example
 * ```ts
 * import { resourceCsvLine } from "@evtsim/evtsim/io";
 * console.assert(resourceCsvLine({ time: 10, freeNodes: 5, allocatedNodes: 95 }) === "10,5,95");
 * ```
 */
export function resourceCsvLine(row: ResourceRow, options: ResourceCsvOptions = {}): string {
  return resourceLine(row, options.msec === true);
}

/**
 * A whole resource timeline CSV file: the header and one line per row,
 * each ending in a newline.
 *
 * @example
 * ```ts
 * import { Simulation } from "@evtsim/evtsim";
 * import { resourceCsv } from "@evtsim/evtsim/io";
 * const sim = new Simulation({ totalNodes: 8 });
 * sim.appendJob({ submitTime: 0, numNodes: 6, timeLimit: 10 });
 * const text = resourceCsv(sim.finish().resources);
 * console.assert(text === "time,free_nodes,allocated_nodes\n0,8,0\n0,2,6\n10,8,0\n");
 * ```
 */
export function resourceCsv(rows: Iterable<ResourceRow>, options: ResourceCsvOptions = {}): string {
  const out = [RESOURCE_HEADER];
  for (const r of rows) out.push(resourceLine(r, options.msec === true));
  return out.join("\n") + "\n";
}
