// The hold rule, in one place: a waiting job the machine cannot run as it is
// is held (pend reason `exceeds_capacity`) instead of blocking the jobs
// behind it — one needing more nodes than a cut machine has now (evtsim's
// capacity semantics; DR_EVT's hold nothing), on a machine (a resource
// model) one its empty machine can never hold (unless the admission policy
// asks to be offered such jobs), and one that does not fit the nodes online.
// The scheduling round (core/_session.ts) holds by it; the monitors read it
// (core/_model_shadow.ts for the head's reservation, core/queries.ts for the
// held-job count), so they hold exactly the jobs a round holds; and
// core/_stranded.ts classes the jobs a run left waiting by it.

import { type PendReason, pendReasons } from "./decisions.ts";
import type { ResourceModel } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";
import { type UnplaceableCache, unplaceableReason } from "./_unplaceable.ts";

/**
 * The node count a job's is held against: the usable nodes while a cut
 * lasts under evtsim's semantics, else Infinity (no job is held for its
 * node count: DR_EVT's semantics, or the whole machine up).
 */
export function holdCapacity(capacity: number, totalNodes: number, drevt: boolean): number {
  return drevt || capacity >= totalNodes ? Infinity : capacity;
}

/**
 * Why `job` is held (its reason, or a function giving it when it is made
 * only if asked for), or undefined when it is not. `capacity` is
 * {@link holdCapacity}'s; `unplaceable` the model's cache of the jobs it
 * can never place, undefined when the admission policy is offered them.
 */
export function holdReason(
  capacity: number,
  model: ResourceModel | undefined,
  modelState: unknown,
  unplaceable: UnplaceableCache | undefined,
  job: JobRecord,
): PendReason | (() => PendReason) | undefined {
  if (job.numNodes > capacity) return () => pendReasons.exceedsCapacity(job.numNodes, capacity);
  if (model === undefined) return undefined;
  // The empty machine cannot hold it: held for good, the jobs behind it go on.
  const never = neverPlaceable(model, unplaceable, job);
  if (never !== undefined) return never;
  if (model.fitsOnline !== undefined && !model.fitsOnline(modelState, job)) {
    // A machine's nodes went offline and it no longer fits the rest: held the same way.
    const down = model.offline?.(modelState).length ?? 0;
    return () => ({
      code: "exceeds_capacity",
      message: `does not fit the nodes online now (${down} offline): held until nodes come back`,
    });
  }
  return undefined;
}

/**
 * The part of {@link holdReason} that holds a job for good: its reason when
 * `model` can never place `job` (which has a demand), even on its empty
 * machine; undefined when it can, for a job without a demand, or when the
 * admission policy is offered such jobs (`unplaceable` undefined).
 */
export function neverPlaceable(
  model: ResourceModel,
  unplaceable: UnplaceableCache | undefined,
  job: JobRecord,
): PendReason | undefined {
  return unplaceable !== undefined && job.demand !== undefined
    ? unplaceableReason(unplaceable, model, job)
    : undefined;
}
