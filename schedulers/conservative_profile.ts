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
//
// Cost: the memory keeps the profile a session leaves, so the next one
// starts from a copy of it (the nodes of jobs that left early given back)
// instead of building it from every running and waiting job; it is built
// again only when the capacity changed. A session still walks every waiting
// job, and a compression re-places every reservation in plain arrays.

import type { Admission } from "../core/admission.ts";
import { pendReasons } from "../core/decisions.ts";
import type { JobRecord } from "../core/types.ts";
import { conservativeProfileOnModel } from "./_conservative_resources.ts";
import {
  firstAfter,
  leftEarly,
  Profile,
  type Running,
  runningAfter,
  runningNow,
} from "./_conservative_profile_parts.ts";

/** The reservations a session leaves, in the picker's order (frozen, never changed). */
interface Memory {
  readonly ids: readonly number[];
  readonly starts: readonly number[];
  readonly limits: readonly number[];
  readonly nodes: readonly number[];
  /**
   * The running jobs when the session ended, by projected end (to see, and
   * give back, the nodes of those that left early by the next session).
   */
  readonly running: Running | undefined;
  /** The earliest reservation after the session's clock: the engine wakes the policy then. */
  readonly wake: number;
  /**
   * The profile as the session left it (never changed: the next session
   * starts from a copy instead of building it again from every job).
   */
  readonly times: readonly number[] | undefined;
  readonly free: readonly number[] | undefined;
}

const EMPTY: Memory = Object.freeze({
  ids: Object.freeze([]),
  starts: Object.freeze([]),
  limits: Object.freeze([]),
  nodes: Object.freeze([]),
  running: undefined,
  wake: Infinity,
  times: undefined,
  free: undefined,
});

/** Options of {@link conservativeProfilePolicy}. */
interface ConservativeProfileOptions {
  /** Move reservations earlier after an early end (default true). */
  readonly compression?: boolean;
  /** Tests only: told every reservation a session gives or keeps (job id, start, clock). */
  readonly observe?: (jobId: number, start: number, now: number) => void;
  /** Tests only: false builds every session's profile from scratch instead of from the last one. */
  readonly carry?: boolean;
}

/** Makes the policy; tests pass an observer to see every reservation. */
export function conservativeProfilePolicy(options: ConservativeProfileOptions = {}): Admission {
  const compression = options.compression ?? true;
  const observe = options.observe;
  const carry = options.carry ?? true;
  return {
    name: compression ? "conservative_profile" : "conservative_profile_no_compression",
    init: (): Memory => EMPTY,
    wakeTime: (memory) => (memory as Memory).wake,
    runSession(s) {
      // On a machine described by a resource model: the multi-resource path.
      if (s.resources !== undefined) {
        const name = compression ? "conservative_profile" : "conservative_profile_no_compression";
        return conservativeProfileOnModel(s, s.resources, name, { compression, observe });
      }
      const now = s.now;
      const memory = (s.memory as Memory | undefined) ?? EMPTY;
      // The profile: the last session's, from now on, with the nodes of the
      // jobs that left early given back from now to their projected ends.
      let built: Profile | undefined = memory.times === undefined || !carry
        ? undefined
        : Profile.from(memory.times, memory.free!, now);
      const before = memory.running ?? runningNow(s.running);
      const from = firstAfter(before.ends, now);
      const gone = memory.running === undefined ? [] : leftEarly(before, from, s.running);
      if (built !== undefined) {
        for (const k of gone) built.add(now, before.ends[k], before.nodes[k]);
      }
      const compress = compression && gone.length > 0;
      if (built !== undefined) {
        // Built from scratch it would end with every node free; if not (the
        // capacity changed), it is built again.
        let total = s.free;
        for (const r of s.running.values()) total += r.numNodes;
        if (built.atEnd !== total) built = undefined;
      }
      // Blocks: the reservations held (old ones first, then each new one);
      // `live[b]` is false once the block left the profile.
      const blockId: number[] = [];
      const blockStart: number[] = [];
      const blockEnd: number[] = [];
      const blockNodes: number[] = [];
      const live: boolean[] = [];
      const block = (id: number, start: number, limit: number, nodes: number): number => {
        const from = start > now ? start : now;
        if (from !== start && built !== undefined) {
          // A reservation that came without starting holds from now on.
          built.add(now, start + limit, nodes);
          built.add(now, now + limit, -nodes);
        }
        blockId.push(id);
        blockStart.push(from);
        blockEnd.push(from + limit);
        blockNodes.push(nodes);
        live.push(true);
        return blockId.length - 1;
      };
      const held = memory.ids;
      let maxId = -1;
      for (let i = 0; i < held.length; i++) {
        block(held[i], memory.starts[i], memory.limits[i], memory.nodes[i]);
        if (held[i] > maxId) maxId = held[i];
      }
      // The block a job held (block b is memory entry b), or undefined. The
      // picker offers the held jobs in the order they are held, save for a
      // picker whose order changes (fair share): they are looked up one after
      // the other, and by id only when out of order; a job with a higher id
      // than every held one is new.
      let cursor = 0;
      let byId: Map<number, number> | undefined;
      const heldBlock = (id: number): number | undefined => {
        if (cursor < held.length && held[cursor] === id) return cursor++;
        if (id > maxId) return undefined;
        if (byId === undefined) {
          byId = new Map();
          for (let i = 0; i < held.length; i++) byId.set(held[i], i);
        }
        const b = byId.get(id);
        if (b !== undefined) cursor = b + 1;
        return b;
      };
      // Otherwise the profile is built on first need from the running jobs
      // (each releases its nodes at its projected end, or now if overrun) and
      // the live blocks.
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
        // earliest start without it (never later, as its own slot is free);
        // one that cannot start earlier stays in the profile as it is.
        const p = profile();
        for (let b = 0; b < memory.ids.length; b++) {
          const limit = memory.limits[b];
          const t = p.earlierStart(blockNodes[b], limit, blockStart[b], blockEnd[b]);
          if (!(t < blockStart[b])) continue;
          unblock(b);
          blockStart[b] = t;
          blockEnd[b] = t + limit;
          live[b] = true;
          p.add(t, t + limit, -blockNodes[b]);
        }
      }
      const ids: number[] = [];
      const starts: number[] = [];
      const limits: number[] = [];
      const nodes: number[] = [];
      let waitingAhead = false;
      let wake = Infinity;
      const seen = new Uint8Array(memory.ids.length);
      const started = { ids: [] as number[], ends: [] as number[], nodes: [] as number[] };
      for (let job = s.next(); job !== undefined; job = s.next()) {
        const b = heldBlock(job.id);
        let start: number;
        let placed = false;
        if (b !== undefined) seen[b] = 1;
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
          started.ids.push(job.id);
          started.ends.push(now + job.timeLimit);
          started.nodes.push(job.numNodes);
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
      // The profile the next session starts from: without the reservations
      // of jobs no longer offered (cancelled, or of a queue that may not start).
      const p = profile();
      for (let b = 0; b < memory.ids.length; b++) {
        if (live[b] && seen[b] === 0) p.add(blockStart[b], blockEnd[b], blockNodes[b]);
      }
      s.remember?.(Object.freeze({
        ids: Object.freeze(ids),
        starts: Object.freeze(starts),
        limits: Object.freeze(limits),
        nodes: Object.freeze(nodes),
        running: runningAfter(before, from, gone, started),
        wake,
        times: p.times,
        free: p.free,
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
