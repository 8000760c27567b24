// Replica slots of a topology cluster, cached per replica shape. Placing a
// job scans every node, and a backfill pass places every waiting job, so
// without a cache one pass costs waiting jobs × nodes.
//
// The cache is keyed by the content of the free matrix, not by the state
// object: every state has a version, and two states with the same version
// have the same free units. `beginEdit`'s copy shares its source's version
// (nothing changed yet), so the engine's next step and EASY's shadow copy
// start from the slots already computed. Every change (`change`) gives the
// state a new version (placements packed before no longer hold). The first
// change after a copy leaves the shared version's slots to the other state
// and notes the version it came from and the nodes changed since: a shape
// looked up later copies that version's slots and recomputes only those
// nodes. Later changes mark the touched nodes of the state's cached shapes,
// recomputed (with their domains' sums) when the shape is next looked up.
// A few versions per shape are kept (the engine's state, a shadow copy,
// the state it was copied from), the least recently used one giving way.
// Whatever changes a state's free units must go through `change`.

import type { ResourceDemand } from "../core/resource_model.ts";
import { shapeIdOf } from "../core/_demand_shape.ts";
import { nodeCount, type Runs } from "./_topology_runs.ts";

/** At most this many replica shapes keep their slots cached at once. */
const SHAPES = 64;
/** Versions of the free matrix kept per shape. */
const VERSIONS = 4;

/** A replica shape: the resource columns a replica needs, and how many units of each. */
export interface Shape {
  readonly key: string;
  /** Empty when a replica needs nothing or a resource no node has (no slots anywhere). */
  readonly cols: readonly number[];
  readonly amounts: readonly number[];
  /** The known columns it takes units of (what `allocate` and `release` move). */
  readonly takeCols: readonly number[];
  readonly takeAmounts: readonly number[];
  /** A number per distinct `key` (the node classes' slot tables are by it). */
  readonly id: number;
  /** A number per distinct pair of `takeCols` and `takeAmounts` (the node classes' moves are by it). */
  readonly takeId: number;
}

/** The slots of one replica shape in one version of the free matrix. */
export interface ShapeSlots {
  /** The shape's key. */
  readonly key: string;
  /** The version they are for (-1: a shape with no slots, any version). */
  version: number;
  /** When it was last used (least recently used goes first). */
  used: number;
  /** Resource columns a replica needs, and how many units of each (empty: no node has one). */
  readonly cols: readonly number[];
  readonly amounts: readonly number[];
  /** Slots per node. */
  readonly slots: Float64Array;
  /**
   * The nodes with a slot, one bit each (node i: bit i % 32 of word i >> 5):
   * packing into the whole machine visits only them.
   */
  readonly positive: Uint32Array;
  /** Their sum over the cluster. */
  total: number;
  /** Per topology key ("" = global). */
  readonly domains: Map<string, DomainSlots>;
  /** Nodes changed since `slots` were last brought up to date (the first `dirtyCount`). */
  readonly dirty: Int32Array;
  dirtyCount: number;
  /** 1 for a node in `dirty`. */
  readonly mark: Uint8Array;
}

/** Slots per domain, and the largest domain (first by name with the most). */
export interface DomainSlots {
  /** Each node's domain. */
  readonly index: Int32Array;
  readonly sums: Float64Array;
  largest: number;
  largestSlots: number;
}

/**
 * Where a state's free units came from: the version it was copied at, and
 * the nodes changed since (`all`: too many to list).
 */
interface Base {
  readonly from: number;
  readonly nodes: number[];
  all: boolean;
}

/** The slot caches of one topology cluster. */
export class SlotCaches {
  /** Per shape key: the versions cached. */
  private readonly shapes = new Map<string, ShapeSlots[]>();
  /** Per shape key, the slots of a shape with none (every version). */
  private readonly empty = new Map<string, ShapeSlots>();
  /** Shapes by demand object (a demand is a job's, and never changes). */
  /** Shapes by replica shape number (`shapeIdOf`: a demand is a job's, and never changes). */
  private readonly shapeOfDemand: (Shape | undefined)[] = [];
  /** Shape numbers by key (`Shape.id`, `Shape.takeId`). */
  private readonly shapeIds = new Map<string, number>();
  /** Per topology key: each node's domain index. */
  private readonly domainIndex = new Map<string, Int32Array>();
  /** Each state's version of the free matrix (given on first sight). */
  private readonly versions = new WeakMap<object, number>();
  /** Per state changed since it was copied: the version it was copied at, and the nodes changed since. */
  private readonly bases = new WeakMap<object, Base>();
  /** States whose version no other state has (changed in place). */
  private readonly unique = new WeakSet<object>();
  private nextVersion = 0;
  private tick = 0;

  constructor(
    private readonly nodeCount: number,
    private readonly resourceCount: number,
    private readonly column: ReadonlyMap<string, number>,
  ) {}

  /** The demand `shapeOf` was last asked for, and its shape (a job's is asked for a few times in a row). */
  private lastDemand: ResourceDemand | undefined = undefined;
  private lastShape: Shape | undefined = undefined;

  /** The replica shape of `d`. */
  shapeOf(d: ResourceDemand): Shape {
    if (d === this.lastDemand) return this.lastShape!;
    const shape = this.shapeOfId(d);
    this.lastDemand = d;
    this.lastShape = shape;
    return shape;
  }

  private shapeOfId(d: ResourceDemand): Shape {
    const demandId = shapeIdOf(d);
    const known = this.shapeOfDemand[demandId];
    if (known !== undefined) return known;
    const cols: number[] = [];
    const amounts: number[] = [];
    let unknown = false;
    let key = "";
    for (const r in d.perReplica) {
      const amount = d.perReplica[r];
      if (!(amount > 0)) continue;
      const c = this.column.get(r);
      if (c === undefined) unknown = true; // no node has any of it
      else {
        cols.push(c);
        amounts.push(amount);
        key += `${c}:${amount},`;
      }
    }
    const none = unknown || cols.length === 0;
    const shape: Shape = {
      key: none ? "none" : key,
      cols: none ? [] : cols,
      amounts: none ? [] : amounts,
      takeCols: cols,
      takeAmounts: amounts,
      id: this.shapeId(none ? "none" : key),
      takeId: this.shapeId(key),
    };
    while (this.shapeOfDemand.length <= demandId) this.shapeOfDemand.push(undefined);
    this.shapeOfDemand[demandId] = shape;
    return shape;
  }

  private shapeId(key: string): number {
    let id = this.shapeIds.get(key);
    if (id === undefined) this.shapeIds.set(key, id = this.shapeIds.size);
    return id;
  }

  /** `state`'s version of the free matrix. */
  versionOf(state: object): number {
    let v = this.versions.get(state);
    if (v === undefined) {
      v = this.nextVersion++;
      this.versions.set(state, v);
      this.unique.add(state);
    }
    return v;
  }

  /** `copy` is a copy of `source` with the same free units: it shares its version. */
  copied(source: object, copy: object): void {
    this.versions.set(copy, this.versionOf(source));
    this.unique.delete(source);
  }

  /** Slots per node for `d`'s units per replica in `state` (whose free units are `free`). */
  slotsFor(state: object, free: Float64Array, d: ResourceDemand): ShapeSlots {
    const shape = this.shapeOf(d);
    const n = this.nodeCount;
    if (shape.cols.length === 0) {
      let e = this.empty.get(shape.key);
      if (e === undefined) {
        e = {
          key: shape.key,
          version: -1,
          used: 0,
          cols: [],
          amounts: [],
          slots: new Float64Array(n),
          positive: new Uint32Array((n + 31) >>> 5),
          total: 0,
          domains: new Map(),
          dirty: new Int32Array(0),
          dirtyCount: 0,
          mark: new Uint8Array(0),
        };
        this.empty.set(shape.key, e);
      }
      return e;
    }
    const v = this.versionOf(state);
    let list = this.shapes.get(shape.key);
    if (list === undefined) {
      if (this.shapes.size >= SHAPES) this.shapes.clear();
      this.shapes.set(shape.key, list = []);
    }
    for (let k = 0; k < list.length; k++) {
      const e = list[k];
      if (e.version === v) {
        e.used = ++this.tick;
        if (e.dirtyCount > 0) this.update(free, e);
        return e;
      }
    }
    // Not cached: from the version the state was copied at, when that is.
    const base = this.bases.get(state);
    if (base !== undefined && !base.all) {
      for (let k = 0; k < list.length; k++) {
        if (list[k].version !== base.from) continue;
        const e = this.copyFor(list[k], v);
        this.markDirty(e, base.nodes, 1);
        if (e.dirtyCount > 0) this.update(free, e);
        return e;
      }
    }
    // Else afresh; the least recently used version's arrays are reused when all are taken.
    let entry: ShapeSlots;
    if (list.length < VERSIONS) {
      entry = {
        key: shape.key,
        version: v,
        used: ++this.tick,
        cols: shape.cols,
        amounts: shape.amounts,
        slots: new Float64Array(n),
        positive: new Uint32Array((n + 31) >>> 5),
        total: 0,
        domains: new Map(),
        dirty: new Int32Array(n),
        dirtyCount: 0,
        mark: new Uint8Array(n),
      };
      list.push(entry);
    } else {
      entry = list[0];
      for (let k = 1; k < list.length; k++) if (list[k].used < entry.used) entry = list[k];
      entry.version = v;
      entry.used = ++this.tick;
      entry.domains.clear();
      for (let k = 0; k < entry.dirtyCount; k++) entry.mark[entry.dirty[k]] = 0;
      entry.dirtyCount = 0;
    }
    this.recomputeAll(free, entry);
    return entry;
  }

  /** Brings the slots of `e`'s changed nodes, and their domains' sums, up to date. */
  private update(free: Float64Array, e: ShapeSlots): void {
    const slots = e.slots;
    const n = this.nodeCount;
    if (e.dirtyCount * 2 > n) {
      this.recomputeAll(free, e);
      for (const ds of e.domains.values()) {
        const index = ds.index;
        ds.sums.fill(0);
        for (let i = 0; i < n; i++) ds.sums[index[i]] += slots[i];
        findLargest(ds);
      }
      e.mark.fill(0);
      e.dirtyCount = 0;
      return;
    }
    const domains = [...e.domains.values()];
    const dirty = e.dirty;
    const mark = e.mark;
    let total = e.total;
    let changed = false;
    for (let k = 0; k < e.dirtyCount; k++) {
      const i = dirty[k];
      mark[i] = 0;
      const delta = this.nodeSlots(free, e, i) - slots[i];
      if (delta === 0) continue;
      changed = true;
      slots[i] += delta;
      if (slots[i] > 0) e.positive[i >>> 5] |= 1 << (i & 31);
      else e.positive[i >>> 5] &= ~(1 << (i & 31));
      total += delta;
      for (let j = 0; j < domains.length; j++) domains[j].sums[domains[j].index[i]] += delta;
    }
    e.total = total;
    e.dirtyCount = 0;
    if (changed) { for (let j = 0; j < domains.length; j++) findLargest(domains[j]); }
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
    const result = { index: this.domainIndex.get(key)!, sums, largest: -1, largestSlots: 0 };
    findLargest(result);
    shape.domains.set(key, result);
    return result;
  }

  /**
   * Applies a change to `nodes` of `state` and keeps the cached slots of its
   * version: those nodes are marked for recomputing. A state changed for the
   * first time since it was copied leaves the shared version's slots to the
   * other state and notes where it came from (`Base`): a shape looked up
   * later starts from that version's slots (`slotsFor`).
   */
  change(state: object, runs: Runs, apply: () => void): void {
    this.versionOf(state);
    apply();
    this.changed(state, runs);
  }

  /**
   * `change` for a change already applied to `state` (that did not read or
   * give versions): without a closure per start and end.
   */
  changed(state: object, runs: Runs): void {
    const v = this.versionOf(state);
    const inPlace = this.unique.has(state);
    // A new version either way: what was computed for the old one (a
    // placement packed in it) no longer holds for this state.
    const nv = this.nextVersion++;
    this.versions.set(state, nv);
    this.unique.add(state);
    // With no shape cached (the node classes answer every shape) the nodes
    // changed are not listed: a shape looked up later for this state is
    // computed afresh, as for a base of `all`.
    const listed = this.shapes.size > 0;
    if (!inPlace) {
      const nodes: number[] = [];
      if (listed) pushNodes(nodes, runs);
      this.bases.set(state, { from: v, nodes, all: !listed });
      return;
    }
    const base = this.bases.get(state);
    if (base !== undefined && !base.all) {
      if (!listed || base.nodes.length + nodeCount(runs) > this.nodeCount) base.all = true;
      else pushNodes(base.nodes, runs);
    }
    // (None cached — the node classes answer — is the common case: no iterator then.)
    if (this.shapes.size === 0) return;
    for (const list of this.shapes.values()) {
      for (let k = 0; k < list.length; k++) {
        const e = list[k];
        if (e.version !== v) continue;
        // Recomputed when next looked up (a shadow copy releases many jobs
        // between two lookups, mostly of other shapes).
        e.version = nv;
        this.markDirty(e, runs, 0);
      }
    }
  }

  /** Marks the nodes of `runs` dirty in `e` (`step` 0: runs; 1: a plain node list). */
  private markDirty(e: ShapeSlots, runs: readonly number[], step: 0 | 1): void {
    const dirty = e.dirty;
    const mark = e.mark;
    // Past half the nodes `update` recomputes them all: no need to list more.
    const full = this.nodeCount >> 1;
    let count = e.dirtyCount;
    const stride = step === 1 ? 1 : 3;
    for (let p = 0; p < runs.length && count <= full; p += stride) {
      const end = step === 1 ? runs[p] + 1 : runs[p] + runs[p + 1];
      for (let i = runs[p]; i < end && count <= full; i++) {
        if (mark[i] === 0) {
          mark[i] = 1;
          dirty[count++] = i;
        }
      }
    }
    e.dirtyCount = count;
  }

  /** A copy of `e` for version `v`, cached beside it (giving way to the least recently used). */
  private copyFor(e: ShapeSlots, v: number): ShapeSlots {
    const list = this.shapes.get(e.key)!;
    let copy: ShapeSlots;
    if (list.length < VERSIONS) {
      copy = {
        key: e.key,
        version: v,
        used: ++this.tick,
        cols: e.cols,
        amounts: e.amounts,
        slots: e.slots.slice(),
        positive: e.positive.slice(),
        total: e.total,
        domains: new Map(),
        dirty: e.dirty.slice(),
        dirtyCount: e.dirtyCount,
        mark: e.mark.slice(),
      };
      list.push(copy);
    } else {
      copy = e;
      for (const x of list) if (x !== e && (copy === e || x.used < copy.used)) copy = x;
      copy.version = v;
      copy.used = ++this.tick;
      copy.slots.set(e.slots);
      copy.positive.set(e.positive);
      copy.total = e.total;
      copy.domains.clear();
      // Only the changed nodes' marks: clear the copy's, set `e`'s.
      for (let k = 0; k < copy.dirtyCount; k++) copy.mark[copy.dirty[k]] = 0;
      for (let k = 0; k < e.dirtyCount; k++) copy.mark[copy.dirty[k] = e.dirty[k]] = 1;
      copy.dirtyCount = e.dirtyCount;
    }
    for (const [k, ds] of e.domains) {
      copy.domains.set(k, {
        index: ds.index,
        sums: ds.sums.slice(),
        largest: ds.largest,
        largestSlots: ds.largestSlots,
      });
    }
    return copy;
  }

  /**
   * Every node's slots, `total` and `positive` of `e` afresh: `nodeSlots`
   * column by column over all nodes (the same numbers; a full recompute is
   * most of the upkeep after starts and ends of jobs on many nodes).
   */
  private recomputeAll(free: Float64Array, e: ShapeSlots): void {
    const slots = e.slots;
    const n = this.nodeCount;
    const R = this.resourceCount;
    const { cols, amounts } = e;
    slots.fill(Infinity);
    for (let k = 0; k < cols.length; k++) {
      const c = cols[k];
      const a = amounts[k];
      for (let i = 0, at = c; i < n; i++, at += R) {
        const f = free[at];
        let q = Math.floor(f / a);
        if (q * a > f) q--; // a quotient rounded up to the next integer
        if (q < slots[i]) slots[i] = q;
      }
    }
    const bits = e.positive;
    bits.fill(0);
    let total = 0;
    for (let i = 0; i < n; i++) {
      let q = slots[i];
      // An offline node's free units are below zero: no slot, never a negative count.
      if (q < 0) slots[i] = q = 0;
      else if (q > 0) bits[i >>> 5] |= 1 << (i & 31);
      total += q;
    }
    e.total = total;
  }

  /** Replica slots of node `i` for a shape. */
  private nodeSlots(free: Float64Array, shape: ShapeSlots, i: number): number {
    return nodeSlots(free, i * this.resourceCount, shape.cols, shape.amounts);
  }
}

/**
 * Replica slots of the node whose free units start at `base` for a shape
 * needing `amounts` of columns `cols` (at least one): min over them of
 * floor(free / units).
 */
export function nodeSlots(
  free: Float64Array,
  base: number,
  cols: readonly number[],
  amounts: readonly number[],
): number {
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

/** Appends the nodes of `runs` to `out`. */
function pushNodes(out: number[], runs: Runs): void {
  for (let p = 0; p < runs.length; p += 3) {
    for (let i = runs[p], end = i + runs[p + 1]; i < end; i++) out.push(i);
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
