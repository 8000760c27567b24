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
  NodeShare,
  Placement,
  PlaceResult,
  ResourceDemand,
  ResourceModel,
} from "../core/resource_model.ts";
import type { JobRecord } from "../core/types.ts";
import { insufficientCapacity, topologyFragmented } from "./topology_reasons.ts";

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

/** What a running job holds: node indexes and replicas on each. */
interface Held {
  readonly nodes: readonly number[];
  readonly replicas: readonly number[];
}

/**
 * The state of a topology cluster: free units per node and resource, and
 * what each running job holds. Opaque: read it through the model.
 */
export interface TopologyState {
  /** Free units, node-major: `free[node * resources + r]`. */
  readonly free: Float64Array;
  /** What each running job holds, by job id: node indexes and replicas on each. */
  readonly held: ReadonlyMap<
    number,
    { readonly nodes: readonly number[]; readonly replicas: readonly number[] }
  >;
}

/** At most this many replica shapes keep their slots cached at once. */
const SLOT_CACHE_SHAPES = 64;

/** The slots of one replica shape in one state (see `slotsFor`). */
interface SlotCache {
  readonly state: TopologyState;
  stamp: number;
  /** Resource columns a replica needs, and how many units of each. */
  readonly cols: readonly number[];
  readonly amounts: readonly number[];
  readonly slots: Float64Array;
  total: number;
  /** Per topology key ("" = global). */
  readonly domains: Map<string, DomainSlots>;
}

/** Slots per domain, and the largest domain (first by name with the most). */
interface DomainSlots {
  readonly sums: Float64Array;
  largest: number;
  largestSlots: number;
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
  /** Node names, in name order. */
  private readonly names: readonly string[];
  private readonly labels: readonly (Readonly<Record<string, string>> | undefined)[];
  private readonly index = new Map<string, number>();
  /** Resource names, sorted; `free` has one column per resource. */
  private readonly resources: readonly string[];
  private readonly column = new Map<string, number>();
  /** Per topology key: each node's domain (its index in `domainCache`'s list). */
  private readonly domainIndex = new Map<string, Int32Array>();
  /** Domains per topology key, built on first use ("" = the global domain). */
  private readonly domainCache = new Map<string, readonly Domain[]>();
  /** States `beginEdit` returned and `endEdit` has not ended. */
  private readonly editing = new WeakSet<TopologyState>();
  /** Slots per node for the placement being computed (one of `slotCache`'s arrays). */
  private slots: Float64Array;
  /** Slots per replica shape (see `slotsFor`). */
  private readonly slotCache = new Map<string, SlotCache>();
  /** Bumped by every change to a state (`allocate`, `release`). */
  private stamp = 0;

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
    this.labels = nodes.map((n) => n.topology);
    this.resources = [...resourceNames].sort(compareNames);
    this.resources.forEach((r, i) => this.column.set(r, i));
    const R = this.resources.length;
    const free = new Float64Array(nodes.length * R);
    nodes.forEach((n, i) => {
      for (let r = 0; r < R; r++) free[i * R + r] = n.capacity[this.resources[r]] ?? 0;
    });
    this.initial = Object.freeze({ free, held: new Map() });
    this.slots = new Float64Array(nodes.length);
  }

  place(state: TopologyState, job: JobRecord): PlaceResult {
    const d = demandOf(job);
    const replicas = d.replicas;
    const shape = this.slotsFor(state, d);
    this.slots = shape.slots;
    const clusterSlots = shape.total;
    const key = d.topologyKey === undefined || d.topologyKey === "" ? undefined : d.topologyKey;
    const domains = this.domains(key);
    const { sums: domainSlots, largest, largestSlots } = this.domainSlots(shape, key, domains);
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
    let best = -1;
    let bestNodes = Infinity;
    for (let k = 0; k < domains.length; k++) {
      if (domainSlots[k] !== bestSlots) continue;
      const used = this.packedCount(domains[k].nodes, replicas);
      if (used < bestNodes) {
        best = k;
        bestNodes = used;
      }
    }
    return { placement: this.pack(domains[best], replicas) };
  }

  beginEdit(state: TopologyState): TopologyState {
    const copy = { free: state.free.slice(), held: new Map(state.held) };
    this.editing.add(copy);
    return copy;
  }

  allocate(state: TopologyState, job: JobRecord, placement: Placement): TopologyState {
    this.checkEditing(state);
    const d = demandOf(job);
    if (state.held.has(job.id)) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} already holds resources`);
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
    this.change(state, nodes, () => this.take(free, d, nodes, replicas, -1));
    (state.held as Map<number, Held>).set(job.id, { nodes, replicas });
    return state;
  }

  release(state: TopologyState, job: JobRecord): TopologyState {
    this.checkEditing(state);
    const h = state.held.get(job.id);
    if (h === undefined) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} holds no resources`);
    }
    this.change(
      state,
      h.nodes,
      () => this.take(state.free, demandOf(job), h.nodes, h.replicas, +1),
    );
    (state.held as Map<number, Held>).delete(job.id);
    return state;
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

  /** Adds (sign +1) or takes (−1) the units of `replicas` on `nodes`. */
  private take(
    free: Float64Array,
    d: ResourceDemand,
    nodes: readonly number[],
    replicas: readonly number[],
    sign: number,
  ): void {
    const R = this.resources.length;
    for (const [r, amount] of Object.entries(d.perReplica)) {
      const c = this.column.get(r);
      if (amount <= 0 || c === undefined) continue;
      for (let k = 0; k < nodes.length; k++) free[nodes[k] * R + c] += sign * amount * replicas[k];
    }
  }

  /**
   * Slots per node for `d`'s units per replica, and their total. Placing a
   * job scans every node, and a backfill pass places every waiting job, so
   * the slots are cached per replica shape: valid while the same state has
   * not been changed since (a frozen state never is; the editing copy only
   * by `allocate` and `release`, which bump `stamp`).
   */
  private slotsFor(state: TopologyState, d: ResourceDemand): SlotCache {
    const cols: number[] = [];
    const amounts: number[] = [];
    let unknown = false;
    let shapeKey = "";
    for (const r in d.perReplica) {
      const amount = d.perReplica[r];
      if (!(amount > 0)) continue;
      const c = this.column.get(r);
      if (c === undefined) unknown = true; // no node has any of it
      else {
        cols.push(c);
        amounts.push(amount);
        shapeKey += `${c}:${amount},`;
      }
    }
    if (unknown || cols.length === 0) {
      shapeKey = "none";
      cols.length = 0;
    }
    const cached = this.slotCache.get(shapeKey);
    if (cached !== undefined && cached.state === state && cached.stamp === this.stamp) {
      return cached;
    }
    if (this.slotCache.size >= SLOT_CACHE_SHAPES) this.slotCache.clear();
    const n = this.names.length;
    const slots = cached?.slots ?? new Float64Array(n);
    const entry: SlotCache = {
      state,
      stamp: this.stamp,
      cols,
      amounts,
      slots,
      total: 0,
      domains: new Map(),
    };
    this.slotCache.set(shapeKey, entry);
    if (shapeKey === "none") {
      slots.fill(0);
      return entry;
    }
    let total = 0;
    for (let i = 0; i < n; i++) total += slots[i] = this.nodeSlots(state.free, entry, i);
    entry.total = total;
    return entry;
  }

  /** Replica slots of node `i` for a shape: min over its resources of floor(free / units). */
  private nodeSlots(free: Float64Array, shape: SlotCache, i: number): number {
    const cols = shape.cols;
    const amounts = shape.amounts;
    const base = i * this.resources.length;
    let s = Infinity;
    for (let k = 0; k < cols.length; k++) {
      const f = free[base + cols[k]];
      const a = amounts[k];
      let q = Math.floor(f / a);
      if (q * a > f) q--; // a quotient rounded up to the next integer
      if (q < s) s = q;
    }
    return s;
  }

  /**
   * Applies a change to `nodes` of `state` and keeps the slot caches of
   * `state` that were current: only those nodes' slots (and their domains'
   * sums) are recomputed, as a backfill pass starts jobs between placements.
   */
  private change(state: TopologyState, nodes: readonly number[], apply: () => void): void {
    const current: SlotCache[] = [];
    for (const e of this.slotCache.values()) {
      if (e.state === state && e.stamp === this.stamp && e.cols.length > 0) current.push(e);
    }
    apply();
    this.stamp++;
    for (const e of current) {
      for (const i of nodes) {
        const delta = this.nodeSlots(state.free, e, i) - e.slots[i];
        if (delta === 0) continue;
        e.slots[i] += delta;
        e.total += delta;
        for (const [key, ds] of e.domains) ds.sums[this.domainIndex.get(key)![i]] += delta;
      }
      for (const ds of e.domains.values()) {
        ds.largest = -1;
        ds.largestSlots = 0;
        for (let k = 0; k < ds.sums.length; k++) {
          if (ds.largest < 0 || ds.sums[k] > ds.largestSlots) {
            ds.largest = k;
            ds.largestSlots = ds.sums[k];
          }
        }
      }
      e.stamp = this.stamp;
    }
  }

  /** Slots per domain of `key`, and the largest (first by name with the most), cached with the slots. */
  private domainSlots(
    shape: SlotCache,
    key: string | undefined,
    domains: readonly Domain[],
  ): DomainSlots {
    const cached = shape.domains.get(key ?? "");
    if (cached !== undefined) return cached;
    const slots = shape.slots;
    const sums = new Float64Array(domains.length);
    let largest = -1;
    let largestSlots = 0;
    for (let k = 0; k < domains.length; k++) {
      const members = domains[k].nodes;
      let sum = 0;
      for (let j = 0; j < members.length; j++) sum += slots[members[j]];
      sums[k] = sum;
      if (largest < 0 || sum > largestSlots) {
        largest = k;
        largestSlots = sum;
      }
    }
    const result = { sums, largest, largestSlots };
    shape.domains.set(key ?? "", result);
    return result;
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
    const index = new Int32Array(this.names.length);
    domains.forEach((domain, k) => domain.nodes.forEach((i) => index[i] = k));
    this.domainIndex.set(cacheKey, index);
    return domains;
  }

  /** Nodes of `members` with free slots, by slots descending, then name (= index). */
  private byFreeSlots(members: Int32Array): number[] {
    const slots = this.slots;
    const ordered: number[] = [];
    for (let j = 0; j < members.length; j++) if (slots[members[j]] > 0) ordered.push(members[j]);
    ordered.sort((a, b) => slots[b] - slots[a] || a - b);
    return ordered;
  }

  /** How many nodes compact packing of `replicas` into `members` uses. */
  private packedCount(members: Int32Array, replicas: number): number {
    let left = replicas;
    let used = 0;
    for (const i of this.byFreeSlots(members)) {
      if (left <= 0) break;
      left -= Math.min(this.slots[i], left);
      used++;
    }
    return used;
  }

  /** Compact packing of `replicas` into `domain`; the allocation by node name. */
  private pack(domain: Domain, replicas: number): Placement {
    let left = replicas;
    const taken: [number, number][] = [];
    for (const i of this.byFreeSlots(domain.nodes)) {
      if (left <= 0) break;
      const k = Math.min(this.slots[i], left);
      taken.push([i, k]);
      left -= k;
    }
    taken.sort((a, b) => a[0] - b[0]);
    const allocation: NodeShare[] = taken.map(([i, k]) =>
      Object.freeze({ nodeName: this.names[i], replicas: k })
    );
    return Object.freeze({ domain: domain.name, allocation: Object.freeze(allocation) });
  }
}

function demandOf(job: JobRecord): ResourceDemand {
  const d = job.demand;
  if (d === undefined) {
    throw new EvtsimError("state", `topology cluster: job ${job.id} has no demand`);
  }
  return d;
}
