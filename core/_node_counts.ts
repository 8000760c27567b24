// The node counts of a state (DR_EVT's get_available_nodes and
// get_nodes_in_use): whole nodes from the node count, on a machine from the
// model's nodes (core/_machine_room.ts). Exported by core/queries.ts.

import type { SimState } from "./state.ts";
import { machineRoom } from "./_machine_room.ts";

/**
 * Nodes free now (usable capacity minus allocated, never negative). On a
 * machine (a resource model that names its nodes), where a job asking for
 * cores, memory or GPUs holds no share of the node count, the nodes online
 * that hold no job (idle): the whole nodes free; {@link backfillWindow}
 * adds the nodes with any room and the free units of each resource.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, availableNodes, initialState, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 10 }), appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 9 }])).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(availableNodes(s) === 6);
 * ```
 */
export function availableNodes(state: SimState): number {
  if (state.resources !== undefined) {
    const room = machineRoom(state);
    if (room !== undefined) return room.idle;
  }
  const free = state.capacity - state.allocatedNodes;
  return free > 0 ? free : 0;
}

/**
 * Nodes holding a running job. On whole nodes, the nodes allocated; on a
 * machine (a resource model that names its nodes), where a job asking for
 * cores, memory or GPUs holds no share of the node count, the nodes a job
 * runs on (online or draining), however little of each it takes.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, nodesInUse, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 10 }), appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 9 }])).state;
 * s = step(s, advanceTo(0)).state;
 * console.assert(nodesInUse(s) === 4);
 * ```
 */
export function nodesInUse(state: SimState): number {
  if (state.resources !== undefined) {
    const room = machineRoom(state);
    if (room !== undefined) return room.busy + room.draining;
  }
  return state.allocatedNodes;
}
