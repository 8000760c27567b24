// The parts of `conservative_profile` (conservative_profile.ts) that know
// nothing of sessions: the availability profile as plain arrays, and the
// running jobs kept from one session to the next (to find, without walking
// the running set, those that left before their projected end).

import type { RunningSet } from "../core/running.ts";

/** Running jobs in the running set's order (projected end, then id). */
export interface Running {
  readonly ids: readonly number[];
  readonly ends: readonly number[];
  readonly nodes: readonly number[];
}

/**
 * Free nodes from now on, as a step function: `free[i]` nodes are free in
 * [times[i], times[i + 1]) (the last segment has no end). Plain arrays,
 * built when a session first needs them.
 */
export class Profile {
  readonly times: number[];
  readonly free: number[];

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
   * A copy of a profile a session left, from `now` on (a later clock): the
   * steps before now are dropped, and neighbours with the same free nodes
   * merged (the answers depend on the step function only).
   */
  static from(times: readonly number[], free: readonly number[], now: number): Profile {
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= now) lo = mid + 1;
      else hi = mid;
    }
    const p = new Profile(now, free[lo - 1], []);
    let last = free[lo - 1];
    for (let k = lo; k < times.length; k++) {
      if (free[k] === last) continue;
      last = free[k];
      p.times.push(times[k]);
      p.free.push(last);
    }
    return p;
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
    times.splice(lo, 0, t);
    this.free.splice(lo, 0, this.free[lo - 1]);
    return lo;
  }

  /** Adds `delta` free nodes over [start, end). */
  add(start: number, end: number, delta: number): void {
    if (!(end > start)) return;
    const i = this.at(start);
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
   * that is earlier, without taking the block out and putting it back.
   */
  earlierStart(nodes: number, limit: number, ownStart: number, ownEnd: number): number {
    const held = ownEnd > ownStart && ownStart !== Infinity;
    if (held) {
      this.at(ownStart);
      if (ownEnd !== Infinity) this.at(ownEnd);
    }
    const times = this.times;
    const free = this.free;
    const value = (k: number): number =>
      held && times[k] >= ownStart && times[k] < ownEnd ? free[k] + nodes : free[k];
    let i = 0;
    while (i < times.length && times[i] < ownStart) {
      if (value(i) < nodes) {
        i++;
        continue;
      }
      const end = times[i] + limit;
      let k = i + 1;
      while (k < times.length && times[k] < end && value(k) >= nodes) k++;
      if (k === times.length || times[k] >= end) return times[i];
      i = k + 1;
    }
    return Infinity;
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
  const ids: number[] = [];
  const ends: number[] = [];
  const nodes: number[] = [];
  const order = started.ids.map((_, i) => i).sort((x, y) =>
    started.ends[x] - started.ends[y] || started.ids[x] - started.ids[y]
  );
  let g = 0;
  let j = 0;
  for (let k = from; k <= before.ids.length; k++) {
    const end = k < before.ids.length ? before.ends[k] : Infinity;
    const id = k < before.ids.length ? before.ids[k] : Infinity;
    while (
      j < order.length &&
      (started.ends[order[j]] < end ||
        (started.ends[order[j]] === end && started.ids[order[j]] < id))
    ) {
      ids.push(started.ids[order[j]]);
      ends.push(started.ends[order[j]]);
      nodes.push(started.nodes[order[j]]);
      j++;
    }
    if (k === before.ids.length) break;
    if (g < gone.length && gone[g] === k) {
      g++;
      continue;
    }
    ids.push(id);
    ends.push(end);
    nodes.push(before.nodes[k]);
  }
  return Object.freeze({ ids, ends, nodes });
}

/** How many running jobs come before (projected end `end`, id `id`) in the running set's order. */
function rankOf(running: RunningSet, end: number, id: number): number {
  let n = running.root;
  let rank = 0;
  while (n !== null) {
    const v = n.v;
    if (v.projectedEnd < end || (v.projectedEnd === end && v.id < id)) {
      rank += 1 + (n.l === null ? 0 : n.l.s);
      n = n.r;
    } else n = n.l;
  }
  return rank;
}

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
