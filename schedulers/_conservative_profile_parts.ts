// The parts of `conservative_profile` (conservative_profile.ts) that know
// nothing of sessions: the availability profile as plain arrays (with the
// one-pass compression), the reservations as blocks in scratch typed arrays,
// and the running jobs kept from one session to the next (to find, without
// walking the running set, those that left before their projected end).

import type { RunningJob, RunningSet } from "../core/running.ts";

const EMPTY_PEAK = new Float64Array(0);

/** Running jobs in the running set's order (projected end, then id). */
export interface Running {
  readonly ids: readonly number[];
  readonly ends: readonly number[];
  readonly nodes: readonly number[];
}

/**
 * Free nodes from now on, as a step function: `free[i]` nodes are free in
 * [times[i], times[i + 1]) (the last segment has no end). Plain arrays,
 * built when a session first needs them, then kept for the next session
 * (which moves them on to its clock: `advance`).
 */
export class Profile {
  times: number[];
  free: number[];
  /**
   * The running maximum of `free` (`peak[k]`: the most free nodes in
   * segments 0..k), valid for the first `peakValid` segments: a change
   * invalidates it from the first segment it touches.
   */
  private peak: Float64Array = EMPTY_PEAK;
  private peakValid = 0;

  /** From `freeNow` and (time, change) pairs at or after now. */
  constructor(now: number, freeNow: number, changes: [number, number][]) {
    this.times = [now];
    this.free = [freeNow];
    if (changes.length === 0) return;
    changes.sort((a, b) => a[0] - b[0]);
    let f = freeNow;
    for (const [t, d] of changes) {
      f += d;
      if (t === this.times[this.times.length - 1]) this.free[this.free.length - 1] = f;
      else {
        this.times.push(t);
        this.free.push(f);
      }
    }
  }

  /**
   * Moves the profile on to `now` (a clock at or after its own), in place:
   * the steps before now are dropped, and neighbours with the same free
   * nodes merged (the answers depend on the step function only). At the
   * same clock it stays as it is.
   */
  advance(now: number): void {
    const t = this.times;
    const f = this.free;
    if (t[0] === now) return;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t[mid] <= now) lo = mid + 1;
      else hi = mid;
    }
    const n = t.length;
    let last = f[lo - 1];
    t[0] = now;
    f[0] = last;
    let w = 1;
    for (let k = lo; k < n; k++) {
      if (f[k] === last) continue;
      last = f[k];
      t[w] = t[k];
      f[w] = last;
      w++;
    }
    t.length = w;
    f.length = w;
    this.peakValid = 0;
  }

  /** Free nodes from the last step on (everything running and reserved has ended). */
  get atEnd(): number {
    return this.free[this.free.length - 1];
  }

  /** Index of the segment starting at `t`, splitting one if needed (t >= now). */
  at(t: number): number {
    const times = this.times;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    if (lo < times.length && times[lo] === t) return lo;
    if (lo < this.peakValid) this.peakValid = lo;
    // Inserted by hand: faster than splice on the short arrays a profile
    // has, but not on the long ones of a deep queue.
    const free = this.free;
    const n = times.length;
    if (lo === n) {
      times.push(t);
      free.push(free[n - 1]);
      return lo;
    }
    if (n - lo > 64) {
      times.splice(lo, 0, t);
      free.splice(lo, 0, free[lo - 1]);
      return lo;
    }
    times.push(times[n - 1]);
    free.push(free[n - 1]);
    for (let k = n - 1; k > lo; k--) {
      times[k] = times[k - 1];
      free[k] = free[k - 1];
    }
    times[lo] = t;
    free[lo] = free[lo - 1];
    return lo;
  }

  /** Adds `delta` free nodes over [start, end). */
  add(start: number, end: number, delta: number): void {
    if (!(end > start)) return;
    const i = this.at(start);
    if (i < this.peakValid) this.peakValid = i;
    const j = end === Infinity ? this.times.length : this.at(end);
    for (let k = i; k < j; k++) this.free[k] += delta;
  }

  /** Whether `nodes` are free over [start, start + limit). */
  fits(start: number, nodes: number, limit: number): boolean {
    const times = this.times;
    const end = start + limit;
    let k = 0;
    while (k + 1 < times.length && times[k + 1] <= start) k++;
    if (this.free[k] < nodes) return false;
    for (k++; k < times.length && times[k] < end; k++) if (this.free[k] < nodes) return false;
    return true;
  }

  /**
   * The earliest start before `ownStart` at which `nodes` are free for
   * `limit` once the block of `nodes` held over [ownStart, ownEnd) is given
   * back (Infinity if none): what `earliest` finds without the block when
   * that is earlier, without taking the block out and putting it back. The
   * search starts at segment `from` (the segments before it have fewer than
   * `nodes` free) and tries no start after `latest`.
   */
  earlierStart(
    nodes: number,
    limit: number,
    ownStart: number,
    ownEnd: number,
    from = 0,
    latest = Infinity,
  ): number {
    const held = ownEnd > ownStart && ownStart !== Infinity;
    const times = this.times;
    const free = this.free;
    const n = times.length;
    // Before `ownStart` the block holds nothing; inside it, its nodes count
    // as free. A start is before `ownStart` and a window ends before
    // `ownEnd` (the limit is the block's length), so a segment that begins
    // before `ownStart` counts as it is even if it reaches into the block
    // (its part before `ownStart` is in the window too), and the segments
    // need not be split at the block's ends.
    let i = from;
    while (i < n && times[i] < ownStart && times[i] <= latest) {
      if (free[i] < nodes) {
        i++;
        continue;
      }
      const end = times[i] + limit;
      let k = i + 1;
      for (; k < n && times[k] < end; k++) {
        const t = times[k];
        const f = held && t >= ownStart && t < ownEnd ? free[k] + nodes : free[k];
        if (f < nodes) break;
      }
      if (k === n || times[k] >= end) return times[i];
      i = k + 1;
    }
    return Infinity;
  }

  /**
   * Compression in one pass (Mu'alem & Feitelson 2001) over the blocks
   * `0..count` of `b`, in that order: each is given again at the earliest
   * start in the profile without it when that is earlier (never later: its
   * own slot is free); one that cannot start earlier stays as it is. A block
   * can only move to a segment before its start with `nodes` free, so the
   * running maximum of free nodes over the segments (`firstWith`) rules most
   * of them out in O(log n) and tells where to search.
   */
  compress(b: Blocks, count: number): void {
    for (let k = 0; k < count; k++) {
      const start = b.start[k];
      const nodes = b.nodes[k];
      const limit = b.limit[k];
      const at = lowerBound(this.times, start);
      const first = this.firstWith(nodes, at);
      if (first < 0) continue;
      // A window that starts earlier either runs into the block's own slot
      // (then the segment just before it has room) or ends before it: by
      // the start of that segment, which has too few nodes.
      let latest = Infinity;
      if (this.free[at - 1] < nodes) {
        latest = this.times[at - 1] - limit;
        if (latest < this.times[first]) continue;
      }
      const t = this.earlierStart(nodes, limit, start, b.end[k], first, latest);
      if (!(t < start)) continue;
      this.add(start, b.end[k], nodes);
      b.start[k] = t;
      b.end[k] = t + limit;
      this.add(t, t + limit, -nodes);
    }
  }

  /**
   * The first of the segments `0..before-1` with at least `nodes` free, or
   * -1: a binary search in the running maximum of free nodes, extended
   * lazily (only as far as asked) from the first segment a change touched.
   */
  firstWith(nodes: number, before: number): number {
    if (before > this.peakValid) {
      if (this.peak.length < this.free.length) {
        const grown = new Float64Array(this.free.length * 2 + 8);
        grown.set(this.peak.subarray(0, this.peakValid));
        this.peak = grown;
      }
      const free = this.free;
      const peak = this.peak;
      let m = this.peakValid === 0 ? -Infinity : peak[this.peakValid - 1];
      for (let k = this.peakValid; k < before; k++) {
        if (free[k] > m) m = free[k];
        peak[k] = m;
      }
      this.peakValid = before;
    }
    if (before === 0 || this.peak[before - 1] < nodes) return -1;
    return firstAtLeast(this.peak, before, nodes);
  }

  /** The earliest start at which `nodes` are free for `limit` (Infinity if never). */
  earliest(nodes: number, limit: number): number {
    const times = this.times;
    const free = this.free;
    let i = 0;
    while (i < times.length) {
      if (free[i] < nodes) {
        i++;
        continue;
      }
      const end = times[i] + limit;
      let k = i + 1;
      while (k < times.length && times[k] < end && free[k] >= nodes) k++;
      if (k === times.length || times[k] >= end) return times[i];
      i = k + 1;
    }
    return Infinity;
  }

  /** The first time before `end` at which fewer than `nodes` are free. */
  firstShortage(nodes: number, end: number): number | undefined {
    const times = this.times;
    for (let k = 0; k < times.length && (k === 0 || times[k] < end); k++) {
      if (this.free[k] < nodes) return times[k];
    }
    return undefined;
  }
}

/**
 * Reservations in one plain array, four numbers each: job id, start, time
 * limit, nodes (never changed once kept). One array per session: small typed
 * arrays cost an allocation of their own buffer each.
 */
export type Reservations = readonly number[];

/** How many numbers a reservation takes in {@link Reservations}. */
export const FIELDS = 4;

/**
 * The reservations a session holds (blocks): `nodes` held over [start, end)
 * for a time limit `limit`; `live[k]` is 0 once block k left the profile.
 * Typed arrays, grown by doubling and used again by the next session
 * (`clear`): a session fills them with every held reservation, and a run has
 * hundreds of thousands of sessions.
 */
export class Blocks {
  id: Float64Array;
  start: Float64Array;
  end: Float64Array;
  limit: Float64Array;
  nodes: Float64Array;
  live: Uint8Array;
  /** Whether the job of held block k was offered this session. */
  seen: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    const n = capacity > 8 ? capacity : 8;
    this.id = new Float64Array(n);
    this.start = new Float64Array(n);
    this.end = new Float64Array(n);
    this.limit = new Float64Array(n);
    this.nodes = new Float64Array(n);
    this.live = new Uint8Array(n);
    this.seen = new Uint8Array(n);
  }

  /** Empties it for the next session (keeping the arrays). */
  clear(): this {
    this.length = 0;
    return this;
  }

  /**
   * Empties it and fills it with `held`, each block from `now` on (a
   * reservation that came without starting holds from now); returns the
   * largest job id held (-1 if none).
   */
  fill(held: Reservations, now: number): number {
    const n = held.length / FIELDS;
    while (this.id.length < n) this.grow();
    this.length = n;
    this.live.fill(1, 0, n);
    this.seen.fill(0, 0, n);
    let maxId = -1;
    for (let k = 0, j = 0; k < n; k++, j += FIELDS) {
      const id = held[j];
      const start = held[j + 1];
      const limit = held[j + 2];
      const at = start > now ? start : now;
      this.id[k] = id;
      this.start[k] = at;
      this.end[k] = at + limit;
      this.limit[k] = limit;
      this.nodes[k] = held[j + 3];
      if (id > maxId) maxId = id;
    }
    return maxId;
  }

  /** Adds a live block; returns its index. */
  push(id: number, start: number, limit: number, nodes: number): number {
    if (this.length === this.id.length) this.grow();
    const k = this.length++;
    this.id[k] = id;
    this.start[k] = start;
    this.end[k] = start + limit;
    this.limit[k] = limit;
    this.nodes[k] = nodes;
    this.live[k] = 1;
    return k;
  }

  /** A copy of the blocks as reservations (id, start, limit, nodes). */
  keep(): Reservations {
    const out = new Array<number>(this.length * FIELDS);
    for (let k = 0, j = 0; k < this.length; k++, j += FIELDS) {
      out[j] = this.id[k];
      out[j + 1] = this.start[k];
      out[j + 2] = this.limit[k];
      out[j + 3] = this.nodes[k];
    }
    return out;
  }

  /** The index of the last block of job `id`, or -1. */
  lastOf(id: number): number {
    for (let k = this.length - 1; k >= 0; k--) if (this.id[k] === id) return k;
    return -1;
  }

  private grow(): void {
    const n = this.id.length * 2;
    const copy = <A extends Float64Array | Uint8Array>(a: A, b: A): A => {
      b.set(a);
      return b;
    };
    this.id = copy(this.id, new Float64Array(n));
    this.start = copy(this.start, new Float64Array(n));
    this.end = copy(this.end, new Float64Array(n));
    this.limit = copy(this.limit, new Float64Array(n));
    this.nodes = copy(this.nodes, new Float64Array(n));
    this.live = copy(this.live, new Uint8Array(n));
    this.seen = copy(this.seen, new Uint8Array(n));
  }
}

/** First index in ascending `times` whose value is at or above `t`. */
function lowerBound(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index below `n` in non-decreasing `peak` whose value is at least `nodes` (n if none). */
function firstAtLeast(peak: Float64Array, n: number, nodes: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (peak[mid] < nodes) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Nodes held by the running jobs: a scan with one module-level visitor (no
 * iterator, no closure), which also leaves a set in its scratch form (a
 * sorted array) as it is instead of building its tree.
 */
export function runningNodes(running: RunningSet): number {
  nodesSum = 0;
  running.scan(undefined, addNodes);
  return nodesSum;
}

let nodesSum = 0;
function addNodes(r: RunningJob): boolean {
  nodesSum += r.numNodes;
  return false;
}

/** First index in ascending `ends` whose value is above `t`. */
export function firstAfter(ends: readonly number[], t: number): number {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The running jobs, in the running set's order. */
export function runningNow(running: RunningSet): Running {
  const ids: number[] = [];
  const ends: number[] = [];
  const nodes: number[] = [];
  for (const r of running.values()) {
    ids.push(r.id);
    ends.push(r.projectedEnd);
    nodes.push(r.numNodes);
  }
  return { ids, ends, nodes };
}

/**
 * The running jobs projected to end after now, kept in the memory from one
 * session to the next without walking the running set: those of `before`
 * still running (`gone` lists the early leavers' indexes), merged with the
 * jobs this session started (in start order; ends at now + limit).
 */
export function runningAfter(
  before: Running,
  from: number,
  gone: readonly number[],
  started: Running,
): Running {
  // Nothing started or left early: the same jobs, less those ended by now.
  if (started.ids.length === 0 && gone.length === 0 && from === 0) return before;
  // Copies (native), then the leavers cut out and the started spliced in.
  const ids = before.ids.slice(from);
  const ends = before.ends.slice(from);
  const nodes = before.nodes.slice(from);
  for (let g = gone.length - 1; g >= 0; g--) {
    const at = gone[g] - from;
    ids.splice(at, 1);
    ends.splice(at, 1);
    nodes.splice(at, 1);
  }
  for (let j = 0; j < started.ids.length; j++) {
    const end = started.ends[j];
    const id = started.ids[j];
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] < end || (ends[mid] === end && ids[mid] < id)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === ids.length) {
      ids.push(id);
      ends.push(end);
      nodes.push(started.nodes[j]);
    } else {
      ids.splice(lo, 0, id);
      ends.splice(lo, 0, end);
      nodes.splice(lo, 0, started.nodes[j]);
    }
  }
  return Object.freeze({ ids, ends, nodes });
}

/** How many running jobs come before (projected end `end`, id `id`) in the running set's order. */
function rankOf(running: RunningSet, end: number, id: number): number {
  rankProbe.projectedEnd = end;
  rankProbe.id = id;
  return running.rank(rankProbe);
}

// One probe for every rank asked (the set compares by projected end, then id).
const rankProbe = { id: 0, beginTime: 0, numNodes: 0, timeLimit: 0, projectedEnd: 0 };

/**
 * The indexes in `before` (from `from`, the first projected to end after
 * now) of the jobs that left the running set before their projected end (an
 * early completion, a cancel or a kill) since the last session. Between
 * sessions jobs only leave the running set, so the jobs of a stretch of
 * `before` that left are as many as the stretch is longer than the running
 * jobs between its ends: halving the stretches that lost some finds them in
 * O(log² n) each, without walking the running jobs.
 */
export function leftEarly(before: Running, from: number, running: RunningSet): number[] {
  const gone: number[] = [];
  const n = before.ids.length;
  const rankAt = (k: number): number =>
    k < n ? rankOf(running, before.ends[k], before.ids[k]) : running.size;
  const find = (a: number, b: number, ra: number, rb: number): void => {
    if (b - a === rb - ra) return;
    if (b - a === 1) {
      gone.push(a);
      return;
    }
    const m = (a + b) >> 1;
    const rm = rankAt(m);
    find(a, m, ra, rm);
    find(m, b, rm, rb);
  };
  if (from < n) find(from, n, rankAt(from), running.size);
  return gone;
}
