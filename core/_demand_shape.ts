// Replica shapes: a job's units per replica and topology key, as a small
// number per shape. Jobs of one shape differ only in their replica count, so
// a model that found no room for r replicas of a shape (with nothing ended
// since) finds none for more: the EASY pass passes such candidates over, and
// the wait queue files jobs by shape so that a search skips them together.
// The numbers only group jobs; nothing is ordered by them.

import type { ResourceDemand } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";

// A record's demand carries its number (`frozenDemand`: a pass looks a
// shape up per candidate, and a property read is far cheaper than a
// WeakMap's); other demand objects are found by object.
const SHAPE_ID: unique symbol = Symbol("evtsim.shapeId");
const shapeIds = new WeakMap<object, number>();
const shapeIdOfKey = new Map<string, number>();
// By the demand's entries in its own order (a trace's demands list their
// resources in one order, so this finds most without sorting).
const shapeIdOfRaw = new Map<string, number>();

/** The number of `job`'s replica shape; -1 when it has no demand. */
export function demandShapeId(job: JobRecord): number {
  const d = job.demand;
  if (d === undefined) return -1;
  const id = (d as { readonly [SHAPE_ID]?: number })[SHAPE_ID];
  return id !== undefined ? id : shapeIdOf(d);
}

/**
 * A frozen copy of `d` (and of its units) that carries its shape number:
 * a job record's own demand. The number is a non-enumerable symbol-keyed
 * property, so copies, JSON and deep equality see only the demand.
 */
export function frozenDemand(d: ResourceDemand): ResourceDemand {
  const copy = { ...d, perReplica: Object.freeze({ ...d.perReplica }) };
  Object.defineProperty(copy, SHAPE_ID, { value: numberOf(copy) });
  return Object.freeze(copy);
}

/** The number of `d`'s replica shape (the same `perReplica` and `topologyKey`: the same number). */
export function shapeIdOf(d: ResourceDemand): number {
  const own = (d as { readonly [SHAPE_ID]?: number })[SHAPE_ID];
  if (own !== undefined) return own;
  let id = shapeIds.get(d);
  if (id === undefined) shapeIds.set(d, id = numberOf(d));
  return id;
}

/** `d`'s shape number, from its units and key. */
function numberOf(d: ResourceDemand): number {
  let raw = `${d.topologyKey ?? ""}\u0000`;
  for (const r in d.perReplica) raw += `${r}\u0001${d.perReplica[r]}\u0000`;
  let id = shapeIdOfRaw.get(raw);
  if (id === undefined) {
    const key = `${d.topologyKey ?? ""}|${
      Object.keys(d.perReplica).sort().map((r) => `${r}=${d.perReplica[r]}`).join()
    }`;
    id = shapeIdOfKey.get(key);
    if (id === undefined) shapeIdOfKey.set(key, id = shapeIdOfKey.size);
    shapeIdOfRaw.set(raw, id);
  }
  return id;
}
