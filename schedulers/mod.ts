// Picks the scheduler for a (priority, backfill) pair with DR_EVT's mapping.

import type { BackfillPolicy, PriorityPolicy } from "../core/types.ts";
import { fcfsScheduler } from "./fcfs.ts";
import type { Scheduler } from "./scheduler.ts";
import { limitOrderedScheduler } from "./sjf.ts";

export type { Scheduler, ScheduleResult, SchedulingContext } from "./scheduler.ts";
export { fcfsScheduler } from "./fcfs.ts";
export { limitOrderedScheduler } from "./sjf.ts";

/**
 * The scheduler for a policy pair. DR_EVT runs EASY for `fcfs` +
 * `conservative` (only its `fcfs_conservative` queue does conservative
 * backfilling); evtsim runs real CONSERVATIVE there, because that is what the
 * flag says. Use `easy` to reproduce DR_EVT's behaviour for that pair.
 *
 * | priority | backfill | runs |
 * | --- | --- | --- |
 * | fcfs, fcfs_alt, fcfs_conservative | none | FCFS, heads only |
 * | fcfs, fcfs_alt, fcfs_conservative | easy | EASY |
 * | fcfs, fcfs_alt, fcfs_conservative | conservative | CONSERVATIVE |
 * | sjf / ljf | easy or conservative | SJF / LJF backfill candidates |
 * | sjf / ljf | none | oldest job only |
 */
export function schedulerFor(
  priority: PriorityPolicy,
  backfill: BackfillPolicy,
  // deno-lint-ignore no-explicit-any
): Scheduler<any> {
  switch (priority) {
    case "fcfs":
    case "fcfs_alt":
    case "fcfs_conservative":
      return fcfsScheduler(backfill);
    case "sjf":
      return limitOrderedScheduler(false, backfill !== "none");
    case "ljf":
      return limitOrderedScheduler(true, backfill !== "none");
  }
}
