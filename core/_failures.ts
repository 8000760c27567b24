// Node failures (a capacity change's `failed` nodes): unlike a planned cut,
// what runs on a failed node never drains. Each such job ends at the
// failure, killed (exit status 137), or goes back to waiting with the same
// id (`onNodeFailure: "requeue"`) until it has been requeued `requeueLimit`
// times. A requeue is a job state change back to pending carrying the old
// state (a `jobStateChange` notice); the picker gets the job back through
// `onJobStateChange(…, "pending")`, the hook a preemption can reuse.
//
// As Slurm does (its sacct and scontrol manuals: "If a job is requeued the
// submit time is reset"), the requeued job's submit time becomes the
// requeue instant, so it queues behind the jobs already waiting; its record
// keeps the first one (`firstSubmitTime`), which its schedule row shows.

import { DEFAULT_REQUEUE_LIMIT } from "./config.ts";
import { defaultExitStatus } from "./live.ts";
import type { Working } from "./_engine.ts";
import type { JobRecord } from "./types.ts";

/**
 * Ends every running job that holds resources on one of `failed` nodes at
 * `now` (latest started first; ties: the highest id, as a cut's kill): true
 * if any ended. Counts the work lost and the requeues.
 */
export function endOnFailedNodes(w: Working, failed: readonly string[], now: number): boolean {
  const model = w.resourceModel!;
  const names = new Set(failed);
  const victims: { rec: JobRecord; nodes: string[] }[] = [];
  for (const r of w.running.values()) {
    const shares = model.allocationOf?.(w.resourceState, r.id);
    if (shares === undefined || !shares.some((a) => names.has(a.nodeName))) continue;
    const nodes = [...new Set(shares.map((a) => a.nodeName))];
    victims.push({ rec: w.recordOf(r.id), nodes });
  }
  victims.sort((a, b) => b.rec.beginTime - a.rec.beginTime || b.rec.id - a.rec.id);
  const stats = w.stats;
  const s = stats;
  countFailures(w);
  for (const { rec, nodes } of victims) {
    stats.lostWork! += nodes.length * (now - rec.beginTime);
    const requeues = rec.requeues ?? 0;
    const limit = w.config.requeueLimit ?? DEFAULT_REQUEUE_LIMIT;
    if (w.config.onNodeFailure === "requeue" && requeues < limit) {
      const back = requeue(w, rec, now);
      w.stats.requeues! += 1;
      if (back.requeues! > s.maxRequeues!) s.maxRequeues = back.requeues;
      tellPicker(w, back);
      w.notices.push({
        kind: "jobStateChange",
        time: now,
        jobId: rec.id,
        oldState: "running",
        newState: "pending",
        cause: "node_failure",
        nodes: nodes.filter((n) => names.has(n)),
        requeues: back.requeues!,
      });
    } else {
      w.endEarly(rec, now, "killed", defaultExitStatus("killed"));
    }
  }
  return victims.length > 0;
}

/** From the first failure on, the statistics count lost work and requeues. */
export function countFailures(w: Working): void {
  const s = w.stats;
  if (s.lostWork !== undefined) return;
  s.lostWork = 0;
  s.requeues = 0;
  s.maxRequeues = 0;
}

/**
 * Back to waiting (a node failure's or a preemption's requeue): off the
 * machine now, same id, submit time reset (Slurm), requeue count up by one.
 * Returns its record; the caller counts it, tells the picker
 * (`tellPicker`, outside any session) and writes its notice.
 */
export function requeue(w: Working, rec: JobRecord, now: number): JobRecord {
  // A grace time's stop instant belongs to that run only.
  const { graceStop: _, ...run } = rec;
  const back: JobRecord = {
    ...run,
    submitTime: now,
    firstSubmitTime: rec.firstSubmitTime ?? rec.submitTime,
    beginTime: -1,
    requeues: (rec.requeues ?? 0) + 1,
  };
  w.leaveRunning(rec, back, now);
  return w.recordOf(rec.id);
}

/** The picker gets a requeued job back (`onJobStateChange(…, "pending")`). */
export function tellPicker(w: Working, back: JobRecord): void {
  if (!w.runMode.decides) return;
  try {
    w.pickerState = w.picker.onJobStateChange(w.pickerState, back, "pending");
  } catch (e) {
    throw w.pickerFailed(e);
  }
}
