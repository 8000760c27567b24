// Live events inside the reducer: checked when given (an event that can
// never apply is refused and nothing changes), kept in time order, and
// applied when the clock reaches their time. An event that no longer applies
// by then (the job started or ended meanwhile) is dropped with a notice.

import type { Working } from "./_engine.ts";
import { countFailures } from "./_failures.ts";
import { EvtsimError } from "./errors.ts";
import { checkTimeBound } from "./_input_check.ts";
import { defaultExitStatus, type EndOutcome, type JobUpdate, type LiveEvent } from "./live.ts";
import { LIVE_INPUTS } from "./live_inputs.ts";
import type { LiveEventInput } from "./_live_stored.ts";
import { lookupPicker } from "./policies.ts";
import { type QueueDef, type ResolvedQueue, resolveQueue } from "./queues.ts";
import type { JobRecord } from "./types.ts";

const OUTCOMES: readonly EndOutcome[] = ["completed", "failed", "killed"];

// The reducer input each live event comes from (messages name what the caller gave).
const INPUT_NAMES = Object.fromEntries(
  Object.entries(LIVE_INPUTS).map(([kind, def]) => [def.stored, kind]),
) as Record<LiveEventInput["kind"], string>;

/** Checks a live event against the state and queues it; throws (changing nothing) if it cannot apply. */
export function pushLiveEvent(w: Working, input: LiveEventInput): void {
  if (w.finished) throw new EvtsimError("state", "the simulation has finished");
  if (w.replay) {
    throw new EvtsimError("state", "live events need a simulation, not the replay of a schedule");
  }
  const time = input.time ?? w.time;
  if (typeof time !== "number" || !Number.isFinite(time)) {
    throw new EvtsimError("time", `event time must be a finite number, got ${String(time)}`);
  }
  if (time < w.time) {
    throw new EvtsimError("time", `event time ${time} is before the clock ${w.time}`);
  }
  // A job may begin at the event's time: the jobs' spans from there must stay exact.
  const latest = Math.max(w.timeBound.latestInput, time);
  checkTimeBound(latest, w.timeBound.jobSpans, () => `${INPUT_NAMES[input.kind]} at ${time}`);
  const seq = w.liveSeq;
  let event: LiveEvent;
  switch (input.kind) {
    case "cancel": {
      const rec = liveRecord(w, input.id, "cancel");
      if (rec.beginTime >= 0) {
        throw new EvtsimError(
          "state",
          `cannot cancel job ${rec.id}: it is running (end it with endJob)`,
        );
      }
      if (rec.submitTime > time) {
        throw new EvtsimError(
          "state",
          `cannot cancel job ${rec.id} at ${time}: it is submitted at ${rec.submitTime}`,
        );
      }
      event = { kind: "cancel", time, seq, id: rec.id };
      break;
    }
    case "end": {
      // A job that has not started yet may be ended at a later time: the end
      // applies if it is running then (else it is dropped with a notice).
      const rec = liveRecord(w, input.id, "end");
      if (rec.beginTime >= 0 && time < rec.beginTime) {
        throw new EvtsimError(
          "time",
          `cannot end job ${rec.id} at ${time}: it started at ${rec.beginTime}`,
        );
      }
      const outcome = input.outcome ?? "completed";
      if (!OUTCOMES.includes(outcome)) {
        throw new EvtsimError(
          "usage",
          `unknown outcome '${outcome}' (expected ${OUTCOMES.join(", ")})`,
        );
      }
      const exitStatus = input.exitStatus ?? defaultExitStatus(outcome);
      if (!Number.isSafeInteger(exitStatus)) {
        throw new EvtsimError("usage", `exit status must be an integer, got ${exitStatus}`);
      }
      event = { kind: "end", time, seq, id: rec.id, outcome, exitStatus };
      break;
    }
    case "updateJob": {
      const rec = liveRecord(w, input.id, "update");
      if (rec.beginTime >= 0) {
        throw new EvtsimError("state", `cannot update job ${rec.id}: it has started`);
      }
      checkJobUpdate(w, input.update);
      event = { kind: "updateJob", time, seq, id: rec.id, update: input.update };
      break;
    }
    case "updateQueue": {
      mergedQueue(w, input.queue);
      event = { kind: "updateQueue", time, seq, queue: input.queue };
      break;
    }
    case "capacity": {
      const c = input.capacity;
      if (w.resourceModel !== undefined) {
        // A count would change the node pool and not the model's nodes, which
        // place the jobs: refused rather than ignored (the machine's own
        // changes name nodes and groups, --capacity_schedule time,nodes,state).
        throw new EvtsimError(
          "usage",
          "capacity: a live change of the node count does not apply on a resource model " +
            "(a machine's nodes go down and up by name: changeNodes, or its capacity schedule)",
        );
      }
      if (!Number.isSafeInteger(c) || c < 0 || c > w.config.totalNodes) {
        throw new EvtsimError(
          "usage",
          `capacity must be an integer in 0..${w.config.totalNodes}, got ${c}`,
        );
      }
      event = { kind: "capacity", time, seq, capacity: c };
      break;
    }
    case "nodes": {
      const down = [...(input.down ?? [])];
      const up = [...(input.up ?? [])];
      // `failed` only when given: the stored event (and a snapshot) stays as before.
      const failed = input.failed === undefined ? undefined : [...input.failed];
      checkNodeNames(w, down, up, failed ?? []);
      event = failed === undefined || failed.length === 0
        ? { kind: "nodes", time, seq, down, up }
        : { kind: "nodes", time, seq, down, up, failed };
      break;
    }
    default: {
      // A kind defined in LIVE_INPUTS without its case here fails to compile.
      const unhandled: never = input;
      throw new EvtsimError(
        "usage",
        `unknown live event '${(unhandled as { kind: string }).kind}'`,
      );
    }
  }
  w.liveSeq++;
  w.liveEvents = w.liveEvents.add(event);
  if (latest > w.timeBound.latestInput) {
    w.timeBound = Object.freeze({ latestInput: latest, jobSpans: w.timeBound.jobSpans });
  }
}

// A live change of a machine's nodes names nodes the resource model has:
// refused (one line) on whole nodes, for an unknown name, or naming none.
function checkNodeNames(
  w: Working,
  down: readonly string[],
  up: readonly string[],
  failed: readonly string[],
): void {
  const model = w.resourceModel;
  if (model?.setOnline === undefined || model.offline === undefined || model.nodes === undefined) {
    throw new EvtsimError(
      "usage",
      "changeNodes: naming nodes needs a machine (a resource model that takes nodes offline); " +
        "on whole nodes change the node count (changeCapacity)",
    );
  }
  if (down.length === 0 && up.length === 0 && failed.length === 0) {
    throw new EvtsimError("usage", "changeNodes: name at least one node in down or up");
  }
  const known = new Set(model.nodes.map((n) => n.name));
  for (const [f, list] of [["down", down], ["up", up], ["failed", failed]] as const) {
    const bad = list.find((n) => !known.has(n));
    if (bad !== undefined) {
      throw new EvtsimError(
        "usage",
        `changeNodes: ${f}: '${bad}' is not a node of the machine (${model.nodes.length} nodes, ${
          model.nodes[0]?.name
        } … ${model.nodes[model.nodes.length - 1]?.name})`,
      );
    }
  }
}

// The nodes online after `down` go offline and then `up` come back (what a
// capacity schedule's row counts as its capacity).
function onlineAfter(
  w: Working,
  down: readonly string[],
  up: readonly string[],
  failed: readonly string[] = [],
): number {
  const model = w.resourceModel!;
  const offline = new Set(model.offline!(w.resourceState));
  for (const n of down) offline.add(n);
  for (const n of failed) offline.add(n);
  for (const n of up) offline.delete(n);
  return model.nodes!.length - offline.size;
}

// A job a live event may name: created, submitted, not finished.
function liveRecord(w: Working, id: number, what: string): JobRecord {
  if (!Number.isSafeInteger(id) || id < 0 || id >= w.nextJobId) {
    throw new EvtsimError("state", `cannot ${what} job ${id}: no such job`);
  }
  if (id < w.store.firstId) {
    throw new EvtsimError("state", `cannot ${what} job ${id}: it has finished`);
  }
  const rec = w.store.records.get(id - w.store.firstId)!;
  if (rec.rejected) {
    throw new EvtsimError("state", `cannot ${what} job ${id}: it was rejected`);
  }
  if (rec.unsubmitted) {
    throw new EvtsimError("state", `cannot ${what} job ${id}: it has not been submitted`);
  }
  if (rec.outcome === "cancelled") {
    throw new EvtsimError("state", `cannot ${what} job ${id}: it was cancelled`);
  }
  if (rec.endTime >= 0) {
    throw new EvtsimError("state", `cannot ${what} job ${id}: it has finished`);
  }
  return rec;
}

function checkJobUpdate(w: Working, u: JobUpdate): void {
  if (u === null || typeof u !== "object") {
    throw new EvtsimError("usage", "a job update must be an object");
  }
  if (u.priority !== undefined && !Number.isSafeInteger(u.priority)) {
    throw new EvtsimError("usage", `priority must be an integer, got ${u.priority}`);
  }
  if (u.queue !== undefined) {
    if (w.queues.list.length === 0) {
      throw new EvtsimError("usage", "cannot move a job to a queue: no queues are configured");
    }
    if (!w.queues.byName.has(u.queue)) {
      throw new EvtsimError("usage", `unknown queue '${u.queue}'`);
    }
  }
}

// The queue definition an update gives: the current one with the given
// fields replaced (or a new queue). Checked, including a per-queue picker.
function mergedQueue(w: Working, q: QueueDef): ResolvedQueue {
  if (w.queues.list.length === 0) {
    throw new EvtsimError("usage", "cannot update a queue: no queues are configured");
  }
  if (q === null || typeof q !== "object" || typeof q.name !== "string") {
    throw new EvtsimError("usage", "a queue update must name its queue");
  }
  const i = w.queues.byName.get(q.name);
  const old = i === undefined ? undefined : w.queues.list[i].def;
  const merged = resolveQueue(
    {
      name: q.name,
      priority: q.priority ?? old?.priority,
      picker: q.picker ?? old?.picker,
      project: q.project ?? old?.project,
      maxRunning: "maxRunning" in q ? q.maxRunning : old?.maxRunning,
      open: q.open ?? old?.open,
      // A resolved queue leaves `off` out: an update that does not give it keeps the old mode.
      preemptMode: q.preemptMode ?? old?.preemptMode,
    },
    `queue update`,
  );
  if (merged.picker !== undefined) lookupPicker(w.registry, merged.picker);
  return merged;
}

/**
 * Applies every live event due at or before `t`, in time then arrival
 * order; returns whether one may let a waiting job start (a round is due).
 */
export function applyLiveEventsAt(w: Working, t: number): boolean {
  let changed = false;
  for (let e = w.liveEvents.first(); e !== undefined && e.time <= t; e = w.liveEvents.first()) {
    w.liveEvents = w.liveEvents.deleteFirst();
    changed = applyOne(w, e, t) || changed;
  }
  return changed;
}

/**
 * Applies the node changes (`changeNodes`) due at `t` before anything else
 * of the instant, as the engine applies a capacity schedule's rows (before
 * the ends at `t`), so a live change gives the rows the same scheduled
 * change gives. Returns whether a round is due.
 */
export function applyNodeChangesAt(w: Working, t: number): boolean {
  let changed = false;
  for (let e = w.liveEvents.first(); e !== undefined && e.time <= t;) {
    const next = w.liveEvents.after(e);
    if (e.kind === "nodes") {
      w.liveEvents = w.liveEvents.delete(e);
      changed = applyOne(w, e, t) || changed;
    }
    e = next;
  }
  return changed;
}

function applyOne(w: Working, e: LiveEvent, t: number): boolean {
  switch (e.kind) {
    case "cancel":
      return cancel(w, e.id, t);
    case "end":
      return end(w, e.id, t, e.outcome, e.exitStatus);
    case "updateJob":
      return updateJob(w, e.id, e.update, t);
    case "updateQueue": {
      const def = mergedQueue(w, e.queue);
      const table = w.ownQueues();
      const i = table.byName.get(def.name);
      if (i === undefined) {
        table.byName.set(def.name, table.list.length);
        table.list.push({ def, running: 0 });
      } else {
        table.list[i] = { def, running: table.list[i].running };
      }
      if (!w.replay) {
        try {
          w.pickerState = w.picker.onQueueUpdate(w.pickerState, def);
        } catch (e) {
          throw w.pickerFailed(e);
        }
      }
      return true;
    }
    case "capacity":
      return w.setCapacity(e.capacity, t);
    case "nodes": {
      // Exactly what a capacity schedule's row does at `t` (same drain or kill).
      const capacity = onlineAfter(w, e.down, e.up, e.failed);
      if (e.failed !== undefined) countFailures(w);
      return w.setCapacity(capacity, t, {
        time: t,
        capacity,
        down: e.down,
        up: e.up,
        ...(e.failed === undefined ? {} : { failed: e.failed }),
      });
    }
  }
}

// The job's record if it is still in the store and not finished.
function current(w: Working, id: number): JobRecord | undefined {
  if (id < w.store.firstId) return undefined;
  const rec = w.store.records.get(id - w.store.firstId);
  return rec === undefined || rec.endTime >= 0 ? undefined : rec;
}

function ignored(w: Working, id: number, t: number, reason: string): false {
  w.notices.push({ kind: "ignored", time: t, jobId: id, reason });
  return false;
}

function cancel(w: Working, id: number, t: number): boolean {
  const rec = current(w, id);
  if (rec === undefined) return ignored(w, id, t, `cancel of job ${id}: it had already ended`);
  if (rec.beginTime >= 0) {
    return ignored(w, id, t, `cancel of job ${id}: it had started at ${rec.beginTime}`);
  }
  if (w.arrivals.has(rec)) w.arrivals = w.arrivals.delete(rec);
  else {
    try {
      w.pickerState = w.picker.onJobStateChange(w.pickerState, rec, "cancelled");
    } catch (e) {
      throw w.pickerFailed(e);
    }
  }
  w.pendCodes = w.pendCodes.delete({ id, code: "insufficient_nodes" });
  w.completeRecord({
    ...rec,
    beginTime: t,
    endTime: t,
    outcome: "cancelled",
    exitStatus: defaultExitStatus("cancelled"),
  });
  w.stats.jobsCancelled++;
  return true;
}

function end(w: Working, id: number, t: number, outcome: EndOutcome, exitStatus: number): boolean {
  const rec = current(w, id);
  if (rec === undefined) return ignored(w, id, t, `end of job ${id}: it had already ended`);
  if (rec.beginTime < 0) return ignored(w, id, t, `end of job ${id}: it was not running`);
  w.endEarly(rec, t, outcome === "completed" ? undefined : outcome, exitStatus);
  return true;
}

function updateJob(w: Working, id: number, u: JobUpdate, t: number): boolean {
  const rec = current(w, id);
  if (rec === undefined) return ignored(w, id, t, `update of job ${id}: it had already ended`);
  if (rec.beginTime >= 0) {
    return ignored(w, id, t, `update of job ${id}: it had started at ${rec.beginTime}`);
  }
  const next: JobRecord = {
    ...rec,
    ...(u.priority === undefined ? {} : { priority: u.priority }),
    ...(u.queue === undefined ? {} : { queue: u.queue }),
  };
  w.replaceRecord(next);
  if (w.arrivals.has(rec)) w.arrivals = w.arrivals.delete(rec).add(next);
  else {
    try {
      w.pickerState = w.picker.onJobUpdate(w.pickerState, rec, next);
    } catch (e) {
      throw w.pickerFailed(e);
    }
  }
  return true;
}
