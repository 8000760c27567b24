// Why jobs never started: at the end of a run with jobs still waiting and
// nothing left to happen, each waiting job is put in one class, so the
// warning blames what actually held it (the capacity, a queue's limits, the
// picker, a job ahead of it, or the admission policy), counted per class.

import { policyFailure } from "./_policy_faults.ts";
import { queueBlock } from "./queues.ts";
import type { SimState } from "./state.ts";
import type { JobRecord, Notice, StrandedCause } from "./types.ts";
import { unplaceableCache } from "./_unplaceable.ts";
import { holdReason, neverPlaceable } from "./_hold_rule.ts";
import { overEveryCap, powerCapped } from "./_power.ts";

/**
 * Gives the `stranded` notice among `notices` (written by `finish`) its
 * causes, classified on the state `s` that `finish` was applied to.
 */
export function classifyStranded(notices: Notice[], s: SimState): void {
  for (let i = 0; i < notices.length; i++) {
    const n = notices[i];
    if (n.kind === "stranded") notices[i] = { ...n, causes: strandedCauses(s) };
  }
}

/**
 * The classes of the jobs still waiting in state `s` (nothing left to happen), in this
 * order of precedence: never placeable by the resource model, even on its
 * empty machine; larger than the usable capacity; drawing more than the
 * highest power cap to come even alone on the machine; held by a queue that
 * may not start jobs (closed, or `maxRunning` reached); never offered by the
 * picker (a probe session, which changes nothing, walks its candidates);
 * offered behind a job larger than the capacity (one class per such job);
 * else offered but left waiting by the admission policy.
 */
export function strandedCauses(s: SimState): StrandedCause[] {
  const waiting: JobRecord[] = [];
  const records = s.store.records;
  for (let i = 0; i < records.size; i++) {
    const r = records.get(i)!;
    if (
      r.beginTime < 0 && r.endTime < 0 && !r.rejected && r.unsubmitted !== true &&
      r.submitTime <= s.time
    ) waiting.push(r);
  }
  const blockerOf = offeredOrder(s);
  const classes = new Map<string, { cause: StrandedCause; jobs: number[] }>();
  const add = (key: string, cause: StrandedCause, id: number) => {
    const c = classes.get(key);
    if (c === undefined) classes.set(key, { cause, jobs: [id] });
    else c.jobs.push(id);
  };
  // The hold rule (core/_hold_rule.ts) in two parts: a job the model can
  // never place (unless the policy is offered it), then one larger than the
  // usable node count, or on a machine with nodes offline one (with a
  // demand) that does not fit the nodes online. Against the usable node
  // count whatever the capacity semantics: DR_EVT's holds no job, but a job
  // larger than the capacity is what stranded it all the same.
  const res = s.resources;
  const never = res !== undefined && s.admission.offersUnplaceable !== true
    ? unplaceableCache(res.model)
    : undefined;
  const beyond = (r: JobRecord) =>
    holdReason(
      s.capacity,
      r.demand === undefined ? undefined : res?.model,
      res?.state,
      undefined,
      r,
    ) !== undefined;
  const capped = s.runMode.decides && powerCapped(s.config);
  for (const r of waiting) {
    if (never !== undefined && neverPlaceable(res!.model, never, r) !== undefined) {
      add("never", { cause: "never_fits", jobs: 0, firstJob: r.id }, r.id);
      continue;
    }
    if (beyond(r)) {
      add("capacity", { cause: "larger_than_capacity", jobs: 0, firstJob: r.id }, r.id);
      continue;
    }
    // Held by the power cap (core/_session.ts): over the highest cap to come even alone.
    const over = capped ? overEveryCap(s.config, r, res?.model, s.time) : undefined;
    if (over !== undefined) {
      add("power", { cause: "over_power_cap", jobs: 0, firstJob: r.id, powerCap: over.cap }, r.id);
      continue;
    }
    const held = heldBy(s, r);
    if (held !== undefined) {
      add(`queue ${held}`, { cause: "held_by_queue", jobs: 0, firstJob: r.id, queue: held }, r.id);
      continue;
    }
    const blocker = blockerOf.get(r.id);
    if (blocker === undefined) {
      add("picker", { cause: "never_offered", jobs: 0, firstJob: r.id, by: s.picker.name }, r.id);
    } else if (blocker >= 0) {
      add(
        `behind ${blocker}`,
        { cause: "blocked_behind", jobs: 0, firstJob: r.id, behindJob: blocker },
        r.id,
      );
    } else {
      add("admission", {
        cause: "not_started",
        jobs: 0,
        firstJob: r.id,
        by: s.admission.name,
      }, r.id);
    }
  }
  return [...classes.values()].map(({ cause, jobs }) =>
    Object.freeze({ ...cause, jobs: jobs.length })
  );
}

// The queue holding `r` (closed or at its limit), if any.
function heldBy(s: SimState, r: JobRecord): string | undefined {
  if (s.queues.list.length === 0 || r.queue === undefined) return undefined;
  const i = s.queues.byName.get(r.queue);
  if (i === undefined) return undefined;
  const q = s.queues.list[i];
  const block = queueBlock(q);
  if (block === undefined) return undefined;
  return block === "queue_closed"
    ? `${q.def.name} (closed)`
    : `${q.def.name} (max_running ${q.def.maxRunning})`;
}

// The picker's candidates in one probe session, each with the job ahead of
// it that can never fit (the nearest one), or -1. Nothing is started: the
// session sees every candidate pended and its end state is dropped (hooks
// never change the state they are given). Node counts are the engine's.
function offeredOrder(s: SimState): Map<number, number> {
  const out = new Map<number, number>();
  const ready = (name: string) => {
    const i = s.queues.byName.get(name);
    return i === undefined || queueBlock(s.queues.list[i]) === undefined;
  };
  try {
    const session = s.picker.beginSession(s.pickerState, {
      now: s.time,
      queuesConfigured: s.queues.list.length > 0,
      queueReady: ready,
    });
    const bound = s.picker.size(s.pickerState) + 1;
    let blocker = -1;
    for (let k = 0; k < bound; k++) {
      const job = session.nextJob();
      if (job === undefined || out.has(job.id)) break;
      const id = job.id;
      out.set(id, blocker);
      const rec = id >= s.store.firstId ? s.store.records.get(id - s.store.firstId) : undefined;
      if (rec !== undefined && rec.numNodes > s.capacity) blocker = id;
      session.onPend(job);
    }
  } catch (e) {
    throw policyFailure(s.picker.name, s.time, e);
  }
  return out;
}
