// The waiting head and its reservation (DR_EVT's get_head_shadow_time): on
// whole nodes the node count's, on a machine EASY's over every resource
// (core/_model_shadow.ts). Exported by core/queries.ts.

import type { SimState } from "./state.ts";
import type { JobRecord } from "./types.ts";
import { reservationTime } from "./running.ts";
import { type ModelReservation, modelReservation, readyWaitingJobs } from "./_model_shadow.ts";
import { availableNodes } from "./_node_counts.ts";

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
