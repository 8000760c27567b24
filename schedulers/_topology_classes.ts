// Node classes of a topology cluster: nodes grouped by their vector of free
// units. A busy machine of a few node types has few distinct vectors (its
// jobs come in a few shapes), so the replica slots of all nodes together, for
// any shape, are a sum over the classes — count × the class's slots — instead
// of one per node. A state keeps each node's class and the nodes per class,
// moved as jobs start and end (one class change per node touched, whatever
// the number of shapes), where the per-shape slot caches (`SlotCaches`) mark
// every cached shape's slots of every node touched and recompute them when
// next looked up. With no topology key (one domain, `global`) the cluster
// answers `canPlace`, `roomFor` and `place` from the classes; packing reads
// a node's slots from its class. A machine whose nodes drift into many
// distinct vectors (more than `LIMIT`) turns the classes off for good: the
// slot caches answer everything then, as they do for topology keys.

import type { Runs } from "./_topology_runs.ts";

/** Above this many classes, sums over classes stop paying off. */
const LIMIT = 256;
/** Moves of fewer replicas than this on a node are kept in arrays (`NodeClasses.moved`). */
const FEW = 64;

/** What a state keeps of the classes: each node's, and the nodes per class. */
export interface ClassState {
  /** The class of each node. */
  readonly cls: Int32Array;
  /** Nodes per class (classes past its length have none). */
  readonly classCounts: Float64Array;
}

/** The classes of one cluster (append-only: a class, once given a number, keeps it). */
export class NodeClasses {
  /** False once there are more than `LIMIT` classes: no state's classes are read again. */
  on = true;
  /** Free units of each class, class-major. */
  private vectors: Float64Array;
  private count = 0;
  private readonly byKey = new Map<string, number>();
  /** Per shape number: slots per class (NaN: not yet computed). */
  private readonly slotTables: Float64Array[] = [];
  /** Per take signature number: (class, replicas, sign) → class. */
  private readonly moves: Map<number, number>[] = [];
  /** The same for fewer than `FEW` replicas: at ((class · 2 + (sign > 0)) · FEW + replicas), class + 1 (0: not yet known). */
  private readonly fewMoves: Int32Array[] = [];

  constructor(private readonly resourceCount: number) {
    this.vectors = new Float64Array(16 * Math.max(1, resourceCount));
  }

  /** The class of the vector of free units at `free[base..base + R)`, given a number on first sight. */
  classOf(free: Float64Array, base: number): number {
    const R = this.resourceCount;
    let key = "";
    for (let r = 0; r < R; r++) key += free[base + r] + ",";
    let c = this.byKey.get(key);
    if (c !== undefined) return c;
    c = this.count++;
    if (this.count > LIMIT) this.on = false;
    this.byKey.set(key, c);
    if (this.vectors.length < this.count * R) {
      const grown = new Float64Array(this.vectors.length * 2);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    for (let r = 0; r < R; r++) this.vectors[c * R + r] = free[base + r];
    return c;
  }

  /** Free units of resource column `r` of class `c`. */
  unitOf(c: number, r: number): number {
    return this.vectors[c * this.resourceCount + r];
  }

  /** Writes the free units of the nodes of classes `cls` into `free` (node-major, as the cluster's state). */
  fillFree(cls: Int32Array, free: Float64Array): void {
    const R = this.resourceCount;
    const vectors = this.vectors;
    for (let i = 0, at = 0; i < cls.length; i++) {
      for (let r = 0, from = cls[i] * R; r < R; r++) free[at++] = vectors[from + r];
    }
  }

  /** A state's classes for free units `free` (node-major, as the cluster's state). */
  classesOf(free: Float64Array, nodeCount: number): ClassState {
    const cls = new Int32Array(nodeCount);
    let counts: Float64Array = new Float64Array(Math.max(this.count, 1));
    for (let i = 0; i < nodeCount; i++) {
      const c = this.classOf(free, i * this.resourceCount);
      cls[i] = c;
      if (c >= counts.length) counts = grow(counts, c);
      counts[c]++;
    }
    return { cls, classCounts: counts };
  }

  /**
   * The class a node of class `c` moves to when `replicas` replicas of a
   * shape taking `amounts` of `cols` (take signature number `sig`) start
   * (sign −1) or end (+1) on it: the vector the cluster's `take` makes.
   */
  moved(
    c: number,
    sig: number,
    cols: readonly number[],
    amounts: readonly number[],
    replicas: number,
    sign: number,
  ): number {
    // Few replicas on a node (most moves): looked up in an array.
    const few = replicas >= 0 && replicas < FEW && Number.isInteger(replicas) && c < 0x10000;
    const at = ((c << 1) | (sign > 0 ? 1 : 0)) * FEW + replicas;
    let fewTable = this.fewMoves[sig];
    if (few && fewTable !== undefined && at < fewTable.length) {
      const known = fewTable[at];
      if (known !== 0) return known - 1;
    }
    const next = this.movedBy(c, sig, cols, amounts, replicas, sign);
    if (few) {
      if (fewTable === undefined || at >= fewTable.length) {
        const grown = new Int32Array(Math.max(at + 1, (fewTable?.length ?? 0) * 2, 4 * FEW));
        if (fewTable !== undefined) grown.set(fewTable);
        this.fewMoves[sig] = fewTable = grown;
      }
      fewTable[at] = next + 1;
    }
    return next;
  }

  /** `moved` through the moves' maps. */
  private movedBy(
    c: number,
    sig: number,
    cols: readonly number[],
    amounts: readonly number[],
    replicas: number,
    sign: number,
  ): number {
    const key = (c * 2 + (sign > 0 ? 1 : 0)) * 0x100000 + replicas;
    const small = c < 0x10000 && replicas < 0x100000 && Number.isInteger(replicas);
    let table = this.moves[sig];
    if (table === undefined) this.moves[sig] = table = new Map();
    if (small) {
      const known = table.get(key);
      if (known !== undefined) return known;
    }
    const R = this.resourceCount;
    const v = new Float64Array(R);
    for (let r = 0; r < R; r++) v[r] = this.vectors[c * R + r];
    for (let j = 0; j < cols.length; j++) v[cols[j]] = v[cols[j]] + sign * amounts[j] * replicas;
    const next = this.classOf(v, 0);
    if (small) table.set(key, next);
    return next;
  }

  /** Replica slots of a node of class `c` for shape number `id` needing `amounts` of `cols` (at least one). */
  slots(id: number, cols: readonly number[], amounts: readonly number[], c: number): number {
    let table = this.slotTables[id];
    if (table === undefined || table.length <= c) {
      const grown = new Float64Array(Math.max(16, this.count, c + 1) * 2).fill(NaN);
      if (table !== undefined) grown.set(table);
      this.slotTables[id] = table = grown;
    }
    const known = table[c];
    if (known === known) return known;
    const R = this.resourceCount;
    let s = Infinity;
    for (let k = 0; k < cols.length; k++) {
      const f = this.vectors[c * R + cols[k]];
      const a = amounts[k];
      let q = Math.floor(f / a);
      if (q * a > f) q--; // a quotient rounded up to the next integer
      if (q < s) s = q;
    }
    // An offline node's free units are below zero: no slot, never a negative count.
    if (s < 0) s = 0;
    table[c] = s;
    return s;
  }

  /** Slots per class for shape number `id` (see `slots`), every class computed. */
  slotTable(id: number, cols: readonly number[], amounts: readonly number[]): Float64Array {
    if (this.count > 0) this.slots(id, cols, amounts, this.count - 1);
    const table = this.slotTables[id];
    for (let c = 0; c < this.count; c++) {
      if (table[c] !== table[c]) this.slots(id, cols, amounts, c);
    }
    return table;
  }

  /** Slots of all nodes of `state` together for shape number `id` (needing `amounts` of `cols`, at least one). */
  total(
    state: ClassState,
    id: number,
    cols: readonly number[],
    amounts: readonly number[],
  ): number {
    const counts = state.classCounts;
    // The shape's table read directly (a class not yet computed: NaN).
    if (this.count > 0) this.slots(id, cols, amounts, this.count - 1);
    const table = this.slotTables[id];
    let t = 0;
    for (let c = 0; c < counts.length; c++) {
      const m = counts[c];
      if (m > 0) {
        let q = table[c];
        if (q !== q) q = this.slots(id, cols, amounts, c);
        t += m * q;
      }
    }
    return t;
  }

  /**
   * Moves the nodes of `runs` (`_topology_runs.ts`) of an edited state to
   * their classes after a take (see `moved`); `counts` may be replaced by a
   * longer array: the state's `classCounts` to keep.
   */
  take(
    state: ClassState,
    sig: number,
    cols: readonly number[],
    amounts: readonly number[],
    runs: Runs,
    sign: number,
    members?: ClassMembers,
  ): Float64Array {
    const cls = state.cls;
    let counts = state.classCounts;
    for (let p = 0; p < runs.length; p += 3) {
      const replicas = runs[p + 2];
      const end = runs[p] + runs[p + 1];
      // Nodes of one class in a row move together (most of a run's are alike).
      for (let i = runs[p]; i < end;) {
        const from = cls[i];
        const to = this.moved(from, sig, cols, amounts, replicas, sign);
        let j: number;
        if (members === undefined) {
          j = i;
          while (j < end && cls[j] === from) cls[j++] = to;
        } else {
          // Where the class's nodes from i on end, a word of members at a time.
          j = members.runEnd(from, i, end);
          cls.fill(to, i, j);
        }
        counts[from] -= j - i;
        if (to >= counts.length) counts = grow(counts, to);
        counts[to] += j - i;
        if (members !== undefined) members.move(i, j, from, to);
        i = j;
      }
    }
    return counts;
  }

  /** Moves node `i` of an edited state to the class of its free units now; returns `classCounts` to keep. */
  reclass(state: ClassState, free: Float64Array, i: number): Float64Array {
    let counts = state.classCounts;
    const to = this.classOf(free, i * this.resourceCount);
    counts[state.cls[i]]--;
    state.cls[i] = to;
    if (to >= counts.length) counts = grow(counts, to);
    counts[to]++;
    return counts;
  }
}

/** `counts` lengthened to hold index `c`. */
function grow(counts: Float64Array, c: number): Float64Array {
  const grown = new Float64Array(Math.max(c + 1, counts.length * 2));
  grown.set(counts);
  return grown;
}

/**
 * The nodes of each class, one bit a node (node i: bit i % 32 of word
 * i >> 5), for one version of a cluster's state (`version`): packing visits
 * the words of the classes it takes from instead of every node. Kept up to
 * date by `NodeClasses.take` while it follows that state's changes, and made
 * again from a state's classes when packing asks for another.
 */
export class ClassMembers {
  /** The state version the bits are for (-1: none). */
  version = -1;
  /** Per class, its nodes' bits. */
  readonly bits: Uint32Array[] = [];
  readonly words: number;

  constructor(nodeCount: number) {
    this.words = (nodeCount + 31) >>> 5;
  }

  /** The bits of `cls` (each node's class), for state version `version`. */
  build(cls: Int32Array, version: number): void {
    for (const b of this.bits) b?.fill(0);
    for (let i = 0; i < cls.length; i++) this.of(cls[i])[i >>> 5] |= 1 << (i & 31);
    this.version = version;
  }

  /** Nodes `i` to `j - 1` move from class `from` to class `to`. */
  move(i: number, j: number, from: number, to: number): void {
    const a = this.of(from);
    const b = this.of(to);
    for (let k = i; k < j;) {
      const w = k >>> 5;
      const hi = Math.min(j, (w + 1) << 5);
      const len = hi - k;
      const mask = len === 32 ? -1 : ((1 << len) - 1) << (k & 31);
      a[w] &= ~mask;
      b[w] |= mask;
      k = hi;
    }
  }

  /**
   * The first node from `i` (of class `c`) to `end` that is not of class
   * `c` (`end`: none).
   */
  runEnd(c: number, i: number, end: number): number {
    const bits = this.of(c);
    let w = i >>> 5;
    // The nodes not of class `c` from i on, in i's word.
    let out = ~bits[w] & (-1 << (i & 31));
    const last = (end - 1) >>> 5;
    while (out === 0 && w < last) out = ~bits[++w];
    if (out === 0) return end;
    const j = (w << 5) + 31 - Math.clz32(out & -out);
    return j < end ? j : end;
  }

  /** The bits of class `c` (made empty on first use). */
  of(c: number): Uint32Array {
    let b = this.bits[c];
    if (b === undefined) {
      while (this.bits.length < c) this.bits.push(new Uint32Array(this.words));
      this.bits[c] = b = new Uint32Array(this.words);
    }
    return b;
  }
}

/** A word of class members with all 32 nodes in the class. */
const FULL_WORD = 0xffffffff;

/**
 * Packing by class members (a topology cluster's `packByClass`): over the
 * nodes in index order, visiting only those of the `taken` classes
 * `takenClasses` (`bits`: their words of members), takes every node whose
 * class has more than `cut` slots whole (`above` of them) and `left`
 * replicas, at most `cut` a node, from those with `cut`; returns the nodes
 * taken as runs (first, count, replicas held).
 */
export function packMembers(
  words: number,
  bits: readonly Uint32Array[],
  takenClasses: Int32Array,
  taken: number,
  cls: Int32Array,
  table: Float64Array,
  cut: number,
  above: number,
  left: number,
): number[] {
  // The runs as they come (nodes in index order): the one open is
  // `first`, `count`, `held`.
  const runs: number[] = [];
  let first = -1;
  let count = 0;
  let held = 0;
  for (let w = 0; w < words && (above > 0 || left > 0); w++) {
    let x = 0;
    let whole = -1;
    for (let t = 0; t < taken; t++) {
      const b = bits[t][w];
      if (b === FULL_WORD) whole = t;
      x |= b;
    }
    if (whole >= 0) {
      // 32 nodes of one class: taken all alike when every one would be.
      const q = table[takenClasses[whole]];
      const k = q > cut ? q : left >= 32 * cut ? cut : 0;
      if (k > 0) {
        if (q > cut) above -= 32;
        else left -= 32 * cut;
        const i = w << 5;
        if (i === first + count && k === held) count += 32;
        else {
          if (count > 0) runs.push(first, count, held);
          first = i;
          count = 32;
          held = k;
        }
        continue;
      }
    }
    while (x !== 0 && (above > 0 || left > 0)) {
      const low = x & -x;
      x ^= low;
      const i = (w << 5) + 31 - Math.clz32(low);
      const q = table[cls[i]];
      let k: number;
      if (q > cut) {
        k = q;
        above--;
      } else if (left > 0) {
        k = Math.min(cut, left);
        left -= k;
      } else continue;
      if (i === first + count && k === held) count++;
      else {
        if (count > 0) runs.push(first, count, held);
        first = i;
        count = 1;
        held = k;
      }
    }
  }
  if (count > 0) runs.push(first, count, held);
  return runs;
}
