// First come, first served, with DR_EVT's EASY and CONSERVATIVE backfilling
// variants. The three share the head-start phase and differ only in which
// later jobs may jump ahead.

import { reservationTime, runningJob } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";
import type { Scheduler, ScheduleResult, SchedulingContext } from "./scheduler.ts";
import {
  dequeue,
  emptySizeClassedQueue,
  enqueue,
  type FcfsQueue,
  firstFitting,
  type SizeClassedQueue,
} from "./wait_queue.ts";

/** Which jobs may be started ahead of a head job that does not fit. */
export type FcfsBackfill = "none" | "easy" | "conservative";

/**
 * FCFS scheduling with optional backfilling, as DR_EVT's `fcfs` and
 * `fcfs_conservative` priority policies do it.
 *
 * - Heads start in queue order while they fit the free nodes.
 * - `easy`: the head's shadow time is its reservation against running jobs'
 *   projected ends; a later job starts if it fits the free nodes now and
 *   `now + limit < shadow` (strict). The shadow is not recomputed during the
 *   scan and there is no "extra nodes" rule.
 * - `conservative`: a later job starts only if it fits now and
 *   `now + limit` is before the reservation of every job ahead of it; since a
 *   reservation only grows with the node count, that is the reservation of the
 *   smallest job ahead. A job ahead that fits the free nodes blocks the rest.
 */
export function fcfsScheduler(backfill: FcfsBackfill): Scheduler<SizeClassedQueue> {
  return {
    name: backfill === "none" ? "fcfs" : backfill === "easy" ? "fcfs+easy" : "fcfs+conservative",
    empty: () => emptySizeClassedQueue(backfill === "easy"),
    insert: enqueue,
    size: (q) => q.all.size,
    waiting: (q) => q.all.values(),
    schedule: (q, ctx) => scheduleFcfs(q, ctx, backfill),
    shadowTime: (q, ctx) => {
      const head = q.all.first();
      if (head === undefined) return -1;
      return reservationTime(head.numNodes, ctx.freeNodes, ctx.running, ctx.now);
    },
  };
}

function scheduleFcfs(
  queue: SizeClassedQueue,
  ctx: SchedulingContext,
  backfill: FcfsBackfill,
): ScheduleResult<SizeClassedQueue> {
  const now = ctx.now;
  let free = ctx.freeNodes;
  let running = ctx.running;
  let q = queue;
  const start: JobRecord[] = [];
  for (
    let head = q.all.first();
    head !== undefined && head.numNodes <= free;
    head = q.all.first()
  ) {
    start.push(head);
    free -= head.numNodes;
    running = running.add(runningJob(head.id, head.numNodes, head.timeLimit, now));
    q = dequeue(q, head);
  }
  const head = q.all.first();
  if (head === undefined || backfill === "none" || free <= 0) return { queue: q, start };

  if (backfill === "easy") {
    const shadow = reservationTime(head.numNodes, free, running, now);
    let cursor: JobRecord = head;
    const endsBeforeShadow = (limit: number) => now + limit < shadow;
    while (free > 0) {
      const next = firstFitting(q, cursor, free, endsBeforeShadow);
      if (next === undefined) break;
      start.push(next);
      free -= next.numNodes;
      q = dequeue(q, next);
      cursor = next;
    }
    return { queue: q, start };
  }

  let cursor: JobRecord = head;
  const ahead: AheadScan = { upTo: undefined, maxNodes: -Infinity };
  const anyLimit = () => true;
  while (free > 0) {
    const candidate = firstFitting(q, cursor, free, anyLimit);
    if (candidate === undefined) break;
    const window = conservativeWindow(q.all, candidate, free, running, now, ahead);
    if (!(now + candidate.timeLimit < window)) break;
    start.push(candidate);
    free -= candidate.numNodes;
    running = running.add(runningJob(candidate.id, candidate.numNodes, candidate.timeLimit, now));
    q = dequeue(q, candidate);
    cursor = candidate;
  }
  return { queue: q, start };
}

/** The largest node count among the jobs ahead of the last candidate scanned. */
interface AheadScan {
  upTo: JobRecord | undefined;
  maxNodes: number;
}

/**
 * The minimum, over the jobs ahead of `candidate`, of their reservations.
 * A reservation grows with the node count, so the smallest job ahead gives
 * it, except that DR_EVT's reservation falls back to `now` for a job whose
 * nodes the projected releases never cover. That needs a running job whose
 * projected end is not after now (an overrun, or a zero-limit job started at
 * this instant), so only then are the jobs ahead scanned for their largest
 * node count; candidates only move forward, so one pass per call suffices.
 */
function conservativeWindow(
  q: FcfsQueue,
  candidate: JobRecord,
  free: number,
  running: SchedulingContext["running"],
  now: number,
  ahead: AheadScan,
): number {
  const window = reservationTime(q.min1Before(candidate), free, running, now);
  const soonest = running.first();
  if (window === now || soonest === undefined || soonest.projectedEnd > now) return window;
  // Started candidates have left `q`, so resuming from the last one skips it.
  for (const job of q.values(ahead.upTo)) {
    if (q.spec.compare(job, candidate) >= 0) break;
    if (job.numNodes > ahead.maxNodes) ahead.maxNodes = job.numNodes;
  }
  ahead.upTo = candidate;
  let coverable = free;
  for (const r of running.values()) if (r.projectedEnd > now) coverable += r.numNodes;
  return ahead.maxNodes > coverable ? now : window;
}
