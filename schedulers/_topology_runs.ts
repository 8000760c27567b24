// What a running job of a topology cluster holds, as runs: consecutive node
// indexes with the same replicas on each, kept as (first node, node count,
// replicas) triples. Packing takes nodes in index order, most of them whole
// and alike, so a job's nodes are a run or two (a generated 100k-job trace
// on 1,024 nodes: 155 nodes a job in 1.5 runs): a run is kept in three
// numbers instead of two numbers a node, for as long as the job runs, and
// the work of a start or an end goes run by run.

/** Runs: `[first, count, replicas, first, count, replicas, …]`, in the order given. */
export type Runs = readonly number[];

/** The runs of the first `m` nodes and replicas of `nodes` and `replicas` (in their order). */
export function runsOf(
  nodes: ArrayLike<number>,
  replicas: ArrayLike<number>,
  m: number = nodes.length,
): number[] {
  const out: number[] = [];
  for (let k = 0; k < m;) {
    const first = nodes[k];
    const r = replicas[k];
    let count = 1;
    while (k + count < m && nodes[k + count] === first + count && replicas[k + count] === r) {
      count++;
    }
    out.push(first, count, r);
    k += count;
  }
  return out;
}

/** The nodes of `runs`, one per entry. */
export function nodeCount(runs: Runs): number {
  let n = 0;
  for (let p = 1; p < runs.length; p += 3) n += runs[p];
  return n;
}

/**
 * What a running job holds: its runs, and (listed when read, as the
 * cluster's state type shows them) its node indexes and replicas on each.
 */
export class Held {
  constructor(readonly runs: Runs) {}

  /** Node indexes, one per node held. */
  get nodes(): number[] {
    const out: number[] = [];
    const runs = this.runs;
    for (let p = 0; p < runs.length; p += 3) {
      for (let i = runs[p], end = i + runs[p + 1]; i < end; i++) out.push(i);
    }
    return out;
  }

  /** Replicas on each of `nodes`. */
  get replicas(): number[] {
    const out: number[] = [];
    const runs = this.runs;
    for (let p = 0; p < runs.length; p += 3) {
      for (let k = 0; k < runs[p + 1]; k++) out.push(runs[p + 2]);
    }
    return out;
  }
}

/** The runs of what a running job holds (a `Held`'s own; else made from its lists). */
export function runsHeld(
  h: { readonly nodes: ArrayLike<number>; readonly replicas: ArrayLike<number> },
): Runs {
  return h instanceof Held ? h.runs : runsOf(h.nodes, h.replicas);
}

/**
 * A placement packed as runs: its allocation's list (a frozen share per
 * node) is made when first read. A class, with the getter on its prototype:
 * an object literal with its own getter costs ~0.6 µs to make (a closure
 * and an accessor per placement), this ~0.06 µs, and a run without
 * decision rows starts most jobs without anyone reading the list.
 */
export class RunsPlacement {
  readonly domain: string;
  readonly #runs: Runs;
  readonly #names: readonly string[];
  #allocation: readonly { readonly nodeName: string; readonly replicas: number }[] | undefined;

  constructor(domain: string, runs: Runs, names: readonly string[]) {
    this.domain = domain;
    this.#runs = runs;
    this.#names = names;
    // Frozen as placements are; the private list is still set when read.
    Object.freeze(this);
  }

  /** Replicas per node, by node name (in index order). */
  get allocation(): readonly { readonly nodeName: string; readonly replicas: number }[] {
    if (this.#allocation === undefined) {
      const runs = this.#runs;
      const names = this.#names;
      const shares: { readonly nodeName: string; readonly replicas: number }[] = [];
      for (let p = 0; p < runs.length; p += 3) {
        for (let i = runs[p], end = i + runs[p + 1]; i < end; i++) {
          shares.push(Object.freeze({ nodeName: names[i], replicas: runs[p + 2] }));
        }
      }
      this.#allocation = Object.freeze(shares);
    }
    return this.#allocation;
  }
}
