// Jobs a resource model can never place, even on its empty machine (more
// replicas than the machine, or than any one domain of the job's topology
// level, can hold at once). Such a job is held as a job larger than a cut
// machine is (pend reason `exceeds_capacity`): it never starts, and the
// jobs behind it go on — unless the admission policy asks to be offered it
// (`Admission.offersUnplaceable`: TopoQueue's strict FIFO blocks behind it).
// The answer depends on the job's demand only, so it is computed once per
// replica shape and kept per model; a job costs one lookup per offer.

import type { PendReason } from "./decisions.ts";
import type { ResourceModel } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";

/** What one model knows of the jobs it has been asked about. */
export interface UnplaceableCache {
  /** By demand object: the hold's reason, or null when the job fits the empty machine. */
  readonly byDemand: WeakMap<object, PendReason | null>;
  /** By replica shape (replicas, topology key, units), for demands not seen yet. */
  readonly byShape: Map<string, PendReason | null>;
}

const CACHES = new WeakMap<ResourceModel, UnplaceableCache>();
/** Replica shapes kept per model before the shape cache starts again. */
const SHAPES_KEPT = 4096;

/**
 * The cache of `model` (one per model object: answers are pure).
 *
 * @example
 * ```ts
 * import { unplaceableCache } from "./_unplaceable.ts";
 * import { topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([{ name: "n1", capacity: { cpu: 4 } }]);
 * if (unplaceableCache(model) !== unplaceableCache(model)) throw new Error("one per model");
 * ```
 */
export function unplaceableCache(model: ResourceModel): UnplaceableCache {
  let c = CACHES.get(model);
  if (c === undefined) CACHES.set(model, c = { byDemand: new WeakMap(), byShape: new Map() });
  return c;
}

/**
 * The hold's reason when `job` (which has a demand) can never be placed by
 * `model`, even on its empty machine; undefined when it can.
 *
 * @example
 * ```ts
 * import { unplaceableCache, unplaceableReason } from "./_unplaceable.ts";
 * import { topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([{ name: "n1", capacity: { cpu: 4 } }]);
 * const job = (replicas: number) => ({
 *   id: 0, submitTime: 0, numNodes: 0, timeLimit: 1, runTime: 1, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 *   demand: { replicas, perReplica: { cpu: 2 } },
 * });
 * const c = unplaceableCache(model);
 * if (unplaceableReason(c, model, job(2)) !== undefined) throw new Error("2 replicas fit");
 * if (unplaceableReason(c, model, job(3))?.code !== "exceeds_capacity") throw new Error("held");
 * ```
 */
export function unplaceableReason(
  cache: UnplaceableCache,
  model: ResourceModel,
  job: JobRecord,
): PendReason | undefined {
  const d = job.demand!;
  let r = cache.byDemand.get(d);
  if (r === undefined) {
    const shape = shapeOf(job);
    r = cache.byShape.get(shape);
    if (r === undefined) {
      const fits = model.canPlace !== undefined
        ? model.canPlace(model.initial, job)
        : model.place(model.initial, job).placement !== undefined;
      r = fits ? null : neverReason(model.place(model.initial, job).reason);
      // Bounded: a trace whose every job has its own shape keeps no list of them.
      if (cache.byShape.size >= SHAPES_KEPT) cache.byShape.clear();
      cache.byShape.set(shape, r);
    }
    cache.byDemand.set(d, r);
  }
  return r ?? undefined;
}

/** The demand's replica shape as a key. */
function shapeOf(job: JobRecord): string {
  const d = job.demand!;
  const units = Object.entries(d.perReplica).filter(([, v]) => v > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([d.replicas, d.topologyKey ?? null, units]);
}

/** The hold's reason, with the model's reason on the empty machine and its facts. */
function neverReason(empty: PendReason | undefined): PendReason {
  const why = empty === undefined ? "" : ` (${empty.message})`;
  const { code: _code, message: _message, ...facts } = empty ?? { code: "", message: "" };
  return {
    code: "exceeds_capacity",
    message: `can never be placed, even on the empty machine${why}: held, the jobs behind it go on`,
    ...facts,
  };
}
