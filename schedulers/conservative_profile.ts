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
// Cost: the policy keeps the profile a session leaves (beside the memory,
// which never changes), so the next session given that memory moves it on
// to its clock in place (the nodes of jobs that left early given back)
// instead of building it from every running and waiting job; it is built
// again when the capacity changed or the session is given another memory (a
// state stepped twice, another simulation). The reservations are one plain array; a
// session copies them into scratch typed arrays only when one moves or
// starts (otherwise it reads and keeps the memory as it is, and appends the
// reservations of the new jobs offered after every held one). With a picker
// of stable order, the session right after one that started jobs is skipped
// while nothing in it could change (see `followUp`). Compression skips, in
// O(log n), a reservation that no segment before it has room for (a running
// maximum of free nodes over the segments, kept lazily) or that has too few
// nodes just before it and no room for a window of its length between the
// first segment with room and there, and searches the rest without
// splitting the profile. A session where jobs only arrived passes over the
// held jobs (the picker's `skip`) when nothing can have left or moved (the
// same `waitingChanges`) and no pend row would change; any other session
// still walks every waiting job (the picker offers them one by one), and a
// compression still looks at every held reservation.

import type { Admission } from "../core/admission.ts";
import { type PendReason, pendReasons } from "../core/decisions.ts";
import type { JobRecord } from "../core/types.ts";
import { conservativeProfileOnModel } from "./_conservative_resources.ts";
import {
  Blocks,
  FIELDS,
  firstAfter,
  leftEarly,
  Profile,
  type Reservations,
  type Running,
  runningAfter,
  runningNodes,
  runningNow,
} from "./_conservative_profile_parts.ts";

/** What a session leaves for the next one (never changed). */
interface Memory {
  /** The reservations, in the picker's order. */
  readonly held: Reservations;
  /** The earliest of their starts (Infinity if none). */
  readonly soonest: number;
  /**
   * The running jobs when the session ended, by projected end (to see, and
   * give back, the nodes of those that left early by the next session).
   */
  readonly running: Running | undefined;
  /** The earliest reservation after the session's clock: the engine wakes the policy then. */
  readonly wake: number;
  /** The session's clock. */
  readonly clock: number;
  /** The record of the last job held, as the picker offered it. */
  readonly last: JobRecord | undefined;
  /** The session's `waitingChanges` (NaN if it had none). */
  readonly changes: number;
  /**
   * The most nodes of a job held whose last pend was `reservation_blocked`
   * (0 if none), and the fewest of one whose last was `insufficient_nodes`
   * (Infinity if none): while the free nodes are in between, pending every
   * held job again writes no row.
   */
  readonly blocked: number;
  readonly short: number;
}

const EMPTY: Memory = Object.freeze({
  held: Object.freeze([]),
  soonest: Infinity,
  running: undefined,
  wake: Infinity,
  clock: -Infinity,
  last: undefined,
  changes: NaN,
  blocked: 0,
  short: Infinity,
});

/** Options of {@link conservativeProfilePolicy}. */
interface ConservativeProfileOptions {
  /** Move reservations earlier after an early end (default true). */
  readonly compression?: boolean;
  /** Tests only: told every reservation a session gives or keeps (job id, start, clock). */
  readonly observe?: (jobId: number, start: number, now: number) => void;
  /** Tests only: false builds every session's profile from scratch instead of from the last one. */
  readonly carry?: boolean;
  /** Tests only: false walks the session right after one that started jobs too. */
  readonly skipFollowUps?: boolean;
  /** Tests only: false offers every held job in a session where only jobs arrived too. */
  readonly skipHeld?: boolean;
}

/** Makes the policy; tests pass an observer to see every reservation. */
export function conservativeProfilePolicy(options: ConservativeProfileOptions = {}): Admission {
  const compression = options.compression ?? true;
  const observe = options.observe;
  const carry = options.carry ?? true;
  const skipFollowUps = options.skipFollowUps ?? true;
  const skipHeld = options.skipHeld ?? true;
  // Scratch arrays shared by the sessions of every run (a session is
  // synchronous and nothing keeps them past its end): the blocks, and the
  // reservations the session leaves.
  const scratch = new Blocks(64);
  const leaving = new Blocks(64);
  // The memory the last session left if it started jobs, and the most nodes
  // a job it pended with `reservation_blocked` needs: the engine runs the
  // next session at once, on the same memory (sessions are synchronous).
  let followUp: Memory | undefined;
  let blockedNodes = 0;
  // The profile the last session left, and the memory it left with it: the
  // next session given that memory moves it on to its clock and changes it
  // in place. It is not in the memory (which must never change); a session
  // given any other memory (a state stepped twice, another simulation)
  // builds its profile again from the running jobs and the reservations.
  let keptProfile: Profile | undefined;
  let keptFor: Memory | undefined;
  // The reservations of the jobs new in a session that reads the memory
  // only: appended to the memory's (id, start, limit, nodes each).
  const fresh: number[] = [];
  return {
    name: compression ? "conservative_profile" : "conservative_profile_no_compression",
    init: (): Memory => EMPTY,
    wakeTime: (memory) => (memory as Memory).wake,
    runSession(s) {
      const after = followUp;
      followUp = undefined;
      // On a machine described by a resource model: the multi-resource path.
      if (s.resources !== undefined) {
        const name = compression ? "conservative_profile" : "conservative_profile_no_compression";
        return conservativeProfileOnModel(s, s.resources, name, { compression, observe });
      }
      const now = s.now;
      const memory = (s.memory as Memory | undefined) ?? EMPTY;
      // The session right after one that started jobs, at the same clock:
      // with a stable order it is offered the same jobs in the same order,
      // less the started. Nothing left early and no job is new; a job held
      // at now that did not fit then does not fit now (jobs only started);
      // none moves (with compression a start leaves the profile as it is).
      // It would pend every job and keep the memory; and the pend reasons
      // keep their codes while every job pended as `reservation_blocked`
      // (it fitted the free nodes then) still fits them.
      if (
        after !== undefined && memory === after && after.clock === now && compression &&
        skipFollowUps && s.stableOrder === true && blockedNodes <= s.free
      ) return;
      // The profile: the last session's, from now on, with the nodes of the
      // jobs that left early given back from now to their projected ends.
      let built: Profile | undefined = keptFor === memory && carry ? keptProfile : undefined;
      keptProfile = undefined;
      keptFor = undefined;
      built?.advance(now);
      const before = memory.running ?? runningNow(s.running);
      const from = firstAfter(before.ends, now);
      const gone = memory.running === undefined ? [] : leftEarly(before, from, s.running);
      if (built !== undefined) {
        for (const k of gone) built.add(now, before.ends[k], before.nodes[k]);
      }
      // Built from scratch it would end with every node free; if not (the
      // capacity changed), it is built again.
      if (built !== undefined && built.atEnd !== s.free + runningNodes(s.running)) {
        built = undefined;
      }
      // Blocks: the reservations held (old ones first, block b is memory
      // entry b, then each new one), filled on first need: a session in
      // which every job offered is held, in order, and stays where it is
      // (most sessions: the one after each start, at the same clock) reads
      // the memory only and keeps it as it is.
      const h = memory.held;
      const heldCount = h.length / FIELDS;
      const blocks = scratch;
      let filled = false;
      let held: Float64Array = blocks.id;
      let maxId = -1;
      fresh.length = 0;
      let freshSoonest = Infinity;
      const fillBlocks = () => {
        if (filled) return;
        filled = true;
        maxId = blocks.fill(h, now);
        held = blocks.id;
        for (let j = 0; j < fresh.length; j += FIELDS) {
          blocks.push(fresh[j], fresh[j + 1], fresh[j + 2], fresh[j + 3]);
        }
      };
      const compress = compression && gone.length > 0;
      // The memory alone serves while no reservation moves (no compression)
      // and none has come without starting (those hold from now on).
      let lazy = !compress && memory.soonest >= now;
      if (!lazy) {
        fillBlocks();
        if (built !== undefined) {
          for (let j = 0; j < h.length; j += FIELDS) {
            const start = h[j + 1];
            if (start >= now) continue;
            // A reservation that came without starting holds from now on.
            const limit = h[j + 2];
            built.add(now, start + limit, h[j + 3]);
            built.add(now, now + limit, -h[j + 3]);
          }
        }
      }
      // The block a job held, or -1. The picker offers the held jobs in the
      // order they are held, save for a picker whose order changes (fair
      // share): they are looked up one after the other, and by id only when
      // out of order; a job with a higher id than every held one is new.
      let cursor = 0;
      let byId: Map<number, number> | undefined;
      const heldBlock = (id: number): number => {
        if (cursor < heldCount && held[cursor] === id) return cursor++;
        if (id > maxId) return -1;
        if (byId === undefined) {
          byId = new Map();
          for (let i = 0; i < heldCount; i++) byId.set(held[i], i);
        }
        const b = byId.get(id);
        if (b === undefined) return -1;
        cursor = b + 1;
        return b;
      };
      // Otherwise the profile is built on first need from the running jobs
      // (each releases its nodes at its projected end, or now if overrun) and
      // the live blocks.
      const profile = (): Profile => {
        if (built !== undefined) return built;
        fillBlocks();
        const changes: [number, number][] = [];
        for (const r of s.running.values()) {
          changes.push([r.projectedEnd > now ? r.projectedEnd : now, r.numNodes]);
        }
        for (let b = 0; b < blocks.length; b++) {
          if (blocks.live[b] === 0 || !(blocks.end[b] > blocks.start[b])) continue;
          changes.push([blocks.start[b], -blocks.nodes[b]]);
          changes.push([blocks.end[b], blocks.nodes[b]]);
        }
        return built = new Profile(now, s.free, changes);
      };
      const unblock = (b: number) => {
        blocks.live[b] = 0;
        if (built !== undefined) built.add(blocks.start[b], blocks.end[b], blocks.nodes[b]);
      };
      // Compression, one pass (Mu'alem & Feitelson 2001), in the order the
      // reservations are held.
      if (compress) profile().compress(blocks, heldCount);
      const kept = leaving.clear();
      let soonest = Infinity;
      // Leaves the memory-only walk: the blocks filled, the jobs walked so
      // far marked as offered and kept as they were.
      const toBlocks = () => {
        lazy = false;
        fillBlocks();
        for (let b = 0; b < cursor; b++) {
          blocks.seen[b] = 1;
          kept.push(blocks.id[b], blocks.start[b], blocks.limit[b], blocks.nodes[b]);
          if (blocks.start[b] < soonest) soonest = blocks.start[b];
        }
      };
      let waitingAhead = false;
      let wake = Infinity;
      let mostBlocked = 0;
      let leastShort = Infinity;
      let last: JobRecord | undefined;
      let startedAny = false;
      const started = { ids: [] as number[], ends: [] as number[], nodes: [] as number[] };
      // The job being pended, its free nodes and start: the two reasons are
      // one closure each per session (built only when decisions are recorded).
      let pending: JobRecord = undefined as unknown as JobRecord;
      let pendingFree = 0;
      let pendingStart = 0;
      const insufficient = () => pendReasons.insufficientNodes(pending.numNodes, pendingFree);
      const blockedReason = () => reservationBlocked(pending, pendingFree, pendingStart);
      // A job that stays waiting (reservation at `start`, `free` nodes now):
      // pended with the code that holds it back, the session's wake-up and
      // the bounds `blocked` and `short` of the memory kept up to date.
      const holdBack = (job: JobRecord, free: number, start: number): void => {
        pending = job;
        pendingFree = free;
        pendingStart = start;
        last = job;
        if (job.numNodes > free) {
          s.pend(job, insufficient, "insufficient_nodes");
          if (job.numNodes < leastShort) leastShort = job.numNodes;
        } else {
          s.pend(job, blockedReason, "reservation_blocked");
          if (job.numNodes > mostBlocked) mostBlocked = job.numNodes;
        }
        if (start > now && start < wake) wake = start;
      };
      // A session where jobs only arrived: nothing left the candidates or
      // moved since the memory's session (the same `waitingChanges`), and
      // the last job held comes right after the other held ones: they are
      // offered first, in the order held, and with no reservation come (and,
      // without compression, none fitting the free nodes) each stays, pended
      // with the code its last pend had (the free nodes are between
      // `blocked` and `short`), which writes no row (with compression and
      // no decisions recorded, the codes do not matter: `blocked` and
      // `short` may then be stale, only ever too wide for `followUp`). They
      // are passed over and the walk goes on from the last one.
      const changes = s.waitingChanges ?? NaN;
      let first: JobRecord | undefined;
      if (
        lazy && skipHeld && heldCount > 1 && changes === memory.changes &&
        s.stableOrder === true && memory.soonest > now &&
        (compression
          ? s.recordsDecisions === false || (memory.blocked <= s.free && s.free < memory.short)
          : memory.blocked === 0 && s.free < memory.short) &&
        memory.last !== undefined &&
        s.skip?.(heldCount - 1, memory.last) === true
      ) {
        if (observe !== undefined) {
          for (let b = 0; b < heldCount - 1; b++) observe(h[b * FIELDS], h[b * FIELDS + 1], now);
        }
        cursor = heldCount - 1;
        wake = memory.soonest;
        mostBlocked = memory.blocked;
        leastShort = memory.short;
        waitingAhead = true;
        first = memory.last;
      } else first = s.next();
      for (let job = first; job !== undefined; job = s.next()) {
        if (lazy && cursor === heldCount) {
          // Every job held was offered, in order, and stays: this one and
          // the rest are new. Each is given the earliest start that delays
          // no reservation, appended to the memory's reservations.
          const start = profile().earliest(job.numNodes, job.timeLimit);
          observe?.(job.id, start, now);
          const free = s.free;
          if (start <= now && job.numNodes <= free) {
            s.dispatch(job, waitingAhead);
            startedAny = true;
            built!.add(now, now + job.timeLimit, -job.numNodes);
            started.ids.push(job.id);
            started.ends.push(now + job.timeLimit);
            started.nodes.push(job.numNodes);
            continue;
          }
          fresh.push(job.id, start, job.timeLimit, job.numNodes);
          if (filled) blocks.push(job.id, start, job.timeLimit, job.numNodes);
          built!.add(start, start + job.timeLimit, -job.numNodes);
          holdBack(job, free, start);
          if (start < freshSoonest) freshSoonest = start;
          waitingAhead = true;
          continue;
        }
        if (lazy) {
          if (cursor < heldCount && h[cursor * FIELDS] === job.id) {
            const start = h[cursor * FIELDS + 1];
            const free = s.free;
            // It stays where it is unless it fits now and its reservation
            // has come (or, without compression, it may start now).
            if (job.numNodes > free || (start > now && compression)) {
              cursor++;
              observe?.(job.id, start, now);
              holdBack(job, free, start);
              waitingAhead = true;
              continue;
            }
          }
          toBlocks();
        }
        const b = heldBlock(job.id);
        let start: number;
        let placed = false;
        if (b < 0) {
          // A new job: the earliest start that delays no reservation.
          start = profile().earliest(job.numNodes, job.timeLimit);
        } else {
          blocks.seen[b] = 1;
          start = blocks.start[b];
          placed = true;
          if (!compression && start > now && job.numNodes <= s.free) {
            // Without compression a job still starts now if that delays no reservation.
            const p = profile();
            unblock(b);
            if (p.fits(now, job.numNodes, job.timeLimit)) {
              start = now;
              placed = false;
            } else {
              blocks.live[b] = 1;
              p.add(blocks.start[b], blocks.end[b], -blocks.nodes[b]);
            }
          }
        }
        observe?.(job.id, start, now);
        const free = s.free;
        if (start <= now && job.numNodes <= free) {
          s.dispatch(job, waitingAhead);
          startedAny = true;
          if (
            placed && blocks.start[b] === now && blocks.end[b] === now + job.timeLimit &&
            blocks.nodes[b] === job.numNodes
          ) {
            // Its block becomes its run, over the same span: the profile stays.
            blocks.live[b] = 0;
          } else {
            if (placed) unblock(b);
            built?.add(now, now + job.timeLimit, -job.numNodes);
          }
          started.ids.push(job.id);
          started.ends.push(now + job.timeLimit);
          started.nodes.push(job.numNodes);
          continue;
        }
        if (!placed) {
          blocks.push(job.id, start, job.timeLimit, job.numNodes);
          built?.add(start, start + job.timeLimit, -job.numNodes);
        }
        holdBack(job, free, start);
        if (start < soonest) soonest = start;
        kept.push(job.id, start, job.timeLimit, job.numNodes);
        waitingAhead = true;
      }
      if (lazy && cursor === heldCount) {
        // Every job held was offered, in order, and stays: the same
        // reservations and the new jobs', the profile as it is now.
        const p = profile();
        keep({
          held: fresh.length === 0 ? h : h.concat(fresh),
          soonest: freshSoonest < memory.soonest ? freshSoonest : memory.soonest,
          running: runningAfter(before, from, gone, started),
          wake,
          clock: now,
          last,
          changes,
          blocked: mostBlocked,
          short: leastShort,
        }, p);
        return;
      }
      if (lazy) toBlocks();
      // The profile the next session starts from: without the reservations
      // of jobs no longer offered (cancelled, or of a queue that may not start).
      const p = profile();
      for (let b = 0; b < heldCount; b++) {
        if (blocks.live[b] === 1 && blocks.seen[b] === 0) {
          p.add(blocks.start[b], blocks.end[b], blocks.nodes[b]);
        }
      }
      keep({
        held: kept.keep(),
        soonest,
        running: runningAfter(before, from, gone, started),
        wake,
        clock: now,
        last,
        changes,
        blocked: mostBlocked,
        short: leastShort,
      }, p);

      // Remembers what the session leaves; after a start, for the session
      // the engine runs next.
      function keep(m: Memory, p: Profile): void {
        if (s.remember === undefined) return;
        const frozen = Object.freeze(m);
        s.remember(frozen);
        keptProfile = p;
        keptFor = frozen;
        if (startedAny) {
          followUp = frozen;
          blockedNodes = mostBlocked;
        }
      }

      // Why `job` (it fits the free nodes) may not start now: the
      // reservation it would delay.
      function reservationBlocked(job: JobRecord, free: number, start: number): PendReason {
        const end = now + job.timeLimit;
        fillBlocks();
        // Without its own block: where would starting now run short?
        const own = blocks.lastOf(job.id);
        const p = profile();
        if (own >= 0) p.add(blocks.start[own], blocks.end[own], blocks.nodes[own]);
        const at = p.firstShortage(job.numNodes, end) ?? start;
        if (own >= 0) p.add(blocks.start[own], blocks.end[own], -blocks.nodes[own]);
        // The reservation that leaves too few nodes at `at`: the latest
        // starting one that covers it.
        let holder = -1;
        for (let k = 0; k < blocks.length; k++) {
          if (
            blocks.live[k] === 0 || k === own || blocks.start[k] > at || blocks.end[k] <= at
          ) continue;
          if (holder < 0 || blocks.start[k] >= blocks.start[holder]) holder = k;
        }
        return pendReasons.reservationBlocked(
          job.numNodes,
          free,
          end,
          holder < 0 ? at : blocks.start[holder],
          holder < 0 ? job.id : blocks.id[holder],
        );
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
