// Compact packing of a topology cluster (the last step of TopoQueue's
// `placeJob`, see `schedulers/topology_cluster.ts`): where packing of a
// number of replicas into a domain stops, and the nodes it takes — from
// the slot caches' slots per node, or for the global domain from the node
// classes — as a placement that `allocate` recognises as packed in the
// very free units it is given (it then takes it without checking it again).

import type { Placement, ResourceDemand } from "../core/resource_model.ts";
import type { TopologyState } from "./topology_cluster.ts";
import type { Shape, ShapeSlots, SlotCaches } from "./_topology_slots.ts";
import { ClassMembers, type NodeClasses, packMembers } from "./_topology_classes.ts";
import { type Runs, runsOf, RunsPlacement } from "./_topology_runs.ts";

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

/** A topology domain: its name and nodes. */
export interface Domain {
  readonly name: string;
  /** Node indexes, ascending (= name order). */
  readonly nodes: Int32Array;
}

/** A topology cluster's packing, with its buffers and the placements it packed last. */
export class TopologyPacker {
  /** Slots per node for the placement being computed (one of `slotCaches`' arrays). */
  slots: Float64Array;
  /** The nodes with a slot for it, one bit each (`ShapeSlots.positive`). */
  positive: Uint32Array = new Uint32Array(0);
  /** `membersOf`'s buffer. */
  private readonly members: Int32Array;
  /** `pack`'s buffers: the nodes packed and their replicas. */
  private readonly packNodes: Int32Array;
  private readonly packCounts: Float64Array;
  /** Each class's nodes in one state version, for `packByClass`. */
  readonly classMembers: ClassMembers;
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

  constructor(
    private readonly names: readonly string[],
    private readonly classes: NodeClasses,
    private readonly slotCaches: SlotCaches,
  ) {
    const n = names.length;
    this.slots = new Float64Array(n);
    this.members = new Int32Array(n);
    this.packNodes = new Int32Array(n);
    this.packCounts = new Float64Array(n);
    this.classMembers = new ClassMembers(n);
  }

  /** Packing and `packedCount` read `shape`'s slots (up to date in the state packed in). */
  use(shape: ShapeSlots): void {
    this.slots = shape.slots;
    this.positive = shape.positive;
  }

  /** The runs of `placement` when `place` packed it for `d` in free units of `version`. */
  packedRuns(placement: Placement, d: ResourceDemand, version: number): Runs | undefined {
    let packed: Packed | undefined;
    for (let k = 0; k < PACKED && packed === undefined; k++) {
      if (this.packed[k]?.placement === placement) packed = this.packed[k];
    }
    return packed !== undefined && packed.demand === d && packed.version === version
      ? packed.runs
      : undefined;
  }

  /**
   * The runs of `placement` when `place` packed it for `d`, in free units
   * of any version: EASY's extra rule starts a job where it is placed now
   * on a copy of the state at the shadow time (`allocate` checks the runs
   * against that copy's free units).
   */
  packedRunsAnyVersion(placement: Placement, d: ResourceDemand): Runs | undefined {
    for (let k = 0; k < PACKED; k++) {
      const packed = this.packed[k];
      if (packed?.placement === placement) return packed.demand === d ? packed.runs : undefined;
    }
    return undefined;
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
  packedCount(domain: Int32Array, replicas: number): number {
    const { cut, above, left } = this.cutOf(this.membersOf(domain), replicas);
    return above + Math.ceil(left / cut);
  }

  /**
   * Compact packing of `replicas` into `domain`; the allocation by node
   * name. Remembered with the free units it was packed in, so that
   * `allocate` takes it without checking it again.
   */
  pack(
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
  packByClass(
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

/** `a` in an array of `length`. */
function growTo(a: Float64Array, length: number): Float64Array {
  const grown = new Float64Array(length);
  grown.set(a);
  return grown;
}
