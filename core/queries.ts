// Read-only monitors over a state: what DR_EVT's get_* calls report.

import { reservationTime } from "./running.ts";
import type { SimState } from "./state.ts";
import { type Statistics, summarize } from "./statistics.ts";

/** Nodes free now (usable capacity minus allocated, never negative). */
export function availableNodes(state: SimState): number {
  const free = state.capacity - state.allocatedNodes;
  return free > 0 ? free : 0;
}

/** Eligible jobs waiting in the scheduler's queue. */
export function activeJobCount(state: SimState): number {
  return state.scheduler.size(state.queue);
}

/** Statistics of the run so far. */
export function statistics(state: SimState): Statistics {
  return summarize(state.stats, {
    currentTime: state.time,
    totalNodes: state.config.totalNodes,
    nodesInUse: state.allocatedNodes,
    jobsRunning: state.running.size,
    jobsWaiting: state.scheduler.size(state.queue) + state.arrivals.size,
  });
}

/** The head job's reservation (shadow time), or −1 when nothing waits. */
export function headShadowTime(state: SimState): number {
  return state.scheduler.shadowTime(state.queue, {
    now: state.time,
    freeNodes: availableNodes(state),
    running: state.running,
  });
}

/** A projected release of nodes, merged per time. */
export interface ProjectedRelease {
  readonly time: number;
  readonly nodesReleased: number;
}

/** The backfill window as DR_EVT's get_backfill_window reports it. */
export interface BackfillWindow {
  readonly currentTime: number;
  readonly availableNodes: number;
  /** The head's shadow time, or −1 when nothing waits. */
  readonly shadowTime: number;
  /** Limit-based releases after now, up to the shadow time (all when nothing waits). */
  readonly releases: readonly ProjectedRelease[];
}

/** Free nodes now, the head's shadow time and the projected releases up to it. */
export function backfillWindow(state: SimState): BackfillWindow {
  const now = state.time;
  const free = availableNodes(state);
  const shadow = headShadowTime(state);
  const releases: ProjectedRelease[] = [];
  for (const r of state.running.values()) {
    if (r.projectedEnd <= now) continue;
    if (shadow >= 0 && r.projectedEnd > shadow) break;
    const last = releases[releases.length - 1];
    if (last !== undefined && last.time === r.projectedEnd) {
      releases[releases.length - 1] = { time: last.time, nodesReleased: last.nodesReleased + r.numNodes };
    } else {
      releases.push({ time: r.projectedEnd, nodesReleased: r.numNodes });
    }
  }
  return { currentTime: now, availableNodes: free, shadowTime: shadow, releases };
}

export { reservationTime };
