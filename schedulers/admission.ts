// The three built-in admission policies, as DR_EVT defines them:
//
// - `none`: candidates start in the picker's order while they fit; the first
//   that does not fit blocks everything behind it.
// - `easy`: the same heads; the first that does not fit (the head) gets a
//   reservation at its shadow time; a later candidate starts if it fits the
//   free nodes now and ends (by its limit) before the shadow time — strictly,
//   or by it for pickers with `backfillEndsByShadow` (DR_EVT's SJF/LJF). The
//   shadow is not recomputed during the pass and there is no "extra nodes"
//   rule. No backfill pass runs when no node is free.
// - `conservative`: a later candidate starts only if it fits now and ends
//   before the reservation of every waiting job ahead of it; a reservation
//   only grows with the node count, so that is the reservation of the
//   smallest job ahead. A job ahead that fits the free nodes has its
//   reservation now, so the first fitting candidate that cannot start blocks
//   the rest.
//
// Each policy has two paths with the same decisions: a walk over every
// candidate (pending each with its reason), and, when the picker offers an
// indexed search and no per-job decisions are recorded, a search that skips
// candidates that cannot start.

import type { Admission, AdmissionSession } from "../core/admission.ts";
import { pendReasons } from "../core/decisions.ts";
import { runningNow } from "../core/_session.ts";
import { reservationTime, type RunningSet } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";
import { easyOnResources } from "./_easy_resources.ts";
import { drevtConservativeOnModel } from "./_conservative_resources.ts";

/** Starts heads while they fit; returns the first candidate that does not (the head). */
function startHeads(s: AdmissionSession): JobRecord | undefined {
  for (let job = s.next(); job !== undefined; job = s.next()) {
    if (job.numNodes > s.free) {
      // Pended again every round while it waits: the code spares building the same reason.
      s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, s.free), "insufficient_nodes");
      return job;
    }
    // A job a resource model places (no nodes of the pool, a demand) starts only where it fits.
    if (job.demand !== undefined) {
      const r = s.place(job);
      if (r.placement === undefined) {
        s.pend(job, r.reason);
        return job;
      }
    }
    s.dispatch(job, false);
  }
  return undefined;
}

/** Pends every remaining candidate behind a blocked head (`none`). */
function pendRest(s: AdmissionSession, head: JobRecord): void {
  if (s.search !== undefined) return;
  for (let job = s.next(); job !== undefined; job = s.next()) {
    s.pend(job, () => pendReasons.behindHead(head.id));
  }
}

/**
 * `none`: first come, first served in the picker's order, no backfilling.
 *
 * @example
 * ```ts
 * import { noBackfill, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: noBackfill });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ]);
 * // Job 2 would fit beside job 0, but may not pass the waiting job 1.
 * if (sim.finish().jobs[2].beginTime !== 110) throw new Error("no backfill");
 * ```
 */
export const noBackfill: Admission = {
  name: "none",
  promise: "head",
  runSession(s) {
    const head = startHeads(s);
    if (head !== undefined) pendRest(s, head);
  },
};

// EASY's follow-up session. The core runs another session right after one
// that started jobs, at the same clock with nothing in between. With a stable
// order on the indexed path (FCFS's boundary, no resource model) that one
// starts nothing, so it is skipped: its head is the same blocked job, pended
// again with the same code (no new decision); its shadow is the same (the
// jobs backfilled end after now and before it, so they add as many nodes to
// the deficit as they release before it); and the free nodes only went down,
// so no job the search passed over fits now. Recognised by the engine's
// running set (a new object every step), the clock, the free nodes and the
// running count (a wrapping policy's own start changes them), in another
// session object.
interface FollowUp {
  readonly session: AdmissionSession;
  readonly running: RunningSet;
  readonly now: number;
  readonly free: number;
  readonly size: number;
}

let followUp: FollowUp | undefined;

function markFollowUp(s: AdmissionSession, startedBefore: number): void {
  if (startedBefore < 0 || s.search === undefined || s.stableOrder !== true || s.endsByShadow) {
    return;
  }
  const running = runningNow(s);
  // Nothing started: the core runs no session right after this one.
  if (running.size === startedBefore) return;
  followUp = { session: s, running, now: s.now, free: s.free, size: running.size };
}

function isFollowUp(s: AdmissionSession, f: FollowUp): boolean {
  if (f.session === s || f.now !== s.now || f.free !== s.free) return false;
  const running = runningNow(s);
  return f.running === running && f.size === running.size && s.search !== undefined &&
    s.stableOrder === true && !s.endsByShadow;
}

/**
 * `easy`: EASY backfilling as DR_EVT does it (see the module comment).
 *
 * @example
 * ```ts
 * import { easyBackfill, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: easyBackfill });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ]);
 * // Job 2 fits beside job 0 and ends long before job 1's reservation at 100.
 * if (sim.finish().jobs[2].beginTime !== 0) throw new Error("backfilled");
 * ```
 */
export const easyBackfill: Admission = {
  name: "easy",
  promise: "easy",
  searchesByLimit: true,
  runSession(s) {
    // On a resource model: the same rule over every resource (_easy_resources.ts).
    const res = s.resources;
    if (res !== undefined) return easyOnResources(s, res, false);
    const after = followUp;
    followUp = undefined;
    if (after !== undefined && isFollowUp(s, after)) return;
    const startedBefore = s.search === undefined ? -1 : runningNow(s).size;
    const head = startHeads(s);
    if (head === undefined) return markFollowUp(s, startedBefore);
    const now = s.now;
    // DR_EVT's FCFS EASY skips the backfill pass when no node is free; its
    // SJF/LJF still look (a job of zero nodes may start).
    if (s.free <= 0 && !s.endsByShadow) {
      if (s.search === undefined) {
        for (let job = s.next(); job !== undefined; job = s.next()) {
          s.pend(job, () => pendReasons.backfillSkipped(head.id));
        }
      } else if (head.demand === undefined) markFollowUp(s, startedBefore);
      return;
    }
    const shadow = reservationTime(head.numNodes, s.free, runningNow(s), now);
    // DR_EVT's SJF/LJF compare `limit <= shadow - now` and backfill only
    // while the shadow is ahead; FCFS compares `now + limit < shadow`.
    const fits = s.endsByShadow
      ? (limit: number) => shadow > now && limit <= shadow - now
      : (limit: number) => now + limit < shadow;
    if (s.search !== undefined) {
      // A backfilled job of no time limit ends at once by its projection:
      // the next session's shadow could then come later (see isFollowUp).
      let ending = true;
      do {
        const next = s.search.nextFitting(s.free, fits);
        if (next === undefined) break;
        if (!(next.timeLimit > 0)) ending = false;
        s.dispatch(next, true);
      } while (s.free > 0);
      if (ending && head.demand === undefined) markFollowUp(s, startedBefore);
      return;
    }
    for (let job = s.next(); job !== undefined; job = s.next()) {
      const free = s.free;
      const open = free > 0 || s.endsByShadow;
      if (open && job.numNodes <= free && fits(job.timeLimit)) {
        s.dispatch(job, true);
      } else if (!open) {
        s.pend(job, () => pendReasons.backfillSkipped(head.id));
      } else if (job.numNodes > free) {
        s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, free));
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

/**
 * `conservative`: DR_EVT's `fcfs_conservative` rule (see the module comment).
 *
 * @example
 * ```ts
 * import { conservativeBackfill, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: conservativeBackfill });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ]);
 * if (sim.finish().jobs[2].beginTime !== 0) throw new Error("backfilled");
 * ```
 */
export const conservativeBackfill: Admission = {
  name: "conservative",
  promise: "conservative",
  runSession(s) {
    // On a machine described by a resource model: the multi-resource rule.
    if (s.resources !== undefined) return drevtConservativeOnModel(s, s.resources);
    const head = startHeads(s);
    if (head === undefined || s.free <= 0) {
      if (head !== undefined && s.search === undefined) {
        for (let job = s.next(); job !== undefined; job = s.next()) {
          s.pend(job, () => pendReasons.backfillSkipped(head.id));
        }
      }
      return;
    }
    const now = s.now;
    if (s.search !== undefined) {
      const search = s.search;
      while (s.free > 0) {
        const candidate = search.nextFitting(s.free, () => true);
        if (candidate === undefined) return;
        const { window } = conservativeWindow(
          search.minNodesBefore(candidate),
          () => search.maxNodesBefore(candidate),
          s.free,
          runningNow(s),
          now,
        );
        if (!(now + candidate.timeLimit < window)) return;
        s.dispatch(candidate, true);
      }
      return;
    }
    // The walk: jobs ahead are the head and every candidate pended since.
    let minAhead = head.numNodes;
    let maxAhead = head.numNodes;
    let minHolder = head.id;
    let maxHolder = head.id;
    let blocker: { id: number; reservation: number } | undefined;
    for (let job = s.next(); job !== undefined; job = s.next()) {
      const free = s.free;
      if (free <= 0) s.pend(job, () => pendReasons.backfillSkipped(head.id));
      else if (job.numNodes > free) {
        s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, free));
      } else if (blocker !== undefined) {
        const { reservation, id } = blocker;
        s.pend(
          job,
          () =>
            pendReasons.reservationBlocked(
              job.numNodes,
              free,
              now + job.timeLimit,
              reservation,
              id,
            ),
        );
      } else {
        const { window, byLargest } = conservativeWindow(
          minAhead,
          () => maxAhead,
          free,
          runningNow(s),
          now,
        );
        if (now + job.timeLimit < window) {
          s.dispatch(job, true);
          continue;
        }
        const holder = byLargest ? maxHolder : minHolder;
        s.pend(
          job,
          () =>
            pendReasons.reservationBlocked(job.numNodes, free, now + job.timeLimit, window, holder),
        );
        // It fits now, so its own reservation is now: nothing behind it may start.
        blocker = { id: job.id, reservation: now };
      }
      if (job.numNodes < minAhead) {
        minAhead = job.numNodes;
        minHolder = job.id;
      }
      if (job.numNodes > maxAhead) {
        maxAhead = job.numNodes;
        maxHolder = job.id;
      }
    }
  },
};

/**
 * The minimum, over the jobs ahead of a candidate, of their reservations.
 * A reservation grows with the node count, so the smallest job ahead gives
 * it, except that DR_EVT's reservation falls back to `now` for a job whose
 * nodes the projected releases never cover. That needs a running job whose
 * projected end is not after now (an overrun, or a zero-limit job started at
 * this instant), so only then is the largest job ahead looked at.
 */
function conservativeWindow(
  minAhead: number,
  maxAhead: () => number,
  free: number,
  running: RunningSet,
  now: number,
): { window: number; byLargest: boolean } {
  const window = reservationTime(minAhead, free, running, now);
  const soonest = running.first();
  if (window === now || soonest === undefined || soonest.projectedEnd > now) {
    return { window, byLargest: false };
  }
  let coverable = free;
  for (const r of running.values()) if (r.projectedEnd > now) coverable += r.numNodes;
  return maxAhead() > coverable ? { window: now, byLargest: true } : { window, byLargest: false };
}
