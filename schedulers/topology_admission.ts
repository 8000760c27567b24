// TopoQueue's two admission policies, on evtsim's admission contract. Both
// take the waiting jobs in the picker's order (with `builtin_fcfs`: arrival,
// then id) and ask the session where each can be placed (`s.place`: the
// resource model, e.g. a topology cluster, or the node-count pool). Each
// looks at every candidate once per scheduling round (`singleSession`), as
// TopoQueue runs one admission cycle per event tick. Both are offered the
// jobs the cluster can never hold (`offersUnplaceable`), as TopoQueue reports
// each with its reason and its strict FIFO blocks behind one.

import type { Admission } from "../core/admission.ts";
import type { PendReason } from "../core/decisions.ts";
import { headOfLineBlocked } from "./topology_reasons.ts";

/**
 * `strict-fifo`: start jobs in order while each can be placed; the first
 * that cannot blocks every job behind it (`head_of_line_blocked`).
 *
 * @example
 * ```ts
 * import { Simulation, strictFifoAdmission } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: strictFifoAdmission });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ]);
 * // Job 2 would fit beside job 0, but job 1 blocks the head of the line.
 * if (sim.finish().jobs.map((r) => r.beginTime).join() !== "0,100,110") throw new Error("strict FIFO");
 * ```
 */
export const strictFifoAdmission: Admission = {
  name: "strict-fifo",
  singleSession: true,
  offersUnplaceable: true,
  runSession(s) {
    let blocked: PendReason | undefined;
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (blocked !== undefined) {
        s.pend(job, blocked);
        continue;
      }
      const r = s.place(job);
      if (r.placement === undefined) {
        s.pend(job, r.reason);
        // Without a verdict for every waiting job, the jobs behind the head need none.
        if (s.search !== undefined) return;
        blocked = Object.freeze(headOfLineBlocked(job));
      } else s.dispatch(job, false);
    }
  },
};

/**
 * `backfill` (TopoQueue's): one greedy pass in order, starting every job
 * that can be placed now and keeping the others waiting with their reason;
 * no reservation, so a large job can wait behind later small ones for ever.
 *
 * @example
 * ```ts
 * import { greedyBackfillAdmission, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: greedyBackfillAdmission });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 200 },
 * ]);
 * // Job 2 starts at once although it delays job 1 past job 0's end: no reservation.
 * if (sim.finish().jobs.map((r) => r.beginTime).join() !== "0,200,0") throw new Error("greedy");
 * ```
 */
export const greedyBackfillAdmission: Admission = {
  name: "backfill",
  singleSession: true,
  offersUnplaceable: true,
  runSession(s) {
    let passed = false;
    for (let job = s.next(); job !== undefined; job = s.next()) {
      const r = s.place(job);
      if (r.placement === undefined) {
        s.pend(job, r.reason);
        passed = true;
      } else s.dispatch(job, passed);
    }
  },
};
