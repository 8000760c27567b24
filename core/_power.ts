// The power model the core schedules with (docs/power.md). The machine's
// draw at an instant is
//
//   idleWatts × (totalNodes − allocatedNodes)      nodes holding no job
// + busyWatts × allocatedNodes                     nodes holding a job
// + Σ power of the running jobs                    the jobs' own draw
//
// (a node offline or down still counts as idle: it is not switched off).
// The sum over the running jobs is taken in the running set's order each
// time it is needed, never kept as a running total: a total updated start by
// start would round differently depending on how a run was cut into steps,
// and batch, streaming and a restored snapshot must agree to the bit.
//
// A power cap is `powerCap` before the first change of `powerCapSchedule`,
// then each change's watts until the next; no cap (Infinity) when neither
// gives one yet. A start is made only if the draw it projects stays at or
// under the cap (core/_session.ts).

import type { ResolvedConfig } from "./config.ts";
import type { RunningSet } from "./running.ts";
import type { JobRecord } from "./types.ts";

/** True when the configuration gives a power model (a cap or node watts). */
export function powerModelOn(c: ResolvedConfig): boolean {
  return c.powerCap !== undefined || c.powerCapSchedule !== undefined ||
    c.idleWatts !== undefined || c.busyWatts !== undefined;
}

/** True when the configuration caps the power (a constant cap or a schedule). */
export function powerCapped(c: ResolvedConfig): boolean {
  return c.powerCap !== undefined ||
    (c.powerCapSchedule !== undefined && c.powerCapSchedule.length > 0);
}

/** The cap in effect at `time` (Infinity: none). */
export function capAt(c: ResolvedConfig, time: number): number {
  let cap = c.powerCap ?? Infinity;
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (let i = 0; i < s.length && s[i].time <= time; i++) cap = s[i].watts;
  }
  return cap;
}

/** The highest cap in effect at `time` or later (Infinity: some instant has none). */
export function highestCapFrom(c: ResolvedConfig, time: number): number {
  let most = capAt(c, time);
  const s = c.powerCapSchedule;
  if (s !== undefined) {
    for (const x of s) if (x.time > time && x.watts > most) most = x.watts;
  }
  return most;
}

/** When the cap next changes after `time` (Infinity: never). */
export function nextCapChange(c: ResolvedConfig, time: number): number {
  const s = c.powerCapSchedule;
  if (s === undefined) return Infinity;
  for (const x of s) if (x.time > time) return x.time;
  return Infinity;
}

/** What the engine's draw is computed from. */
export interface PowerView {
  readonly config: ResolvedConfig;
  readonly allocatedNodes: number;
  readonly running: RunningSet;
  recordOf(id: number): JobRecord;
}

/**
 * The machine's draw now (watts), or, with `starting`, the draw it would be
 * with that job started too (its own draw added last, so on an idle machine
 * the projection is exactly {@link aloneDraw}).
 */
export function machineDraw(w: PowerView, starting?: JobRecord): number {
  const c = w.config;
  const idle = c.idleWatts ?? 0;
  const busy = c.busyWatts ?? 0;
  const allocated = w.allocatedNodes + (starting === undefined ? 0 : starting.numNodes);
  const idleNodes = c.totalNodes > allocated ? c.totalNodes - allocated : 0;
  let draw = idle * idleNodes + busy * allocated;
  for (const r of w.running.values()) {
    const p = w.recordOf(r.id).power;
    if (p !== undefined) draw += p;
  }
  if (starting?.power !== undefined) draw += starting.power;
  return draw;
}

/** The draw of an otherwise idle machine running `job` alone (watts). */
export function aloneDraw(c: ResolvedConfig, job: JobRecord): number {
  const idleNodes = c.totalNodes > job.numNodes ? c.totalNodes - job.numNodes : 0;
  let draw = (c.idleWatts ?? 0) * idleNodes + (c.busyWatts ?? 0) * job.numNodes;
  if (job.power !== undefined) draw += job.power;
  return draw;
}

/** The draw of the machine with no job running (watts): the baseline row's. */
export function idleDraw(c: ResolvedConfig): number {
  return (c.idleWatts ?? 0) * c.totalNodes + (c.busyWatts ?? 0) * 0;
}
