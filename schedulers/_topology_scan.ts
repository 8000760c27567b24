// The topology cluster's release scan (`ResourceModel.releaseScan`): EASY's
// shadow time without copying the state. Copying it costs every node's free
// units and every running job's holding, and the copy's first lookups
// recompute the slots of every node its releases touched, for every shape
// (a shadow releases a good part of the machine). The scan follows one
// shape only — the head's — and only the nodes the released jobs hold: it
// starts from the state's cached slot sums per domain and, per node a
// release touches, takes that node's free units into its own buffer once
// and keeps the node's slots and its domain's sum up to date. That node
// work waits until it is needed: a release first only adds its units to
// the free units of all nodes together, and while those cannot hold the
// replicas the answer is no without looking at a node (`mayPlace`). The
// buffers are the cluster's, reused by its next scan.

import { EvtsimError } from "../core/errors.ts";
import type { ReleaseScan, ResourceDemand } from "../core/resource_model.ts";
import type { JobRecord } from "../core/types.ts";
import type { ClassState, NodeClasses } from "./_topology_classes.ts";
import {
  type DomainSlots,
  nodeSlots,
  type Shape,
  type ShapeSlots,
  type SlotCaches,
} from "./_topology_slots.ts";
import { runsHeld } from "./_topology_runs.ts";

/** What a running job holds: node indexes and replicas on each. */
interface Held {
  readonly nodes: ArrayLike<number>;
  readonly replicas: ArrayLike<number>;
}

/** What the scan reads of a cluster state. */
interface ScannedState {
  readonly free: Float64Array;
  readonly freeSums: Float64Array;
  readonly held: ReadonlyMap<
    number,
    Held
  >;
}

/** One cluster's release scan; `begin` starts a new one (the previous one no longer holds). */
export class TopologyScan implements ReleaseScan {
  /** `stamp[i] === gen`: node i's free units and slots are in the buffers. */
  private readonly stamp: Int32Array;
  private gen = 0;
  /** Free units of the touched nodes, node-major like the state's. */
  private readonly free: Float64Array;
  /** Slots of the touched nodes for the scan's shape. */
  private readonly slots: Float64Array;
  /** Slots per domain of the scan's topology key. */
  private sums = new Float64Array(1);
  private domainCount = 0;
  private index: Int32Array = new Int32Array(0);
  private state: ScannedState | undefined = undefined;
  private shape: Shape | undefined = undefined;
  private replicas = 0;
  /** The state's cached slots for the shape, and the version they were for when the scan began. */
  private cached: ShapeSlots | undefined = undefined;
  private cachedVersion = -1;
  private lookup: (() => readonly [ShapeSlots, DomainSlots]) | undefined = undefined;
  /** Per resource, the free units of all nodes together plus all the releases give back (at least what is free). */
  private readonly bound: Float64Array;
  /** Releases whose node work waits (what each job holds, and its shape). */
  private readonly pendingHeld: Held[] = [];
  private readonly pendingShapes: Shape[] = [];
  /** How many of them wait (the arrays are reused: no object per release). */
  private pending = 0;
  /**
   * With the node classes (`begin`'s `classes`): the state's classes, and
   * each touched node's class with the releases so far (in place of its
   * free units and a division per resource).
   */
  private classState: ClassState | undefined = undefined;
  private readonly overlay: Int32Array;

  constructor(
    private readonly nodeCount: number,
    private readonly resourceCount: number,
    private readonly caches: SlotCaches,
    private readonly classes?: NodeClasses,
  ) {
    this.stamp = new Int32Array(nodeCount);
    this.free = new Float64Array(nodeCount * resourceCount);
    this.slots = new Float64Array(nodeCount);
    this.bound = new Float64Array(resourceCount);
    this.overlay = new Int32Array(nodeCount);
  }

  /**
   * A new scan of `state` for `d`. `lookup` gives its shape's slots there
   * (up to date) and their sums per domain, asked for when a node is first
   * looked at (a scan `mayPlace` answers may never need them). With
   * `classState`, a node's slots are read from its class (`classes`), and
   * the cached slots are not read.
   */
  begin(
    state: ScannedState,
    d: ResourceDemand,
    lookup: () => readonly [ShapeSlots, DomainSlots],
    classState?: ClassState,
  ): this {
    if (++this.gen === 0x7fffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    this.state = state;
    this.shape = this.caches.shapeOf(d);
    this.replicas = d.replicas;
    this.lookup = lookup;
    this.cached = undefined;
    this.bound.set(state.freeSums);
    this.pending = 0;
    this.classState = classState;
    return this;
  }

  release(job: JobRecord): void {
    const h = this.state!.held.get(job.id);
    if (h === undefined || job.demand === undefined) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} holds no resources`);
    }
    const shape = this.caches.shapeOf(job.demand);
    // At most this much more is free (less on an offline node, whose units
    // stay below zero or reach it).
    for (let j = 0; j < shape.takeCols.length; j++) {
      this.bound[shape.takeCols[j]] += shape.takeAmounts[j] * job.demand.replicas;
    }
    this.pendingHeld[this.pending] = h;
    this.pendingShapes[this.pending++] = shape;
  }

  /**
   * False when `canPlace` would be: the free units of all nodes together,
   * with the releases so far, cannot hold the replicas (no node looked at).
   */
  mayPlace(): boolean {
    const { cols, amounts } = this.shape!;
    if (cols.length === 0) return this.replicas <= 0;
    for (let k = 0; k < cols.length; k++) {
      if (this.bound[cols[k]] < amounts[k] * this.replicas) return false;
    }
    return true;
  }

  canPlace(): boolean {
    if (!this.mayPlace()) return false;
    if (this.cached === undefined) {
      const [cached, domains] = this.lookup!();
      this.cached = cached;
      this.cachedVersion = cached.version;
      this.index = domains.index;
      const k = domains.sums.length;
      if (this.sums.length < k) this.sums = new Float64Array(k);
      this.sums.set(domains.sums);
      this.domainCount = k;
    }
    const byClass = this.classState !== undefined;
    for (let p = 0; p < this.pending; p++) {
      if (byClass) this.applyByClass(this.pendingHeld[p], this.pendingShapes[p]);
      else this.apply(this.pendingHeld[p], this.pendingShapes[p]);
    }
    this.pending = 0;
    const sums = this.sums;
    for (let k = 0; k < this.domainCount; k++) if (sums[k] >= this.replicas) return true;
    return false;
  }

  /**
   * `apply` with the node classes: the nodes' classes and the domain sum.
   * A node's slots are its class's (the table's), so nodes of one class in
   * a row move together: their classes set at once, the sum changed by
   * their count times the change of one.
   */
  private applyByClass(h: Held, shape: Shape): void {
    const classes = this.classes!;
    const cls = this.classState!.cls;
    const overlay = this.overlay;
    const { id, cols, amounts } = this.shape!;
    const { takeId, takeCols, takeAmounts } = shape;
    const runs = runsHeld(h);
    // The shape's slots per class, read directly; a class first seen in
    // this loop (a move to a new vector) is computed, and the table with it.
    let table = classes.slotTable(id, cols, amounts);
    let sum = 0;
    const stamp = this.stamp;
    const gen = this.gen;
    for (let p = 0; p < runs.length; p += 3) {
      const replicas = runs[p + 2];
      const end = runs[p] + runs[p + 1];
      for (let i = runs[p]; i < end;) {
        // A node's class with the releases so far: the state's until touched.
        const from = stamp[i] === gen ? overlay[i] : cls[i];
        let j = i + 1;
        while (j < end && (stamp[j] === gen ? overlay[j] : cls[j]) === from) j++;
        const to = classes.moved(from, takeId, takeCols, takeAmounts, replicas, +1);
        overlay.fill(to, i, j);
        stamp.fill(gen, i, j);
        let q = to < table.length ? table[to] : NaN;
        if (q !== q) {
          q = classes.slots(id, cols, amounts, to);
          table = classes.slotTable(id, cols, amounts);
        }
        sum += (j - i) * (q - table[from]);
        i = j;
      }
    }
    // The one domain, `global`.
    this.sums[0] += sum;
  }

  /** The node work of a release: the nodes' free units, slots and domain sums. */
  private apply(h: Held, shape: Shape): void {
    const runs = runsHeld(h);
    for (let p = 0; p < runs.length; p += 3) {
      const replicas = runs[p + 2];
      for (let i = runs[p], end = i + runs[p + 1]; i < end; i++) this.applyNode(i, replicas, shape);
    }
  }

  /** `apply`'s work on node `i`, where `replicas` of `shape` are released. */
  private applyNode(i: number, replicas: number, shape: Shape): void {
    const state = this.state!;
    const R = this.resourceCount;
    const free = this.free;
    const { takeCols, takeAmounts } = shape;
    const { cols, amounts } = this.shape!;
    const counted = cols.length > 0;
    const base = i * R;
    if (this.stamp[i] !== this.gen) {
      this.stamp[i] = this.gen;
      for (let r = 0; r < R; r++) free[base + r] = state.free[base + r];
      // The state's own slots (what its cached sums count): the cache's
      // while it still holds them (nothing else is asked during a scan).
      if (counted) {
        const c = this.cached!;
        this.slots[i] = c.version === this.cachedVersion && c.dirtyCount === 0
          ? c.slots[i]
          : nodeSlots(free, base, cols, amounts);
      }
    }
    for (let j = 0; j < takeCols.length; j++) {
      free[base + takeCols[j]] += takeAmounts[j] * replicas;
    }
    if (!counted) return; // a shape with no slots anywhere
    const s = nodeSlots(free, base, cols, amounts);
    const delta = s - this.slots[i];
    if (delta === 0) return;
    this.slots[i] = s;
    this.sums[this.index[i]] += delta;
  }
}
