// Preemption (Slurm's PreemptType=preempt/partition_prio): after the
// admission policy's rounds at an instant, a waiting job of a queue of
// higher priority that cannot start for lack of resources may end running
// jobs of queues of lower priority whose `preemptMode` is not `off`: each
// victim is requeued (back to waiting, same id, the node-failure requeue of
// core/_failures.ts), cancelled (ends at once as killed, exit status 143:
// SIGTERM, the signal Slurm's cancel sends) or suspended (waits again with
// the work it has done kept, core/_suspension.ts), as its own queue says. A
// preemption happens only if the victims' resources really let the job
// start (the resource model's `place` succeeds after their release; with a
// power cap, the draw after their release with the job started stays under
// the cap: victims are chosen for nodes, never for power), and the job then
// starts at once, in the core's own session: so every admission
// policy, built-in or not, gets it.
//
// One preemption per pass; the policy's rounds run again after it (the
// requeued victims wait, and what the victims left may start more jobs).

import type { Working } from "./_engine.ts";
import { type CoreSession, runCoreRound, startCap } from "./_session.ts";
import { EvtsimError } from "./errors.ts";
import { requeue, tellPicker } from "./_failures.ts";
import { suspend } from "./_suspension.ts";
import { claimOf, deferStop, type GraceClaim } from "./_grace.ts";
import type { QueueState } from "./queues.ts";
import type { JobRecord } from "./types.ts";
import type { PendReason } from "./decisions.ts";
import { drawWithout } from "./_power.ts";
import type { Placement } from "./resource_model.ts";

/** SIGTERM's exit status: a cancelled victim's. */
export const PREEMPT_CANCEL_EXIT_STATUS = 143;

/** A running job that may be preempted, with its queue. */
interface Candidate {
  readonly rec: JobRecord;
  readonly queue: QueueState;
}

/** One preemption pass at the clock; true if a job started by preempting others. */
export function preemptOnce(w: Working): boolean {
  const candidates: Candidate[] = [];
  let lowest = Infinity;
  for (const r of w.running.values()) {
    const rec = w.recordOf(r.id);
    const queue = w.queueStateOf(rec);
    if (queue?.def.preemptMode === undefined) continue;
    candidates.push({ rec, queue });
    if (queue.def.priority < lowest) lowest = queue.def.priority;
  }
  if (candidates.length === 0) return false;
  // The youngest first: the least work lost (as a capacity cut's kill).
  candidates.sort((a, b) => b.rec.beginTime - a.rec.beginTime || b.rec.id - a.rec.id);

  let chosen: { job: JobRecord; victims: Candidate[]; reason: PendReason } | undefined;
  runCoreRound(w, (s) => {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (chosen === undefined) {
        const tier = w.queueStateOf(job)?.def.priority;
        if (tier !== undefined && tier > lowest) {
          const placed = s.place(job);
          if (placed.placement === undefined) {
            const victims = chooseVictims(
              w,
              job,
              candidates.filter((c) => c.queue.def.priority < tier),
            );
            // The victims' leaving must also let the start under the power
            // cap, or the job would be refused at its dispatch with its
            // victims already gone.
            if (victims !== undefined && underCapWithout(w, job, victims)) {
              chosen = { job, victims, reason: placed.reason };
            }
          }
        }
      }
      s.passOver(job);
    }
  });
  if (chosen === undefined) return false;
  const deferred = preempt(w, chosen.job, chosen.victims, chosen.reason);
  // The policy's plan (conservative_profile's reservations) was made for the
  // jobs that ran before: it plans again from its initial state, as a state
  // restored from a snapshot does (which so continues the same way).
  w.admissionMemory = w.admission.init?.();
  // Victims with a grace time run on: the preemptor starts when they have
  // left (core/_grace.ts), and the round stops here.
  if (deferred) return true;
  // The preemptor starts now, where the victims' release lets the model place it.
  const id = chosen.job.id;
  let started = false;
  runCoreRound(w, (s: CoreSession) => {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (!started && job.id === id) {
        s.dispatch(job, false);
        started = true;
      } else s.passOver(job);
    }
  });
  if (!started) {
    throw new EvtsimError("state", `preemption: job ${id} was not offered after its victims left`);
  }
  return true;
}

// Victims in the admission policy's order (the default: youngest first),
// taken until the job can start, then each taken one the job can start
// without given back, the most nodes first (ties: the oldest first).
function chooseVictims(w: Working, job: JobRecord, pool: Candidate[]): Candidate[] | undefined {
  if (pool.length === 0) return undefined;
  const ordered = orderOf(w, job, pool);
  const taken: Candidate[] = [];
  let fits = false;
  for (const c of ordered) {
    taken.push(c);
    if (startsWithout(w, job, taken)) {
      fits = true;
      break;
    }
  }
  if (!fits) return undefined;
  const giveBack = [...taken].sort((a, b) =>
    nodesOf(w, b.rec) - nodesOf(w, a.rec) || a.rec.beginTime - b.rec.beginTime ||
    a.rec.id - b.rec.id
  );
  let victims = taken;
  for (const c of giveBack) {
    if (victims.length === 1) break;
    const fewer = victims.filter((v) => v !== c);
    if (startsWithout(w, job, fewer)) victims = fewer;
  }
  return victims;
}

function orderOf(w: Working, job: JobRecord, pool: Candidate[]): Candidate[] {
  const hook = w.admission.orderVictims;
  if (hook === undefined) return pool;
  let order: readonly JobRecord[];
  try {
    order = hook.call(w.admission, job, pool.map((c) => c.rec));
  } catch (e) {
    throw new EvtsimError(
      "state",
      `admission policy ${w.admission.name} failed at t=${w.time} in orderVictims: ${
        e instanceof Error ? e.message : String(e)
      }`,
    );
  }
  const byId = new Map(pool.map((c) => [c.rec.id, c]));
  const out: Candidate[] = [];
  for (const r of Array.isArray(order) ? order : [undefined]) {
    const c = byId.get((r as JobRecord | undefined)?.id ?? -1);
    if (c === undefined) {
      throw new EvtsimError(
        "state",
        `admission policy ${w.admission.name}'s orderVictims returned something other than its candidates (each at most once)`,
      );
    }
    byId.delete(c.rec.id);
    out.push(c);
  }
  return out;
}

// Nodes a running job holds: the model's allocation, else its node count.
function nodesOf(w: Working, rec: JobRecord): number {
  const shares = w.resourceModel?.allocationOf?.(w.resourceState, rec.id);
  return shares === undefined ? rec.numNodes : new Set(shares.map((a) => a.nodeName)).size;
}

// Whether `job` can start once `victims` have left (on a copy of the state).
function startsWithout(w: Working, job: JobRecord, victims: readonly Candidate[]): boolean {
  const model = w.resourceModel;
  if (model === undefined) {
    let free = w.capacity - w.allocatedNodes;
    for (const v of victims) free += v.rec.numNodes;
    return job.numNodes <= free;
  }
  let state = model.beginEdit(w.resourceState);
  for (const v of victims) state = model.release(state, v.rec);
  return model.place(state, job).placement !== undefined;
}

// Whether, with a power cap, `job` started once `victims` have left draws
// no more than every cap its run meets: what its dispatch will check (core/_session.ts).
function underCapWithout(w: Working, job: JobRecord, victims: readonly Candidate[]): boolean {
  if (!w.capped) return true;
  const model = w.resourceModel;
  let placement: Placement | undefined;
  if (model !== undefined) {
    let state = model.beginEdit(w.resourceState);
    for (const v of victims) state = model.release(state, v.rec);
    placement = model.place(state, job).placement;
  }
  const rec = w.recordOf(job.id);
  return drawWithout(w, victims.map((v) => v.rec), rec, placement) <= startCap(w, rec).watts;
}

// Signals the victims: each stops now, or, with a grace time, later
// (core/_grace.ts). True if some victim runs on (a claim is then pending).
function preempt(
  w: Working,
  job: JobRecord,
  victims: readonly Candidate[],
  reason: PendReason,
): boolean {
  const now = w.time;
  const s = w.stats;
  if (s.preemptedWork === undefined) {
    s.preemptedWork = 0;
    s.preemptions = 0;
    s.maxPreemptions = 0;
  }
  const modes = victims.map((v) => v.queue.def.preemptMode!);
  // Jobs ended only when told (run time mode external) have no end event to
  // move: their victims stop at once.
  const external = w.config.runTimeMode === "external";
  const graces = victims.map((v) => external ? 0 : v.queue.def.graceTime ?? 0);
  const grace = Math.max(...graces);
  if (w.config.decisions !== false) {
    w.decisionRows.push({
      type: "PREEMPT",
      time: now,
      round: w.round,
      jobId: job.id,
      victims: victims.map((v) => v.rec.id),
      mode: modes,
      reason,
      queue: job.queue!,
      ...(grace === 0 ? {} : { grace: graces, stopAt: now + grace }),
    });
  }
  victims.forEach((v, i) => {
    const rec = w.recordOf(v.rec.id);
    const preemptions = (rec.preemptions ?? 0) + 1;
    s.preemptions! += 1;
    if (preemptions > s.maxPreemptions!) s.maxPreemptions = preemptions;
    w.replaceRecord({ ...rec, preemptions });
    if (graces[i] > 0) deferStop(w, w.recordOf(rec.id), now + graces[i]);
    else stopVictim(w, w.recordOf(rec.id), modes[i], job.id, now);
  });
  if (grace === 0) return false;
  const claim: GraceClaim = {
    preemptor: job.id,
    victims: victims.map((v) => v.rec.id),
    modes,
  };
  w.graces = [...w.graces, claim];
  return true;
}

/**
 * A victim under a grace time reaches its stop (its moved end event): it
 * leaves as its claim's mode says. False if `rec` is not such a victim.
 */
export function stopAtGraceEnd(w: Working, rec: JobRecord, now: number): boolean {
  if (rec.graceStop !== now) return false;
  const claim = claimOf(w, rec.id);
  if (claim === undefined) return false;
  const { graceStop: _, ...plain } = rec;
  w.replaceRecord(plain);
  const i = claim.victims.indexOf(rec.id);
  stopVictim(w, w.recordOf(rec.id), claim.modes[i], claim.preemptor, now);
  return true;
}

/**
 * A victim leaves at `now` (its preemption, or the end of its grace time):
 * requeued, cancelled or suspended as `mode` says, for preemptor `by`.
 */
export function stopVictim(
  w: Working,
  rec: JobRecord,
  mode: "requeue" | "cancel" | "suspend",
  by: number,
  now: number,
): void {
  const s = w.stats;
  const nodes = w.resourceModel?.allocationOf?.(w.resourceState, rec.id);
  const names = nodes === undefined ? [] : [...new Set(nodes.map((a) => a.nodeName))];
  // A suspended victim keeps its work (core/_suspension.ts): none lost.
  if (mode !== "suspend") s.preemptedWork! += nodesOf(w, rec) * (now - rec.beginTime);
  if (mode === "suspend") {
    suspend(w, rec, now, by, names);
    return;
  }
  if (mode === "cancel") {
    w.endEarly(rec, now, "killed", PREEMPT_CANCEL_EXIT_STATUS);
    return;
  }
  const back = requeue(w, rec, now);
  tellPicker(w, back);
  w.notices.push({
    kind: "jobStateChange",
    time: now,
    jobId: rec.id,
    oldState: "running",
    newState: "pending",
    cause: "preemption",
    nodes: names,
    requeues: back.requeues!,
    preemptedBy: by,
  });
}
