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
import type { RunningJob, RunningSet } from "./running.ts";
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
  if (state.runMode.waitingJobs(state) === 0) return;
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

/** What EASY's release walk releases running jobs on, and asks whether the head fits. */
export interface WalkScan {
  /** Gives back what running job `job` holds (on the scan or copy only). */
  release(job: JobRecord): void;
  /** Whether the head could be placed with everything released so far. */
  canPlace(): boolean;
}

/** The walk's answer: the shadow time and the node-count pool's nodes free then. */
export interface WalkShadow {
  readonly time: number;
  readonly nodes: number;
}

/**
 * EASY's release walk (see the module comment), shared with the admission
 * policies (schedulers/_easy_resources.ts): the running jobs released on
 * `scan` in the order of their projected ends, all ending at one time
 * together, until `headNodes` of the node-count pool (`free` of them free
 * now) are free and `scan` places the head; jobs whose projected end is not
 * after `now` last. Undefined when the head cannot be placed even with every
 * running job released. `record`: a running job's record by id. `resume`:
 * a walk resumed at running job `next` (undefined: none left), every job
 * before it released on `scan` already and `free` counting their nodes.
 */
export function releaseWalk(
  running: RunningSet,
  now: number,
  free: number,
  headNodes: number,
  scan: WalkScan,
  record: (id: number) => JobRecord,
  resume?: { readonly next: RunningJob | undefined },
): WalkShadow | undefined {
  let nodes = free;
  let overran: number[] | undefined;
  let r = resume === undefined ? running.first() : resume.next;
  while (r !== undefined) {
    const at = r.projectedEnd;
    // Every job projected to end at `at`, together.
    while (r !== undefined && r.projectedEnd === at) {
      if (at > now) {
        scan.release(record(r.id));
        nodes += r.numNodes;
      } else (overran ??= []).push(r.id);
      r = running.after(r);
    }
    if (at <= now || headNodes > nodes) continue;
    if (scan.canPlace()) return { time: at, nodes };
  }
  // Only the overrunning jobs are left: with them gone, is there room at all?
  if (overran !== undefined) {
    for (const id of overran) {
      const rec = record(id);
      scan.release(rec);
      nodes += rec.numNodes;
    }
  }
  return headNodes <= nodes && scan.canPlace() ? { time: now, nodes } : undefined;
}

// EASY's release walk on the state as it is; undefined when the head
// cannot be placed even with every running job released.
function shadowTime(state: SimState, res: ResourceModelState, head: JobRecord): number | undefined {
  const now = state.time;
  const model = res.model;
  const nodes = Math.max(0, state.capacity - state.allocatedNodes);
  if (head.numNodes <= nodes && canPlace(model, res.state, head)) return now;
  const record = (id: number) => state.store.records.get(id - state.store.firstId)!;
  if (model.releaseScan !== undefined) {
    const scan = model.releaseScan(res.state, head);
    return releaseWalk(state.running, now, nodes, head.numNodes, scan, record)?.time;
  }
  const copy = model.beginEdit(res.state);
  try {
    const scan = {
      release: (job: JobRecord) => void model.release(copy, job),
      canPlace: () => canPlace(model, copy, head),
    };
    return releaseWalk(state.running, now, nodes, head.numNodes, scan, record)?.time;
  } finally {
    model.endEdit(copy);
  }
}
