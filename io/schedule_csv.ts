// The schedule CSV DR_EVT writes: one row per finished job, in job-id order.

import type { JobRow } from "../core/types.ts";
import { formatTime } from "./time_format.ts";

/** Layout choices for the schedule CSV. */
export interface ScheduleCsvOptions {
  /** Queue column name when the input had one (`q_id` or `queue`); omitted otherwise. */
  readonly queueColumn?: "q_id" | "queue";
  /** Three decimals instead of whole seconds. */
  readonly msec?: boolean;
}

/**
 * The header line (without newline).
 *
 * @example
 * ```ts
 * import { scheduleHeader } from "./schedule_csv.ts";
 * console.assert(scheduleHeader({}) === "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit");
 * ```
 */
export function scheduleHeader(o: ScheduleCsvOptions): string {
  return o.queueColumn === undefined
    ? "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit"
    : `job_submit_time,begin_time,end_time,num_nodes,exit_status,${o.queueColumn},time_limit`;
}

/**
 * One data line (without newline). `exit_status` is 0, as in DR_EVT, except
 * for a job that was cancelled, failed or killed (its `exitStatus`).
 */
export function scheduleLine(r: JobRow, o: ScheduleCsvOptions): string {
  const m = o.msec === true;
  const head = `${formatTime(r.submitTime, m)},${formatTime(r.beginTime, m)},${
    formatTime(r.endTime, m)
  },${r.numNodes},${r.exitStatus ?? 0}`;
  const limit = formatTime(r.timeLimit, m);
  return o.queueColumn === undefined
    ? `${head},${limit}`
    : `${head},${csvField(r.queue ?? "")},${limit}`;
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
