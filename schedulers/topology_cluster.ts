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
import { type Shape, type ShapeSlots, SlotCaches } from "./_topology_slots.ts";
import { ClassMembers, NodeClasses, packMembers } from "./_topology_classes.ts";
import { TopologyScan } from "./_topology_scan.ts";
import { Held, type Runs, runsHeld, runsOf, RunsPlacement } from "./_topology_runs.ts";

/**
 * A node of a topology cluster: its name, topology labels and capacity.
 *
 * @example
 * ```ts
 * import type { TopologyNode } from "@evtsim/evtsim";
 * const node: TopologyNode = { name: "node-a1", topology: { rack: "rack-a" }, capacity: { cpu: 32, gpu: 4 } };
 * if (node.capacity.gpu !== 4) throw new Error("gpu");
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

/** At most this many classes to take from: `packByClass` visits their members only. */
const MEMBER_CLASSES = 8;

/** Placements `allocate` recognises as packed by `place`. */
const PACKED = 4;

/** A placement as packed: the demand, the version of the free units, its nodes' runs. */
interface Packed {
  readonly placement: Placement;
  readonly demand: ResourceDemand;
  readonly version: number;
  readonly runs: Runs;
}

interface Domain {
  readonly name: string;
  /** Node indexes, ascending (= name order). */
  readonly nodes: Int32Array;
}

/** Code-point order (= the byte order of UTF-8, as Go compares strings). */
export function compareNames(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
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
  /** States `beginEdit` returned and `endEdit` has not ended. */
  private readonly editing = new WeakSet<TopologyState>();
  /** Slots per node for the placement being computed (one of `slotCaches`' arrays). */
  private slots: Float64Array;
  /** The nodes with a slot for it, one bit each (`ShapeSlots.positive`). */
  private positive: Uint32Array = new Uint32Array(0);
  /** `membersOf`'s buffer. */
  private readonly members: Int32Array;
  /** Replica slots per shape, kept up to date as jobs start and end. */
  private readonly slotCaches: SlotCaches;
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
  /** `pack`'s buffers: the nodes packed and their replicas. */
  private readonly packNodes: Int32Array;
  private readonly packCounts: Float64Array;
  /** Each class's nodes in one state version, for `packByClass`. */
  private readonly classMembers: ClassMembers;
  /** `packByClass`'s classes taken from: above the cut, then at it. */
  private readonly takenClasses = new Int32Array(MEMBER_CLASSES);
  /** Their members' bits. */
  private readonly takenBits: Uint32Array[] = [];
  /** `packByClass`'s slot values, largest first, and the nodes with each. */
  private cutValues: Float64Array = new Float64Array(16);
  private cutNodes: Float64Array = new Float64Array(16);
  /** Nodes per slot value (`cutOf`'s buffer). */
  private counts = new Float64Array(64);
  /**
   * The last placements `place` packed: for whom, in which free units, and
   * their nodes (a few: a job is started right after it is placed).
   */
  private readonly packed: (Packed | undefined)[] = new Array(PACKED).fill(undefined);
  private packedNext = 0;

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
    this.initial = Object.freeze({
      free,
      freeSums: sumFree(free, R),
      held: new Map(),
      ...this.classes.classesOf(free, nodes.length),
      classOwner: this.classes,
    });
    this.globalIndex = new Int32Array(nodes.length);
    this.packNodes = new Int32Array(nodes.length);
    this.classMembers = new ClassMembers(nodes.length);
    this.packCounts = new Float64Array(nodes.length);
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
    this.slots = new Float64Array(nodes.length);
    this.members = new Int32Array(nodes.length);
    this.slotCaches = new SlotCaches(nodes.length, R, this.column);
    this.scan = new TopologyScan(nodes.length, R, this.slotCaches, this.classes);
  }

  place(state: TopologyState, job: JobRecord): PlaceResult {
    const d = demandOf(job);
    const replicas = d.replicas;
    const byClass = this.byClasses(state, d);
    if (byClass !== undefined) {
      const total = this.classes.total(state, byClass.id, byClass.cols, byClass.amounts);
      if (total < replicas) return { reason: insufficientCapacity(replicas, total) };
      return { placement: this.packByClass(state, byClass, replicas, d) };
    }
    const shape = this.slotCaches.slotsFor(state, state.free, d);
    this.slots = shape.slots;
    this.positive = shape.positive;
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
    if (tied === 1) return { placement: this.pack(domains[best], replicas, state, d) };
    best = -1;
    let bestNodes = Infinity;
    for (let k = 0; k < domains.length; k++) {
      if (domainSlots[k] !== bestSlots) continue;
      const used = this.packedCount(domains[k].nodes, replicas);
      if (used < bestNodes) {
        best = k;
        bestNodes = used;
      }
    }
    return { placement: this.pack(domains[best], replicas, state, d) };
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
      return this.scan.begin(state, d, () => {
        const total = this.classes.total(state, byClass.id, byClass.cols, byClass.amounts);
        const sums = Float64Array.of(total);
        return [this.noCache, { index: this.globalIndex, sums, largest: 0, largestSlots: total }];
      }, state);
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
    const copy = state.offline === undefined
      ? {
        free: state.free.slice(),
        freeSums: state.freeSums.slice(),
        held: new Map(state.held),
        cls,
        classCounts,
        classOwner: this.classes,
      }
      : {
        free: state.free.slice(),
        freeSums: state.freeSums.slice(),
        held: new Map(state.held),
        offline: new Set(state.offline),
        cls,
        classCounts,
        classOwner: this.classes,
      };
    this.editing.add(copy);
    this.slotCaches.copied(state, copy);
    return copy;
  }

  allocate(state: TopologyState, job: JobRecord, placement: Placement): TopologyState {
    this.checkEditing(state);
    const d = demandOf(job);
    if (state.held.has(job.id)) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} already holds resources`);
    }
    const free = state.free;
    let packed: Packed | undefined;
    for (let k = 0; k < PACKED && packed === undefined; k++) {
      if (this.packed[k]?.placement === placement) packed = this.packed[k];
    }
    if (
      packed !== undefined && packed.demand === d &&
      packed.version === this.slotCaches.versionOf(state)
    ) {
      // Packed by `place` in these very free units: it fits, as checked below.
      const runs = packed.runs;
      this.changeRuns(state, d, runs, -1);
      (state.held as Map<number, Held>).set(job.id, new Held(runs));
      return state;
    }
    const R = this.resources.length;
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
    const offline = (state.offline ?? new Set<number>()) as Set<number>;
    const changing = idx.filter((i) => offline.has(i) === online);
    if (changing.length === 0) return state;
    const R = this.resources.length;
    const free = state.free;
    this.slotCaches.change(state, runsOf(changing, changing.map(() => 0)), () => {
      for (const i of changing) {
        for (let r = 0; r < R; r++) {
          const c = this.nodes[i].capacity[this.resources[r]] ?? 0;
          free[i * R + r] += online ? c : -c;
        }
        if (online) offline.delete(i);
        else offline.add(i);
        if (this.classes.on && state.classOwner === this.classes) {
          (state as { classCounts: Float64Array }).classCounts = this.classes.reclass(
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

  offline(state: TopologyState): readonly string[] {
    if (state.offline === undefined) return [];
    return [...state.offline].sort((a, b) => a - b).map((i) => this.names[i]);
  }

  fitsOnline(state: TopologyState, job: JobRecord): boolean {
    if (state.offline === undefined || state.offline.size === 0) return true;
    // The machine with every online node empty, kept while the offline set stays the same.
    const key = this.offline(state).join(",");
    if (this.emptyOnline?.key !== key) {
      const R = this.resources.length;
      const free = new Float64Array(this.names.length * R);
      for (let i = 0; i < this.names.length; i++) {
        if (state.offline.has(i)) continue;
        for (let r = 0; r < R; r++) {
          free[i * R + r] = this.nodes[i].capacity[this.resources[r]] ?? 0;
        }
      }
      this.emptyOnline = {
        key,
        state: Object.freeze({
          free,
          freeSums: sumFree(free, R),
          held: new Map(),
          ...this.classes.classesOf(free, this.names.length),
          classOwner: this.classes,
        }),
      };
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
    this.editing.delete(state);
    return Object.freeze(state);
  }

  private checkEditing(state: TopologyState): void {
    if (!this.editing.has(state)) {
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
    const members = this.classMembers.version >= 0 &&
        this.classMembers.version === this.slotCaches.versionOf(state) &&
        this.classes.on && state.classOwner === this.classes
      ? this.classMembers
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
    const R = this.resources.length;
    const free = state.free;
    const sums = state.freeSums as Float64Array;
    const { takeCols, takeAmounts, takeId } = this.slotCaches.shapeOf(d);
    if (this.classes.on && state.classOwner === this.classes) {
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
    if (state.offline === undefined || state.offline.size === 0) {
      // Every node online: no unit is below zero, so a run's change of the
      // sum is its change per node times its nodes (integers: exact).
      for (let j = 0; j < takeCols.length; j++) {
        const c = takeCols[j];
        const amount = takeAmounts[j];
        let sum = sums[c];
        for (let p = 0; p < runs.length; p += 3) {
          const delta = sign * amount * runs[p + 2];
          const count = runs[p + 1];
          for (let at = runs[p] * R + c, end = at + count * R; at < end; at += R) free[at] += delta;
          sum += delta * count;
        }
        sums[c] = sum;
      }
      return;
    }
    for (let j = 0; j < takeCols.length; j++) {
      const c = takeCols[j];
      const amount = takeAmounts[j];
      let sum = sums[c];
      for (let p = 0; p < runs.length; p += 3) {
        const delta = sign * amount * runs[p + 2];
        for (let at = runs[p] * R + c, end = at + runs[p + 1] * R; at < end; at += R) {
          const before = free[at];
          const after = before + delta;
          free[at] = after;
          // An offline node's units below zero count as none.
          sum += (after > 0 ? after : 0) - (before > 0 ? before : 0);
        }
      }
      sums[c] = sum;
    }
  }

  /** The domains of `key` (undefined: the one `global` domain), in name order. */
  private domains(key: string | undefined): readonly Domain[] {
    const cacheKey = key ?? "";
    const cached = this.domainCache.get(cacheKey);
    if (cached !== undefined) return cached;
    let domains: Domain[];
    if (key === undefined) {
      domains = [{ name: "global", nodes: Int32Array.from(this.names.keys()) }];
    } else {
      const by = new Map<string, number[]>();
      this.labels.forEach((labels, i) => {
        const value = labels?.[key] ?? "";
        const list = by.get(value);
        if (list === undefined) by.set(value, [i]);
        else list.push(i);
      });
      domains = [...by.keys()].sort(compareNames).map((name) => ({
        name,
        nodes: Int32Array.from(by.get(name)!),
      }));
    }
    this.domainCache.set(cacheKey, domains);
    return domains;
  }

  /**
   * Where compact packing of `replicas` into `members` (nodes by slots
   * descending, then name = index, each taking min(slots, replicas left))
   * stops: every node with more than `cut` slots is taken whole (`above`
   * of them, `left` replicas still to place after them), then nodes with
   * exactly `cut` slots, in index order, until none is left. Found by
   * counting nodes per slot value, without sorting; the members' slots
   * must hold at least `replicas`.
   */
  private cutOf(
    members: Int32Array,
    replicas: number,
  ): { cut: number; above: number; left: number } {
    const slots = this.slots;
    let most = 0;
    for (let j = 0; j < members.length; j++) {
      const k = slots[members[j]];
      if (k > most) most = k;
    }
    if (most > 4096 + members.length) return this.cutBySorting(members, replicas);
    if (this.counts.length < most + 1) this.counts = new Float64Array(most + 1);
    const counts = this.counts;
    counts.fill(0, 0, most + 1);
    for (let j = 0; j < members.length; j++) {
      const k = slots[members[j]];
      if (k > 0) counts[k]++;
    }
    let above = 0;
    let left = replicas;
    let cut = most;
    for (; cut > 0; cut--) {
      if (counts[cut] * cut >= left) break;
      above += counts[cut];
      left -= counts[cut] * cut;
    }
    return { cut, above, left };
  }

  /** `cutOf` for slot values too large to count by: the values sorted. */
  private cutBySorting(
    members: Int32Array,
    replicas: number,
  ): { cut: number; above: number; left: number } {
    const slots = this.slots;
    const values: number[] = [];
    for (let j = 0; j < members.length; j++) {
      if (slots[members[j]] > 0) values.push(slots[members[j]]);
    }
    const sorted = Float64Array.from(values).sort();
    let above = 0;
    let left = replicas;
    for (let p = sorted.length - 1; p >= 0;) {
      const cut = sorted[p];
      let q = p;
      while (q >= 0 && sorted[q] === cut) q--;
      const count = p - q;
      if (count * cut >= left) return { cut, above, left };
      above += count;
      left -= count * cut;
      p = q;
    }
    return { cut: 0, above, left };
  }

  /**
   * The nodes of a domain packing looks at: for a domain of every node, only
   * those with a slot, in index order (a busy machine has few: packing need
   * not visit the others, which it would pass over).
   */
  private membersOf(domain: Int32Array): Int32Array {
    if (domain.length !== this.names.length) return domain;
    const bits = this.positive;
    const out = this.members;
    let count = 0;
    for (let w = 0; w < bits.length; w++) {
      let x = bits[w];
      while (x !== 0) {
        const low = x & -x;
        out[count++] = (w << 5) + 31 - Math.clz32(low);
        x ^= low;
      }
    }
    return out.subarray(0, count);
  }

  /** How many nodes compact packing of `replicas` into `members` uses. */
  private packedCount(domain: Int32Array, replicas: number): number {
    const { cut, above, left } = this.cutOf(this.membersOf(domain), replicas);
    return above + Math.ceil(left / cut);
  }

  /**
   * Compact packing of `replicas` into `domain`; the allocation by node
   * name. Remembered with the free units it was packed in, so that
   * `allocate` takes it without checking it again.
   */
  private pack(
    domain: Domain,
    replicas: number,
    state: TopologyState,
    d: ResourceDemand,
  ): Placement {
    const members = this.membersOf(domain.nodes);
    const slots = this.slots;
    let { cut, left } = this.cutOf(members, replicas);
    const nodeBuf = this.packNodes;
    const countBuf = this.packCounts;
    let m = 0;
    // One pass in index order (= the allocation's order, by node name).
    for (let j = 0; j < members.length; j++) {
      const i = members[j];
      const free = slots[i];
      let k: number;
      if (free > cut) k = free;
      else if (free === cut && left > 0) {
        k = Math.min(cut, left);
        left -= k;
      } else continue;
      nodeBuf[m] = i;
      countBuf[m++] = k;
    }
    return this.placementOf(domain.name, runsOf(this.packNodes, this.packCounts, m), state, d);
  }

  /**
   * `pack` for the global domain from the node classes: where packing stops
   * (`cutOf`) from the nodes per class, then one pass over the nodes in
   * index order reading each one's slots from its class, ending once every
   * node above the cut is taken and no replica is left.
   */
  private packByClass(
    state: TopologyState,
    shape: Shape,
    replicas: number,
    d: ResourceDemand,
  ): Placement {
    const table = this.classes.slotTable(shape.id, shape.cols, shape.amounts);
    const counts = state.classCounts;
    // Nodes per slot value (the values with a node), largest first: kept
    // sorted as they come (a machine's classes have few distinct values).
    let values = this.cutValues;
    let nodesAt = this.cutNodes;
    let n = 0;
    for (let c = 0; c < counts.length; c++) {
      const m = counts[c];
      const q = table[c];
      if (!(m > 0 && q > 0)) continue;
      let p = 0;
      while (p < n && values[p] > q) p++;
      if (p < n && values[p] === q) {
        nodesAt[p] += m;
        continue;
      }
      if (n === values.length) {
        this.cutValues = values = growTo(values, n * 2);
        this.cutNodes = nodesAt = growTo(nodesAt, n * 2);
      }
      values.copyWithin(p + 1, p, n);
      nodesAt.copyWithin(p + 1, p, n);
      values[p] = q;
      nodesAt[p] = m;
      n++;
    }
    let above = 0;
    let left = replicas;
    let cut = 0;
    for (let p = 0; p < n; p++) {
      const q = values[p];
      const m = nodesAt[p];
      if (m * q >= left) {
        cut = q;
        break;
      }
      above += m;
      left -= m * q;
    }
    const cls = state.cls;
    const nodeBuf = this.packNodes;
    const countBuf = this.packCounts;
    let m = 0;
    // The classes taken from, when few: their nodes' words instead of every node.
    let taken = 0;
    for (let c = 0; c < counts.length && taken <= MEMBER_CLASSES; c++) {
      if (counts[c] > 0 && table[c] >= cut && table[c] > 0) {
        if (taken < MEMBER_CLASSES) this.takenClasses[taken] = c;
        taken++;
      }
    }
    if (taken <= MEMBER_CLASSES) {
      return this.placementOf(
        "global",
        this.packByMembers(state, table, taken, cut, above, left),
        state,
        d,
      );
    }
    for (let i = 0; i < cls.length && (above > 0 || left > 0); i++) {
      const q = table[cls[i]];
      let k: number;
      if (q > cut) {
        k = q;
        above--;
      } else if (q === cut && left > 0) {
        k = Math.min(cut, left);
        left -= k;
      } else continue;
      nodeBuf[m] = i;
      countBuf[m++] = k;
    }
    return this.placementOf("global", runsOf(this.packNodes, this.packCounts, m), state, d);
  }

  /**
   * `packByClass`'s pass over the nodes in index order, visiting only those
   * of the `taken` classes in `takenClasses` (by their words of class
   * members); returns the nodes packed, as runs.
   */
  private packByMembers(
    state: TopologyState,
    table: Float64Array,
    taken: number,
    cut: number,
    above: number,
    left: number,
  ): number[] {
    const members = this.classMembers;
    const version = this.slotCaches.versionOf(state);
    if (members.version !== version) members.build(state.cls, version);
    const bits = this.takenBits;
    for (let t = 0; t < taken; t++) bits[t] = members.of(this.takenClasses[t]);
    return packMembers(
      members.words,
      bits,
      this.takenClasses,
      taken,
      state.cls,
      table,
      cut,
      above,
      left,
    );
  }

  /**
   * The placement of the nodes of `runs` (packed in index order).
   * Remembered with the free units it was packed in, so that `allocate`
   * takes it without checking it again.
   */
  private placementOf(
    domain: string,
    runs: Runs,
    state: TopologyState,
    d: ResourceDemand,
  ): Placement {
    // What a running job holds lives as long as it runs: kept as runs of
    // nodes (see _topology_runs.ts), most of a job's nodes in one. The
    // allocation's list is made when first read (`RunsPlacement`).
    const placement: Placement = new RunsPlacement(domain, runs, this.names);
    this.packed[this.packedNext] = {
      placement,
      demand: d,
      version: this.slotCaches.versionOf(state),
      runs,
    };
    this.packedNext = (this.packedNext + 1) % PACKED;
    return placement;
  }
}

function demandOf(job: JobRecord): ResourceDemand {
  const d = job.demand;
  if (d === undefined) {
    throw new EvtsimError("state", `topology cluster: job ${job.id} has no demand`);
  }
  return d;
}

/** `a` in an array of `length`. */
function growTo(a: Float64Array, length: number): Float64Array {
  const grown = new Float64Array(length);
  grown.set(a);
  return grown;
}

/** Per resource of `R`, what the nodes have free (an offline node's units below zero count 0). */
function sumFree(free: Float64Array, R: number): Float64Array {
  const sums = new Float64Array(R);
  for (let j = 0; j < free.length; j++) {
    const f = free[j];
    if (f > 0) sums[j % R] += f;
  }
  return sums;
}
