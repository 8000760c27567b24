// The topology cluster: a resource model of named nodes, each with integer
// units of named resources (cpu, gpu, …) and topology labels (rack, zone,
// …). Placement follows TopoQueue's `placeJob` exactly:
//
// - nodes are kept in name order;
// - a node's replica slots = min over the resources a replica needs (a
//   positive request) of floor(free / request);
// - without a topology key every node is in one domain, `global`; with one,
//   nodes are grouped by their value of that key, domains in name order;
// - the candidates are the domains with slots >= replicas; the chosen one
//   has the fewest slots, then needs the fewest nodes when packed, then has
//   the first name;
// - packing takes the domain's nodes with free slots by slots descending,
//   then name, each taking min(slots, replicas left);
// - the allocation is listed by node name;
// - no candidate: `insufficient_capacity` when the cluster has fewer slots
//   than replicas, else `topology_fragmented`, naming the first domain (by
//   name) with the most slots.

import { EvtsimError } from "../core/errors.ts";
import type {
  ModelNode,
  NodeShare,
  Placement,
  PlaceResult,
  ReleaseScan,
  ResourceDemand,
  ResourceModel,
} from "../core/resource_model.ts";
import type { JobRecord } from "../core/types.ts";
import { insufficientCapacity, topologyFragmented } from "./topology_reasons.ts";
import { type DomainSlots, type Shape, type ShapeSlots, SlotCaches } from "./_topology_slots.ts";
import { type ClassMembers, NodeClasses } from "./_topology_classes.ts";
import { TopologyScan } from "./_topology_scan.ts";
import { Held, type Runs, runsHeld, runsOf } from "./_topology_runs.ts";
import { type Domain, TopologyPacker } from "./_topology_pack.ts";
import { ClusterState, sumFree, takeSums, takeUnits } from "./_topology_free.ts";
import { changeOnline, emptyOnline, type NodesOf } from "./_topology_nodes.ts";
import { domainsOf } from "./_topology_domains.ts";
import { compareNames } from "./_name_order.ts";

/** Code-point order of names, as every topology output sorts them. */
export { compareNames };

/**
 * A node of a topology cluster: its name, topology labels and capacity.
 *
 * @example
 * ```ts
 * import { Simulation, type TopologyNode, topologyCluster } from "@evtsim/evtsim";
 * const node: TopologyNode = { name: "node-a1", topology: { rack: "rack-a" }, capacity: { cpu: 32, gpu: 4 } };
 * const sim = new Simulation({ totalNodes: 1, resourceModel: topologyCluster([node]) });
 * const gpus = (replicas: number) =>
 *   ({ submitTime: 0, numNodes: 0, timeLimit: 10, demand: { replicas, perReplica: { gpu: 1 }, topologyKey: "rack" } });
 * sim.appendJobs([gpus(3), gpus(2)]);
 * sim.advanceTo(0);
 * // Job 0 holds 3 of the node's 4 GPUs: job 1 waits for them.
 * console.assert(sim.activeJobCount === 1 && sim.pendingReason(1)?.code === "insufficient_capacity");
 * console.assert(sim.finish().jobs[1].beginTime === 10);
 * ```
 */
export interface TopologyNode {
  /** A unique name; nodes are ordered by it. */
  readonly name: string;
  /** Topology labels: key → domain (e.g. rack → rack-a). */
  readonly topology?: Readonly<Record<string, string>>;
  /** Units of each resource (non-negative integers); a resource left out has 0. */
  readonly capacity: Readonly<Record<string, number>>;
}

/**
 * The state of a topology cluster: free units per node and resource, and
 * what each running job holds. Opaque: read it through the model.
 */
export interface TopologyState {
  /** Free units, node-major: `free[node * resources + r]`. */
  readonly free: Float64Array;
  /** Per resource, the sum over the nodes of what they have free (an offline node counts 0). */
  readonly freeSums: Float64Array;
  /** What each running job holds, by job id: node indexes and replicas on each (listed when read). */
  readonly held: ReadonlyMap<
    number,
    { readonly nodes: ArrayLike<number>; readonly replicas: ArrayLike<number> }
  >;
  /**
   * Indexes of the nodes offline (absent: none). An offline node's free units
   * are its free units less its capacity (≤ 0: no slot), so it takes no new
   * job while what runs on it drains.
   */
  readonly offline?: ReadonlySet<number>;
  /** Each node's class (`NodeClasses`: nodes grouped by their free units). */
  readonly cls: Int32Array;
  /** Nodes per class. */
  readonly classCounts: Float64Array;
  /** The classes `cls` numbers (another cluster's state is read by its free units only). */
  readonly classOwner: object;
}

/**
 * A topology cluster as a resource model: jobs carry a `demand` (replicas,
 * units per replica, an optional topology key) and are placed as TopoQueue
 * places them (see the module comment of `schedulers/topology_cluster.ts`).
 * Node names must be unique.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, type DecisionRow, initialState, step, topologyCluster } from "@evtsim/evtsim";
 * const rack = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 32, gpu: 4 } });
 * const resourceModel = topologyCluster([rack("a1", "rack-a"), rack("a2", "rack-a"), rack("b1", "rack-b")]);
 * const job = (replicas: number) => ({
 *   submitTime: 0, numNodes: 0, timeLimit: 10,
 *   demand: { replicas, perReplica: { cpu: 4, gpu: 1 }, topologyKey: "rack" },
 * });
 * let s = initialState({ totalNodes: 3, resourceModel, backfillPolicy: "none", decisions: true });
 * s = step(s, appendJobs([job(4), job(6)])).state;
 * const rows: DecisionRow[] = step(s, advanceTo(0)).rows.decisions;
 * // Job 0 takes the smallest domain that fits (rack-b); job 1 needs 6 slots in one rack: rack-a has 8.
 * const where = rows.map((d) => d.type === "DISPATCH" ? `${d.domain} ${d.allocation?.map((a) => a.nodeName + "=" + a.replicas)}` : d.reason.code);
 * if (where.join("; ") !== "rack-b b1=4; rack-a a1=4,a2=2") throw new Error(where.join("; "));
 * ```
 */
export function topologyCluster(nodes: readonly TopologyNode[]): ResourceModel<TopologyState> {
  return new TopologyCluster(nodes);
}

class TopologyCluster implements ResourceModel<TopologyState> {
  readonly name = "topology";
  readonly initial: TopologyState;
  readonly nodes: readonly ModelNode[];
  /** Node names, in name order. */
  private readonly names: readonly string[];
  private readonly labels: readonly (Readonly<Record<string, string>> | undefined)[];
  private readonly index = new Map<string, number>();
  /** Resource names, sorted; `free` has one column per resource. */
  private readonly resources: readonly string[];
  private readonly column = new Map<string, number>();
  /** Domains per topology key, built on first use ("" = the global domain). */
  private readonly domainCache = new Map<string, readonly Domain[]>();
  /** Replica slots per shape, kept up to date as jobs start and end. */
  private readonly slotCaches: SlotCaches;
  /** Packing, with its buffers (`place`). */
  private readonly packer: TopologyPacker;
  /** The buffers of `releaseScan` (one scan at a time). */
  private readonly scan: TopologyScan;
  /** `fitsOnline`'s empty machine, for one set of offline nodes. */
  private emptyOnline?: { readonly key: string; readonly state: TopologyState };
  /** The nodes' classes (answers for shapes without a topology key while `on`). */
  private readonly classes: NodeClasses;
  /** A release scan's cached slots that say "none cached" (its nodes' slots are computed). */
  private readonly noCache: ShapeSlots;
  /** The global domain's index of each node (all 0). */
  private readonly globalIndex: Int32Array;
  /** The state and shape of the release scan by classes under way (`releaseScan`). */
  private scanned: { readonly state: TopologyState; readonly shape: Shape } | undefined;
  /** Its slots in the one global domain (the scan copies the sums). */
  private readonly scanSums = new Float64Array(1);
  private readonly scanDomain: DomainSlots;
  private readonly scanSlots: readonly [ShapeSlots, DomainSlots];
  /** Its lookup (the scan asks it when it first looks at a node). */
  private readonly scanByClass = (): readonly [ShapeSlots, DomainSlots] => {
    const { state, shape } = this.scanned!;
    const total = this.classes.total(state, shape.id, shape.cols, shape.amounts);
    this.scanSums[0] = total;
    this.scanDomain.largestSlots = total;
    return this.scanSlots;
  };

  constructor(input: readonly TopologyNode[]) {
    const nodes = [...input].sort((a, b) => compareNames(a.name, b.name));
    const resourceNames = new Set<string>();
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      if (this.index.has(n.name)) {
        throw new EvtsimError("usage", `topology cluster: duplicate node name ${n.name}`);
      }
      this.index.set(n.name, i);
      for (const [r, v] of Object.entries(n.capacity)) {
        if (!Number.isSafeInteger(v) || v < 0) {
          throw new EvtsimError(
            "usage",
            `topology cluster: node ${n.name}: capacity ${r} must be a non-negative integer, got ${v}`,
          );
        }
        resourceNames.add(r);
      }
    }
    this.names = nodes.map((n) => n.name);
    this.nodes = Object.freeze(nodes.map((n) =>
      Object.freeze(
        n.topology === undefined ? { name: n.name, capacity: Object.freeze({ ...n.capacity }) } : {
          name: n.name,
          capacity: Object.freeze({ ...n.capacity }),
          labels: Object.freeze({ ...n.topology }),
        },
      )
    ));
    this.labels = nodes.map((n) => n.topology);
    this.resources = [...resourceNames].sort(compareNames);
    this.resources.forEach((r, i) => this.column.set(r, i));
    const R = this.resources.length;
    const free = new Float64Array(nodes.length * R);
    nodes.forEach((n, i) => {
      for (let r = 0; r < R; r++) free[i * R + r] = n.capacity[this.resources[r]] ?? 0;
    });
    this.classes = new NodeClasses(R);
    const { cls, classCounts } = this.classes.classesOf(free, nodes.length);
    this.initial = Object.freeze(
      new ClusterState(
        free,
        sumFree(free, R),
        new Map(),
        undefined,
        cls,
        classCounts,
        this.classes,
      ),
    );
    this.globalIndex = new Int32Array(nodes.length);
    this.scanDomain = { index: this.globalIndex, sums: this.scanSums, largest: 0, largestSlots: 0 };
    this.noCache = {
      key: "",
      version: -2,
      used: 0,
      cols: [],
      amounts: [],
      slots: new Float64Array(0),
      positive: new Uint32Array(0),
      total: 0,
      domains: new Map(),
      dirty: new Int32Array(0),
      dirtyCount: 1,
      mark: new Uint8Array(0),
    };
    this.scanSlots = [this.noCache, this.scanDomain];
    this.slotCaches = new SlotCaches(nodes.length, R, this.column);
    this.scan = new TopologyScan(nodes.length, R, this.slotCaches, this.classes);
    this.packer = new TopologyPacker(this.names, this.classes, this.slotCaches);
  }

  place(state: TopologyState, job: JobRecord): PlaceResult {
    const d = demandOf(job);
    const replicas = d.replicas;
    const byClass = this.byClasses(state, d);
    if (byClass !== undefined) {
      const total = this.classes.total(state, byClass.id, byClass.cols, byClass.amounts);
      if (total < replicas) return { reason: insufficientCapacity(replicas, total) };
      return { placement: this.packer.packByClass(state, byClass, replicas, d) };
    }
    const shape = this.slotCaches.slotsFor(state, state.free, d);
    this.packer.use(shape);
    const clusterSlots = shape.total;
    const key = d.topologyKey === undefined || d.topologyKey === "" ? undefined : d.topologyKey;
    const domains = this.domains(key);
    const { sums: domainSlots, largest, largestSlots } = this.slotCaches.domainSlots(
      shape,
      key ?? "",
      domains,
    );
    let bestSlots = Infinity;
    for (let k = 0; k < domains.length; k++) {
      const sum = domainSlots[k];
      if (sum >= replicas && sum < bestSlots) bestSlots = sum;
    }
    if (bestSlots === Infinity) {
      if (clusterSlots < replicas || key === undefined) {
        return { reason: insufficientCapacity(replicas, clusterSlots) };
      }
      const name = largest < 0 ? "" : domains[largest].name;
      return { reason: topologyFragmented(replicas, key, clusterSlots, name, largestSlots) };
    }
    // Among the candidates with the fewest slots: fewest nodes packed, then the first name.
    let tied = 0;
    let best = -1;
    for (let k = 0; k < domains.length; k++) {
      if (domainSlots[k] !== bestSlots) continue;
      if (tied++ === 0) best = k;
    }
    // One candidate (always so without a topology key): nothing to compare.
    if (tied === 1) return { placement: this.packer.pack(domains[best], replicas, state, d) };
    best = -1;
    let bestNodes = Infinity;
    for (let k = 0; k < domains.length; k++) {
      if (domainSlots[k] !== bestSlots) continue;
      const used = this.packer.packedCount(domains[k].nodes, replicas);
      if (used < bestNodes) {
        best = k;
        bestNodes = used;
      }
    }
    return { placement: this.packer.pack(domains[best], replicas, state, d) };
  }

  canPlace(state: TopologyState, job: JobRecord): boolean {
    const d = demandOf(job);
    if (!this.enoughInAll(state.freeSums, d)) return false;
    const byClass = this.byClasses(state, d);
    if (byClass !== undefined) {
      return this.classes.total(state, byClass.id, byClass.cols, byClass.amounts) >= d.replicas;
    }
    const shape = this.slotCaches.slotsFor(state, state.free, d);
    const key = d.topologyKey === undefined || d.topologyKey === "" ? undefined : d.topologyKey;
    const domains = this.domains(key);
    const { sums } = this.slotCaches.domainSlots(shape, key ?? "", domains);
    for (let k = 0; k < sums.length; k++) if (sums[k] >= d.replicas) return true;
    return false;
  }

  roomFor(state: TopologyState, job: JobRecord): number {
    return this.shapeRoom(state, job);
  }

  shapeRoom(state: TopologyState, job: JobRecord): number {
    const d = demandOf(job);
    // The free units of all nodes together bound it without looking at one.
    const { cols, amounts } = this.slotCaches.shapeOf(d);
    if (cols.length === 0) return 0;
    let units = Infinity;
    for (let k = 0; k < cols.length; k++) {
      const f = state.freeSums[cols[k]];
      let q = Math.floor(f / amounts[k]);
      if (q * amounts[k] > f) q--; // a quotient rounded up to the next integer
      if (q < units) units = q;
    }
    if (units < d.replicas) return units;
    const byClass = this.byClasses(state, d);
    if (byClass !== undefined) {
      return this.classes.total(state, byClass.id, byClass.cols, byClass.amounts);
    }
    // Else the largest domain's slots (what `canPlace` has just brought up to date).
    const shape = this.slotCaches.slotsFor(state, state.free, d);
    const key = d.topologyKey === undefined || d.topologyKey === "" ? undefined : d.topologyKey;
    return this.slotCaches.domainSlots(shape, key ?? "", this.domains(key)).largestSlots;
  }

  fits(state: TopologyState, job: JobRecord, placement: Placement): boolean {
    const d = demandOf(job);
    const R = this.resources.length;
    const free = state.free;
    let total = 0;
    for (const share of placement.allocation) {
      const i = this.index.get(share.nodeName);
      if (i === undefined || !Number.isSafeInteger(share.replicas) || share.replicas <= 0) {
        return false;
      }
      total += share.replicas;
      for (const r in d.perReplica) {
        const amount = d.perReplica[r];
        if (!(amount > 0)) continue;
        const c = this.column.get(r);
        if (c === undefined || free[i * R + c] < amount * share.replicas) return false;
      }
    }
    return total === d.replicas;
  }

  releaseScan(state: TopologyState, job: JobRecord): ReleaseScan {
    const d = demandOf(job);
    const byClass = this.byClasses(state, d);
    if (byClass !== undefined) {
      this.scanned = { state, shape: byClass };
      return this.scan.begin(state, d, this.scanByClass, state);
    }
    return this.scan.begin(state, d, () => {
      const shape = this.slotCaches.slotsFor(state, state.free, d);
      const key = d.topologyKey === undefined || d.topologyKey === "" ? undefined : d.topologyKey;
      return [shape, this.slotCaches.domainSlots(shape, key ?? "", this.domains(key))];
    });
  }

  /**
   * `d`'s shape when the node classes answer for it: no topology key, a
   * resource needed, the classes on.
   */
  private byClasses(state: TopologyState, d: ResourceDemand): Shape | undefined {
    if (
      !this.classes.on || state.classOwner !== this.classes ||
      (d.topologyKey !== undefined && d.topologyKey !== "")
    ) return undefined;
    const shape = this.slotCaches.shapeOf(d);
    return shape.cols.length > 0 ? shape : undefined;
  }

  /**
   * Whether the machine's free units, all nodes together, hold `d`'s
   * replicas: a node's slots are at most its free units of a resource over
   * a replica's, so with fewer in all no domain has the slots (answered
   * without looking at any node, as most of a busy machine's are).
   */
  private enoughInAll(sums: Float64Array, d: ResourceDemand): boolean {
    const { cols, amounts } = this.slotCaches.shapeOf(d);
    if (cols.length === 0) return d.replicas <= 0;
    for (let k = 0; k < cols.length; k++) {
      if (sums[cols[k]] < amounts[k] * d.replicas) return false;
    }
    return true;
  }

  versionOf(state: TopologyState): number {
    return this.slotCaches.versionOf(state);
  }

  beginEdit(state: TopologyState): TopologyState {
    // Another cluster's state (the same nodes) gets this one's classes.
    const { cls, classCounts } = state.classOwner === this.classes
      ? { cls: state.cls.slice(), classCounts: state.classCounts.slice() }
      : this.classes.classesOf(state.free, this.names.length);
    // A state whose free units are behind its classes: so is the copy's.
    const copy = new ClusterState(
      state instanceof ClusterState && state.classOwner === this.classes
        ? state.copyFree()
        : state.free.slice(),
      state.freeSums.slice(),
      new Map(state.held),
      state.offline === undefined ? undefined : new Set(state.offline),
      cls,
      classCounts,
      this.classes,
    );
    copy.setEditing(true);
    this.slotCaches.copied(state, copy);
    return copy;
  }

  allocate(state: TopologyState, job: JobRecord, placement: Placement): TopologyState {
    this.checkEditing(state);
    const d = demandOf(job);
    if (state.held.has(job.id)) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} already holds resources`);
    }
    const packed = this.packer.packedRuns(placement, d, this.slotCaches.versionOf(state));
    if (packed !== undefined) {
      // Packed by `place` in these very free units: it fits, as checked below.
      const runs = packed;
      this.changeRuns(state, d, runs, -1);
      (state.held as Map<number, Held>).set(job.id, new Held(runs));
      return state;
    }
    // Packed by `place` in other free units (EASY's extra rule, on its copy
    // at the shadow time): its runs, when they fit these free units.
    const other = this.packer.packedRunsAnyVersion(placement, d);
    if (other !== undefined && this.runsFit(state, d, other)) {
      this.changeRuns(state, d, other, -1);
      (state.held as Map<number, Held>).set(job.id, new Held(other));
      return state;
    }
    const R = this.resources.length;
    const free = state.free;
    const nodes: number[] = [];
    const replicas: number[] = [];
    let total = 0;
    for (const share of placement.allocation) {
      const i = this.index.get(share.nodeName);
      if (i === undefined || !Number.isSafeInteger(share.replicas) || share.replicas <= 0) {
        throw new EvtsimError(
          "state",
          `topology cluster: job ${job.id}: bad allocation ${share.nodeName}=${share.replicas}`,
        );
      }
      for (const [r, amount] of Object.entries(d.perReplica)) {
        if (amount <= 0) continue;
        const c = this.column.get(r);
        const need = amount * share.replicas;
        if (c === undefined || free[i * R + c] < need) {
          throw new EvtsimError(
            "state",
            `topology cluster: job ${job.id} needs ${need} ${r} on ${share.nodeName}, which has ${
              c === undefined ? 0 : free[i * R + c]
            } free`,
          );
        }
      }
      nodes.push(i);
      replicas.push(share.replicas);
      total += share.replicas;
    }
    if (total !== d.replicas) {
      throw new EvtsimError(
        "state",
        `topology cluster: job ${job.id}: allocation holds ${total} replicas, not ${d.replicas}`,
      );
    }
    const runs = runsOf(nodes, replicas);
    this.changeRuns(state, d, runs, -1);
    (state.held as Map<number, Held>).set(job.id, new Held(runs));
    return state;
  }

  /**
   * Whether every node of `runs` has the units of its replicas of `d` free
   * in `state` (false for a demand of a resource no node has: `allocate`'s
   * checks then say why).
   */
  private runsFit(state: TopologyState, d: ResourceDemand, runs: Runs): boolean {
    const { cols, takeCols, takeAmounts } = this.slotCaches.shapeOf(d);
    if (cols.length === 0) return false;
    const R = this.resources.length;
    // A state whose free units are behind its classes is read by class.
    const byClass = state instanceof ClusterState ? state : undefined;
    const free = byClass === undefined ? state.free : undefined;
    for (let p = 0; p < runs.length; p += 3) {
      const replicas = runs[p + 2];
      // The class of the node last found to hold the run's replicas (a
      // run's nodes are mostly of one class: each is then checked once).
      let held = -1;
      for (let i = runs[p], end = i + runs[p + 1]; i < end; i++) {
        const cl = free === undefined ? byClass!.classOf(i) : -1;
        if (cl >= 0 && cl === held) continue;
        for (let k = 0; k < takeCols.length; k++) {
          const c = takeCols[k];
          const unit = free !== undefined ? free[i * R + c] : byClass!.unit(i, c, R);
          if (unit < takeAmounts[k] * replicas) return false;
        }
        held = cl;
      }
    }
    return true;
  }

  release(state: TopologyState, job: JobRecord): TopologyState {
    this.checkEditing(state);
    const h = state.held.get(job.id);
    if (h === undefined) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} holds no resources`);
    }
    const runs = runsHeld(h);
    this.changeRuns(state, demandOf(job), runs, +1);
    (state.held as Map<number, Held>).delete(job.id);
    return state;
  }

  freeOn(state: TopologyState, name: string): Readonly<Record<string, number>> | undefined {
    const i = this.index.get(name);
    if (i === undefined) return undefined;
    const R = this.resources.length;
    const out: Record<string, number> = {};
    // An offline node has nothing free (its free units are below zero while it drains).
    for (let r = 0; r < R; r++) out[this.resources[r]] = Math.max(0, state.free[i * R + r]);
    return out;
  }

  setOnline(state: TopologyState, names: readonly string[], online: boolean): TopologyState {
    this.checkEditing(state);
    const idx = names.map((name) => {
      const i = this.index.get(name);
      if (i === undefined) throw new EvtsimError("usage", `no node named ${name}`);
      return i;
    });
    return changeOnline(this.nodesOf(), state, idx, online);
  }

  /** What node changes (`_topology_nodes.ts`) read of the cluster. */
  private nodesOf(): NodesOf {
    const { names, nodes, resources, slotCaches, classes } = this;
    return { names, nodes, resources, slotCaches, classes };
  }

  offline(state: TopologyState): readonly string[] {
    if (state.offline === undefined) return [];
    return [...state.offline].sort((a, b) => a - b).map((i) => this.names[i]);
  }

  fitsOnline(state: TopologyState, job: JobRecord): boolean {
    if (state.offline === undefined || state.offline.size === 0) return true;
    // The machine with every online node empty, kept while the offline set stays the same.
    const key = this.offline(state).join(",");
    if (this.emptyOnline?.key !== key) {
      this.emptyOnline = { key, state: emptyOnline(this.nodesOf(), state.offline) };
    }
    return this.canPlace(this.emptyOnline.state, job);
  }

  allocationOf(state: TopologyState, id: number): readonly NodeShare[] | undefined {
    const h = state.held.get(id);
    if (h === undefined) return undefined;
    const replicas = h.replicas;
    return Array.from(h.nodes, (i, k) => ({ nodeName: this.names[i], replicas: replicas[k] }));
  }

  endEdit(state: TopologyState): TopologyState {
    if (state instanceof ClusterState) state.setEditing(false);
    return Object.freeze(state);
  }

  private checkEditing(state: TopologyState): void {
    // A state `beginEdit` of this cluster returned and `endEdit` has not ended.
    if (!(state instanceof ClusterState && state.editing && state.classOwner === this.classes)) {
      throw new EvtsimError(
        "state",
        "topology cluster: a state is changed only between beginEdit and endEdit",
      );
    }
  }

  /**
   * `take` through the slot caches' `change`; the class members follow the
   * state when they are its version's.
   */
  private changeRuns(state: TopologyState, d: ResourceDemand, runs: Runs, sign: number): void {
    const members = this.packer.classMembers.version >= 0 &&
        this.packer.classMembers.version === this.slotCaches.versionOf(state) &&
        this.classes.on && state.classOwner === this.classes
      ? this.packer.classMembers
      : undefined;
    this.take(state, d, runs, sign, members);
    this.slotCaches.changed(state, runs);
    if (members !== undefined) members.version = this.slotCaches.versionOf(state);
  }

  /** Adds (sign +1) or takes (−1) the units of the replicas of `runs`, and their sums. */
  private take(
    state: TopologyState,
    d: ResourceDemand,
    runs: Runs,
    sign: number,
    members?: ClassMembers,
  ): void {
    const { takeCols, takeAmounts, takeId } = this.slotCaches.shapeOf(d);
    const byClass = this.classes.on && state.classOwner === this.classes;
    // With every node online the classes say each node's free units, which
    // are then left behind; otherwise they are read (made from the classes
    // if behind) before the classes move, and kept.
    const unitsFromClasses = byClass && state instanceof ClusterState &&
      (state.offline === undefined || state.offline.size === 0);
    if (!unitsFromClasses) void state.free;
    if (byClass) {
      (state as { classCounts: Float64Array }).classCounts = this.classes.take(
        state,
        takeId,
        takeCols,
        takeAmounts,
        runs,
        sign,
        members,
      );
    }
    if (unitsFromClasses) {
      takeSums(state.freeSums, takeCols, takeAmounts, runs, sign);
      (state as ClusterState).leaveFree();
      return;
    }
    takeUnits(state, this.resources.length, takeCols, takeAmounts, runs, sign);
  }

  /** The domains of `key` (undefined: the one `global` domain), in name order. */
  private domains(key: string | undefined): readonly Domain[] {
    const cacheKey = key ?? "";
    const cached = this.domainCache.get(cacheKey);
    if (cached !== undefined) return cached;
    const domains = domainsOf(this.names, this.labels, key);
    this.domainCache.set(cacheKey, domains);
    return domains;
  }
}

function demandOf(job: JobRecord): ResourceDemand {
  const d = job.demand;
  if (d === undefined) {
    throw new EvtsimError("state", `topology cluster: job ${job.id} has no demand`);
  }
  return d;
}
