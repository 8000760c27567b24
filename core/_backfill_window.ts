// The backfill window (DR_EVT's get_backfill_window): free nodes, the head's
// shadow time and the releases projected up to it; on a machine also the
// nodes with room and the free units. Exported by core/queries.ts.

import type { SimState } from "./state.ts";
import { jobHoldings, machineRoom } from "./_machine_room.ts";
import { availableNodes } from "./_node_counts.ts";
import { headShadowTime } from "./_head_reservation.ts";

/**
 * A projected release of nodes, merged per time.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, backfillWindow, initialState, type ProjectedRelease, step } from "@evtsim/evtsim";
 * const job = (numNodes: number, timeLimit: number) => ({ submitTime: 0, numNodes, timeLimit });
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job(3, 20), job(3, 20), job(2, 50), job(8, 10)])).state;
 * s = step(s, advanceTo(0)).state;
 * const releases: readonly ProjectedRelease[] = backfillWindow(s).releases;
 * // Jobs 0 and 1 both end by 20: one merged release of 6 nodes, then job 2's 2 nodes at 50.
 * const seen = releases.map((r) => `${r.time}:${r.nodesReleased}`).join(" ");
 * if (seen !== "20:6 50:2") throw new Error(seen);
 * ```
 */
export interface ProjectedRelease {
  /** When the nodes are expected back (begin + time limit). */
  readonly time: number;
  /**
   * How many nodes come back then; on a machine, the nodes the jobs ending
   * then run on (each once), where their units come back.
   */
  readonly nodesReleased: number;
  /** On a machine: units of each resource that come back then. */
  readonly unitsReleased?: Readonly<Record<string, number>>;
}

/**
 * The backfill window as DR_EVT's get_backfill_window reports it.
 *
 * @example
 * ```ts
 * import { type BackfillWindow, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10 });
 * sim.appendJobs([{ submitTime: 0, numNodes: 6, timeLimit: 30 }, { submitTime: 0, numNodes: 8, timeLimit: 10 }]);
 * sim.advanceTo(5);
 * const w: BackfillWindow = sim.backfillWindow();
 * // Job 1 waits for job 0's 6 nodes, due back at 30: a job of ≤ 4 nodes ending before 30 may backfill.
 * if (w.currentTime !== 5 || w.availableNodes !== 4 || w.shadowTime !== 30) throw new Error("window");
 * if (w.releases.length !== 1 || w.releases[0].time !== 30) throw new Error("releases");
 * ```
 */
export interface BackfillWindow {
  /** The simulation clock. */
  readonly currentTime: number;
  /** Nodes free now; on a machine, the nodes online that hold no job (idle). */
  readonly availableNodes: number;
  /** The head's shadow time, or −1 when nothing waits. */
  readonly shadowTime: number;
  /** Limit-based releases after now, up to the shadow time (all when nothing waits). */
  readonly releases: readonly ProjectedRelease[];
  /**
   * On a machine: the nodes online with some unit of a resource free — the
   * idle ones and those partly used (Slurm's "mixed").
   */
  readonly nodesWithRoom?: number;
  /** On a machine: the nodes online that hold no job (= `availableNodes` there). */
  readonly idleNodes?: number;
  /** On a machine: units of each resource free on the nodes online, by resource name. */
  readonly freeUnits?: Readonly<Record<string, number>>;
}

/**
 * Free nodes now, the head's shadow time and the projected releases up to it.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, backfillWindow, initialState, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 6, timeLimit: 30 }, { submitTime: 0, numNodes: 8, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * const w = backfillWindow(s);
 * console.assert(w.shadowTime === 30 && w.releases[0].nodesReleased === 6);
 * ```
 */
export function backfillWindow(state: SimState): BackfillWindow {
  if (state.resources !== undefined) {
    const w = machineWindow(state);
    if (w !== undefined) return w;
  }
  const now = state.time;
  const free = availableNodes(state);
  const shadow = headShadowTime(state);
  const releases: ProjectedRelease[] = [];
  for (const r of state.running.values()) {
    if (r.projectedEnd <= now) continue;
    if (shadow >= 0 && r.projectedEnd > shadow) break;
    const last = releases[releases.length - 1];
    if (last !== undefined && last.time === r.projectedEnd) {
      releases[releases.length - 1] = {
        time: last.time,
        nodesReleased: last.nodesReleased + r.numNodes,
      };
    } else {
      releases.push({ time: r.projectedEnd, nodesReleased: r.numNodes });
    }
  }
  return { currentTime: now, availableNodes: free, shadowTime: shadow, releases };
}

// The backfill window on a machine: free units and nodes with room from the
// model, each release with the nodes and units of the jobs ending then.
function machineWindow(state: SimState): BackfillWindow | undefined {
  const room = machineRoom(state);
  const held = jobHoldings(state);
  if (room === undefined || held === undefined) return undefined;
  const now = state.time;
  const shadow = headShadowTime(state);
  const releases: { time: number; nodes: Set<string>; units: Record<string, number> }[] = [];
  for (const r of state.running.values()) {
    if (r.projectedEnd <= now) continue;
    if (shadow >= 0 && r.projectedEnd > shadow) break;
    const h = held(r.id);
    if (h === undefined) continue;
    let last = releases[releases.length - 1];
    if (last === undefined || last.time !== r.projectedEnd) {
      last = { time: r.projectedEnd, nodes: new Set(), units: {} };
      releases.push(last);
    }
    for (const n of h.nodes) last.nodes.add(n);
    for (const k in h.units) last.units[k] = (last.units[k] ?? 0) + h.units[k];
  }
  return {
    currentTime: now,
    availableNodes: room.idle,
    shadowTime: shadow,
    releases: releases.map((x) => ({
      time: x.time,
      nodesReleased: x.nodes.size,
      unitsReleased: x.units,
    })),
    nodesWithRoom: room.idle + room.mixed,
    idleNodes: room.idle,
    freeUnits: room.free,
  };
}
