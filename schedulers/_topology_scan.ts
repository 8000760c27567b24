// The topology cluster's release scan (`ResourceModel.releaseScan`): EASY's
// shadow time without copying the state. Copying it costs every node's free
// units and every running job's holding, and the copy's first lookups
// recompute the slots of every node its releases touched, for every shape
// (a shadow releases a good part of the machine). The scan follows one
// shape only — the head's — and only the nodes the released jobs hold: it
// starts from the state's cached slot sums per domain and, per node a
// release touches, takes that node's free units into its own buffer once
// and keeps the node's slots and its domain's sum up to date. The buffers
// are the cluster's, reused by its next scan.

import { EvtsimError } from "../core/errors.ts";
import type { ReleaseScan, ResourceDemand } from "../core/resource_model.ts";
import type { JobRecord } from "../core/types.ts";
import {
  type DomainSlots,
  nodeSlots,
  type Shape,
  type ShapeSlots,
  type SlotCaches,
} from "./_topology_slots.ts";

/** What the scan reads of a cluster state. */
interface ScannedState {
  readonly free: Float64Array;
  readonly held: ReadonlyMap<
    number,
    { readonly nodes: readonly number[]; readonly replicas: readonly number[] }
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

  constructor(
    private readonly nodeCount: number,
    private readonly resourceCount: number,
    private readonly caches: SlotCaches,
  ) {
    this.stamp = new Int32Array(nodeCount);
    this.free = new Float64Array(nodeCount * resourceCount);
    this.slots = new Float64Array(nodeCount);
  }

  /**
   * A new scan of `state` for `d`, from its shape's slots there (`cached`,
   * up to date) and their sums per domain (`domains`).
   */
  begin(state: ScannedState, d: ResourceDemand, cached: ShapeSlots, domains: DomainSlots): this {
    if (++this.gen === 0x7fffffff) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    this.state = state;
    this.shape = this.caches.shapeOf(d);
    this.replicas = d.replicas;
    this.cached = cached;
    this.cachedVersion = cached.version;
    this.index = domains.index;
    const k = domains.sums.length;
    if (this.sums.length < k) this.sums = new Float64Array(k);
    this.sums.set(domains.sums);
    this.domainCount = k;
    return this;
  }

  release(job: JobRecord): void {
    const state = this.state!;
    const h = state.held.get(job.id);
    if (h === undefined || job.demand === undefined) {
      throw new EvtsimError("state", `topology cluster: job ${job.id} holds no resources`);
    }
    const R = this.resourceCount;
    const free = this.free;
    const { takeCols, takeAmounts } = this.caches.shapeOf(job.demand);
    const { cols, amounts } = this.shape!;
    const counted = cols.length > 0;
    const nodes = h.nodes;
    const replicas = h.replicas;
    for (let k = 0; k < nodes.length; k++) {
      const i = nodes[k];
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
        free[base + takeCols[j]] += takeAmounts[j] * replicas[k];
      }
      if (!counted) continue; // a shape with no slots anywhere
      const s = nodeSlots(free, base, cols, amounts);
      const delta = s - this.slots[i];
      if (delta === 0) continue;
      this.slots[i] = s;
      this.sums[this.index[i]] += delta;
    }
  }

  canPlace(): boolean {
    const sums = this.sums;
    for (let k = 0; k < this.domainCount; k++) if (sums[k] >= this.replicas) return true;
    return false;
  }
}
