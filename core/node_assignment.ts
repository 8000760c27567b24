// Which nodes a whole-node job ran on. The engine's node pool is a count
// (`allocatedNodes` of `totalNodes`): it never needs to know which nodes a
// job holds, and a run pays nothing for node names. An output that names
// nodes (the schedule's `nodes` column, the REPL's `info node`) asks this
// tracker afterwards: it replays the jobs' starts and ends in the engine's
// order (time, ends before starts, then job id; a job of no length first)
// and gives each start the lowest free node indexes (first fit), so the
// same rows always give the same nodes and no node is ever given to two
// jobs at once.

/**
 * A whole-node job's time on the machine, as its row gives it.
 *
 * @example
 * ```ts
 * import { assignWholeNodes, type NodeInterval } from "./node_assignment.ts";
 * // A job still running has no end yet: Infinity.
 * const running: NodeInterval = { jobId: 7, beginTime: 100, endTime: Infinity, numNodes: 2 };
 * const done: NodeInterval = { jobId: 3, beginTime: 0, endTime: 100, numNodes: 2 };
 * const later: NodeInterval = { jobId: 8, beginTime: 500, endTime: 600, numNodes: 2 };
 * const nodes = assignWholeNodes([done, running, later], 4);
 * // Job 7 takes job 3's nodes when it ends; job 8, while job 7 still runs, the other two.
 * console.assert([...nodes.get(7)!].join() === "0,1" && [...nodes.get(8)!].join() === "2,3");
 * ```
 */
export interface NodeInterval {
  /** The job's id (orders starts at one time). */
  readonly jobId: number;
  /** When it started. */
  readonly beginTime: number;
  /** When it ended (Infinity while it runs). */
  readonly endTime: number;
  /** Whole nodes it held. */
  readonly numNodes: number;
}

/**
 * Node indexes (0-based, ascending) per job id: at each start the lowest
 * free indexes, after the ends at that time. Jobs with no nodes, or that
 * never began (`beginTime < 0`), get none. More nodes in use at once than
 * `totalNodes` (only a replayed schedule over-allocates) get indexes from
 * `totalNodes` up, so every job still gets nodes of its own.
 *
 * @example
 * ```ts
 * import { assignWholeNodes } from "./node_assignment.ts";
 * const nodes = assignWholeNodes([
 *   { jobId: 0, beginTime: 0, endTime: 10, numNodes: 2 },
 *   { jobId: 1, beginTime: 0, endTime: 5, numNodes: 1 },
 *   { jobId: 2, beginTime: 5, endTime: 9, numNodes: 2 },
 * ], 4);
 * // Job 2 starts when job 1 ends: node 2 (job 1's) and node 3.
 * console.assert([...nodes.get(2)!].join() === "2,3");
 * ```
 */
export function assignWholeNodes(
  jobs: readonly NodeInterval[],
  totalNodes: number,
): Map<number, Int32Array> {
  const starts = jobs.filter((j) => j.numNodes > 0 && j.beginTime >= 0 && j.endTime >= j.beginTime);
  // At one time, jobs of no length first: the engine ends one before its next
  // start at that time, so it may have run on nodes the others take later.
  starts.sort((a, b) =>
    a.beginTime - b.beginTime ||
    Number(a.endTime !== a.beginTime) - Number(b.endTime !== b.beginTime) ||
    a.jobId - b.jobId
  );
  // Ends waiting to happen, by time then id: a heap of positions in `starts`.
  const ends = new MinHeap<NodeInterval>((a, b) => a.endTime - b.endTime || a.jobId - b.jobId);
  const free = new FreeNodes(totalNodes);
  let next = totalNodes;
  const out = new Map<number, Int32Array>();
  const release = (j: NodeInterval): void => free.give(out.get(j.jobId)!);
  for (const j of starts) {
    while (ends.size > 0 && ends.peek()!.endTime <= j.beginTime) release(ends.pop()!);
    const nodes = new Int32Array(j.numNodes);
    // More nodes in use than the machine has (a replayed over-allocation):
    // the free ones, then new indexes past the machine.
    for (let k = free.take(j.numNodes, nodes); k < j.numNodes; k++) nodes[k] = next++;
    out.set(j.jobId, nodes);
    // A job of no length holds its nodes for no time: they are free again at once.
    if (j.endTime === j.beginTime) release(j);
    else ends.push(j);
  }
  return out;
}

/**
 * The name of node `index` (0-based) of a whole-node machine of `totalNodes`:
 * `n` and its number from 1, zero-padded to at least three digits (the
 * machine's largest number sets the width), as Slurm sites name nodes.
 *
 * @example
 * ```ts
 * import { wholeNodeName } from "./node_assignment.ts";
 * console.assert(wholeNodeName(0, 128) === "n001" && wholeNodeName(9999, 10000) === "n10000");
 * ```
 */
export function wholeNodeName(index: number, totalNodes: number): string {
  return "n" + String(index + 1).padStart(wholeNodeWidth(totalNodes), "0");
}

/**
 * The digits of a whole-node machine's node numbers: at least three, or
 * as many as `totalNodes` has.
 *
 * @example
 * ```ts
 * import { wholeNodeWidth } from "./node_assignment.ts";
 * console.assert(wholeNodeWidth(128) === 3 && wholeNodeWidth(10000) === 5);
 * ```
 */
export function wholeNodeWidth(totalNodes: number): number {
  return Math.max(3, String(totalNodes).length);
}

/**
 * The index of a whole-node name (`n001` → 0), or undefined when `name` is
 * not one (`n` followed by a positive number).
 *
 * @example
 * ```ts
 * import { wholeNodeIndex } from "./node_assignment.ts";
 * console.assert(wholeNodeIndex("n005") === 4 && wholeNodeIndex("gpu1") === undefined);
 * ```
 */
export function wholeNodeIndex(name: string): number | undefined {
  const m = /^n(\d{1,15})$/.exec(name);
  if (m === null || Number(m[1]) < 1) return undefined;
  return Number(m[1]) - 1;
}

/**
 * The free node indexes as a bitset (bit set = free): a start takes the
 * lowest set bits, word by word, from the lowest word that has one, so a
 * job of k nodes costs k bit operations plus the full words skipped.
 */
class FreeNodes {
  private words: Int32Array;
  /** No word below this one has a free node. */
  private lowest = 0;
  constructor(n: number) {
    this.words = new Int32Array(Math.max(1, Math.ceil(n / 32)));
    for (let i = 0; i < n; i++) this.words[i >> 5] |= 1 << (i & 31);
  }
  /** Writes the `k` lowest free indexes into `out` (ascending); returns how many were free. */
  take(k: number, out: Int32Array): number {
    const w = this.words;
    let got = 0;
    let i = this.lowest;
    while (got < k && i < w.length) {
      let bits = w[i];
      while (bits !== 0 && got < k) {
        const low = bits & -bits;
        out[got++] = (i << 5) + 31 - Math.clz32(low);
        bits ^= low;
      }
      w[i] = bits;
      if (bits === 0) i++;
    }
    this.lowest = i;
    return got;
  }
  /** Frees the indexes in `nodes` (growing the set for an index past its end). */
  give(nodes: Int32Array): void {
    for (let j = 0; j < nodes.length; j++) {
      const n = nodes[j];
      const word = n >> 5;
      if (word >= this.words.length) {
        const bigger = new Int32Array(Math.max(word + 1, this.words.length * 2));
        bigger.set(this.words);
        this.words = bigger;
      }
      this.words[word] |= 1 << (n & 31);
      if (word < this.lowest) this.lowest = word;
    }
  }
}

/** A binary min-heap (for the tracker's pending ends). */
class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => number) {}
  get size(): number {
    return this.items.length;
  }
  peek(): T | undefined {
    return this.items[0];
  }
  push(x: T): void {
    const a = this.items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.less(a[i], a[p]) >= 0) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m]) < 0) m = l;
        if (r < a.length && this.less(a[r], a[m]) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}
