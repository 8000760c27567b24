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
 * import { appendJobs, initialState, type JobRecord, step } from "@evtsim/evtsim";
 * import type { OrderSpec } from "./_ordered_set.ts";
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
 * An edit token. Nodes created under a token may be changed in place while
 * that token edits the tree (within one step); a tree that no earlier state
 * can see is thus updated without copying. Each step uses a fresh token, so
 * nodes a frozen state holds are copied before any change.
 */
export type Owner = object;

/**
 * A tree node. Changed only by the edit token that created it (`o`), during
 * the step that created it; otherwise never.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, type JobRecord, step } from "@evtsim/evtsim";
 * import type { TreeNode } from "./_ordered_set.ts";
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
  v: T;
  /** Left subtree (smaller elements). */
  l: TreeNode<T> | null;
  /** Right subtree (larger elements). */
  r: TreeNode<T> | null;
  /** Number of elements in this subtree. */
  s: number;
  /** Minimum of `p1` over this subtree. */
  m1: number;
  /** Minimum of `p2` over this subtree. */
  m2: number;
  /** `p1` of this node's element. */
  a: number;
  /** `p2` of this node's element. */
  b: number;
  /** The edit token that may still change this node, or null. */
  o: Owner | null;
}

const DELTA = 3;
const RATIO = 2;

function size<T>(n: TreeNode<T> | null): number {
  return n === null ? 0 : n.s;
}

// A node (v, l, r): `reuse` itself, changed in place, when the token `o`
// owns it; else a new node owned by `o`.
function mk<T>(
  spec: OrderSpec<T>,
  v: T,
  l: TreeNode<T> | null,
  r: TreeNode<T> | null,
  o: Owner | null,
  reuse: TreeNode<T> | null = null,
): TreeNode<T> {
  // A rebuilt node usually keeps its element: its projections are cached.
  const a = reuse !== null && reuse.v === v ? reuse.a : spec.p1(v);
  const b = reuse !== null && reuse.v === v ? reuse.b : spec.p2(v);
  let m1 = a;
  let m2 = b;
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
  if (reuse !== null && o !== null && reuse.o === o) {
    reuse.v = v;
    reuse.l = l;
    reuse.r = r;
    reuse.s = s;
    reuse.m1 = m1;
    reuse.m2 = m2;
    reuse.a = a;
    reuse.b = b;
    return reuse;
  }
  return new Node(v, l, r, s, m1, m2, a, b, o);
}

// Nodes are class instances, not object literals: V8 decides per object
// literal ("allocation site") whether to allocate straight in the old
// generation, and a burst of long-lived nodes (a batch of arrivals built or
// linked in one go) made it do so for every later short-lived node too, so
// 1M equal-time arrivals peaked at 2 GB RSS. Constructor calls carry no such
// feedback.
class Node<T> implements TreeNode<T> {
  constructor(
    public v: T,
    public l: TreeNode<T> | null,
    public r: TreeNode<T> | null,
    public s: number,
    public m1: number,
    public m2: number,
    public a: number,
    public b: number,
    public o: Owner | null,
  ) {}
}

// Rebuilds node `n` as (v, l, r), rebalancing; `n` (and a rotated child) are
// reused in place when `o` owns them.
function balance<T>(
  spec: OrderSpec<T>,
  n: TreeNode<T> | null,
  v: T,
  l: TreeNode<T> | null,
  r: TreeNode<T> | null,
  o: Owner | null,
): TreeNode<T> {
  const sl = size(l);
  const sr = size(r);
  if (sl + sr <= 1) return mk(spec, v, l, r, o, n);
  if (sr > DELTA * sl) {
    const rr = r!;
    const rrl = rr.l;
    const rrr = rr.r;
    if (size(rrl) < RATIO * size(rrr)) {
      const inner = mk(spec, v, l, rrl, o, n);
      return mk(spec, rr.v, inner, rrr, o, rr);
    }
    const rl = rrl!;
    const rlv = rl.v;
    const rll = rl.l;
    const rlr = rl.r;
    const left = mk(spec, v, l, rll, o, n);
    const right = mk(spec, rr.v, rlr, rrr, o, rr);
    return mk(spec, rlv, left, right, o, rl);
  }
  if (sl > DELTA * sr) {
    const ll = l!;
    const lll = ll.l;
    const llr = ll.r;
    if (size(llr) < RATIO * size(lll)) {
      const inner = mk(spec, v, llr, r, o, n);
      return mk(spec, ll.v, lll, inner, o, ll);
    }
    const lr = llr!;
    const lrv = lr.v;
    const lrl = lr.l;
    const lrr = lr.r;
    const left = mk(spec, ll.v, lll, lrl, o, ll);
    const right = mk(spec, v, lrr, r, o, n);
    return mk(spec, lrv, left, right, o, lr);
  }
  return mk(spec, v, l, r, o, n);
}

function insertNode<T>(
  spec: OrderSpec<T>,
  n: TreeNode<T> | null,
  x: T,
  o: Owner | null,
): TreeNode<T> {
  if (n === null) return mk(spec, x, null, null, o);
  const c = spec.compare(x, n.v);
  if (c < 0) return balance(spec, n, n.v, insertNode(spec, n.l, x, o), n.r, o);
  if (c > 0) return balance(spec, n, n.v, n.l, insertNode(spec, n.r, x, o), o);
  return mk(spec, x, n.l, n.r, o, n);
}

function minNode<T>(n: TreeNode<T>): TreeNode<T> {
  let cur = n;
  while (cur.l !== null) cur = cur.l;
  return cur;
}

function removeMin<T>(spec: OrderSpec<T>, n: TreeNode<T>, o: Owner | null): TreeNode<T> | null {
  if (n.l === null) return n.r;
  return balance(spec, n, n.v, removeMin(spec, n.l, o), n.r, o);
}

function glue<T>(
  spec: OrderSpec<T>,
  n: TreeNode<T>,
  l: TreeNode<T> | null,
  r: TreeNode<T> | null,
  o: Owner | null,
) {
  if (l === null) return r;
  if (r === null) return l;
  const m = minNode(r).v;
  return balance(spec, n, m, l, removeMin(spec, r, o), o);
}

function removeNode<T>(
  spec: OrderSpec<T>,
  n: TreeNode<T> | null,
  x: T,
  o: Owner | null,
): TreeNode<T> | null {
  if (n === null) return null;
  const c = spec.compare(x, n.v);
  // A subtree edited in place is the same node with a new size, so
  // "unchanged" is judged by the size.
  if (c < 0) {
    const before = size(n.l);
    const l = removeNode(spec, n.l, x, o);
    return l === n.l && size(l) === before ? n : balance(spec, n, n.v, l, n.r, o);
  }
  if (c > 0) {
    const before = size(n.r);
    const r = removeNode(spec, n.r, x, o);
    return r === n.r && size(r) === before ? n : balance(spec, n, n.v, n.l, r, o);
  }
  return glue(spec, n, n.l, n.r, o);
}

// Joins l < x < r into one balanced tree (Adams' `link`).
function link<T>(
  spec: OrderSpec<T>,
  l: TreeNode<T> | null,
  x: T,
  r: TreeNode<T> | null,
  o: Owner | null,
): TreeNode<T> {
  if (l === null) return insertMin(spec, r, x, o);
  if (r === null) return insertMax(spec, l, x, o);
  if (DELTA * l.s < r.s) return balance(spec, r, r.v, link(spec, l, x, r.l, o), r.r, o);
  if (DELTA * r.s < l.s) return balance(spec, l, l.v, l.l, link(spec, l.r, x, r, o), o);
  return mk(spec, x, l, r, o);
}

function insertMin<T>(
  spec: OrderSpec<T>,
  n: TreeNode<T> | null,
  x: T,
  o: Owner | null,
): TreeNode<T> {
  if (n === null) return mk(spec, x, null, null, o);
  return balance(spec, n, n.v, insertMin(spec, n.l, x, o), n.r, o);
}

function insertMax<T>(
  spec: OrderSpec<T>,
  n: TreeNode<T> | null,
  x: T,
  o: Owner | null,
): TreeNode<T> {
  if (n === null) return mk(spec, x, null, null, o);
  return balance(spec, n, n.v, n.l, insertMax(spec, n.r, x, o), o);
}

// A perfectly balanced tree over xs[lo, hi), already in order.
function buildSorted<T>(
  spec: OrderSpec<T>,
  xs: readonly T[],
  lo: number,
  hi: number,
  o: Owner | null,
): TreeNode<T> | null {
  if (lo >= hi) return null;
  const mid = (lo + hi) >>> 1;
  return mk(
    spec,
    xs[mid],
    buildSorted(spec, xs, lo, mid, o),
    buildSorted(spec, xs, mid + 1, hi, o),
    o,
  );
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
 * import { appendJobs, initialState, type JobRecord, step } from "@evtsim/evtsim";
 * import type { OrderedSet } from "./_ordered_set.ts";
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
 *
 * @internal Not part of the stable API: the package does not export it, and
 * its members may change in any release. Public code reads the running jobs
 * through `RunningSet`'s documented members.
 */
export class OrderedSet<T> {
  #root: TreeNode<T> | null;
  /** The edit token of a transient set (null: persistent). */
  readonly #owner: Owner | null;
  /**
   * A transient set's scratch form: its elements in order from `#head` on
   * (the tree `#root` is then unused), or null while it is a tree. See
   * {@link OrderedSet.transient}.
   */
  #flat: T[] | null = null;
  #head = 0;
  /** `#flat` is also a persistent set's: copied before the next change. */
  #shared = false;
  /** A persistent set in scratch form: its tree, once read. */
  #built: TreeNode<T> | null | undefined = undefined;
  /** May this transient switch to the scratch form. */
  #flatOk = false;
  /** Elements updated since the tree was last built or taken over. */
  #edits = 0;

  private constructor(
    readonly spec: OrderSpec<T>,
    root: TreeNode<T> | null,
    owner: Owner | null = null,
  ) {
    this.#root = root;
    this.#owner = owner;
  }

  /**
   * The root node (null when empty). A transient in scratch form is made a
   * tree again; a persistent set in that form builds its tree once and keeps
   * it beside the array, so that reading it changes nothing a later step
   * starts from (a step from a state gives the same state however often the
   * state was read).
   */
  get root(): TreeNode<T> | null {
    return this.#tree();
  }

  /** An empty set ordered by `spec`. */
  static empty<T>(spec: OrderSpec<T>): OrderedSet<T> {
    return new OrderedSet(spec, null);
  }

  /** Builds a set from elements in any order. */
  static from<T>(spec: OrderSpec<T>, xs: Iterable<T>): OrderedSet<T> {
    const owner = {};
    let root: TreeNode<T> | null = null;
    for (const x of xs) root = insertNode(spec, root, x, owner);
    return new OrderedSet(spec, root);
  }

  /**
   * A transient copy editing under `owner`: its updates change nodes that
   * `owner` created in place and return the same set object. Only for scratch
   * work inside one step; {@link OrderedSet.persistent} ends the editing.
   * This set stays as it is.
   *
   * With `scratch`, a transient updated about as often as it holds elements
   * (at most 4,096) switches to a sorted array (its scratch form): taking
   * the first element costs nothing and adding after the last is a push.
   * `persistent()` hands the array out as a persistent set in O(1) and the
   * transient copies it before its next change; a transient made from such a
   * set shares the array until it changes it.
   */
  //
  // Persistence is a contract at the step boundary, not a cost per update:
  // no state sees the array while the step changes it. Few updates to many
  // elements stay in the tree, O(log n) each, so a step that changes a few
  // jobs of a large set does not pay O(n); a copy of the array is at most
  // 4,096 slots.
  transient(owner: Owner, scratch = false): OrderedSet<T> {
    if (scratch && this.#flat !== null) {
      // Both share the array until either changes it.
      const t = new OrderedSet<T>(this.spec, null, owner);
      t.#flat = this.#flat;
      t.#head = this.#head;
      t.#shared = this.#shared = true;
      t.#flatOk = true;
      return t;
    }
    const t = new OrderedSet(this.spec, this.root, owner);
    t.#flatOk = scratch;
    return t;
  }

  /**
   * A persistent set with the same elements (this one, if it already is).
   * A transient in scratch form hands out its array (O(1)) and copies it
   * before its next change, so the result stays as it is.
   */
  persistent(): OrderedSet<T> {
    if (this.#owner === null) return this;
    if (this.#flat === null) return new OrderedSet(this.spec, this.#root);
    const p = new OrderedSet<T>(this.spec, null);
    p.#flat = this.#flat;
    p.#head = this.#head;
    p.#shared = this.#shared = true;
    return p;
  }

  // The tree, made from the scratch form if need be (a persistent set's
  // update, which must leave it as it is, works on the tree).
  #tree(): TreeNode<T> | null {
    const a = this.#flat;
    if (a === null) return this.#root;
    if (this.#owner !== null) {
      this.#toTree(this.#owner);
      return this.#root;
    }
    return (this.#built ??= buildSorted(this.spec, a, this.#head, a.length, null));
  }

  // The result of an update: this set, changed, when transient; else a new set.
  #with(root: TreeNode<T> | null): OrderedSet<T> {
    if (this.#owner !== null) {
      this.#root = root;
      return this;
    }
    return root === this.#root ? this : new OrderedSet(this.spec, root);
  }

  // Counts `k` updated elements of a transient tree; true when it is in (or
  // has just switched to) the scratch form. The switch costs a walk of the
  // tree and `persistent()` a build, both paid for by the updates counted.
  #scratch(k: number): boolean {
    if (this.#flat !== null) {
      if (this.#shared) {
        this.#flat = this.#flat.slice(this.#head);
        this.#head = 0;
        this.#shared = false;
      }
      return true;
    }
    if (!this.#flatOk) return false;
    this.#edits += k;
    const n = size(this.#root);
    if (this.#edits * 8 < n || n > FLAT_MAX) return false;
    this.#flat = n === 0 ? [] : this.toArray();
    this.#head = 0;
    this.#root = null;
    return true;
  }

  // Back to a tree (nodes owned by `o`).
  #toTree(o: Owner | null): void {
    const a = this.#flat!;
    this.#root = buildSorted(this.spec, a, this.#head, a.length, o);
    this.#flat = null;
    this.#head = 0;
    this.#shared = false;
    this.#edits = 0;
  }

  // Position of the first element >= x (or > x when `strict`) in the scratch form.
  #bound(x: T, strict: boolean): number {
    const a = this.#flat!;
    const cmp = this.spec.compare;
    let lo = this.#head;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = cmp(a[mid], x);
      if (strict ? c <= 0 : c < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Number of elements. */
  get size(): number {
    return this.#flat !== null ? this.#flat.length - this.#head : size(this.#root);
  }

  /** Minimum of `p1` over all elements (Infinity when empty). */
  get min1(): number {
    if (this.#flat !== null) return flatMin(this.#flat, this.#head, this.spec.p1);
    return this.#root === null ? Infinity : this.#root.m1;
  }

  /** Minimum of `p2` over all elements (Infinity when empty). */
  get min2(): number {
    if (this.#flat !== null) return flatMin(this.#flat, this.#head, this.spec.p2);
    return this.#root === null ? Infinity : this.#root.m2;
  }

  /** Adds `x`, replacing an element that compares equal. */
  add(x: T): OrderedSet<T> {
    if (this.#owner !== null && this.#scratch(1)) {
      this.#flatAdd(x);
      if (this.#flat!.length - this.#head > FLAT_MAX) this.#toTree(this.#owner);
      return this;
    }
    return this.#with(insertNode(this.spec, this.#tree(), x, this.#owner));
  }

  #flatAdd(x: T): void {
    const a = this.#flat!;
    const n = a.length;
    if (n === this.#head || this.spec.compare(a[n - 1], x) < 0) {
      a.push(x);
      return;
    }
    const i = this.#bound(x, false);
    if (this.spec.compare(a[i], x) === 0) a[i] = x;
    else if (i === this.#head && i > 0) a[--this.#head] = x;
    else a.splice(i, 0, x);
  }

  /**
   * Adds `xs`. When they are strictly increasing and all after the current
   * last element (a batch of arrivals usually is), the batch is built as one
   * balanced tree in O(k) and linked on in O(log n); otherwise one by one.
   */
  addAll(xs: readonly T[]): OrderedSet<T> {
    if (xs.length === 0) return this;
    if (this.#owner !== null && this.#scratch(xs.length)) {
      for (const x of xs) this.#flatAdd(x);
      if (this.#flat!.length - this.#head > FLAT_MAX) this.#toTree(this.#owner);
      return this;
    }
    const root0 = this.#tree();
    const cmp = this.spec.compare;
    // Nodes built here are new: edit them in place even for a persistent set.
    const o = this.#owner ?? {};
    let ordered = root0 === null || cmp(maxNode(root0).v, xs[0]) < 0;
    for (let i = 1; ordered && i < xs.length; i++) ordered = cmp(xs[i - 1], xs[i]) < 0;
    if (!ordered) {
      let root = root0;
      for (const x of xs) root = insertNode(this.spec, root, x, o);
      return this.#with(root);
    }
    const batch = buildSorted(this.spec, xs, 0, xs.length, o)!;
    if (root0 === null) return this.#with(batch);
    // link(l, x, r) needs a middle element: take the batch's first.
    const first = minNode(batch).v;
    const rest = removeMin(this.spec, batch, o);
    return this.#with(link(this.spec, root0, first, rest, o));
  }

  /** Removes the element comparing equal to `x`, if present. */
  delete(x: T): OrderedSet<T> {
    if (this.#owner !== null && this.#scratch(1)) {
      const a = this.#flat!;
      const i = this.#bound(x, false);
      if (i < a.length && this.spec.compare(a[i], x) === 0) {
        if (i === this.#head) this.#dropHead();
        else a.splice(i, 1);
      }
      return this;
    }
    return this.#with(removeNode(this.spec, this.#tree(), x, this.#owner));
  }

  // Drops the scratch form's first element; the dropped front is cut off
  // once it is most of the array.
  #dropHead(): void {
    const a = this.#flat!;
    a[this.#head++] = undefined as T;
    if (this.#head === a.length) {
      a.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= a.length) {
      a.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /** The smallest element, or undefined. */
  first(): T | undefined {
    if (this.#flat !== null) return this.#flat[this.#head];
    return this.#root === null ? undefined : minNode(this.#root).v;
  }

  /**
   * The first element strictly after `x` (the smallest when `x` is
   * undefined), or undefined; `x` need not be in the set.
   */
  after(x: T | undefined): T | undefined {
    if (this.#flat !== null) {
      return this.#flat[x === undefined ? this.#head : this.#bound(x, true)];
    }
    let n = this.#root;
    if (x === undefined) return n === null ? undefined : minNode(n).v;
    const cmp = this.spec.compare;
    let best: T | undefined;
    while (n !== null) {
      if (cmp(n.v, x) > 0) {
        best = n.v;
        n = n.l;
      } else {
        n = n.r;
      }
    }
    return best;
  }

  /** Removes the smallest element (no-op when empty). */
  deleteFirst(): OrderedSet<T> {
    if (this.#owner !== null && this.size > 0 && this.#scratch(1)) {
      this.#dropHead();
      return this;
    }
    const root = this.#tree();
    return root === null ? this : this.#with(removeMin(this.spec, root, this.#owner));
  }

  /** The element comparing equal to `x`, or undefined. */
  find(x: T): T | undefined {
    if (this.#flat !== null) {
      const v = this.#flat[this.#bound(x, false)];
      return v !== undefined && this.spec.compare(v, x) === 0 ? v : undefined;
    }
    let n = this.#root;
    while (n !== null) {
      const c = this.spec.compare(x, n.v);
      if (c === 0) return n.v;
      n = c < 0 ? n.l : n.r;
    }
    return undefined;
  }

  /**
   * How many elements come strictly before `x` (`x` need not be in the
   * set): O(log n) in either form, without building a scratch-form set's
   * tree.
   */
  rank(x: T): number {
    if (this.#flat !== null) return this.#bound(x, false) - this.#head;
    const cmp = this.spec.compare;
    let n = this.#root;
    let r = 0;
    while (n !== null) {
      if (cmp(n.v, x) < 0) {
        r += 1 + size(n.l);
        n = n.r;
      } else n = n.l;
    }
    return r;
  }

  /** Whether an element comparing equal to `x` is present. */
  has(x: T): boolean {
    if (this.#flat !== null) return this.find(x) !== undefined;
    let n = this.#root;
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
    if (this.#flat !== null) {
      const a = this.#flat;
      const { p1, p2 } = this.spec;
      const end = before === undefined ? a.length : this.#bound(before, false);
      for (let i = after === undefined ? this.#head : this.#bound(after, true); i < end; i++) {
        const x = a[i];
        if (mayContain(p1(x), p2(x)) && accept(x)) return x;
      }
      return undefined;
    }
    return findIn(
      this.#root,
      after !== undefined,
      before !== undefined,
      after,
      before,
      this.spec.compare,
      mayContain,
      accept,
    );
  }

  /** Minimum of `p1` over elements strictly before `x` (Infinity if none). */
  min1Before(x: T): number {
    if (this.#flat !== null) {
      const a = this.#flat;
      const p1 = this.spec.p1;
      let low = Infinity;
      for (let i = this.#head, end = this.#bound(x, false); i < end; i++) {
        const v = p1(a[i]);
        if (v < low) low = v;
      }
      return low;
    }
    const cmp = this.spec.compare;
    let best = Infinity;
    let n = this.#root;
    while (n !== null) {
      if (cmp(n.v, x) < 0) {
        if (n.l !== null && n.l.m1 < best) best = n.l.m1;
        const own = n.a;
        if (own < best) best = own;
        n = n.r;
      } else {
        n = n.l;
      }
    }
    return best;
  }

  /**
   * Calls `visit` on each element `>= from` (every element when `from` is
   * undefined), in order, until it returns true; returns the element it
   * stopped at. No iterator is allocated.
   */
  scan(from: T | undefined, visit: (x: T) => boolean): T | undefined {
    if (this.#flat !== null) {
      const a = this.#flat;
      for (let i = from === undefined ? this.#head : this.#bound(from, false); i < a.length; i++) {
        if (visit(a[i])) return a[i];
      }
      return undefined;
    }
    return scanIn(this.#root, from !== undefined, from, this.spec.compare, visit)?.v;
  }

  /** In-order iteration starting at the first element `>= from` (or the start). */
  *values(from?: T): IterableIterator<T> {
    const a = this.#flat;
    if (a !== null) {
      const start = from === undefined ? this.#head : this.#bound(from, false);
      // A persistent set's array never changes; a transient's may while the
      // caller iterates, so it is copied.
      const xs = this.#owner === null ? a : a.slice(start);
      for (let i = this.#owner === null ? start : 0; i < xs.length; i++) yield xs[i];
      return;
    }
    const stack: TreeNode<T>[] = [];
    let n = this.#root;
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
    if (this.#flat !== null) return this.#flat.slice(this.#head);
    const out: T[] = [];
    const walk = (n: TreeNode<T> | null) => {
      if (n === null) return;
      walk(n.l);
      out.push(n.v);
      walk(n.r);
    };
    walk(this.#root);
    return out;
  }
}

// Above this many elements a scratch-form set goes back to a tree: an
// insertion in the middle moves up to this many array slots.
const FLAT_MAX = 4096;

function flatMin<T>(a: readonly T[], from: number, p: (x: T) => number): number {
  let low = Infinity;
  for (let i = from; i < a.length; i++) {
    const v = p(a[i]);
    if (v < low) low = v;
  }
  return low;
}

// findFirst and scan walk with these module functions rather than closures
// made per call: admission calls them in every scheduling pass, and the
// closures were a tenth of a KTH EASY run's allocations.

// `lowOpen`: the subtree may hold elements <= after, so compare with it.
function findIn<T>(
  n: TreeNode<T> | null,
  lowOpen: boolean,
  highOpen: boolean,
  after: T | undefined,
  before: T | undefined,
  cmp: (a: T, b: T) => number,
  mayContain: (m1: number, m2: number) => boolean,
  accept: (x: T) => boolean,
): T | undefined {
  while (n !== null && mayContain(n.m1, n.m2)) {
    if (lowOpen && cmp(n.v, after as T) <= 0) {
      n = n.r;
      continue;
    }
    if (highOpen && cmp(n.v, before as T) >= 0) {
      n = n.l;
      continue;
    }
    const fromLeft = findIn(n.l, lowOpen, false, after, before, cmp, mayContain, accept);
    if (fromLeft !== undefined) return fromLeft;
    if (accept(n.v)) return n.v;
    n = n.r;
    lowOpen = false;
  }
  return undefined;
}

// The node `visit` stopped at, visiting elements >= from (all when not `bounded`) in order.
function scanIn<T>(
  n: TreeNode<T> | null,
  bounded: boolean,
  from: T | undefined,
  cmp: (a: T, b: T) => number,
  visit: (x: T) => boolean,
): TreeNode<T> | null {
  while (n !== null) {
    if (bounded && cmp(n.v, from as T) < 0) {
      n = n.r;
      continue;
    }
    const hit = scanIn(n.l, bounded, from, cmp, visit);
    if (hit !== null) return hit;
    if (visit(n.v)) return n;
    n = n.r;
    bounded = false;
  }
  return null;
}
