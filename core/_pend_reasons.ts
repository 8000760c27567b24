// Why waiting jobs have not started: the reasons a scheduling round at the
// clock would give them, from a probe round on a copy of the state.
// Exported by core/queries.ts.

import { EvtsimError } from "./errors.ts";
import { Working } from "./_engine.ts";
import type { PendReason } from "./decisions.ts";
import { emptyPendCodes, type SimState } from "./state.ts";

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
  if (!state.runMode.decides || state.finished) return reasons;
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
