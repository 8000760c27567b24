// Wait queues in a key order: FCFS (priority, then submit time, then job id)
// by default, or any total order a picker gives.
//
// `FcfsQueue` is one ordered set with subtree minima of node count and time
// limit. On a deep queue those two minima prune badly: a subtree almost
// always holds some small job and some short job, just not the same one, so
// "first job with nodes <= free and limit < window" ends up visiting most of
// the queue. `SizeClassedQueue` also files every job under its size class;
// inside a class whose largest size fits, only the time limit matters, so the
// per-class minimum prunes exactly and a search costs O(classes + log n).
//
// Jobs placed by a resource model (a `demand`, no whole nodes) all fall in
// size class 0, so they are filed by replica shape instead, each shape's set
// keeping the subtree minimum of replicas: a search told that a shape has no
// room from r replicas on (`noRoomFrom`) skips all of them at once.

import { OrderedSet, type OrderSpec } from "../core/_ordered_set.ts";
import type { JobRecord } from "../core/types.ts";
import { demandShapeId } from "../core/_demand_shape.ts";

/** FCFS order within a queue: higher priority first, then submit time, then job id. */
export const fcfsCompare = (a: JobRecord, b: JobRecord): number =>
  b.priority - a.priority || a.submitTime - b.submitTime || a.id - b.id;

/** The tree order for a job order: subtree minima of node count and time limit. */
export function jobOrder(compare: (a: JobRecord, b: JobRecord) => number): OrderSpec<JobRecord> {
  return { compare, p1: (x) => x.numNodes, p2: (x) => x.timeLimit };
}

const FCFS_ORDER: OrderSpec<JobRecord> = jobOrder(fcfsCompare);

/** Waiting jobs in a key order (FCFS unless a picker says otherwise). */
export type FcfsQueue = OrderedSet<JobRecord>;

/** An empty FCFS wait queue. */
export function emptyFcfsQueue(): FcfsQueue {
  return OrderedSet.empty(FCFS_ORDER);
}

// Sizes 0..16 have a class each; above that, four classes per power of two.
const EXACT = 16;

/** The size class of a node count. */
export function sizeClass(nodes: number): number {
  if (nodes <= EXACT) return nodes;
  const e = 31 - Math.clz32(nodes);
  return EXACT + 1 + (e - 4) * 4 + ((nodes >>> (e - 2)) & 3);
}

/** The largest node count in a size class. */
export function classMax(c: number): number {
  if (c <= EXACT) return c;
  const k = c - EXACT - 1;
  const e = 4 + (k >> 2);
  const m = k & 3;
  return ((4 + m + 1) << (e - 2)) - 1;
}

// Below this many waiting jobs a single pruned walk beats the probe and the
// visit of every class: with whole nodes up to a few hundred (light_100k EASY,
// whose queue holds 65-512 jobs at most searches, runs about 10% faster with
// 256 than with 64; heavy_100k's deep queue still takes the per-class path).
const SMALL_QUEUE = 256;
// Jobs looked at in plain order before the per-class search.
const PROBE = 8;

/**
 * An FCFS queue with an optional per-size-class index. Persistent, unless
 * `owner` is set: then it is a step's transient copy, changed in place by
 * `enqueue` and `dequeue` until {@link persistentQueue} freezes it.
 */
export interface SizeClassedQueue {
  /** Every waiting job, FCFS order. */
  readonly all: FcfsQueue;
  /** `byClass[c]`: the waiting jobs of size class c, FCFS order (when indexed). */
  readonly byClass: readonly (FcfsQueue | undefined)[];
  /**
   * `byShape[k]`: the waiting jobs with a demand and no whole nodes of
   * replica shape k (`demandShapeId`), in the same order, with the minimum
   * of replicas in place of node count (when indexed; not in `byClass`).
   */
  readonly byShape: readonly (FcfsQueue | undefined)[];
  /** Whether `byClass` and `byShape` are maintained. */
  readonly indexed: boolean;
  /** The edit token of a transient queue. */
  readonly owner?: object;
}

// A transient queue: its own object and its own class array.
interface TransientQueue {
  all: FcfsQueue;
  byClass: (FcfsQueue | undefined)[];
  byShape: (FcfsQueue | undefined)[];
  readonly indexed: boolean;
  readonly owner: object;
}

/** A transient copy of `q` editing under `owner` (see {@link SizeClassedQueue}). */
export function transientQueue(q: SizeClassedQueue, owner: object): SizeClassedQueue {
  const t: TransientQueue = {
    all: q.all.transient(owner),
    byClass: q.byClass.map((c) => c?.transient(owner)),
    byShape: q.byShape.map((c) => c?.transient(owner)),
    indexed: q.indexed,
    owner,
  };
  return t;
}

/** The persistent queue with the contents of `q`. */
export function persistentQueue(q: SizeClassedQueue): SizeClassedQueue {
  if (q.owner === undefined) return q;
  return Object.freeze({
    all: q.all.persistent(),
    byClass: Object.freeze(q.byClass.map((c) => c?.persistent())),
    byShape: Object.freeze(q.byShape.map((c) => c?.persistent())),
    indexed: q.indexed,
  });
}

const EMPTY_INDEXED: SizeClassedQueue = Object.freeze({
  all: emptyFcfsQueue(),
  byClass: Object.freeze([]),
  byShape: Object.freeze([]),
  indexed: true,
});
const EMPTY_PLAIN: SizeClassedQueue = Object.freeze({
  all: emptyFcfsQueue(),
  byClass: Object.freeze([]),
  byShape: Object.freeze([]),
  indexed: false,
});

/**
 * An empty queue in FCFS order, or in `order` when given. The size-class
 * index costs a second tree update per insert and delete, so it is kept only
 * when `indexed` (EASY needs it).
 */
export function emptySizeClassedQueue(
  indexed = true,
  order?: OrderSpec<JobRecord>,
): SizeClassedQueue {
  if (order === undefined) return indexed ? EMPTY_INDEXED : EMPTY_PLAIN;
  return Object.freeze({
    all: OrderedSet.empty(order),
    byClass: Object.freeze([]),
    byShape: Object.freeze([]),
    indexed,
  });
}

// The order of a shape's set: the queue's, with replicas summarised.
const shapeSpecs = new WeakMap<OrderSpec<JobRecord>, OrderSpec<JobRecord>>();

function shapeSpec(spec: OrderSpec<JobRecord>): OrderSpec<JobRecord> {
  let s = shapeSpecs.get(spec);
  if (s === undefined) {
    s = { compare: spec.compare, p1: (x) => x.demand!.replicas, p2: (x) => x.timeLimit };
    shapeSpecs.set(spec, s);
  }
  return s;
}

/** The replica shape a job is filed under, or -1: filed by size class. */
function shapeOf(job: JobRecord): number {
  return job.numNodes === 0 ? demandShapeId(job) : -1;
}

function withSet(
  sets: readonly (FcfsQueue | undefined)[],
  c: number,
  set: FcfsQueue | undefined,
): readonly (FcfsQueue | undefined)[] {
  const next = sets.slice();
  while (next.length <= c) next.push(undefined);
  next[c] = set !== undefined && set.size > 0 ? set : undefined;
  return next;
}

/** The queue with `job` added. */
export function enqueue(q: SizeClassedQueue, job: JobRecord): SizeClassedQueue {
  if (q.owner !== undefined) {
    const t = q as TransientQueue;
    t.all = t.all.add(job);
    const k = t.indexed ? shapeOf(job) : -1;
    if (k >= 0) {
      while (t.byShape.length <= k) t.byShape.push(undefined);
      t.byShape[k] = (t.byShape[k] ?? OrderedSet.empty(shapeSpec(t.all.spec)).transient(t.owner))
        .add(job);
    } else if (t.indexed) {
      const c = sizeClass(job.numNodes);
      while (t.byClass.length <= c) t.byClass.push(undefined);
      t.byClass[c] = (t.byClass[c] ?? OrderedSet.empty(t.all.spec).transient(t.owner)).add(job);
    }
    return t;
  }
  const { byClass, byShape } = q;
  if (!q.indexed) return { all: q.all.add(job), byClass, byShape, indexed: false };
  const k = shapeOf(job);
  if (k >= 0) {
    const set = q.byShape[k] ?? OrderedSet.empty(shapeSpec(q.all.spec));
    return {
      all: q.all.add(job),
      byClass,
      byShape: withSet(byShape, k, set.add(job)),
      indexed: true,
    };
  }
  const c = sizeClass(job.numNodes);
  const cls = q.byClass[c] ?? OrderedSet.empty(q.all.spec);
  return {
    all: q.all.add(job),
    byClass: withSet(byClass, c, cls.add(job)),
    byShape,
    indexed: true,
  };
}

/** The queue without `job`. */
export function dequeue(q: SizeClassedQueue, job: JobRecord): SizeClassedQueue {
  if (q.owner !== undefined) {
    const t = q as TransientQueue;
    t.all = t.all.delete(job);
    const k = t.indexed ? shapeOf(job) : -1;
    if (k >= 0) {
      const set = t.byShape[k]?.delete(job);
      if (k < t.byShape.length) t.byShape[k] = set !== undefined && set.size > 0 ? set : undefined;
    } else if (t.indexed) {
      const c = sizeClass(job.numNodes);
      const cls = t.byClass[c]?.delete(job);
      if (c < t.byClass.length) t.byClass[c] = cls !== undefined && cls.size > 0 ? cls : undefined;
    }
    return t;
  }
  const { byClass, byShape } = q;
  if (!q.indexed) return { all: q.all.delete(job), byClass, byShape, indexed: false };
  const k = shapeOf(job);
  if (k >= 0) {
    const set = byShape[k]?.delete(job);
    return { all: q.all.delete(job), byClass, byShape: withSet(byShape, k, set), indexed: true };
  }
  const c = sizeClass(job.numNodes);
  const cls = byClass[c];
  return {
    all: q.all.delete(job),
    byClass: withSet(byClass, c, cls?.delete(job)),
    byShape,
    indexed: true,
  };
}

/**
 * The first job in FCFS order strictly after `after` with
 * `numNodes <= free` and `fits(timeLimit)`; `limitMayFit(minLimit)` must be
 * true whenever some limit >= minLimit could fit (it prunes by the minimum).
 * Jobs with a demand and at least `noRoomFrom(job)` replicas may be passed
 * over (see `CandidateSearch.nextFitting`): a shape's set skips them together,
 * asking `noRoomFrom` with its first job and its shape number (`demandShapeId`).
 */
export function firstFitting(
  q: SizeClassedQueue,
  after: JobRecord | undefined,
  free: number,
  limitMayFit: (minLimit: number) => boolean,
  noRoomFrom?: (job: JobRecord, shape?: number) => number,
): JobRecord | undefined {
  const outerFree = fitFree;
  const outerLimit = fitLimit;
  const outerNoRoom = fitNoRoom;
  fitFree = free;
  fitLimit = limitMayFit;
  fitNoRoom = noRoomFrom;
  try {
    return search(q, after, free, limitMayFit);
  } finally {
    fitFree = outerFree;
    fitLimit = outerLimit;
    fitNoRoom = outerNoRoom;
  }
}

// The bounds of the search under way, for the predicates below: module
// functions rather than closures made per search (a search runs in every
// backfill pass). Saved and restored around each search, so a limitMayFit
// that itself searches leaves the outer search's bounds as they were.
let fitFree = 0;
let fitLimit: (minLimit: number) => boolean = () => false;
let fitNoRoom: ((job: JobRecord, shape?: number) => number) | undefined = undefined;
/** The replicas from which the shape's set being searched has no room. */
let shapeBar = Infinity;
const noRoom = (j: JobRecord) =>
  fitNoRoom !== undefined && j.demand !== undefined && j.demand.replicas >= fitNoRoom(j);
const mayFit = (minNodes: number, minLimit: number) => minNodes <= fitFree && fitLimit(minLimit);
const fits = (j: JobRecord) => j.numNodes <= fitFree && fitLimit(j.timeLimit) && !noRoom(j);
const limitMayFitAny = (_minNodes: number, minLimit: number) => fitLimit(minLimit);
const limitFits = (j: JobRecord) => fitLimit(j.timeLimit);
const shapeMayFit = (minReplicas: number, minLimit: number) =>
  minReplicas < shapeBar && fitLimit(minLimit);
const shapeFits = (j: JobRecord) => j.demand!.replicas < shapeBar && fitLimit(j.timeLimit);

function search(
  q: SizeClassedQueue,
  after: JobRecord | undefined,
  free: number,
  limitMayFit: (minLimit: number) => boolean,
): JobRecord | undefined {
  // The per-class loop only pays off once the queue is deep; with jobs
  // filed by replica shape it always does: a walk in order asks every job
  // for its shape's room, the shapes' sets once per shape.
  if (!q.indexed || (q.byShape.length === 0 && q.all.size <= SMALL_QUEUE)) {
    return q.all.findFirst(after, mayFit, fits);
  }
  // Usually a fitting job sits near the cursor: look at a few in order first
  // (not with jobs filed by shape: each look there asks for the shape's
  // room, which the shapes' sets below ask once per shape).
  let from = after;
  if (q.byShape.length === 0) {
    let probed = 0;
    for (let j = q.all.after(after); j !== undefined; j = q.all.after(j)) {
      if (j.numNodes <= free && limitMayFit(j.timeLimit) && !noRoom(j)) return j;
      from = j;
      if (++probed === PROBE) break;
    }
    if (probed < PROBE) return undefined;
  }
  let best: JobRecord | undefined;
  const top = Math.min(sizeClass(free), q.byClass.length - 1);
  for (let c = 0; c <= top; c++) {
    const cls = q.byClass[c];
    if (cls === undefined || !limitMayFit(cls.min2)) continue;
    const found = classMax(c) <= free
      ? cls.findFirst(from, limitMayFitAny, limitFits, best)
      : cls.findFirst(from, mayFit, fits, best);
    if (found !== undefined) best = found;
  }
  // Jobs filed by shape need no nodes: only their limit and the shape's room matter.
  const shapes = q.byShape;
  for (let k = 0; k < shapes.length; k++) {
    const set = shapes[k];
    if (set === undefined || !limitMayFit(set.min2)) continue;
    // The set's shape number given with its first job (not looked up again).
    const bar = fitNoRoom === undefined ? Infinity : fitNoRoom(set.first()!, k);
    if (!(set.min1 < bar)) continue;
    const outerBar = shapeBar;
    shapeBar = bar;
    try {
      const found = set.findFirst(from, shapeMayFit, shapeFits, best);
      if (found !== undefined) best = found;
    } finally {
      shapeBar = outerBar;
    }
  }
  return best;
}
