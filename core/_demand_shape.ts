// Replica shapes: a job's units per replica and topology key, as a small
// number per shape. Jobs of one shape differ only in their replica count, so
// a model that found no room for r replicas of a shape (with nothing ended
// since) finds none for more: the EASY pass passes such candidates over, and
// the wait queue files jobs by shape so that a search skips them together.
// The numbers only group jobs; nothing is ordered by them.

import type { ResourceDemand } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";

// A record's demand carries its number on its units (`frozenDemand`: a pass
// looks a shape up per candidate, and a property read is far cheaper than a
// WeakMap's): the records of one shape share one frozen `perReplica`, which
// holds the number and the topology key it was numbered with as
// non-enumerable symbol-keyed properties (set once per shape, so copies,
// JSON and deep equality see only the units). Other demand objects are found
// by object.
const SHAPE_ID: unique symbol = Symbol("evtsim.shapeId");
const SHAPE_KEY: unique symbol = Symbol("evtsim.shapeKey");
type Units = { readonly [SHAPE_ID]?: number; readonly [SHAPE_KEY]?: string };
const shapeIds = new WeakMap<object, number>();
const shapeIdOfKey = new Map<string, number>();
// By the demand's entries in its own order (a trace's demands list their
// resources in one order, so this finds most without sorting): the shared
// units of that raw form, in a tree by topology key, then per entry its
// name and units (looked up without making a string per record).
interface RawForm {
  units?: Readonly<Record<string, number>> & Units;
  next?: Map<string, Map<number, RawForm>>;
}
const rawForms = new Map<string, RawForm>();

/** The number of `job`'s replica shape; -1 when it has no demand. */
export function demandShapeId(job: JobRecord): number {
  const d = job.demand;
  if (d === undefined) return -1;
  const u = d.perReplica as Units;
  const id = u[SHAPE_ID];
  return id !== undefined && u[SHAPE_KEY] === d.topologyKey ? id : shapeIdOf(d);
}

/**
 * A frozen copy of `d` whose units are the frozen units shared by every
 * record of its shape (carrying the shape number): a job record's own demand.
 */
export function frozenDemand(d: ResourceDemand): ResourceDemand {
  return Object.freeze({ ...d, perReplica: sharedUnits(d) });
}

/** The number of `d`'s replica shape (the same `perReplica` and `topologyKey`: the same number). */
export function shapeIdOf(d: ResourceDemand): number {
  const u = d.perReplica as Units;
  const own = u[SHAPE_ID];
  if (own !== undefined && u[SHAPE_KEY] === d.topologyKey) return own;
  let id = shapeIds.get(d);
  if (id === undefined) shapeIds.set(d, id = sharedUnits(d)[SHAPE_ID]!);
  return id;
}

/** The frozen units of `d`'s shape and raw form, numbered. */
function sharedUnits(d: ResourceDemand): Readonly<Record<string, number>> & Units {
  const topologyKey = d.topologyKey ?? "";
  let raw: RawForm | undefined = rawForms.get(topologyKey);
  if (raw === undefined) rawForms.set(topologyKey, raw = {});
  for (const r in d.perReplica) {
    const next: Map<string, Map<number, RawForm>> = raw.next ??= new Map();
    let byUnits: Map<number, RawForm> | undefined = next.get(r);
    if (byUnits === undefined) next.set(r, byUnits = new Map());
    const v = d.perReplica[r];
    let form: RawForm | undefined = byUnits.get(v);
    if (form === undefined) byUnits.set(v, form = {});
    raw = form;
  }
  let units = raw.units;
  if (units === undefined) {
    const key = `${d.topologyKey ?? ""}|${
      Object.keys(d.perReplica).sort().map((r) => `${r}=${d.perReplica[r]}`).join()
    }`;
    let id = shapeIdOfKey.get(key);
    if (id === undefined) shapeIdOfKey.set(key, id = shapeIdOfKey.size);
    units = Object.freeze(Object.defineProperties({ ...d.perReplica }, {
      [SHAPE_ID]: { value: id },
      [SHAPE_KEY]: { value: d.topologyKey },
    }));
    raw.units = units;
  }
  return units;
}
