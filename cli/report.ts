// The statistics block DR_EVT prints after a run, with its labels and C++
// ostream number formatting, followed by evtsim's own labelled extras.

import type { Statistics } from "../core/statistics.ts";
import { BOUNDED_SLOWDOWN_THRESHOLD } from "../core/statistics.ts";
import { formatTime } from "../io/time_format.ts";

/**
 * Formats a number as C++ `operator<<` does by default (`%g`, 6 significant
 * digits, trailing zeros removed).
 *
 * @example
 * ```ts
 * import { formatG } from "./report.ts";
 * console.assert(formatG(73.33333) === "73.3333");
 * console.assert(formatG(1234567) === "1.23457e+06");
 * ```
 */
export function formatG(x: number, precision = 6): string {
  if (x === 0) return "0";
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  const exp = Number(x.toExponential(precision - 1).split("e")[1]);
  if (exp < -4 || exp >= precision) {
    const [mant, e] = x.toExponential(precision - 1).split("e");
    const m = stripZeros(mant);
    const en = Number(e);
    return `${m}e${en < 0 ? "-" : "+"}${String(Math.abs(en)).padStart(2, "0")}`;
  }
  return stripZeros(x.toFixed(Math.max(0, precision - 1 - exp)));
}

function stripZeros(s: string): string {
  if (!s.includes(".")) return s;
  return s.replace(/0+$/, "").replace(/\.$/, "");
}

/** Lines of the statistics block (the caller prints them to stdout). */
export function statisticsBlock(
  s: Statistics,
  msec: boolean,
  wallSeconds: number,
  readSeconds: number,
): string[] {
  const out = [
    "",
    "=== Simulation Statistics ===",
    `Total jobs: ${s.totalJobs}`,
    `Jobs submitted: ${s.jobsStarted}`,
    `Jobs completed: ${s.jobsCompleted}`,
    `Current time: ${formatTime(s.currentTime, msec)}`,
    `Total nodes: ${s.totalNodes}`,
  ];
  if (s.jobsCompleted > 0) {
    out.push(
      `Average wait time: ${formatG(s.averageWait)} sec`,
      `Average turnaround time: ${formatG(s.averageTurnaround)} sec`,
      `Makespan: ${formatTime(s.makespan, msec)} sec`,
    );
  }
  if (s.queueSamples > 0) {
    out.push(
      `Average queue length: ${formatG(s.averageQueueLength)} jobs`,
      `Peak queue length: ${s.peakQueueLength} jobs`,
    );
  }
  out.push(
    `[evtsim] Jobs rejected (larger than the machine): ${s.jobsRejected}`,
    ...(s.jobsHeld !== undefined && s.jobsHeld > 0
      ? [
        `[evtsim] Jobs held (larger than the capacity left them, or than the machine can ever hold; never started, not in the averages): ${s.jobsHeld}`,
      ]
      : []),
    ...(s.jobsCancelled + s.jobsFailed + s.jobsKilled > 0
      ? [
        `[evtsim] Jobs cancelled / failed / killed (not in the averages): ${s.jobsCancelled} / ${s.jobsFailed} / ${s.jobsKilled}`,
      ]
      : []),
    ...(s.lostWork !== undefined
      ? [
        `[evtsim] Lost work to node failures (node-seconds run by the jobs a failure killed or requeued): ${
          formatG(s.lostWork)
        }`,
        `[evtsim] Requeues after node failures: ${s.requeues} (at most ${s.maxRequeues} of one job)`,
      ]
      : []),
    ...(s.preemptedWork !== undefined
      ? [
        `[evtsim] Preempted work (node-seconds run by the jobs a preemption requeued or cancelled): ${
          formatG(s.preemptedWork)
        }`,
        `[evtsim] Preemptions: ${s.preemptions} (at most ${s.maxPreemptions} of one job)`,
      ]
      : []),
    ...(s.suspensions !== undefined
      ? [
        `[evtsim] Suspensions: ${s.suspensions} (${
          formatG(s.suspendedSeconds ?? 0)
        } s waited suspended; no work lost)`,
      ]
      : []),
    `[evtsim] Utilization: ${formatG(s.utilization)}`,
    `[evtsim] Average bounded slowdown (tau=${BOUNDED_SLOWDOWN_THRESHOLD} s): ${
      formatG(s.averageBoundedSlowdown)
    }`,
    `[evtsim] Maximum wait time: ${formatG(s.maxWait)} sec`,
    `[evtsim] Time reading input: ${formatG(readSeconds)} (sec, included below)`,
    "",
    `Wall clock time to run simulation: ${formatG(wallSeconds)} (sec)`,
  );
  return out;
}
