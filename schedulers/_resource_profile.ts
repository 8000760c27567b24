// The availability profile of a machine described by a resource model, for
// conservative backfilling: the model's state from now on as a step
// function, `states[i]` holding over [times[i], times[i + 1]) (the last
// one for ever). The states are the model's own, made with its `beginEdit`,
// `allocate`, `release` and `endEdit` on copies, so the profile is exact
// per resource per node whatever the model. Every state is ended
// (immutable): a change replaces the states it touches, and neighbouring
// breakpoints may share one state.

import type { Placement, ResourceModel } from "../core/resource_model.ts";
import type { JobRecord } from "../core/types.ts";

/** A job's reservation: its placement over [start, end). */
export interface Reservation {
  readonly job: JobRecord;
  readonly start: number;
  readonly end: number;
  readonly placement: Placement;
}

/** A change of the profile at a time: a running job or a reservation gives its resources back, or a reservation takes them. */
interface Change {
  readonly at: number;
  readonly job: JobRecord;
  /** undefined: a release. */
  readonly placement: Placement | undefined;
  /** Reservations only: its index in the list given (to drop one that no longer fits). */
  readonly index: number;
}

export class ResourceProfile {
  readonly times: number[];
  readonly states: unknown[];

  private constructor(private readonly model: ResourceModel, times: number[], states: unknown[]) {
    this.times = times;
    this.states = states;
  }

  /**
   * From the state at `now` (`base`), the running jobs' releases (at their
   * projected ends, all after now) and the reservations (all at now or
   * later, in the order given). A reservation whose placement is not free
   * at its start (the machine changed since it was given) is left out; its
   * index is put in `dropped`.
   */
  static build(
    model: ResourceModel,
    now: number,
    base: unknown,
    releases: readonly { readonly at: number; readonly job: JobRecord }[],
    reservations: readonly Reservation[],
    dropped: Set<number>,
  ): ResourceProfile {
    const changes: Change[] = [];
    for (const r of releases) {
      changes.push({ at: r.at, job: r.job, placement: undefined, index: -1 });
    }
    reservations.forEach((b, index) => {
      if (!(b.end > b.start)) return;
      changes.push({ at: b.start, job: b.job, placement: b.placement, index });
      changes.push({ at: b.end, job: b.job, placement: undefined, index });
    });
    // At one time: releases first, then allocations in the order given.
    changes.sort((a, b) =>
      a.at - b.at || (a.placement === undefined ? 0 : 1) - (b.placement === undefined ? 0 : 1) ||
      a.index - b.index
    );
    const times = [now];
    const states = [base];
    let k = 0;
    while (k < changes.length) {
      const at = changes[k].at;
      let s = model.beginEdit(states[states.length - 1]);
      for (; k < changes.length && changes[k].at === at; k++) {
        const c = changes[k];
        if (c.placement === undefined) {
          if (c.index < 0 || !dropped.has(c.index)) s = model.release(s, c.job);
        } else if (model.fits!(s, c.job, c.placement)) s = model.allocate(s, c.job, c.placement);
        else dropped.add(c.index);
      }
      s = model.endEdit(s);
      if (at === now) states[0] = s;
      else {
        times.push(at);
        states.push(s);
      }
    }
    return new ResourceProfile(model, times, states);
  }

  /** Index of the breakpoint at `t` (>= now), made by splitting a segment if needed. */
  private at(t: number): number {
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
    this.states.splice(lo, 0, this.states[lo - 1]);
    return lo;
  }

  /** Gives `job` the resources of `placement` over [start, end) (take) or gives them back. */
  change(job: JobRecord, placement: Placement, start: number, end: number, take: boolean): void {
    if (!(end > start)) return;
    const i = this.at(start);
    const j = this.at(end);
    const m = this.model;
    for (let k = i; k < j; k++) {
      const s = m.beginEdit(this.states[k]);
      this.states[k] = m.endEdit(take ? m.allocate(s, job, placement) : m.release(s, job));
    }
  }

  /** Whether `placement` of `job` is free at every breakpoint from index `from` up to `end`. */
  freeOver(job: JobRecord, placement: Placement, from: number, end: number): boolean {
    const times = this.times;
    for (let k = from; k < times.length && times[k] < end; k++) {
      if (!this.model.fits!(this.states[k], job, placement)) return false;
    }
    return true;
  }

  /**
   * Whether `placement` of `job` is free at every breakpoint from index
   * `from` up to `end` once reservation `own` (of the same job) is given
   * back: the answer with `own` taken out of the profile, without taking it
   * out (a state it covers is copied without it only where that matters).
   */
  private freeWithout(
    job: JobRecord,
    placement: Placement,
    from: number,
    end: number,
    own: Reservation,
  ): boolean {
    const times = this.times;
    const m = this.model;
    for (let k = from; k < times.length && times[k] < end; k++) {
      const s = this.states[k];
      if (m.fits!(s, job, placement)) continue;
      if (times[k] < own.start || times[k] >= own.end) return false;
      if (!m.fits!(m.endEdit(m.release(m.beginEdit(s), own.job)), job, placement)) return false;
    }
    return true;
  }

  /**
   * The earliest breakpoint before `own.start` at which the model places
   * the job of reservation `own` and that placement stays free for its
   * limit, once `own` is given back (undefined if none): what `earliest`
   * finds with `own` taken out, without taking it out. With `onlyNow`, the
   * first breakpoint (now) only.
   */
  earlierThan(
    own: Reservation,
    onlyNow = false,
  ): { start: number; placement: Placement } | undefined {
    const times = this.times;
    const limit = own.end - own.start;
    const last = onlyNow ? 1 : times.length;
    for (let i = 0; i < last && times[i] < own.start; i++) {
      if (i > 0 && this.states[i] === this.states[i - 1]) continue;
      // Before its start the profile does not hold `own`.
      const r = this.model.place(this.states[i], own.job);
      if (r.placement === undefined) continue;
      if (this.freeWithout(own.job, r.placement, i + 1, times[i] + limit, own)) {
        return { start: times[i], placement: r.placement };
      }
    }
    return undefined;
  }

  /**
   * The earliest breakpoint before `before` at which the model places `job`
   * and that placement stays free for `limit`, or undefined.
   */
  earliest(
    job: JobRecord,
    limit: number,
    before = Infinity,
  ): { start: number; placement: Placement } | undefined {
    const times = this.times;
    for (let i = 0; i < times.length && times[i] < before; i++) {
      // A breakpoint with its predecessor's state answers as it did, or worse.
      if (i > 0 && this.states[i] === this.states[i - 1]) continue;
      const r = this.model.place(this.states[i], job);
      if (r.placement === undefined) continue;
      if (this.freeOver(job, r.placement, i + 1, times[i] + limit)) {
        return { start: times[i], placement: r.placement };
      }
    }
    return undefined;
  }
}
