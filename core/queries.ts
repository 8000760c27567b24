// Read-only monitors over a state: what DR_EVT's get_* calls report.

import { EvtsimError } from "./errors.ts";
import { Working } from "./_engine.ts";
import type { PendReason } from "./decisions.ts";
import { reservationTime } from "./running.ts";
import { emptyPendCodes, type SimState } from "./state.ts";
import type { JobRecord } from "./types.ts";
import { unplaceableCache } from "./_unplaceable.ts";
import { holdCapacity, holdReason } from "./_hold_rule.ts";
import { type ModelReservation, modelReservation, readyWaitingJobs } from "./_model_shadow.ts";
import { type Statistics, summarize } from "./statistics.ts";
import { jobHoldings, machineRoom } from "./_machine_room.ts";

/**
 * Nodes free now (usable capacity minus allocated, never negative). On a
 * machine (a resource model that names its nodes), where a job asking for
 * cores, memory or GPUs holds no share of the node count, the nodes online
 * that hold no job (idle): the whole nodes free; {@link backfillWindow}
 * adds the nodes with any room and the free units of each resource.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, availableNodes, initialState, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 10 }), appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 9 }])).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(availableNodes(s) === 6);
 * ```
 */
export function availableNodes(state: SimState): number {
  if (state.resources !== undefined) {
    const room = machineRoom(state);
    if (room !== undefined) return room.idle;
  }
  const free = state.capacity - state.allocatedNodes;
  return free > 0 ? free : 0;
}

/**
 * Nodes holding a running job. On whole nodes, the nodes allocated; on a
 * machine (a resource model that names its nodes), where a job asking for
 * cores, memory or GPUs holds no share of the node count, the nodes a job
 * runs on (online or draining), however little of each it takes.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, nodesInUse, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 10 }), appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 9 }])).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(nodesInUse(s) === 4);
 * ```
 */
export function nodesInUse(state: SimState): number {
  if (state.resources !== undefined) {
    const room = machineRoom(state);
    if (room !== undefined) return room.busy + room.draining;
  }
  return state.allocatedNodes;
}

/**
 * Eligible jobs waiting in the scheduler's queue (arrived, not started).
 *
 * @example
 * ```ts
 * import { activeJobCount, advanceTo, appendJobs, initialState, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 9 }, { submitTime: 0, numNodes: 10, timeLimit: 9 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(activeJobCount(s) === 1);
 * ```
 */
export function activeJobCount(state: SimState): number {
  return state.replay ? 0 : state.picker.size(state.pickerState);
}

/**
 * Statistics of the run so far: wait, turnaround, bounded slowdown,
 * utilization, makespan and job counts.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, runToCompletion, statistics, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 10 }, { submitTime: 0, numNodes: 10, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, runToCompletion()).state;
 * console.assert(statistics(s).averageWait === 5 && statistics(s).utilization === 1);
 * ```
 */
export function statistics(state: SimState): Statistics {
  return summarize(state.stats, {
    currentTime: state.time,
    totalNodes: state.config.totalNodes,
    nodesInUse: nodesInUse(state),
    jobsRunning: state.running.size,
    jobsWaiting: activeJobCount(state) + state.arrivals.size,
    jobsHeld: heldJobCount(state),
  });
}

/**
 * Waiting jobs that need more nodes than the machine has now, and on a
 * resource model the jobs that do not fit its online nodes or can never be
 * placed at all (all held with `exceeds_capacity`); 0 under
 * `capacitySemantics: "drevt"` (which holds no job).
 *
 * @example
 * ```ts
 * import { heldJobCount, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 8, capacitySchedule: [{ time: 0, capacity: 4 }] });
 * sim.appendJobs([{ submitTime: 0, numNodes: 6, timeLimit: 10 }, { submitTime: 0, numNodes: 2, timeLimit: 10 }]);
 * sim.advanceTo(0);
 * // Job 0 cannot run on 4 nodes: it is held, and job 1 goes ahead.
 * if (heldJobCount(sim.state) !== 1 || sim.statistics().jobsHeld !== 1) throw new Error("held");
 * ```
 */
export function heldJobCount(state: SimState): number {
  // DR_EVT's rules hold no job: one that does not fit blocks the queue.
  if (state.replay || state.config.capacitySemantics === "drevt") return 0;
  const capacity = holdCapacity(state.capacity, state.config.totalNodes, false);
  // On a machine: a demand job the model can never place (unless the policy
  // is offered it), or that does not fit the nodes online, is held as well:
  // the round's own rule (core/_hold_rule.ts).
  const res = state.resources;
  if (capacity === Infinity && res === undefined) return 0;
  const never = res === undefined || state.admission.offersUnplaceable === true
    ? undefined
    : unplaceableCache(res.model);
  let held = 0;
  for (const job of state.picker.pending(state.pickerState)) {
    if (holdReason(capacity, res?.model, res?.state, never, job) !== undefined) held++;
  }
  return held;
}

/**
 * The waiting head job's reservation (shadow time), or −1 when nothing waits.
 * On a machine (a resource model) it is the time EASY reserves for its head
 * over all the machine's resources (see {@link headReservation}), and −1 as
 * well when every waiting job is held (it can never be placed as things are).
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, headShadowTime, initialState, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 30 }, { submitTime: 0, numNodes: 5, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(headShadowTime(s) === 30);
 * ```
 */
export function headShadowTime(state: SimState): number {
  if (state.resources !== undefined) {
    return modelReservation(state, state.resources)?.shadowTime ?? -1;
  }
  const head = headJob(state);
  if (head === undefined) return -1;
  return reservationTime(head.numNodes, availableNodes(state), state.running, state.time);
}

/**
 * The head and its reservation: on whole nodes {@link headJob} and
 * {@link headShadowTime}; on a machine (a resource model) EASY's head — the
 * first waiting job of a ready queue that is not held — and the shadow time
 * EASY computes for it over every resource of the machine (running jobs
 * released by projected end until the model can place it), the time its
 * `reservation_blocked` reasons name. When every waiting job is held, the
 * first of them with its hold's reason (`exceeds_capacity`) instead of a
 * time; undefined when nothing waits.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, step, topologyCluster } from "@evtsim/evtsim";
 * import { headReservation } from "./queries.ts";
 * const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, { name: "n2", capacity: { cpu: 8 } }]);
 * const job = (cpu: number, limit: number) => ({
 *   submitTime: 0, numNodes: 0, timeLimit: limit, demand: { replicas: 1, perReplica: { cpu } },
 * });
 * let s = initialState({ totalNodes: 2, resourceModel: model, backfillPolicy: "easy" });
 * s = step(s, appendJobs([job(6, 30), job(6, 50), job(4, 100), job(9, 10)])).state;
 * s = step(s, advanceTo(0)).state;
 * // Job 2 waits for 4 cpu: job 0's node frees them at 30 (whole nodes would say 0 nodes are needed).
 * const r = headReservation(s);
 * if (r?.job.id !== 2 || r.shadowTime !== 30) throw new Error(JSON.stringify(r));
 * ```
 */
export function headReservation(state: SimState): ModelReservation | undefined {
  if (state.resources !== undefined) return modelReservation(state, state.resources);
  const job = headJob(state);
  return job === undefined ? undefined : { job, shadowTime: headShadowTime(state) };
}

/**
 * The head: the first waiting job, in the picker's order, of a queue that may
 * start jobs now (undefined when there is none).
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, headJob, initialState, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 30 }, { submitTime: 0, numNodes: 5, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(headJob(s)?.id === 1);
 * ```
 */
export function headJob(state: SimState): JobRecord | undefined {
  for (const job of readyWaitingJobs(state)) return job;
  return undefined;
}

/**
 * Why a waiting job has not started: the reason a scheduling round at the
 * clock would give it now ("why is my job waiting?"). Undefined when the job
 * is not waiting (not arrived yet, running, finished) or would start in that
 * round; a job id that was never created is a `state` {@link EvtsimError}
 * ("no job 7: the jobs so far are 0..1"), so a typo is not taken for a
 * running job. Costs one round's walk over the waiting jobs; nothing changes.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, pendingReason, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 30 }, { submitTime: 0, numNodes: 5, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(pendingReason(s, 1)?.message === "needs 5 nodes, 0 free");
 * console.assert(pendingReason(s, 0) === undefined); // running
 * let unknown = "";
 * try {
 *   pendingReason(s, 7);
 * } catch (e) {
 *   unknown = (e as Error).message;
 * }
 * console.assert(unknown === "no job 7: the jobs so far are 0..1");
 * ```
 */
export function pendingReason(state: SimState, id: number): PendReason | undefined {
  if (!Number.isSafeInteger(id) || id < 0 || id >= state.nextJobId) {
    throw new EvtsimError(
      "state",
      `no job ${id}: ${
        state.nextJobId === 0
          ? "no job has been created yet"
          : `the jobs so far are 0..${state.nextJobId - 1}`
      }`,
    );
  }
  return waitingReasons(state).get(id);
}

/**
 * Why each waiting job has not started: {@link pendingReason} for every
 * waiting job at once, from one probe round (a job the round would start
 * has no entry).
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, step } from "@evtsim/evtsim";
 * import { waitingReasons } from "./queries.ts";
 * const jobs = [{ submitTime: 0, numNodes: 10, timeLimit: 30 }, { submitTime: 0, numNodes: 5, timeLimit: 10 }];
 * let s = step(initialState({ totalNodes: 10 }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert([...waitingReasons(s).keys()].join() === "1");
 * ```
 */
export function waitingReasons(state: SimState): Map<number, PendReason> {
  const reasons = new Map<number, PendReason>();
  if (state.replay || state.finished) return reasons;
  const probe = new Working({
    ...state,
    config: { ...state.config, decisions: true },
    pendCodes: emptyPendCodes(),
  });
  probe.scheduleUntilStalled();
  for (const d of probe.decisionRows) {
    if (d.type === "PEND") reasons.set(d.jobId, d.reason);
    else reasons.delete(d.jobId);
  }
  return reasons;
}

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

export { reservationTime };
