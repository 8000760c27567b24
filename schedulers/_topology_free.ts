// A topology cluster's free units per node and resource, and their sums
// per resource, as jobs start and end. While the node classes answer
// (`_topology_classes.ts`: every node's free units are its class's vector)
// and every node is online, a start or an end moves the nodes' classes and
// the sums only: the free units per node are left behind, and made from the
// classes when next read (`ClusterState.free`), which a run without
// topology keys, node changes or per-node queries never does. That saves a
// write per node and resource for every start and end, and the copy of
// every node's units per `beginEdit`.

import type { TopologyState } from "./topology_cluster.ts";
import type { NodeClasses } from "./_topology_classes.ts";
import type { Runs } from "./_topology_runs.ts";

/** What a running job holds (`TopologyState.held`). */
type Holding = { readonly nodes: ArrayLike<number>; readonly replicas: ArrayLike<number> };

/** A topology cluster's state (see `TopologyState`), its free units per node made when read. */
export class ClusterState implements TopologyState {
  freeSums: Float64Array;
  held: Map<number, Holding>;
  offline: Set<number> | undefined;
  cls: Int32Array;
  classCounts: Float64Array;
  readonly classOwner: NodeClasses;
  #free: Float64Array | undefined;
  /** Between the cluster's `beginEdit` that made it and `endEdit` (private: still set once frozen). */
  #editing = false;
  /** True: `#free` is behind the classes (`cls`), which say each node's free units. */
  #behind: boolean;

  constructor(
    free: Float64Array | undefined,
    freeSums: Float64Array,
    held: Map<number, Holding>,
    offline: Set<number> | undefined,
    cls: Int32Array,
    classCounts: Float64Array,
    classOwner: NodeClasses,
  ) {
    this.#free = free;
    this.#behind = free === undefined;
    this.freeSums = freeSums;
    this.held = held;
    this.offline = offline;
    this.cls = cls;
    this.classCounts = classCounts;
    this.classOwner = classOwner;
  }

  /** Whether the cluster's `beginEdit` made it and `endEdit` has not ended it. */
  get editing(): boolean {
    return this.#editing;
  }

  /** Marks the state as being edited (`beginEdit`) or no longer (`endEdit`). */
  setEditing(editing: boolean): void {
    this.#editing = editing;
  }

  /** Free units, node-major: `free[node * resources + r]` (made from the classes when behind). */
  get free(): Float64Array {
    if (this.#behind) {
      const R = this.freeSums.length;
      this.#free ??= new Float64Array(this.cls.length * R);
      this.classOwner.fillFree(this.cls, this.#free);
      this.#behind = false;
    }
    return this.#free!;
  }

  /**
   * Node `i`'s free units of resource column `r` (`R` columns), read from
   * its class when the free units are behind (without making them all).
   */
  unit(i: number, r: number, R: number): number {
    return this.#behind ? this.classOwner.unitOf(this.cls[i], r) : this.#free![i * R + r];
  }

  /**
   * Node `i`'s class when the free units are behind its classes (its free
   * units are its class's), else -1 (read them from `free`).
   */
  classOf(i: number): number {
    return this.#behind ? this.cls[i] : -1;
  }

  /** A copy of the free units for a copy of this state (undefined: made from its classes when read). */
  copyFree(): Float64Array | undefined {
    return this.#behind ? undefined : this.#free!.slice();
  }

  /**
   * The classes changed, not the free units: they are made from the
   * classes when next read (the classes must be this state's, kept up to
   * date, until then).
   */
  leaveFree(): void {
    this.#behind = true;
  }
}

/**
 * The sums' part of `takeUnits` on a machine with every node online: a
 * run's change of the sum is its change per node times its nodes
 * (integers: exact).
 */
export function takeSums(
  sums: Float64Array,
  takeCols: readonly number[],
  takeAmounts: readonly number[],
  runs: Runs,
  sign: number,
): void {
  for (let j = 0; j < takeCols.length; j++) {
    const c = takeCols[j];
    const amount = takeAmounts[j];
    let sum = sums[c];
    for (let p = 0; p < runs.length; p += 3) sum += sign * amount * runs[p + 2] * runs[p + 1];
    sums[c] = sum;
  }
}

/**
 * Adds (sign +1) or takes (−1) the units of the replicas of `runs` (each
 * needing `amounts` of columns `cols`) to a state's free units of `R`
 * resources per node, and their sums.
 */
export function takeUnits(
  state: TopologyState,
  R: number,
  takeCols: readonly number[],
  takeAmounts: readonly number[],
  runs: Runs,
  sign: number,
): void {
  const free = state.free;
  const sums = state.freeSums as Float64Array;
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

/** Per resource of `R`, what the nodes have free (an offline node's units below zero count 0). */
export function sumFree(free: Float64Array, R: number): Float64Array {
  const sums = new Float64Array(R);
  for (let j = 0; j < free.length; j++) {
    const f = free[j];
    if (f > 0) sums[j % R] += f;
  }
  return sums;
}
