// `conservative_profile`: conservative backfilling with an availability
// profile (Mu'alem & Feitelson 2001), as the literature defines it — not
// DR_EVT's rule (`conservative`, in admission.ts).
//
// Every waiting job holds a reservation: a start time at which its nodes are
// free for its whole time limit in a profile of future free nodes, built
// from the running jobs (each holds its nodes until its projected end,
// start + limit) and the reservations of the other waiting jobs. The policy
// keeps the reservations between sessions (its memory). A session walks the
// candidates in the picker's order; for each one:
//
// - a job that holds no reservation yet (it just arrived, or its queue just
//   opened) gets the earliest start in the profile as it stands: after the
//   jobs ahead of it and around the reservations of the jobs behind it, so
//   that it delays none of them;
// - a job that holds one keeps it, except in the first session after a job
//   left before its projected end (an early completion, a cancel, a kill):
//   then, with compression (the default), the reservations are compressed in
//   one pass (Mu'alem & Feitelson 2001): in the order they are held, each job
//   gets its reservation again at the earliest start in the profile without
//   its own (the running jobs, the jobs ahead at their new reservations, the
//   jobs behind at their old ones). Its old slot is still free then, so a
//   reservation never moves later ("compression");
// - without compression (`conservative_profile_no_compression`), a job that
//   holds one starts now if the profile without its own reservation has room
//   for it from now on for its whole limit (that delays no reservation), and
//   otherwise keeps it while the profile has room for it there: holes left by
//   early completions go to jobs that can start at once and to new arrivals;
// - a job whose reservation is now starts, if its nodes are free.
//
// The engine wakes the policy at the earliest reservation to come
// (`wakeTime`), so a job starts at its reservation even when no job arrives
// or ends then (after a compression a reservation may sit at the projected
// end of a job that has already left).
//
// A job held back pends with `insufficient_nodes` when it does not fit the
// free nodes, else with `reservation_blocked` naming the reservation it would
// delay: the first one, in time, that leaves too few nodes before it would
// end. A held reservation is at now or later; one that has come (clamped to
// now) starts as soon as its nodes are free. Running jobs that overran their limit are counted as ending now, so a
// reservation at now may not fit; such a job waits for the next pass. Future
// capacity changes are not in the profile. A job of a queue that may not
// start jobs now is never offered, so it holds no reservation until it is.
// The memory is not stored in snapshots: a restored state reserves again, in
// the picker's order.

import type { Admission } from "../core/admission.ts";
import { pendReasons } from "../core/decisions.ts";
import type { RunningSet } from "../core/running.ts";
import type { JobRecord } from "../core/types.ts";

/** The reservations a session leaves, in the picker's order (frozen, never changed). */
interface Memory {
  readonly ids: readonly number[];
  readonly starts: readonly number[];
  readonly limits: readonly number[];
  readonly nodes: readonly number[];
  /** The running jobs' projected ends when the session ended (to see early ends at the next). */
  readonly running: readonly number[] | undefined;
  /** The earliest reservation after the session's clock: the engine wakes the policy then. */
  readonly wake: number;
}

const EMPTY: Memory = Object.freeze({
  ids: Object.freeze([]),
  starts: Object.freeze([]),
  limits: Object.freeze([]),
  nodes: Object.freeze([]),
  running: undefined,
  wake: Infinity,
});

/**
 * Free nodes from now on, as a step function: `free[i]` nodes are free in
 * [times[i], times[i + 1]) (the last segment has no end). Plain arrays,
 * built when a session first needs them.
 */
class Profile {
  readonly times: number[];
  readonly free: number[];

  /** From `freeNow` and (time, change) pairs at or after now. */
  constructor(now: number, freeNow: number, changes: [number, number][]) {
    changes.sort((a, b) => a[0] - b[0]);
    this.times = [now];
    this.free = [freeNow];
    let f = freeNow;
    for (const [t, d] of changes) {
      f += d;
      if (t === this.times[this.times.length - 1]) this.free[this.free.length - 1] = f;
      else {
        this.times.push(t);
        this.free.push(f);
      }
    }
  }

  /** Index of the segment starting at `t`, splitting one if needed (t >= now). */
  private at(t: number): number {
    const times = this.times;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    if (lo < times.length && times[lo] === t) return lo;
    times.splice(lo, 0, t);
    this.free.splice(lo, 0, this.free[lo - 1]);
    return lo;
  }

  /** Adds `delta` free nodes over [start, end). */
  add(start: number, end: number, delta: number): void {
    if (!(end > start)) return;
    const i = this.at(start);
    const j = end === Infinity ? this.times.length : this.at(end);
    for (let k = i; k < j; k++) this.free[k] += delta;
  }

  /** Whether `nodes` are free over [start, start + limit). */
  fits(start: number, nodes: number, limit: number): boolean {
    const times = this.times;
    const end = start + limit;
    let k = 0;
    while (k + 1 < times.length && times[k + 1] <= start) k++;
    if (this.free[k] < nodes) return false;
    for (k++; k < times.length && times[k] < end; k++) if (this.free[k] < nodes) return false;
    return true;
  }

  /** The earliest start at which `nodes` are free for `limit` (Infinity if never). */
  earliest(nodes: number, limit: number): number {
    const times = this.times;
    const free = this.free;
    let i = 0;
    while (i < times.length) {
      if (free[i] < nodes) {
        i++;
        continue;
      }
      const end = times[i] + limit;
      let k = i + 1;
      while (k < times.length && times[k] < end && free[k] >= nodes) k++;
      if (k === times.length || times[k] >= end) return times[i];
      i = k + 1;
    }
    return Infinity;
  }

  /** The first time before `end` at which fewer than `nodes` are free. */
  firstShortage(nodes: number, end: number): number | undefined {
    const times = this.times;
    for (let k = 0; k < times.length && (k === 0 || times[k] < end); k++) {
      if (this.free[k] < nodes) return times[k];
    }
    return undefined;
  }
}

/** The projected ends of the running jobs, ascending (kept in the memory). */
function projectedEnds(running: RunningSet): readonly number[] {
  const ends: number[] = [];
  for (const r of running.values()) ends.push(r.projectedEnd);
  return Object.freeze(ends);
}

/**
 * Whether a job left the running set before its projected end since the
 * last session (an early completion, a cancel or a kill). Between sessions
 * jobs only leave the running set, so it is a matter of counting the jobs
 * projected to end after now, then and now.
 */
function endedEarly(
  before: readonly number[] | undefined,
  running: RunningSet,
  now: number,
): boolean {
  if (before === undefined) return false;
  let lo = 0;
  let hi = before.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before[mid] <= now) lo = mid + 1;
    else hi = mid;
  }
  let due = 0;
  for (const r of running.values()) {
    if (r.projectedEnd > now) break;
    due++;
  }
  return running.size - due < before.length - lo;
}

/** Options of {@link conservativeProfilePolicy}. */
interface ConservativeProfileOptions {
  /** Move reservations earlier after an early end (default true). */
  readonly compression?: boolean;
  /** Tests only: told every reservation a session gives or keeps (job id, start, clock). */
  readonly observe?: (jobId: number, start: number, now: number) => void;
}

/** Makes the policy; tests pass an observer to see every reservation. */
export function conservativeProfilePolicy(options: ConservativeProfileOptions = {}): Admission {
  const compression = options.compression ?? true;
  const observe = options.observe;
  return {
    name: compression ? "conservative_profile" : "conservative_profile_no_compression",
    init: (): Memory => EMPTY,
    wakeTime: (memory) => (memory as Memory).wake,
    runSession(s) {
      const now = s.now;
      const memory = (s.memory as Memory | undefined) ?? EMPTY;
      const compress = compression && endedEarly(memory.running, s.running, now);
      // Blocks: the reservations held (old ones first, then each new one);
      // `live[b]` is false once the block left the profile.
      const blockId: number[] = [];
      const blockStart: number[] = [];
      const blockEnd: number[] = [];
      const blockNodes: number[] = [];
      const live: boolean[] = [];
      const oldBlock = new Map<number, number>();
      const block = (id: number, start: number, limit: number, nodes: number): number => {
        const from = start > now ? start : now;
        blockId.push(id);
        blockStart.push(from);
        blockEnd.push(from + limit);
        blockNodes.push(nodes);
        live.push(true);
        return blockId.length - 1;
      };
      for (let i = 0; i < memory.ids.length; i++) {
        oldBlock.set(
          memory.ids[i],
          block(memory.ids[i], memory.starts[i], memory.limits[i], memory.nodes[i]),
        );
      }
      // The profile, built on first need from the running jobs (each releases
      // its nodes at its projected end, or now if overrun) and the live blocks.
      let built: Profile | undefined;
      const profile = (): Profile => {
        if (built !== undefined) return built;
        const changes: [number, number][] = [];
        for (const r of s.running.values()) {
          changes.push([r.projectedEnd > now ? r.projectedEnd : now, r.numNodes]);
        }
        for (let b = 0; b < blockId.length; b++) {
          if (!live[b] || !(blockEnd[b] > blockStart[b])) continue;
          changes.push([blockStart[b], -blockNodes[b]]);
          changes.push([blockEnd[b], blockNodes[b]]);
        }
        return built = new Profile(now, s.free, changes);
      };
      const unblock = (b: number) => {
        live[b] = false;
        if (built !== undefined) built.add(blockStart[b], blockEnd[b], blockNodes[b]);
      };
      if (compress) {
        // Compression, one pass (Mu'alem & Feitelson 2001): each held
        // reservation, in the order they are held, is given again at the
        // earliest start without it (never later, as its own slot is free).
        const p = profile();
        for (let b = 0; b < memory.ids.length; b++) {
          const limit = memory.limits[b];
          unblock(b);
          const t = p.earliest(blockNodes[b], limit);
          if (t < blockStart[b]) {
            blockStart[b] = t;
            blockEnd[b] = t + limit;
          }
          live[b] = true;
          p.add(blockStart[b], blockEnd[b], -blockNodes[b]);
        }
      }
      const ids: number[] = [];
      const starts: number[] = [];
      const limits: number[] = [];
      const nodes: number[] = [];
      let waitingAhead = false;
      let wake = Infinity;
      for (let job = s.next(); job !== undefined; job = s.next()) {
        const b = oldBlock.get(job.id);
        let start: number;
        let placed = false;
        if (b === undefined) {
          // A new job: the earliest start that delays no reservation.
          start = profile().earliest(job.numNodes, job.timeLimit);
        } else {
          start = blockStart[b];
          placed = true;
          if (!compression && start > now && job.numNodes <= s.free) {
            // Without compression a job still starts now if that delays no reservation.
            const p = profile();
            unblock(b);
            if (p.fits(now, job.numNodes, job.timeLimit)) {
              start = now;
              placed = false;
            } else {
              live[b] = true;
              p.add(blockStart[b], blockEnd[b], -blockNodes[b]);
            }
          }
        }
        observe?.(job.id, start, now);
        if (start <= now && job.numNodes <= s.free) {
          if (placed) unblock(b!);
          s.dispatch(job, waitingAhead);
          built?.add(now, now + job.timeLimit, -job.numNodes);
          continue;
        }
        if (!placed) {
          block(job.id, start, job.timeLimit, job.numNodes);
          built?.add(start, start + job.timeLimit, -job.numNodes);
        }
        pendWith(s.free, job, start);
        if (start > now && start < wake) wake = start;
        ids.push(job.id);
        starts.push(start);
        limits.push(job.timeLimit);
        nodes.push(job.numNodes);
        waitingAhead = true;
      }
      s.remember?.(Object.freeze({
        ids: Object.freeze(ids),
        starts: Object.freeze(starts),
        limits: Object.freeze(limits),
        nodes: Object.freeze(nodes),
        running: projectedEnds(s.running),
        wake,
      }));

      function pendWith(free: number, job: JobRecord, start: number): void {
        if (job.numNodes > free) {
          s.pend(
            job,
            () => pendReasons.insufficientNodes(job.numNodes, free),
            "insufficient_nodes",
          );
          return;
        }
        s.pend(job, () => {
          const end = now + job.timeLimit;
          // Without its own block: where would starting now run short?
          const own = blockId.lastIndexOf(job.id);
          const p = profile();
          if (own >= 0) p.add(blockStart[own], blockEnd[own], blockNodes[own]);
          const at = p.firstShortage(job.numNodes, end) ?? start;
          if (own >= 0) p.add(blockStart[own], blockEnd[own], -blockNodes[own]);
          // The reservation that leaves too few nodes at `at`: the latest
          // starting one that covers it.
          let holder = -1;
          for (let k = 0; k < blockId.length; k++) {
            if (!live[k] || k === own || blockStart[k] > at || blockEnd[k] <= at) continue;
            if (holder < 0 || blockStart[k] >= blockStart[holder]) holder = k;
          }
          return pendReasons.reservationBlocked(
            job.numNodes,
            free,
            end,
            holder < 0 ? at : blockStart[holder],
            holder < 0 ? job.id : blockId[holder],
          );
        }, "reservation_blocked");
      }
    },
  };
}

/**
 * `conservative_profile`: conservative backfilling with an availability
 * profile and compression. Every waiting job holds a reservation; a job
 * starts now only if that delays no reservation, and on an early completion
 * reservations move earlier in queue order, never later.
 *
 * @example
 * ```ts
 * import { conservativeProfileBackfill, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10, admission: conservativeProfileBackfill, runTimeMode: "limit" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 2, timeLimit: 500 },
 * ]);
 * // Job 1 is reserved 8 nodes at 100; job 2 fits the 2 nodes it leaves, so it starts at once.
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,100,0") throw new Error(begins);
 * ```
 */
export const conservativeProfileBackfill: Admission = conservativeProfilePolicy();

/**
 * `conservative_profile_no_compression` (`--no_compression`): the same, but a
 * reservation, once given, never moves except to start now (when that delays
 * no other reservation).
 *
 * @example
 * ```ts
 * import { conservativeProfileNoCompression, Simulation } from "@evtsim/evtsim";
 * const jobs = [
 *   { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 50 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 20, numNodes: 4, timeLimit: 50 },
 * ];
 * const sim = new Simulation({ totalNodes: 4, admission: conservativeProfileNoCompression });
 * sim.appendJobs(jobs);
 * // Job 0 ends early at 10 and job 1 starts at once. Job 2 keeps its reservation at 150, so
 * // job 3, arriving at 20, is reserved the hole at 60; job 2 starts when job 3 ends.
 * // With compression job 2 moves to 60 at 10, and job 3 is reserved 70.
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,10,110,60") throw new Error(begins);
 * ```
 */
export const conservativeProfileNoCompression: Admission = conservativeProfilePolicy({
  compression: false,
});
