// Replica shapes: a job's units per replica and topology key, as a small
// number per shape. Jobs of one shape differ only in their replica count, so
// a model that found no room for r replicas of a shape (with nothing ended
// since) finds none for more: the EASY pass passes such candidates over, and
// the wait queue files jobs by shape so that a search skips them together.
// The numbers only group jobs; nothing is ordered by them.

import type { ResourceDemand } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";

// By demand object: a pass looks a shape up per candidate.
const shapeIds = new WeakMap<object, number>();
const shapeIdOfKey = new Map<string, number>();
// By the demand's entries in its own order (a trace's demands list their
// resources in one order, so this finds most without sorting).
const shapeIdOfRaw = new Map<string, number>();

/** The number of `job`'s replica shape; -1 when it has no demand. */
export function demandShapeId(job: JobRecord): number {
  const d = job.demand;
  return d === undefined ? -1 : shapeIdOf(d);
}

/** The number of `d`'s replica shape (the same `perReplica` and `topologyKey`: the same number). */
export function shapeIdOf(d: ResourceDemand): number {
  let id = shapeIds.get(d);
  if (id === undefined) {
    let raw = `${d.topologyKey ?? ""}\u0000`;
    for (const r in d.perReplica) raw += `${r}\u0001${d.perReplica[r]}\u0000`;
    id = shapeIdOfRaw.get(raw);
    if (id === undefined) {
      const key = `${d.topologyKey ?? ""}|${
        Object.keys(d.perReplica).sort().map((r) => `${r}=${d.perReplica[r]}`).join()
      }`;
      id = shapeIdOfKey.get(key);
      if (id === undefined) shapeIdOfKey.set(key, id = shapeIdOfKey.size);
      shapeIdOfRaw.set(raw, id);
    }
    shapeIds.set(d, id);
  }
  return id;
}
