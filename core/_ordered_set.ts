// A persistent (path-copying) weight-balanced binary search tree.
//
// The engine needs ordered collections it can update in O(log n) without ever
// mutating a value another state still refers to: the wait queue, the running
// jobs ordered by projected end, the resource-event queue and the future
// arrivals. immutable.js has no sorted map, and a sorted List costs O(n) per
// insert, so this small tree serves all four. Each node also keeps the subtree
// minimum of two numeric projections (e.g. node count and time limit) so that
// "first waiting job that fits the free nodes and ends before the shadow time"
// is answered without walking jobs that cannot start.

/**
 * How elements are ordered and which two numbers are summarised per subtree.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type JobRecord, type OrderSpec, step } from "../mod.ts";
 * const job = (numNodes: number) => ({ submitTime: 30, numNodes, timeLimit: 5 });
 * const s = step(initialState({ totalNodes: 8 }), appendJobs([job(4), job(1)])).state;
 * // Future arrivals: ordered by submit time, then id; p2 (node count) is summarised.
 * const spec: OrderSpec<JobRecord> = s.arrivals.spec;
 * const [a, b] = s.arrivals.toArray();
 * if (spec.compare(a, b) >= 0 || spec.p2(b) !== 1 || s.arrivals.min2 !== 1) throw new Error("spec");
 * ```
 */
export interface OrderSpec<T> {
  /** Total order; 0 means "the same element". */
  readonly compare: (a: T, b: T) => number;
  /** First summarised projection (subtree minimum kept). */
  readonly p1: (x: T) => number;
  /** Second summarised projection (subtree minimum kept). */
  readonly p2: (x: T) => number;
}

/**
 * A tree node. Never mutated after construction.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type JobRecord, step, type TreeNode } from "../mod.ts";
 * const job = (submitTime: number, numNodes: number) => ({ submitTime, numNodes, timeLimit: 10 });
 * const s = step(initialState({ totalNodes: 8 }), appendJobs([job(10, 4), job(20, 2), job(30, 6)])).state;
 * const root: TreeNode<JobRecord> | null = s.arrivals.root;
 * // Three arrivals, balanced around job 1; each node keeps its subtree's size and minima.
 * if (root?.v.id !== 1 || root.l?.v.id !== 0 || root.r?.v.id !== 2) throw new Error("shape");
 * if (root.s !== 3 || root.m1 !== 10 || root.m2 !== 2) throw new Error("summaries");
 * ```
 */
export interface TreeNode<T> {
  /** The element. */
  readonly v: T;
  /** Left subtree (smaller elements). */
  readonly l: TreeNode<T> | null;
  /** Right subtree (larger elements). */
  readonly r: TreeNode<T> | null;
  /** Number of elements in this subtree. */
  readonly s: number;
  /** Minimum of `p1` over this subtree. */
  readonly m1: number;
  /** Minimum of `p2` over this subtree. */
  readonly m2: number;
}

const DELTA = 3;
const RATIO = 2;

function size<T>(n: TreeNode<T> | null): number {
  return n === null ? 0 : n.s;
}

function mk<T>(
  spec: OrderSpec<T>,
  v: T,
  l: TreeNode<T> | null,
  r: TreeNode<T> | null,
): TreeNode<T> {
  let m1 = spec.p1(v);
  let m2 = spec.p2(v);
  let s = 1;
  if (l !== null) {
    s += l.s;
    if (l.m1 < m1) m1 = l.m1;
    if (l.m2 < m2) m2 = l.m2;
  }
  if (r !== null) {
    s += r.s;
    if (r.m1 < m1) m1 = r.m1;
    if (r.m2 < m2) m2 = r.m2;
  }
  return new Node(v, l, r, s, m1, m2);
}

// Nodes are class instances, not object literals: V8 decides per object
// literal ("allocation site") whether to allocate straight in the old
// generation, and a burst of long-lived nodes (a batch of arrivals built or
// linked in one go) made it do so for every later short-lived path copy too,
// so 1M equal-time arrivals peaked at 2 GB RSS. Constructor calls carry no
// such feedback.
class Node<T> implements TreeNode<T> {
  constructor(
    readonly v: T,
    readonly l: TreeNode<T> | null,
    readonly r: TreeNode<T> | null,
    readonly s: number,
    readonly m1: number,
    readonly m2: number,
  ) {}
}

function balance<T>(
  spec: OrderSpec<T>,
  v: T,
  l: TreeNode<T> | null,
  r: TreeNode<T> | null,
): TreeNode<T> {
  const sl = size(l);
  const sr = size(r);
  if (sl + sr <= 1) return mk(spec, v, l, r);
  if (sr > DELTA * sl) {
    const rr = r!;
    if (size(rr.l) < RATIO * size(rr.r)) {
      return mk(spec, rr.v, mk(spec, v, l, rr.l), rr.r);
    }
    const rl = rr.l!;
    return mk(spec, rl.v, mk(spec, v, l, rl.l), mk(spec, rr.v, rl.r, rr.r));
  }
  if (sl > DELTA * sr) {
    const ll = l!;
    if (size(ll.r) < RATIO * size(ll.l)) {
      return mk(spec, ll.v, ll.l, mk(spec, v, ll.r, r));
    }
    const lr = ll.r!;
    return mk(spec, lr.v, mk(spec, ll.v, ll.l, lr.l), mk(spec, v, lr.r, r));
  }
  return mk(spec, v, l, r);
}

function insertNode<T>(spec: OrderSpec<T>, n: TreeNode<T> | null, x: T): TreeNode<T> {
  if (n === null) return mk(spec, x, null, null);
  const c = spec.compare(x, n.v);
  if (c < 0) return balance(spec, n.v, insertNode(spec, n.l, x), n.r);
  if (c > 0) return balance(spec, n.v, n.l, insertNode(spec, n.r, x));
  return mk(spec, x, n.l, n.r);
}

function minNode<T>(n: TreeNode<T>): TreeNode<T> {
  let cur = n;
  while (cur.l !== null) cur = cur.l;
  return cur;
}

function removeMin<T>(spec: OrderSpec<T>, n: TreeNode<T>): TreeNode<T> | null {
  if (n.l === null) return n.r;
  return balance(spec, n.v, removeMin(spec, n.l), n.r);
}

function glue<T>(spec: OrderSpec<T>, l: TreeNode<T> | null, r: TreeNode<T> | null) {
  if (l === null) return r;
  if (r === null) return l;
  const m = minNode(r);
  return balance(spec, m.v, l, removeMin(spec, r));
}

function removeNode<T>(spec: OrderSpec<T>, n: TreeNode<T> | null, x: T): TreeNode<T> | null {
  if (n === null) return null;
  const c = spec.compare(x, n.v);
  if (c < 0) {
    const l = removeNode(spec, n.l, x);
    return l === n.l ? n : balance(spec, n.v, l, n.r);
  }
  if (c > 0) {
    const r = removeNode(spec, n.r, x);
    return r === n.r ? n : balance(spec, n.v, n.l, r);
  }
  return glue(spec, n.l, n.r);
}

// Joins l < x < r into one balanced tree (Adams' `link`).
function link<T>(
  spec: OrderSpec<T>,
  l: TreeNode<T> | null,
  x: T,
  r: TreeNode<T> | null,
): TreeNode<T> {
  if (l === null) return insertMin(spec, r, x);
  if (r === null) return insertMax(spec, l, x);
  if (DELTA * l.s < r.s) return balance(spec, r.v, link(spec, l, x, r.l), r.r);
  if (DELTA * r.s < l.s) return balance(spec, l.v, l.l, link(spec, l.r, x, r));
  return mk(spec, x, l, r);
}

function insertMin<T>(spec: OrderSpec<T>, n: TreeNode<T> | null, x: T): TreeNode<T> {
  if (n === null) return mk(spec, x, null, null);
  return balance(spec, n.v, insertMin(spec, n.l, x), n.r);
}

function insertMax<T>(spec: OrderSpec<T>, n: TreeNode<T> | null, x: T): TreeNode<T> {
  if (n === null) return mk(spec, x, null, null);
  return balance(spec, n.v, n.l, insertMax(spec, n.r, x));
}

// A perfectly balanced tree over xs[lo, hi), already in order.
function buildSorted<T>(
  spec: OrderSpec<T>,
  xs: readonly T[],
  lo: number,
  hi: number,
): TreeNode<T> | null {
  if (lo >= hi) return null;
  const mid = (lo + hi) >>> 1;
  return mk(spec, xs[mid], buildSorted(spec, xs, lo, mid), buildSorted(spec, xs, mid + 1, hi));
}

function maxNode<T>(n: TreeNode<T>): TreeNode<T> {
  let cur = n;
  while (cur.r !== null) cur = cur.r;
  return cur;
}

/**
 * A persistent ordered set. Every update returns a new set and leaves the
 * receiver valid and unchanged; unchanged subtrees are shared.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type JobRecord, type OrderedSet, step } from "../mod.ts";
 * const job = (submitTime: number, numNodes: number) => ({ submitTime, numNodes, timeLimit: 10 });
 * const s = step(initialState({ totalNodes: 8 }), appendJobs([job(10, 4), job(20, 2), job(30, 6)])).state;
 * const arrivals: OrderedSet<JobRecord> = s.arrivals;
 * const rest = arrivals.deleteFirst();
 * // An update returns a new set; the state's set is unchanged.
 * if (rest.first()?.id !== 1 || arrivals.first()?.id !== 0 || arrivals.size !== 3) throw new Error("persistent");
 * // `findFirst` skips subtrees whose minimum node count (p2 here) is too large.
 * const small = arrivals.findFirst(undefined, (_m1, minNodes) => minNodes <= 2, (j) => j.numNodes <= 2);
 * if (small?.id !== 1) throw new Error("job 1 is the first arrival needing <= 2 nodes");
 * ```
 */
export class OrderedSet<T> {
  private constructor(readonly spec: OrderSpec<T>, readonly root: TreeNode<T> | null) {}

  /** An empty set ordered by `spec`. */
  static empty<T>(spec: OrderSpec<T>): OrderedSet<T> {
    return new OrderedSet(spec, null);
  }

  /** Builds a set from elements in any order. */
  static from<T>(spec: OrderSpec<T>, xs: Iterable<T>): OrderedSet<T> {
    let root: TreeNode<T> | null = null;
    for (const x of xs) root = insertNode(spec, root, x);
    return new OrderedSet(spec, root);
  }

  /** Number of elements. */
  get size(): number {
    return size(this.root);
  }

  /** Minimum of `p1` over all elements (Infinity when empty). */
  get min1(): number {
    return this.root === null ? Infinity : this.root.m1;
  }

  /** Minimum of `p2` over all elements (Infinity when empty). */
  get min2(): number {
    return this.root === null ? Infinity : this.root.m2;
  }

  /** Adds `x`, replacing an element that compares equal. */
  add(x: T): OrderedSet<T> {
    return new OrderedSet(this.spec, insertNode(this.spec, this.root, x));
  }

  /**
   * Adds `xs`. When they are strictly increasing and all after the current
   * last element (a batch of arrivals usually is), the batch is built as one
   * balanced tree in O(k) and linked on in O(log n); otherwise one by one.
   */
  addAll(xs: readonly T[]): OrderedSet<T> {
    if (xs.length === 0) return this;
    const cmp = this.spec.compare;
    let ordered = this.root === null || cmp(maxNode(this.root).v, xs[0]) < 0;
    for (let i = 1; ordered && i < xs.length; i++) ordered = cmp(xs[i - 1], xs[i]) < 0;
    if (!ordered) {
      let root = this.root;
      for (const x of xs) root = insertNode(this.spec, root, x);
      return new OrderedSet(this.spec, root);
    }
    const batch = buildSorted(this.spec, xs, 0, xs.length)!;
    if (this.root === null) return new OrderedSet(this.spec, batch);
    // link(l, x, r) needs a middle element: take the batch's first.
    const rest = removeMin(this.spec, batch);
    return new OrderedSet(this.spec, link(this.spec, this.root, minNode(batch).v, rest));
  }

  /** Removes the element comparing equal to `x`, if present. */
  delete(x: T): OrderedSet<T> {
    const root = removeNode(this.spec, this.root, x);
    return root === this.root ? this : new OrderedSet(this.spec, root);
  }

  /** The smallest element, or undefined. */
  first(): T | undefined {
    return this.root === null ? undefined : minNode(this.root).v;
  }

  /** Removes the smallest element (no-op when empty). */
  deleteFirst(): OrderedSet<T> {
    return this.root === null ? this : new OrderedSet(this.spec, removeMin(this.spec, this.root));
  }

  /** Whether an element comparing equal to `x` is present. */
  has(x: T): boolean {
    let n = this.root;
    while (n !== null) {
      const c = this.spec.compare(x, n.v);
      if (c === 0) return true;
      n = c < 0 ? n.l : n.r;
    }
    return false;
  }

  /**
   * The first element (in order) strictly after `after` (or from the start
   * when `after` is undefined) and strictly before `before` (when given)
   * that `accept` takes. `mayContain(m1, m2)` is asked about each subtree's
   * minima and must return true whenever the subtree could hold an accepted
   * element; false prunes it.
   */
  findFirst(
    after: T | undefined,
    mayContain: (m1: number, m2: number) => boolean,
    accept: (x: T) => boolean,
    before?: T,
  ): T | undefined {
    const cmp = this.spec.compare;
    const hasBefore = before !== undefined;
    // `lowOpen`: the subtree may hold elements <= after, so compare with it.
    const go = (n: TreeNode<T> | null, lowOpen: boolean, highOpen: boolean): T | undefined => {
      if (n === null || !mayContain(n.m1, n.m2)) return undefined;
      if (lowOpen && cmp(n.v, after as T) <= 0) return go(n.r, true, highOpen);
      if (highOpen && cmp(n.v, before as T) >= 0) return go(n.l, lowOpen, true);
      const fromLeft = go(n.l, lowOpen, false);
      if (fromLeft !== undefined) return fromLeft;
      if (accept(n.v)) return n.v;
      return go(n.r, false, highOpen);
    };
    return go(this.root, after !== undefined, hasBefore);
  }

  /** Minimum of `p1` over elements strictly before `x` (Infinity if none). */
  min1Before(x: T): number {
    const cmp = this.spec.compare;
    let best = Infinity;
    let n = this.root;
    while (n !== null) {
      if (cmp(n.v, x) < 0) {
        if (n.l !== null && n.l.m1 < best) best = n.l.m1;
        const own = this.spec.p1(n.v);
        if (own < best) best = own;
        n = n.r;
      } else {
        n = n.l;
      }
    }
    return best;
  }

  /** In-order iteration starting at the first element `>= from` (or the start). */
  *values(from?: T): IterableIterator<T> {
    const stack: TreeNode<T>[] = [];
    let n = this.root;
    const cmp = this.spec.compare;
    while (n !== null) {
      if (from === undefined || cmp(n.v, from) >= 0) {
        stack.push(n);
        n = n.l;
      } else {
        n = n.r;
      }
    }
    while (stack.length > 0) {
      const top = stack.pop()!;
      yield top.v;
      let r = top.r;
      while (r !== null) {
        stack.push(r);
        r = r.l;
      }
    }
  }

  /** All elements in order. */
  toArray(): T[] {
    const out: T[] = [];
    const walk = (n: TreeNode<T> | null) => {
      if (n === null) return;
      walk(n.l);
      out.push(n.v);
      walk(n.r);
    };
    walk(this.root);
    return out;
  }
}
