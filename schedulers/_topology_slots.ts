// Replica slots of a topology cluster, cached per replica shape. Placing a
// job scans every node, and a backfill pass places every waiting job, so
// without a cache one pass costs waiting jobs × nodes. The slots of a shape
// are valid while the same state has not changed since they were computed
// (a frozen state never changes; the editing copy only through `change`,
// which updates the touched nodes of every current shape and bumps `stamp`).

import type { ResourceDemand } from "../core/resource_model.ts";

/** At most this many replica shapes keep their slots cached at once. */
const SHAPES = 64;

/** The slots of one replica shape in one state. */
export interface ShapeSlots {
  /** The state they were computed for (compared by identity). */
  readonly state: object;
  stamp: number;
  /** Resource columns a replica needs, and how many units of each (empty: no node has one). */
  readonly cols: readonly number[];
  readonly amounts: readonly number[];
  /** Slots per node. */
  readonly slots: Float64Array;
  /** Their sum over the cluster. */
  total: number;
  /** Per topology key ("" = global). */
  readonly domains: Map<string, DomainSlots>;
}

/** Slots per domain, and the largest domain (first by name with the most). */
export interface DomainSlots {
  readonly sums: Float64Array;
  largest: number;
  largestSlots: number;
}

/** The slot caches of one topology cluster. */
export class SlotCaches {
  private readonly shapes = new Map<string, ShapeSlots>();
  /** Per topology key: each node's domain index. */
  private readonly domainIndex = new Map<string, Int32Array>();
  /** Bumped by every change to a state. */
  private stamp = 0;

  constructor(
    private readonly nodeCount: number,
    private readonly resourceCount: number,
    private readonly column: ReadonlyMap<string, number>,
  ) {}

  /** Slots per node for `d`'s units per replica in `state` (whose free units are `free`). */
  slotsFor(state: object, free: Float64Array, d: ResourceDemand): ShapeSlots {
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
    const cached = this.shapes.get(shapeKey);
    if (cached !== undefined && cached.state === state && cached.stamp === this.stamp) {
      return cached;
    }
    if (this.shapes.size >= SHAPES) this.shapes.clear();
    const n = this.nodeCount;
    const slots = cached?.slots ?? new Float64Array(n);
    const entry: ShapeSlots = {
      state,
      stamp: this.stamp,
      cols,
      amounts,
      slots,
      total: 0,
      domains: new Map(),
    };
    this.shapes.set(shapeKey, entry);
    if (shapeKey === "none") {
      slots.fill(0);
      return entry;
    }
    let total = 0;
    for (let i = 0; i < n; i++) total += slots[i] = this.nodeSlots(free, entry, i);
    entry.total = total;
    return entry;
  }

  /** Slots per domain of `key` ("" = global), computed once per shape and kept up to date. */
  domainSlots(
    shape: ShapeSlots,
    key: string,
    domains: readonly { readonly nodes: Int32Array }[],
  ): DomainSlots {
    const cached = shape.domains.get(key);
    if (cached !== undefined) return cached;
    if (!this.domainIndex.has(key)) {
      const index = new Int32Array(this.nodeCount);
      domains.forEach((domain, k) => domain.nodes.forEach((i) => index[i] = k));
      this.domainIndex.set(key, index);
    }
    const slots = shape.slots;
    const sums = new Float64Array(domains.length);
    for (let k = 0; k < domains.length; k++) {
      const members = domains[k].nodes;
      let sum = 0;
      for (let j = 0; j < members.length; j++) sum += slots[members[j]];
      sums[k] = sum;
    }
    const result = { sums, largest: -1, largestSlots: 0 };
    findLargest(result);
    shape.domains.set(key, result);
    return result;
  }

  /**
   * Applies a change to `nodes` of `state` (whose free units are `free`) and
   * keeps the shapes of `state` that were current: only those nodes' slots,
   * and their domains' sums, are recomputed.
   */
  change(state: object, free: Float64Array, nodes: readonly number[], apply: () => void): void {
    const current: ShapeSlots[] = [];
    for (const e of this.shapes.values()) {
      if (e.state === state && e.stamp === this.stamp && e.cols.length > 0) current.push(e);
    }
    apply();
    this.stamp++;
    for (const e of current) {
      for (const i of nodes) {
        const delta = this.nodeSlots(free, e, i) - e.slots[i];
        if (delta === 0) continue;
        e.slots[i] += delta;
        e.total += delta;
        for (const [key, ds] of e.domains) ds.sums[this.domainIndex.get(key)![i]] += delta;
      }
      for (const ds of e.domains.values()) findLargest(ds);
      e.stamp = this.stamp;
    }
  }

  /** Replica slots of node `i` for a shape: min over its resources of floor(free / units). */
  private nodeSlots(free: Float64Array, shape: ShapeSlots, i: number): number {
    const cols = shape.cols;
    const amounts = shape.amounts;
    const base = i * this.resourceCount;
    let s = Infinity;
    for (let k = 0; k < cols.length; k++) {
      const f = free[base + cols[k]];
      const a = amounts[k];
      let q = Math.floor(f / a);
      if (q * a > f) q--; // a quotient rounded up to the next integer
      if (q < s) s = q;
    }
    // An offline node's free units are below zero: no slot, never a negative count.
    return s < 0 ? 0 : s;
  }
}

/** The first domain (by name) with the most slots. */
function findLargest(ds: DomainSlots): void {
  ds.largest = -1;
  ds.largestSlots = 0;
  for (let k = 0; k < ds.sums.length; k++) {
    if (ds.largest < 0 || ds.sums[k] > ds.largestSlots) {
      ds.largest = k;
      ds.largestSlots = ds.sums[k];
    }
  }
}
