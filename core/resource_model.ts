// The resource-model contract: what decides whether a job can be placed
// now, and where, and what an allocation gives back when the job ends. The
// engine's own node-count pool (`SimState.allocatedNodes` of
// `config.totalNodes`, which the built-in admission policies read as
// `free`) is always there; a resource model given in the configuration
// (`resourceModel`) places jobs in addition to it — e.g. a topology cluster
// of multi-resource nodes (`topologyCluster`). The event loop, the event
// order, the picker, the admission session and the decision rows are the
// same either way: only placement and release go through the model.

import type { PendReason } from "./decisions.ts";
import type { JobRecord } from "./types.ts";

/**
 * What a job asks of a multi-resource model: `replicas` identical replicas,
 * each placed whole on one node and needing `perReplica` of each named
 * resource; with `topologyKey`, every replica in one domain of that key.
 *
 * @example
 * ```ts
 * import { type ResourceDemand, Simulation, topologyCluster } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 16, gpu: 4 } });
 * const resourceModel = topologyCluster([node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")]);
 * const domains: (string | undefined)[] = [];
 * const sim = new Simulation({ totalNodes: 3, resourceModel }, {
 *   onDecision: (d) => { if (d.type === "DISPATCH") domains.push(d.domain); },
 * });
 * const demand: ResourceDemand = { name: "train", replicas: 8, perReplica: { cpu: 4, gpu: 1 }, topologyKey: "rack" };
 * // A job placed by a resource model holds no share of the node-count pool: numNodes 0.
 * sim.appendJob({ submitTime: 0, numNodes: 0, timeLimit: 60, demand });
 * sim.advanceTo(0);
 * // 8 replicas of 1 GPU in one rack: only rack-a (2 nodes of 4 GPUs) holds them.
 * console.assert(domains.join() === "rack-a", domains.join());
 * ```
 */
export interface ResourceDemand {
  /** The job's name, used by reasons that name a job (TopoQueue names jobs, not ids). */
  readonly name?: string;
  /** Identical replicas (a positive integer). */
  readonly replicas: number;
  /** Units of each resource one replica needs; a resource left out or 0 is not needed. */
  readonly perReplica: Readonly<Record<string, number>>;
  /** Place every replica in one domain of this topology key; absent: one domain, `global`. */
  readonly topologyKey?: string;
}

/**
 * Replicas on one node.
 *
 * @example
 * ```ts
 * import { type NodeShare, Simulation, topologyCluster } from "@evtsim/evtsim";
 * const resourceModel = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, { name: "n2", capacity: { cpu: 8 } }]);
 * const shares: NodeShare[] = [];
 * const sim = new Simulation({ totalNodes: 2, resourceModel }, {
 *   onDecision: (d) => { if (d.type === "DISPATCH") shares.push(...d.allocation ?? []); },
 * });
 * sim.appendJob({ submitTime: 0, numNodes: 0, timeLimit: 10, demand: { replicas: 3, perReplica: { cpu: 4 } } });
 * sim.advanceTo(0);
 * // Compact packing: two replicas fill n1, the third goes on n2.
 * console.assert(shares.map((s) => `${s.nodeName}=${s.replicas}`).join() === "n1=2,n2=1");
 * ```
 */
export interface NodeShare {
  /** The node. */
  readonly nodeName: string;
  /** Replicas placed on it. */
  readonly replicas: number;
}

/**
 * Where a job goes: the domain chosen and the replicas per node (listed by node name).
 *
 * @example
 * ```ts
 * import { type Placement, topologyCluster } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 8 } });
 * const model = topologyCluster([node("a1", "rack-a"), node("b1", "rack-b"), node("b2", "rack-b")]);
 * const job = {
 *   id: 0, submitTime: 0, numNodes: 0, timeLimit: 1, runTime: 1, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 *   demand: { replicas: 3, perReplica: { cpu: 4 }, topologyKey: "rack" },
 * };
 * // Three replicas of 4 cpu need 12 cpu in one rack: only rack-b has 16.
 * const p: Placement | undefined = model.place(model.initial, job).placement;
 * console.assert(p?.domain === "rack-b" && p.allocation.map((a) => a.replicas).join() === "2,1");
 * ```
 */
export interface Placement {
  /** The topology domain the replicas sit in (`global` without a topology key). */
  readonly domain: string;
  /** Replicas per node, by node name. */
  readonly allocation: readonly NodeShare[];
}

/**
 * The answer to "can this job be placed now": a placement, or the reason it cannot.
 *
 * @example
 * ```ts
 * import { type PlaceResult, topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, { name: "n2", capacity: { cpu: 8 } }]);
 * const job = (replicas: number) => ({
 *   id: 0, submitTime: 0, numNodes: 0, timeLimit: 1, runTime: 1, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 *   demand: { replicas, perReplica: { cpu: 4 } },
 * });
 * const yes: PlaceResult = model.place(model.initial, job(4));
 * const no: PlaceResult = model.place(model.initial, job(5));
 * console.assert(yes.placement !== undefined && no.placement === undefined);
 * // The machine has 4 replica slots of 4 cpu in all: 5 replicas can never fit.
 * console.assert(no.reason?.code === "insufficient_capacity", no.reason?.message);
 * ```
 */
export type PlaceResult =
  | { readonly placement: Placement; readonly reason?: undefined }
  | { readonly placement?: undefined; readonly reason: PendReason };

/**
 * A node of a resource model, as outputs that name nodes and count
 * resources see it: its name, its units of each resource, its labels.
 *
 * @example
 * ```ts
 * import { type ModelNode, topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([
 *   { name: "gpu02", topology: { rack: "r1" }, capacity: { cpu: 64, gpu: 4 } },
 *   { name: "gpu01", topology: { rack: "r1" }, capacity: { cpu: 64, gpu: 4 } },
 * ]);
 * // The nodes as outputs see them: in name order, the topology labels kept.
 * const nodes: readonly ModelNode[] = model.nodes ?? [];
 * console.assert(nodes.map((n) => n.name).join() === "gpu01,gpu02" && nodes[0].labels?.rack === "r1");
 * ```
 */
export interface ModelNode {
  /** Its name. */
  readonly name: string;
  /** Units of each resource it has. */
  readonly capacity: Readonly<Record<string, number>>;
  /** Its labels (topology levels, `partition`), when it has any. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A what-if scan of a resource model (`ResourceModel.releaseScan`): running
 * jobs released on the scan only, and whether the scan's job could be
 * placed then.
 *
 * @example
 * ```ts
 * import { topologyCluster } from "@evtsim/evtsim";
 * const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }]);
 * const rec = (id: number, cpu: number) => ({
 *   id, submitTime: 0, numNodes: 0, timeLimit: 1, runTime: 1, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 *   demand: { replicas: 1, perReplica: { cpu } },
 * });
 * let state = model.beginEdit(model.initial);
 * state = model.endEdit(model.allocate(state, rec(0, 6), model.place(state, rec(0, 6)).placement!));
 * const scan = model.releaseScan!(state, rec(1, 4));
 * if (scan.canPlace()) throw new Error("6 of 8 cpu held: 4 do not fit");
 * scan.release(rec(0, 6));
 * if (!scan.mayPlace() || !scan.canPlace()) throw new Error("with job 0 released they do");
 * // The state itself is unchanged.
 * if (model.canPlace!(state, rec(1, 4))) throw new Error("unchanged");
 * ```
 */
export interface ReleaseScan {
  /** Gives back, on the scan only, what running job `job` holds. */
  release(job: JobRecord): void;
  /** Whether the scan's job could be placed with everything released so far. */
  canPlace(): boolean;
  /**
   * A cheaper bound of `canPlace`: false only when it would be false (true
   * may still be a no). EASY bounds the shadow time from below with it.
   */
  mayPlace(): boolean;
}

/**
 * A resource model: the state of the machine's resources (`S`) and the three
 * questions the engine asks of it. `place` is pure. `allocate` and `release`
 * are called only on a state `beginEdit` returned (the engine calls it once
 * per step, before the first change) and may change that state in place;
 * `endEdit` ends the editing, after which the state never changes again — so
 * a `SimState` holding it stays an immutable value.
 *
 * @example
 * ```ts
 * import { type ResourceModel, topologyCluster } from "@evtsim/evtsim";
 * const model: ResourceModel = topologyCluster([
 *   { name: "n1", capacity: { cpu: 8 } },
 *   { name: "n2", capacity: { cpu: 8 } },
 * ]);
 * const job = {
 *   id: 0, submitTime: 0, numNodes: 0, timeLimit: 1, runTime: 1, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 *   demand: { replicas: 3, perReplica: { cpu: 4 } },
 * };
 * const r = model.place(model.initial, job);
 * // Compact packing: two replicas on n1, one on n2.
 * if (r.placement?.allocation.map((a) => `${a.nodeName}=${a.replicas}`).join() !== "n1=2,n2=1") {
 *   throw new Error("placement");
 * }
 * ```
 */
export interface ResourceModel<S = unknown> {
  /** A name for messages. */
  readonly name: string;
  /** The state of the empty machine. */
  readonly initial: S;
  /** Whether `job` can be placed in `state` now, and where (pure). */
  place(state: S, job: JobRecord): PlaceResult;
  /**
   * Optional: whether `place(state, job)` would give a placement, answered
   * without building it (pure). Planning policies ask it many times (EASY's
   * shadow time); without it they call `place`.
   */
  canPlace?(state: S, job: JobRecord): boolean;
  /**
   * Optional, for a `job` with a `demand` that `canPlace` just found no room
   * for: a number of replicas of its replica shape (the same `perReplica`
   * and `topologyKey`) above which no job of that shape can be placed in
   * `state` either (pure; the fewer, the better; below the job's replicas).
   * EASY then passes over every such candidate in a pass without asking.
   */
  roomFor?(state: S, job: JobRecord): number;
  /**
   * Optional (pure), for any `job` with a `demand`, placeable or not: a
   * number of replicas of its replica shape above which no job of that shape
   * can be placed in `state`. EASY asks it once per shape and pass, before
   * looking at that shape's candidates, and passes over those above it
   * without asking `canPlace` (jobs only start during a pass: the room only
   * shrinks).
   */
  shapeRoom?(state: S, job: JobRecord): number;
  /**
   * Optional (pure): a number that stays the same while nothing is
   * allocated, released or taken offline: `beginEdit`'s copy has its
   * source's, and every change gives the state a number no other state has.
   * Planning policies reuse what they computed for a state with the same
   * number (EASY's shadow time across sessions).
   */
  versionOf?(state: S): number;
  /**
   * Optional: a what-if over `state` for planning, without copying it:
   * running jobs are released one by one on the scan only (`state` is left
   * as it is), and after each the scan says whether `job` could be placed —
   * what `canPlace` would answer on a `beginEdit` copy with the same jobs
   * released. EASY's shadow time asks it when it reads no more than that
   * time (`easy`); without it the copy is made. A scan holds until the
   * model's next `releaseScan`, `beginEdit` or change of any state.
   */
  releaseScan?(state: S, job: JobRecord): ReleaseScan;
  /** A private copy of `state` that `allocate` and `release` may change in place. */
  beginEdit(state: S): S;
  /**
   * Gives `job` the resources of `placement` (a result of `place` on this
   * state, or one `fits` accepts for it).
   */
  allocate(state: S, job: JobRecord, placement: Placement): S;
  /**
   * Whether the resources `placement` gives `job` are free in `state` (pure).
   * Policies that reserve a placement ahead of time (conservative
   * backfilling) need it, to check a reservation over its whole interval and
   * to start the job where it was reserved; a model without it is refused
   * by them.
   */
  fits?(state: S, job: JobRecord, placement: Placement): boolean;
  /** Gives back everything `job` was allocated. */
  release(state: S, job: JobRecord): S;
  /** Ends the editing of a state `beginEdit` returned: it never changes again. */
  endEdit(state: S): S;
  /**
   * The machine's nodes, in the model's order (optional: the REPL's `info
   * node`, per-resource statistics and timelines read it; a model without
   * it runs the same).
   */
  readonly nodes?: readonly ModelNode[];
  /** Free units of each resource on node `name` in `state` (optional, with `nodes`). */
  freeOn?(state: S, name: string): Readonly<Record<string, number>> | undefined;
  /**
   * What job `id` holds in `state`, by node name (optional, with `nodes`: a
   * snapshot stores it for every running job, and loading gives it back
   * through `allocate`; a model without it cannot be snapshotted).
   */
  allocationOf?(state: S, id: number): readonly NodeShare[] | undefined;
  /**
   * Optional (capacity changes of a machine): takes nodes offline
   * (`online` false: they take no new job; what runs on them keeps its
   * allocation until it ends) or back online, on a state `beginEdit`
   * returned. Throws an `EvtsimError` for a name that is not a node.
   */
  setOnline?(state: S, names: readonly string[], online: boolean): S;
  /** Names of the nodes offline in `state` (optional, with `setOnline`), in the model's order. */
  offline?(state: S): readonly string[];
  /**
   * Optional, with `setOnline`: whether `job` would fit the machine as it is
   * now with every online node empty. A job that does not is held (pend
   * reason `exceeds_capacity`) without blocking the jobs behind it.
   */
  fitsOnline?(state: S, job: JobRecord): boolean;
}
