// Conservative backfilling on a machine described by a resource model (a
// topology cluster of multi-resource nodes, …): what `conservative_profile`,
// `conservative_profile_no_compression` and DR_EVT's `conservative` do when
// the configuration has a `resourceModel`. The whole-node paths are not
// used then (they count nodes of the node-count pool, which jobs placed by
// a model do not take).
//
// `conservative_profile` on a model keeps, for every waiting job, a
// reservation: a start time and a placement (the nodes and replicas the
// model chose), held over [start, start + limit). The profile is the
// model's state from now on (ResourceProfile): the running jobs give their
// resources back at their projected ends (now if overrun), the reservations
// take theirs over their intervals. A job can start at a time t when the
// model places it in the profile's state at t and that placement stays free
// until t + limit; the earliest such breakpoint is its reservation. The
// rest follows the whole-node policy (conservative_profile.ts) rule for rule:
// a new job is reserved in the profile as it stands (after the jobs ahead,
// around the reservations behind); a held one keeps its own; compression,
// in the first session after a job left before its projected end, re-places
// the reservations in the order they are held, each at the earliest start
// before its own (never later) without it; without compression a held job
// starts now if that delays no reservation; a job whose reservation is now
// starts there, on its reserved placement, when that is free. The memory
// holds plain data only; a session builds the profile from it on first need
// (one whose jobs all keep their reservations needs none). One
// difference: a reservation that came without starting (an overrun still
// held its resources) is given again as if new, not kept from now on, since
// its placement may not be free for its limit from now.
//
// DR_EVT's `conservative` on a model: heads start while the model places
// them; a later candidate starts if the model places it now and it ends
// (by its limit) before the reservation of every job ahead of it, where a
// job's reservation is the first projected end (or now) after which the
// model places it once the running jobs ending by then are gone — now if it
// fits now; now, as DR_EVT's fallback, if the projected releases never make
// room; never (it blocks nothing) if it does not fit the empty machine.

import type { AdmissionSession, SessionResources } from "../core/admission.ts";
import { type PendReason, pendReasons } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import type { Placement, ResourceModel } from "../core/resource_model.ts";
import type { JobRecord } from "../core/types.ts";
import { type Reservation, ResourceProfile } from "./_resource_profile.ts";

/** What a session leaves for the next (plain, frozen data). */
interface ModelMemory {
  readonly onModel: true;
  /** The reservations of the jobs left waiting, in the picker's order. */
  readonly held: readonly {
    readonly id: number;
    readonly start: number;
    readonly limit: number;
    readonly placement: Placement;
  }[];
  /** The running jobs at the session's end and their projected ends (to see early leavers). */
  readonly running: readonly { readonly id: number; readonly end: number }[];
  /** The earliest reservation after the session's clock. */
  readonly wake: number;
}

/** The policy's options (those of `conservativeProfilePolicy`). */
export interface ModelOptions {
  readonly compression: boolean;
  readonly observe?: (jobId: number, start: number, now: number) => void;
}

function needsFits(name: string, model: ResourceModel): void {
  if (model.fits !== undefined) return;
  throw new EvtsimError(
    "usage",
    `backfill policy ${name} on resource model ${model.name}: the model has no fits(state, job, placement), which reservations need`,
  );
}

/** One `conservative_profile` session on a resource model (see the module comment). */
export function conservativeProfileOnModel(
  s: AdmissionSession,
  r: SessionResources,
  name: string,
  options: ModelOptions,
): void {
  const model = r.model;
  needsFits(name, model);
  const { compression, observe } = options;
  const now = s.now;
  const memory = (s.memory as Partial<ModelMemory> | undefined)?.onModel === true
    ? s.memory as ModelMemory
    : undefined;
  // The running jobs: overrun ones give their resources back now, the others at their projected ends.
  const stillRunning = new Set<number>();
  const releases: { at: number; job: JobRecord }[] = [];
  // A copy: the session's state changes in place as jobs are dispatched.
  let edited = model.beginEdit(r.state);
  for (const run of s.running.values()) {
    stillRunning.add(run.id);
    if (run.projectedEnd > now) releases.push({ at: run.projectedEnd, job: r.job(run.id)! });
    else edited = model.release(edited, r.job(run.id)!);
  }
  const base = model.endEdit(edited);
  let leftEarly = false;
  for (const run of memory?.running ?? []) {
    if (run.end > now && !stillRunning.has(run.id)) leftEarly = true;
  }
  // The reservations held by jobs still waiting (not cancelled since); those
  // that came without starting are given again.
  const blocks: Reservation[] = [];
  for (const h of memory?.held ?? []) {
    const rec = r.job(h.id);
    if (h.start < now || rec === undefined || rec.beginTime >= 0 || rec.endTime >= 0) continue;
    blocks.push({
      job: rec,
      start: h.start,
      end: h.start + h.limit,
      placement: h.placement,
    });
  }
  const live: (Reservation | undefined)[] = blocks.slice();
  const byId = new Map<number, number>();
  blocks.forEach((b, i) => byId.set(b.job.id, i));
  // The profile, built on first need: a session whose jobs keep their
  // reservations (no arrival, no early end) needs none. A reservation the
  // build leaves out (not free at its start) is given again as if new.
  let built: ResourceProfile | undefined;
  const profile = (): ResourceProfile => {
    if (built !== undefined) return built;
    const dropped = new Set<number>();
    built = ResourceProfile.build(model, now, base, releases, blocks, dropped);
    for (const i of dropped) {
      if (live[i] !== blocks[i]) continue;
      live[i] = undefined;
      byId.delete(blocks[i].job.id);
    }
    return built;
  };
  const take = (b: Reservation, on: boolean) =>
    profile().change(b.job, b.placement, b.start, b.end, on);
  if (compression && leftEarly) {
    // Built first: the build may leave a reservation out (`live[i]` then
    // undefined), which must not be taken off a profile that never had it.
    profile();
    // One pass in the order held: each at the earliest start before its own, without it.
    for (let i = 0; i < live.length; i++) {
      const b = live[i];
      if (b === undefined) continue;
      const found = profile().earlierThan(b);
      if (found === undefined) continue;
      const moved = {
        ...b,
        start: found.start,
        end: found.start + b.end - b.start,
        placement: found.placement,
      };
      take(b, false);
      live[i] = moved;
      take(moved, true);
    }
  }
  const held: ModelMemory["held"][number][] = [];
  let wake = Infinity;
  let waitingAhead = false;
  for (let job = s.next(); job !== undefined; job = s.next()) {
    const i = byId.get(job.id);
    let b = i === undefined ? undefined : live[i];
    const limit = job.timeLimit;
    if (b === undefined) {
      const found = profile().earliest(job, limit);
      if (found === undefined) {
        // It does not fit the empty machine: no reservation, it blocks nobody.
        const why = s.place(job);
        s.pend(job, why.reason ?? pendReasons.insufficientNodes(job.numNodes, s.free));
        continue;
      }
      b = { job, start: found.start, end: found.start + limit, placement: found.placement };
      take(b, true);
      if (i !== undefined) live[i] = b;
    } else if (!compression && b.start > now) {
      // Without compression a held job starts now if that delays no reservation.
      const p = profile().earlierThan(b, true);
      if (p !== undefined) {
        take(b, false);
        b = { job, start: now, end: now + limit, placement: p.placement };
        take(b, true);
        live[i!] = b;
      }
    }
    observe?.(job.id, b.start, now);
    if (b.start <= now && model.fits!(r.state, job, b.placement)) {
      s.dispatch(job, waitingAhead, b.placement);
      if (i !== undefined) live[i] = undefined;
      continue;
    }
    if (i !== undefined) live[i] = b;
    else byId.set(job.id, live.push(b) - 1);
    const here = s.place(job);
    if (here.placement === undefined) s.pend(job, here.reason);
    else {
      const own = b;
      s.pend(job, () => blockedBy(s, job, own, here.placement, live), "reservation_blocked");
    }
    if (b.start > now && b.start < wake) wake = b.start;
    held.push(Object.freeze({ id: job.id, start: b.start, limit, placement: b.placement }));
    waitingAhead = true;
  }
  const running: { id: number; end: number }[] = [];
  for (const run of s.running.values()) running.push({ id: run.id, end: run.projectedEnd });
  s.remember?.(
    Object.freeze({
      onModel: true,
      held: Object.freeze(held),
      running: Object.freeze(running),
      wake,
    }),
  );
}

/**
 * Why a job with reservation `own` that the model could place now (at
 * `here`) waits: the reservation it would delay by starting now, the first
 * to start of those overlapping [now, now + limit) on a node of `here` (its
 * own when none does).
 */
function blockedBy(
  s: AdmissionSession,
  job: JobRecord,
  own: Reservation,
  here: Placement,
  live: readonly (Reservation | undefined)[],
): PendReason {
  const now = s.now;
  const nodes = new Set(here.allocation.map((a) => a.nodeName));
  const end = now + job.timeLimit;
  let holder: Reservation = own;
  let found = false;
  for (const b of live) {
    if (b === undefined || b === own || b.start >= end || b.end <= now) continue;
    if (!b.placement.allocation.some((a) => nodes.has(a.nodeName))) continue;
    if (!found || b.start < holder.start) {
      holder = b;
      found = true;
    }
  }
  return pendReasons.reservationBlocked(job.numNodes, s.free, end, holder.start, holder.job.id);
}

/** One DR_EVT `conservative` session on a resource model (see the module comment). */
export function drevtConservativeOnModel(s: AdmissionSession, r: SessionResources): void {
  const model = r.model;
  const now = s.now;
  let head: JobRecord | undefined;
  for (let job = s.next(); job !== undefined; job = s.next()) {
    const here = s.place(job);
    if (here.placement === undefined) {
      s.pend(job, here.reason);
      head = job;
      break;
    }
    s.dispatch(job, false);
  }
  if (head === undefined) return;
  // The earliest reservation of the jobs ahead, and whose it is.
  let window = reservationOf(head, model, r, s, now);
  let holder = head.id;
  for (let job = s.next(); job !== undefined; job = s.next()) {
    const here = s.place(job);
    const end = now + job.timeLimit;
    if (here.placement !== undefined && end < window) {
      s.dispatch(job, true);
      continue;
    }
    if (here.placement === undefined) s.pend(job, here.reason);
    else {
      const [at, id] = [window, holder];
      s.pend(job, () => pendReasons.reservationBlocked(job.numNodes, s.free, end, at, id));
    }
    if (window <= now) continue;
    const mine = here.placement !== undefined ? now : reservationOf(job, model, r, s, now);
    if (mine < window) {
      window = mine;
      holder = job.id;
    }
  }
}

/** DR_EVT's reservation of a waiting job on a model (see the module comment). */
function reservationOf(
  job: JobRecord,
  model: ResourceModel,
  r: SessionResources,
  s: AdmissionSession,
  now: number,
): number {
  if (model.place(model.initial, job).placement === undefined) return Infinity;
  if (model.place(r.state, job).placement !== undefined) return now;
  let state = model.beginEdit(r.state);
  let at = now;
  try {
    for (const run of s.running.values()) {
      if (run.projectedEnd <= now) continue;
      if (run.projectedEnd !== at && at > now && model.place(state, job).placement !== undefined) {
        return at;
      }
      at = run.projectedEnd;
      state = model.release(state, r.job(run.id)!);
    }
    return at > now && model.place(state, job).placement !== undefined ? at : now;
  } finally {
    model.endEdit(state);
  }
}
