// The resource timeline CSV: a baseline row, then one row per start or end.

import type { ResourceRow } from "../core/types.ts";
import { formatTime } from "./time_format.ts";

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
