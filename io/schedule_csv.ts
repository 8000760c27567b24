// The schedule CSV DR_EVT writes: one row per finished job, in job-id order.

import type { JobRow } from "../core/types.ts";
import { formatTime, wholeSeconds } from "./time_format.ts";

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

/** Where {@link writeScheduleLine} and `writeResourceLine` write (an AtomicTextWriter). */
export interface RowSink {
  /** Appends `String(x)`. */
  number(x: number): void;
  /** Appends one ASCII character by its code. */
  char(code: number): void;
  /** Appends text as it is. */
  text(s: string): void;
}

/**
 * Writes {@link scheduleLine}'s line and a newline into `out`; in whole
 * seconds without building the line as a string (the same bytes).
 */
export function writeScheduleLine(out: RowSink, r: JobRow, o: ScheduleCsvOptions): void {
  if (o.msec === true) {
    out.text(scheduleLine(r, o));
    out.char(10);
    return;
  }
  out.number(wholeSeconds(r.submitTime));
  out.char(44);
  out.number(wholeSeconds(r.beginTime));
  out.char(44);
  out.number(wholeSeconds(r.endTime));
  out.char(44);
  out.number(r.numNodes);
  out.char(44);
  out.number(r.exitStatus ?? 0);
  out.char(44);
  if (o.queueColumn !== undefined) {
    out.text(csvField(r.queue ?? ""));
    out.char(44);
  }
  out.number(wholeSeconds(r.timeLimit));
  out.char(10);
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
