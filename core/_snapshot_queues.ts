// How a queue definition is stored in a snapshot or a log: JSON drops a
// field whose value is undefined, but a queue update's explicit
// `maxRunning: undefined` means "remove the limit", so it is written as null.

import type { QueueDef } from "./queues.ts";

/** A queue definition as stored: `maxRunning: null` is an explicit "no limit". */
export interface QueueDefData {
  readonly name: string;
  readonly priority?: number;
  readonly picker?: string;
  readonly project?: string;
  readonly maxRunning?: number | null;
  readonly open?: boolean;
  readonly preemptMode?: "off" | "requeue" | "cancel" | "suspend";
  readonly graceTime?: number;
}

/** A queue definition as stored; an explicit `maxRunning: undefined` becomes null. */
export function queueDefData(q: QueueDef): QueueDefData {
  const out: { -readonly [K in keyof QueueDefData]: QueueDefData[K] } = { name: q.name };
  if (q.priority !== undefined) out.priority = q.priority;
  if (q.picker !== undefined) out.picker = q.picker;
  if (q.project !== undefined) out.project = q.project;
  if (q.maxRunning !== undefined) out.maxRunning = q.maxRunning;
  else if ("maxRunning" in q) out.maxRunning = null;
  if (q.open !== undefined) out.open = q.open;
  if (q.preemptMode !== undefined) out.preemptMode = q.preemptMode;
  if (q.graceTime !== undefined) out.graceTime = q.graceTime;
  return out;
}

/** The queue definition a stored one stands for (null `maxRunning`: explicitly none). */
export function queueDefOf(d: QueueDefData): QueueDef {
  const out: { -readonly [K in keyof QueueDef]: QueueDef[K] } = { name: d.name };
  if (d.priority !== undefined) out.priority = d.priority;
  if (d.picker !== undefined) out.picker = d.picker;
  if (d.project !== undefined) out.project = d.project;
  if (d.maxRunning === null) out.maxRunning = undefined;
  else if (d.maxRunning !== undefined) out.maxRunning = d.maxRunning;
  if (d.open !== undefined) out.open = d.open;
  if (d.preemptMode !== undefined) out.preemptMode = d.preemptMode;
  if (d.graceTime !== undefined) out.graceTime = d.graceTime;
  return out;
}
