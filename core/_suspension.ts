// Suspension (`preemptMode: "suspend"`, docs/preemption.md): a victim stops
// at the preemption instant, its resources free from then, and keeps the
// work it has done. It waits again (its submit time becomes the suspension
// instant, as a requeue's, so it queues behind the jobs already waiting)
// with what remains of its run time and of its time limit, and resumes when
// the admission policy starts it again (a DISPATCH like any start). Its row
// shows its first start and its final end, its first submit time and its
// time limit as submitted.
//
// Accounting: the node-seconds of each run piece count towards utilization
// as the piece ends (at the suspension, or at the job's end); its wait is
// first begin − first submit and its run, for the bounded slowdown, end −
// first begin (both as its row shows them). No work is lost: a suspension
// adds nothing to `preemptedWork`; `suspensions` counts it and
// `suspendedSeconds` the time it waited suspended, added when it resumes.

import type { Working } from "./_engine.ts";
import { tellPicker } from "./_failures.ts";
import { BOUNDED_SLOWDOWN_THRESHOLD, type MutableStatistics } from "./statistics.ts";
import type { JobRecord } from "./types.ts";

/**
 * Suspends running job `rec` at `now` for preemptor `by`: off the machine,
 * back to waiting with what remains, counted, the picker told, the job
 * state change noticed. `nodes`: the nodes it ran on (a machine's; none on
 * whole nodes).
 */
export function suspend(
  w: Working,
  rec: JobRecord,
  now: number,
  by: number,
  nodes: readonly string[],
): void {
  const ran = now - rec.beginTime;
  const suspensions = (rec.suspensions ?? 0) + 1;
  const { graceStop: _, ...run } = rec;
  const back: JobRecord = {
    ...run,
    submitTime: now,
    firstSubmitTime: rec.firstSubmitTime ?? rec.submitTime,
    beginTime: -1,
    runTime: rec.runTime - ran,
    // A job may run past its limit (a trace's run time is not capped by it):
    // what remains of the limit is then none.
    timeLimit: Math.max(0, rec.timeLimit - ran),
    suspensions,
    firstBeginTime: rec.firstBeginTime ?? rec.beginTime,
    fullTimeLimit: rec.fullTimeLimit ?? rec.timeLimit,
    suspendedAt: now,
    suspendedSeconds: rec.suspendedSeconds ?? 0,
  };
  const s = w.stats;
  if (!rec.hidden) s.nodeSeconds += rec.numNodes * ran;
  s.suspensions = (s.suspensions ?? 0) + 1;
  s.suspendedSeconds ??= 0;
  w.leaveRunning(rec, back, now);
  tellPicker(w, w.recordOf(rec.id));
  w.notices.push({
    kind: "jobStateChange",
    time: now,
    jobId: rec.id,
    oldState: "running",
    newState: "suspended",
    cause: "preemption",
    nodes,
    requeues: rec.requeues ?? 0,
    suspensions,
    preemptedBy: by,
  });
}

/** A suspended job resuming at `now`: its record, its suspended time counted. */
export function resumed(w: Working, job: JobRecord, now: number): JobRecord {
  const waited = now - job.suspendedAt!;
  w.stats.suspendedSeconds = (w.stats.suspendedSeconds ?? 0) + waited;
  const { suspendedAt: _, ...rest } = job;
  return { ...rest, suspendedSeconds: (job.suspendedSeconds ?? 0) + waited };
}

/**
 * Counts the completion of a job that was suspended (its last piece ran
 * from `lastBegin` to `end`), in place; see the module comment.
 */
export function addResumedCompletion(
  s: MutableStatistics,
  rec: JobRecord,
  lastBegin: number,
  end: number,
): void {
  const submit = rec.firstSubmitTime ?? rec.submitTime;
  const begin = rec.firstBeginTime!;
  const wait = begin - submit;
  const turnaround = end - submit;
  s.jobsCompleted++;
  s.sumWait += wait;
  if (wait > s.maxWait) s.maxWait = wait;
  s.sumTurnaround += turnaround;
  s.sumBoundedSlowdown += Math.max(
    1,
    turnaround / Math.max(end - begin, BOUNDED_SLOWDOWN_THRESHOLD),
  );
  s.nodeSeconds += rec.numNodes * (end - lastBegin);
  if (submit < s.firstSubmit) s.firstSubmit = submit;
  if (end > s.lastEnd) s.lastEnd = end;
}

/**
 * What is wrong with a stored record's suspension fields (a snapshot's), as
 * [field, why], or undefined: a suspended job has its first start and its
 * submitted time limit and its suspended seconds, and a running one has no
 * instant it was suspended at.
 */
export function suspensionProblem(r: {
  readonly beginTime: number;
  readonly endTime: number;
  readonly suspensions?: number;
  readonly firstBeginTime?: number;
  readonly fullTimeLimit?: number;
  readonly suspendedAt?: number;
  readonly suspendedSeconds?: number;
}): [string, string] | undefined {
  if (r.suspensions === undefined) return ["suspendedAt", "only a suspended job has one"];
  if (typeof r.firstBeginTime !== "number" || typeof r.fullTimeLimit !== "number") {
    return ["firstBeginTime", "a suspended job has its first begin time and its full time limit"];
  }
  if (typeof r.suspendedSeconds !== "number") {
    return ["suspendedSeconds", "a suspended job has its suspended seconds"];
  }
  if (r.suspendedAt !== undefined && r.beginTime >= 0 && r.endTime < 0) {
    return ["suspendedAt", "a running job is not suspended"];
  }
  return undefined;
}
