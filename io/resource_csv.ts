// The resource timeline CSV: a baseline row, then one row per start or end.

import type { ResourceRow } from "../core/types.ts";
import type { RowSink } from "./schedule_csv.ts";
import { formatTime, wholeSeconds } from "./time_format.ts";

/** The header line (without newline). */
export const RESOURCE_HEADER = "time,free_nodes,allocated_nodes";

/**
 * One data line (without newline).
 *
 * @example
 * ```ts
 * import { resourceLine } from "./resource_csv.ts";
 * console.assert(resourceLine({ time: 10, freeNodes: 5, allocatedNodes: 95 }, false) === "10,5,95");
 * ```
 */
export function resourceLine(r: ResourceRow, msec: boolean): string {
  return `${formatTime(r.time, msec)},${r.freeNodes},${r.allocatedNodes}`;
}

/**
 * Writes {@link resourceLine}'s line and a newline into `out`; in whole
 * seconds without building the line as a string (the same bytes).
 */
export function writeResourceLine(out: RowSink, r: ResourceRow, msec: boolean): void {
  if (msec) {
    out.text(resourceLine(r, msec));
    out.char(10);
    return;
  }
  out.number(wholeSeconds(r.time));
  out.char(44);
  out.number(r.freeNodes);
  out.char(44);
  out.number(r.allocatedNodes);
  out.char(10);
}
