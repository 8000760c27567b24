// Grace time (a queue's `graceTime`, Slurm's partition GraceTime;
// docs/preemption.md): a preemption signals its victims at the decision
// instant; a victim whose queue has a grace time runs on, holding its
// resources, until `time + graceTime` or its own end if earlier, and is then
// requeued, cancelled or suspended as its queue says. Its end event is moved
// to the stop instant (the record's `graceStop`), so the clock wakes for it
// as for any end. The preemptor starts once every victim has left.
//
// The claim: while a preemption's grace runs (a claim is pending), no
// scheduling round runs: no job starts, by the policy, by backfilling or by
// another preemption, so nothing the preemptor needs (the victims'
// resources, and what was free at the decision) is given to anyone else.
// Jobs still arrive and end. At the first instant every victim is gone, the
// preemptor starts (a DISPATCH in that instant's round) and the rounds go on.
// A preemptor that cannot start then (its nodes taken offline meanwhile, it
// was cancelled) drops its claim and waits as any job.

import type { Working } from "./_engine.ts";
import { type CoreSession, runCoreRound } from "./_session.ts";
import type { JobRecord } from "./types.ts";
import { NO_GRACES } from "./_draft_fields.ts";

/** A pending preemption whose victims have a grace time. */
export interface GraceClaim {
  /** The waiting job that starts once the victims have left. */
  readonly preemptor: number;
  /** Its victims, in the PREEMPT row's order. */
  readonly victims: readonly number[];
  /** What happens to each when it stops (its queue's mode at the decision). */
  readonly modes: readonly ("requeue" | "cancel" | "suspend")[];
}

/**
 * Lets victim `rec` run on until `stop` (unless it ends first on its own):
 * its end event moves to `stop`.
 */
export function deferStop(w: Working, rec: JobRecord, stop: number): void {
  const own = w.endTimeOf(rec.beginTime, rec.runTime);
  if (own <= stop) return;
  const event = {
    kind: 0 as const,
    id: rec.id,
    numNodes: rec.numNodes,
    beginTime: rec.beginTime,
    timeLimit: rec.timeLimit,
  };
  w.events = w.events.delete({ time: own, ...event }).add({ time: stop, ...event });
  w.replaceRecord({ ...rec, graceStop: stop });
}

/** The claim victim `id` belongs to, if any. */
export function claimOf(w: Working, id: number): GraceClaim | undefined {
  return w.graces.find((c) => c.victims.includes(id));
}

/** A job's record while it is in the store, else undefined. */
function storedRecord(w: Working, id: number): JobRecord | undefined {
  return id >= w.store.firstId ? w.store.records.get(id - w.store.firstId) : undefined;
}

function isRunning(w: Working, id: number): boolean {
  const r = storedRecord(w, id);
  return r !== undefined && r.beginTime >= 0 && r.endTime < 0;
}

/**
 * At a round: starts each preemptor whose victims have all left, dropping
 * the claims that are settled or can no longer be. True when no claim is
 * pending any more (the round may go on).
 */
export function settleGraces(w: Working): boolean {
  const left: GraceClaim[] = [];
  for (const c of w.graces) {
    const job = storedRecord(w, c.preemptor);
    if (job === undefined || job.beginTime >= 0 || job.endTime >= 0) continue;
    if (c.victims.some((v) => isRunning(w, v))) {
      left.push(c);
      continue;
    }
    startPreemptor(w, c.preemptor);
  }
  w.graces = left.length === 0 ? NO_GRACES : left;
  return left.length === 0;
}

// The preemptor starts now, where its victims' release lets the model place
// it; if it cannot (the machine changed meanwhile) it waits as any job.
function startPreemptor(w: Working, id: number): void {
  w.admissionMemory = w.admission.init?.();
  runCoreRound(w, (s: CoreSession) => {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.id === id && s.place(job).placement !== undefined) s.dispatch(job, false);
      else s.passOver(job);
    }
  });
}
