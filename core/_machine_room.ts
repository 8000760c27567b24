// Where a machine (a resource model that names its nodes) has room now. The
// node count's "free nodes" counts whole nodes only, and a job asking for
// cores, memory or GPUs per replica holds none of them (numNodes 0), so on a
// machine every monitor that says what is free reads the model instead:
// each node is busy (holding a job; mixed, in Slurm's word, when some unit
// of a resource is still free on it), idle (online, holding nothing) or
// offline (draining while a job still runs there); and the units of each
// resource free on the nodes online. A whole-node job takes its nodes'
// `node` unit: nothing else fits there, so such a node has no free units.

import { countedResources, heldOn } from "./_metrics_resources.ts";
import { NODE_RESOURCE } from "./machine.ts";
import type { SimState } from "./state.ts";

/** What a machine has free now, node by node and resource by resource. */
export interface MachineRoom {
  /** The machine's nodes. */
  readonly nodes: number;
  /** Online nodes holding a job. */
  readonly busy: number;
  /** Of the busy nodes, those with some unit of a resource still free (Slurm's "mixed"). */
  readonly mixed: number;
  /** Online nodes holding no job (Slurm's "idle"): the whole nodes free. */
  readonly idle: number;
  /** Nodes offline. */
  readonly offline: number;
  /** Of the offline nodes, those a job still runs on. */
  readonly draining: number;
  /** Units of each resource free on the online nodes, by resource name (sorted). */
  readonly free: Readonly<Record<string, number>>;
  /** Units of each resource the online nodes have. */
  readonly online: Readonly<Record<string, number>>;
}

/**
 * The room of a machine now; undefined on whole nodes (or a resource model
 * that does not name its nodes or say what is free on them).
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, step, topologyCluster } from "@evtsim/evtsim";
 * import { machineRoom } from "./_machine_room.ts";
 * const model = topologyCluster(["n1", "n2", "n3"].map((name) => ({ name, capacity: { cpu: 8 } })));
 * const job = (cpu: number) => ({
 *   submitTime: 0, numNodes: 0, timeLimit: 100, demand: { replicas: 1, perReplica: { cpu } },
 * });
 * let s = initialState({ totalNodes: 3, resourceModel: model });
 * s = step(step(s, appendJobs([job(8), job(3)])).state, advanceTo(0)).state;
 * const r = machineRoom(s)!;
 * // n1 full, n2 mixed (5 cpu free), n3 idle.
 * console.assert(r.busy === 2 && r.mixed === 1 && r.idle === 1 && r.free.cpu === 13);
 * ```
 */
export function machineRoom(state: SimState): MachineRoom | undefined {
  const model = state.resources?.model;
  if (model?.nodes === undefined || model.freeOn === undefined) return undefined;
  const ms = state.resources!.state;
  const counted = countedResources(model.nodes);
  // The nodes running jobs hold: from each running job's allocation when the
  // model says it, else a node with any unit taken.
  let holding: Set<string> | undefined;
  if (model.allocationOf !== undefined) {
    holding = new Set();
    for (const r of state.running.values()) {
      for (const a of model.allocationOf(ms, r.id) ?? []) holding.add(a.nodeName);
    }
  }
  const down = new Set(model.offline?.(ms) ?? []);
  const free = new Float64Array(counted.length), online = new Float64Array(counted.length);
  let busy = 0, mixed = 0, idle = 0, draining = 0;
  for (const n of model.nodes) {
    const f = model.freeOn(ms, n.name) ?? n.capacity;
    const held = holding !== undefined
      ? holding.has(n.name)
      : Object.entries(n.capacity).some(([r, c]) => (f[r] ?? 0) < c);
    if (down.has(n.name)) {
      if (held) draining++;
      continue;
    }
    // A whole-node job takes the node's `node` unit: nothing else fits there.
    const whole = (n.capacity[NODE_RESOURCE] ?? 0) > 0 && (f[NODE_RESOURCE] ?? 0) === 0;
    let room = false;
    counted.forEach((r, k) => {
      const v = whole ? 0 : f[r] ?? 0;
      if (v > 0) room = true;
      free[k] += v;
      online[k] += n.capacity[r] ?? 0;
    });
    if (!held) idle++;
    else {
      busy++;
      if (room) mixed++;
    }
  }
  const byName = (a: Float64Array) => Object.fromEntries(counted.map((r, k) => [r, a[k]]));
  return {
    nodes: model.nodes.length,
    busy,
    mixed,
    idle,
    offline: down.size,
    draining,
    free: byName(free),
    online: byName(online),
  };
}

/**
 * What each running job holds on the machine, by job id: its nodes and the
 * units of each resource (a whole-node replica holds its node's every
 * unit); undefined on whole nodes or when the model does not say.
 */
export function jobHoldings(
  state: SimState,
):
  | ((id: number) => { nodes: readonly string[]; units: Record<string, number> } | undefined)
  | undefined {
  const res = state.resources;
  const model = res?.model;
  if (model?.nodes === undefined || model.allocationOf === undefined) return undefined;
  const allocationOf = model.allocationOf.bind(model);
  const counted = countedResources(model.nodes);
  const capacityOf = new Map(model.nodes.map((n) => [n.name, n.capacity]));
  return (id) => {
    const allocation = allocationOf(res!.state, id);
    if (allocation === undefined) return undefined;
    const rec = id >= state.store.firstId
      ? state.store.records.get(id - state.store.firstId)
      : undefined;
    const units: Record<string, number> = Object.fromEntries(counted.map((r) => [r, 0]));
    for (const share of allocation) {
      const capacity = capacityOf.get(share.nodeName);
      for (const r of counted) {
        units[r] += heldOn(capacity, rec?.demand?.perReplica, share.replicas, r);
      }
    }
    return { nodes: allocation.map((a) => a.nodeName), units };
  };
}
