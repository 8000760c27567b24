// A topology cluster's node changes (nodes taken offline and brought back
// online, schedulers/topology_cluster.ts): the free units, classes, slot
// caches and sums of a state as nodes change, and the machine with every
// online node empty.

import type { ModelNode } from "../core/resource_model.ts";
import type { TopologyState } from "./topology_cluster.ts";
import type { SlotCaches } from "./_topology_slots.ts";
import type { NodeClasses } from "./_topology_classes.ts";
import { runsOf } from "./_topology_runs.ts";
import { sumFree } from "./_topology_free.ts";

/** What node changes read of their cluster. */
export interface NodesOf {
  readonly names: readonly string[];
  readonly nodes: readonly ModelNode[];
  readonly resources: readonly string[];
  readonly slotCaches: SlotCaches;
  readonly classes: NodeClasses;
}

/**
 * Takes the nodes `idx` offline (`online` false) or brings them back in
 * `state` (being edited): their capacity leaves or joins the free units.
 */
export function changeOnline(
  c: NodesOf,
  state: TopologyState,
  idx: readonly number[],
  online: boolean,
): TopologyState {
  const offline = (state.offline ?? new Set<number>()) as Set<number>;
  const changing = idx.filter((i) => offline.has(i) === online);
  if (changing.length === 0) return state;
  const R = c.resources.length;
  const free = state.free;
  c.slotCaches.change(state, runsOf(changing, changing.map(() => 0)), () => {
    for (const i of changing) {
      for (let r = 0; r < R; r++) {
        const units = c.nodes[i].capacity[c.resources[r]] ?? 0;
        free[i * R + r] += online ? units : -units;
      }
      if (online) offline.delete(i);
      else offline.add(i);
      if (c.classes.on && state.classOwner === c.classes) {
        (state as { classCounts: Float64Array }).classCounts = c.classes.reclass(
          state,
          free,
          i,
        );
      }
    }
    (state.freeSums as Float64Array).set(sumFree(free, R));
  });
  if (state.offline === undefined) (state as { offline?: Set<number> }).offline = offline;
  return state;
}

/** The machine with every node but those `offline` empty (a frozen state). */
export function emptyOnline(c: NodesOf, offline: ReadonlySet<number>): TopologyState {
  const R = c.resources.length;
  const free = new Float64Array(c.names.length * R);
  for (let i = 0; i < c.names.length; i++) {
    if (offline.has(i)) continue;
    for (let r = 0; r < R; r++) {
      free[i * R + r] = c.nodes[i].capacity[c.resources[r]] ?? 0;
    }
  }
  return Object.freeze({
    free,
    freeSums: sumFree(free, R),
    held: new Map(),
    ...c.classes.classesOf(free, c.names.length),
    classOwner: c.classes,
  });
}
