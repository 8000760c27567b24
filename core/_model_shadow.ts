// The head's reservation on a machine (a resource model), as EASY computes
// it in a scheduling round (schedulers/_easy_resources.ts, which core/ may
// not import): the head is the first waiting job of a ready queue that is
// not held (a job the machine as it is now, or the empty machine, cannot
// hold is passed over, as the session does); its shadow time is the first
// projected end of the running jobs by which, with every job ending by then
// released, the node-count pool has its nodes and the model can place it.
// Jobs whose projected end is not after now release nothing until the
// others are exhausted: when only they make room, the shadow is now. All of
// it through the model's contract (`releaseScan`, else a `beginEdit` copy),
// on the state as it is: nothing changes.

import { type PendReason, pendReasons } from "./decisions.ts";
import { queueBlock } from "./queues.ts";
import type { ResourceModel } from "./resource_model.ts";
import type { ResourceModelState, SimState } from "./state.ts";
import type { JobRecord } from "./types.ts";
import { unplaceableCache } from "./_unplaceable.ts";
import { holdCapacity, holdReason } from "./_hold_rule.ts";

/**
 * The waiting jobs of queues that are ready now, in the order a scheduling
 * round at the clock would offer them (none while a recorded schedule
 * replays: it decides nothing).
 */
export function* readyWaitingJobs(state: SimState): Generator<JobRecord> {
  if (state.replay || state.picker.size(state.pickerState) === 0) return;
  const ready = (name: string) => {
    const i = state.queues.byName.get(name);
    return i === undefined || queueBlock(state.queues.list[i]) === undefined;
  };
  const session = state.picker.beginSession(state.pickerState, {
    now: state.time,
    queuesConfigured: state.queues.list.length > 0,
    queueReady: ready,
  });
  for (let job = session.nextJob(); job !== undefined; job = session.nextJob()) {
    if (state.queues.list.length === 0 || job.queue === undefined || ready(job.queue)) yield job;
  }
}

/** The head's reservation: its shadow time, or why it can never be placed. */
export type ModelReservation =
  | { readonly job: JobRecord; readonly shadowTime: number; readonly reason?: undefined }
  | { readonly job: JobRecord; readonly shadowTime?: undefined; readonly reason: PendReason };

function canPlace(model: ResourceModel, state: unknown, job: JobRecord): boolean {
  return model.canPlace !== undefined
    ? model.canPlace(state, job)
    : model.place(state, job).placement !== undefined;
}

/** Why a scheduling round holds `job` without offering it as a head (undefined: it does not). */
function heldReason(
  state: SimState,
  res: ResourceModelState,
  job: JobRecord,
): PendReason | undefined {
  const model = res.model;
  // The round's hold rule (core/_hold_rule.ts), then EASY's own pass-over.
  const held = holdReason(
    holdCapacity(
      state.capacity,
      state.config.totalNodes,
      state.config.capacitySemantics === "drevt",
    ),
    model,
    res.state,
    state.admission.offersUnplaceable === true ? undefined : unplaceableCache(model),
    job,
  );
  if (held !== undefined) return typeof held === "function" ? held() : held;
  // EASY passes over a job the empty machine cannot hold (with its reason) as well.
  if (!canPlace(model, model.initial, job)) {
    return model.place(model.initial, job).reason ?? pendReasons.exceedsCapacity(0, 0);
  }
  return undefined;
}

/**
 * On a machine: EASY's head and its reservation; when every waiting job is
 * held, the first with its hold's reason; undefined when nothing waits.
 */
export function modelReservation(
  state: SimState,
  res: ResourceModelState,
): ModelReservation | undefined {
  let first: ModelReservation | undefined;
  for (const job of readyWaitingJobs(state)) {
    const held = heldReason(state, res, job);
    if (held !== undefined) {
      first ??= { job, reason: held };
      continue;
    }
    const time = shadowTime(state, res, job);
    return time === undefined
      ? {
        job,
        reason: {
          code: "exceeds_capacity",
          message: "cannot be placed even with every running job ended",
        },
      }
      : { job, shadowTime: time };
  }
  return first;
}

// EASY's release walk (see the module comment); undefined when the head
// cannot be placed even with every running job released.
function shadowTime(state: SimState, res: ResourceModelState, head: JobRecord): number | undefined {
  const now = state.time;
  const model = res.model;
  let nodes = Math.max(0, state.capacity - state.allocatedNodes);
  if (head.numNodes <= nodes && canPlace(model, res.state, head)) return now;
  const record = (id: number) => state.store.records.get(id - state.store.firstId)!;
  let release: (job: JobRecord) => void;
  let fits: () => boolean;
  let done = () => {};
  if (model.releaseScan !== undefined) {
    const scan = model.releaseScan(res.state, head);
    release = (job) => scan.release(job);
    fits = () => scan.canPlace();
  } else {
    const copy = model.beginEdit(res.state);
    release = (job) => void model.release(copy, job);
    fits = () => canPlace(model, copy, head);
    done = () => void model.endEdit(copy);
  }
  try {
    const overran: JobRecord[] = [];
    const it = state.running.values()[Symbol.iterator]();
    let r = it.next();
    while (!r.done) {
      const at = r.value.projectedEnd;
      // Every job projected to end at `at`, together.
      while (!r.done && r.value.projectedEnd === at) {
        if (at > now) {
          release(record(r.value.id));
          nodes += r.value.numNodes;
        } else overran.push(record(r.value.id));
        r = it.next();
      }
      if (at > now && head.numNodes <= nodes && fits()) return at;
    }
    for (const job of overran) {
      release(job);
      nodes += job.numNodes;
    }
    return head.numNodes <= nodes && fits() ? now : undefined;
  } finally {
    done();
  }
}
