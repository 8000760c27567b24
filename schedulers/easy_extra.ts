// `easy_extra`: EASY backfilling as the literature defines it (Lifka 1995;
// Mu'alem & Feitelson 2001), with the "extra nodes" rule DR_EVT's EASY lacks.
//
// Candidates start in the picker's order while they fit. The first that does
// not fit (the head) gets a reservation at its shadow time: the earliest
// projected end (start + time limit) of running jobs at which enough nodes
// are free for it. The extra nodes are those free at the shadow time that the
// head will not need: free now + nodes of running jobs projected to end by
// the shadow time − the head's nodes. A later candidate starts now if it fits
// the free nodes and either ends (by its limit) by the shadow time
// (`now + limit <= shadow`), or needs no more than the extra nodes (while
// any is left), which then shrink by its nodes. The shadow time and the extra nodes are computed
// once per pass; neither changes as jobs that obey the rule start.
//
// When the projected ends of the running jobs never free enough nodes for the
// head (a running job has overrun its limit), no reservation can be made and
// nothing is backfilled in that pass.
//
// Two paths with the same decisions: a walk over every candidate (pending
// each with its reason) and, when the picker offers an indexed search and no
// per-job decisions are recorded, a search that skips candidates that do not
// fit the free nodes (and, when no extra node is left, those that would end
// after the shadow time).

import type { Admission, AdmissionSession } from "../core/admission.ts";
import { pendReasons } from "../core/decisions.ts";
import { runningNow } from "../core/_session.ts";
import { reservationTime, type RunningSet } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";
import { easyOnResources } from "./_easy_resources.ts";

/** Starts heads while they fit; returns the first candidate that does not (the head). */
function startHeads(s: AdmissionSession): JobRecord | undefined {
  for (let job = s.next(); job !== undefined; job = s.next()) {
    if (job.numNodes > s.free) {
      s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, s.free), "insufficient_nodes");
      return job;
    }
    s.dispatch(job, false);
  }
  return undefined;
}

/**
 * The head's shadow time and the extra nodes at it, or undefined when the
 * projected ends never free enough nodes for the head.
 */
function shadowAndExtra(
  headNodes: number,
  free: number,
  running: RunningSet,
  now: number,
): { shadow: number; extra: number } | undefined {
  const shadow = reservationTime(headNodes, free, running, now);
  if (shadow <= now) return undefined;
  let atShadow = free;
  for (const r of running.values()) {
    if (r.projectedEnd > shadow) break;
    if (r.projectedEnd > now) atShadow += r.numNodes;
  }
  return { shadow, extra: atShadow - headNodes };
}

/**
 * `easy_extra`: textbook EASY backfilling with the extra-nodes rule: a later
 * job starts now if it fits and either ends by the head's shadow time or uses
 * only nodes the head will not need then.
 *
 * @example
 * ```ts
 * import { easyExtraBackfill, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: easyExtraBackfill });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 2, timeLimit: 500 },
 * ]);
 * // Job 1 needs 8 of the 10 nodes at 100: 2 are extra, so job 2 starts at once
 * // although it runs past job 1's reservation (DR_EVT's EASY would hold it back).
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,100,0") throw new Error(begins);
 * ```
 */
export const easyExtraBackfill: Admission = {
  name: "easy_extra",
  promise: "head",
  searchesByLimit: true,
  runSession(s) {
    // On a resource model: the same rule over every resource (_easy_resources.ts).
    const res = s.resources;
    if (res !== undefined) return easyOnResources(s, res, true);
    const head = startHeads(s);
    if (head === undefined) return;
    const now = s.now;
    const plan = shadowAndExtra(head.numNodes, s.free, runningNow(s), now);
    if (plan === undefined) {
      if (s.search !== undefined) return;
      for (let job = s.next(); job !== undefined; job = s.next()) {
        const free = s.free;
        // A job that does not fit waits for nodes whatever the head's plan.
        if (job.numNodes > free) {
          s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, free));
          continue;
        }
        s.pend(
          job,
          () =>
            pendReasons.reservationBlocked(job.numNodes, free, now + job.timeLimit, now, head.id),
        );
      }
      return;
    }
    const shadow = plan.shadow;
    let extra = plan.extra;
    const byShadow = (limit: number) => now + limit <= shadow;
    if (s.search !== undefined) {
      for (;;) {
        const free = s.free;
        // With no extra node left, only jobs that end by the shadow (or use
        // no node) may start; otherwise any job that fits may qualify.
        const next = extra > 0
          ? s.search.nextFitting(free, () => true)
          : s.search.nextFitting(free, byShadow);
        if (next === undefined) return;
        if (byShadow(next.timeLimit)) s.dispatch(next, true);
        else if (extra > 0 && next.numNodes <= extra) {
          extra -= next.numNodes;
          s.dispatch(next, true);
        }
      }
    }
    for (let job = s.next(); job !== undefined; job = s.next()) {
      const free = s.free;
      if (job.numNodes > free) {
        s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, free));
      } else if (byShadow(job.timeLimit)) s.dispatch(job, true);
      else if (extra > 0 && job.numNodes <= extra) {
        extra -= job.numNodes;
        s.dispatch(job, true);
      } else {
        s.pend(
          job,
          () =>
            pendReasons.reservationBlocked(
              job.numNodes,
              free,
              now + job.timeLimit,
              shadow,
              head.id,
            ),
        );
      }
    }
  },
};
