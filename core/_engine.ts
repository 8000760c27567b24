// The event loop. A `Working` copy is built from a state at the start of a
// step, updated in place (its fields are reassigned; the persistent
// structures it points to are never mutated), and frozen into the next state
// at the end. This is the "local scratch inside a pure step" the design allows.

import type { List } from "immutable";
import type { OrderedSet } from "./_ordered_set.ts";
import {
  DEFAULT_RESOURCE_HISTORY_CAPACITY,
  DEFAULT_UNBOUNDED_FLUSH_INTERVAL,
  type ResolvedConfig,
} from "./config.ts";
import { EvtsimError } from "./errors.ts";
import { drawnEndTime } from "./_run_time_draws.ts";
import type { RngState } from "./rng.ts";
import { runningJob, type RunningSet } from "./running.ts";
import type { JobStore, ResourceEvent, RowStack, SimState } from "./state.ts";
import { addCompletion, type MutableStatistics } from "./statistics.ts";
import type { JobRecord, JobRow, Notice, ResourceRow, StepRows, SubmissionRow } from "./types.ts";
import type { Scheduler } from "../schedulers/scheduler.ts";

/** Mutable scratch copy of a SimState for the duration of one step. */
export class Working {
  readonly config: ResolvedConfig;
  // deno-lint-ignore no-explicit-any
  readonly scheduler: Scheduler<any>;
  time: number;
  rng: RngState;
  nextJobId: number;
  store: JobStore;
  arrivals: OrderedSet<JobRecord>;
  queue: unknown;
  running: RunningSet;
  events: OrderedSet<ResourceEvent>;
  allocatedNodes: number;
  capacity: number;
  capacityIndex: number;
  sampled: boolean;
  resourceBuffer: RowStack | null;
  resourceBufferLength: number;
  /** This step's own copy of the accumulator, updated in place. */
  stats: MutableStatistics;
  readonly replay: boolean;
  finished: boolean;
  /** Drawn run times: end times follow DR_EVT's float-fraction arithmetic. */
  private readonly drawn: boolean;

  readonly jobRows: JobRow[] = [];
  readonly resourceRows: ResourceRow[] = [];
  readonly notices: Notice[] = [];
  /** Replay only (core/replay.ts); stays empty in simulation. */
  readonly submissionRows: SubmissionRow[] = [];
  private overallocationReported = false;

  constructor(s: SimState) {
    this.config = s.config;
    this.scheduler = s.scheduler;
    this.time = s.time;
    this.rng = s.rng;
    this.nextJobId = s.nextJobId;
    this.store = s.store;
    this.arrivals = s.arrivals;
    this.queue = s.queue;
    this.running = s.running;
    this.events = s.events;
    this.allocatedNodes = s.allocatedNodes;
    this.capacity = s.capacity;
    this.capacityIndex = s.capacityIndex;
    this.sampled = s.sampled;
    this.resourceBuffer = s.resourceBuffer;
    this.resourceBufferLength = s.resourceBufferLength;
    this.stats = { ...s.stats };
    this.replay = s.replay;
    this.finished = s.finished;
    this.drawn = !s.replay && s.config.runTimeMode === "distribution";
    this.overallocationReported = s.overallocationReported;
  }

  /** The next state. */
  freeze(): SimState {
    return Object.freeze({
      config: this.config,
      scheduler: this.scheduler,
      time: this.time,
      rng: this.rng,
      nextJobId: this.nextJobId,
      store: this.store,
      arrivals: this.arrivals,
      queue: this.queue,
      running: this.running,
      events: this.events,
      allocatedNodes: this.allocatedNodes,
      capacity: this.capacity,
      capacityIndex: this.capacityIndex,
      sampled: this.sampled,
      resourceBuffer: this.resourceBuffer,
      resourceBufferLength: this.resourceBufferLength,
      stats: Object.freeze({ ...this.stats }),
      replay: this.replay,
      finished: this.finished,
      overallocationReported: this.overallocationReported,
    });
  }

  /** What this step emitted. */
  rows(): StepRows {
    return {
      jobs: this.jobRows,
      resources: this.resourceRows,
      notices: this.notices,
      submissions: this.submissionRows,
    };
  }

  // ---- time advancement -------------------------------------------------

  /**
   * Processes everything up to `target` (inclusive or exclusive), following
   * DR_EVT's `advance_to`. With an infinite target the clock stays at the
   * last processed time; with a finite inclusive target it ends at `target`.
   */
  advance(target: number, inclusive: boolean): void {
    if (!this.acceptsTarget(target, inclusive)) return;

    const synced = this.syncArrivals();
    if (!this.replay && (synced || !this.sampled)) {
      this.scheduleUntilStalled();
      this.sampleQueue();
    }
    this.sampled = true;

    for (;;) {
      const nextEvent = this.events.first();
      const eventTime = nextEvent === undefined ? Infinity : nextEvent.time;
      const nextArrival = this.arrivals.first();
      const arrivalTime = nextArrival === undefined ? Infinity : nextArrival.submitTime;
      const capacityTime = this.capacityIndex < this.config.capacitySchedule.length
        ? this.config.capacitySchedule[this.capacityIndex].time
        : Infinity;
      const next = Math.min(eventTime, arrivalTime, capacityTime);
      if (next === Infinity) break;
      if (inclusive ? next > target : next >= target) break;
      // A capacity change with nothing left to run cannot change any row;
      // running to completion must not move the clock just to apply it.
      if (
        target === Infinity && eventTime === Infinity && arrivalTime === Infinity &&
        this.scheduler.size(this.queue) === 0
      ) break;

      this.time = next;
      const arrived = this.syncArrivals();
      // Capacity first, so rows written at this instant show the new capacity.
      let released = capacityTime === next && this.applyCapacityChanges(next);
      if (eventTime === next) released = this.processEventsAt(next) || released;
      if (!this.replay && (arrived || released)) {
        this.scheduleUntilStalled();
        this.sampleQueue();
      }
    }
    if (inclusive && target !== Infinity) this.time = target;
  }

  /**
   * Jobs still waiting when nothing else can happen only fit capacity that
   * never comes back (a capacity schedule cut it for good): the final output
   * says so instead of leaving them out of the schedule silently.
   */
  reportStranded(): void {
    const waiting = this.scheduler.size(this.queue);
    if (waiting === 0 || this.events.size > 0 || this.arrivals.size > 0) return;
    this.notices.push({
      kind: "stranded",
      time: this.time,
      waitingJobs: waiting,
      capacity: this.capacity,
    });
  }

  /**
   * Checks an advance target against the clock (throwing on a finished run,
   * NaN or a time before the clock); false when there is nothing to do (an
   * exclusive target equal to the clock).
   */
  acceptsTarget(target: number, inclusive: boolean): boolean {
    if (this.finished) throw new EvtsimError("state", "the simulation has finished");
    if (Number.isNaN(target)) throw new EvtsimError("time", "target time is not a number");
    if (target < this.time) {
      throw new EvtsimError(
        "time",
        `cannot advance backwards in time: target ${target} is before the clock ${this.time}`,
      );
    }
    return inclusive || target !== this.time;
  }

  /** Moves submitted jobs whose submit time has come into the wait queue. */
  private syncArrivals(): boolean {
    let moved = false;
    for (
      let job = this.arrivals.first();
      job !== undefined && job.submitTime <= this.time;
      job = this.arrivals.first()
    ) {
      this.arrivals = this.arrivals.deleteFirst();
      this.queue = this.scheduler.insert(this.queue, job);
      moved = true;
    }
    return moved;
  }

  private sampleQueue(): void {
    const n = this.scheduler.size(this.queue);
    const s = this.stats;
    s.queueSamples++;
    s.queueSampleSum += n;
    if (n > s.queueSampleMax) s.queueSampleMax = n;
  }

  private applyCapacityChanges(now: number): boolean {
    const schedule = this.config.capacitySchedule;
    let raised = false;
    while (this.capacityIndex < schedule.length && schedule[this.capacityIndex].time <= now) {
      const c = schedule[this.capacityIndex].capacity;
      const changed = c !== this.capacity;
      if (c > this.capacity) raised = true;
      this.capacity = c;
      this.capacityIndex++;
      // Only while a job runs: an idle machine's capacity shows in the next
      // start's row, and a row for a change after the last job would depend
      // on how far a streaming caller happened to advance the clock.
      if (changed && this.events.size > 0) this.pushResourceRow(now);
    }
    // A raise is a reason to schedule only if someone is waiting for it.
    return raised && this.scheduler.size(this.queue) > 0;
  }

  /** Applies every pending event at `now`; true if any end was processed. */
  processEventsAt(now: number): boolean {
    let released = false;
    for (let e = this.events.first(); e !== undefined && e.time <= now; e = this.events.first()) {
      this.events = this.events.deleteFirst();
      if (e.kind === 0) {
        this.endJob(e);
        released = true;
      } else {
        this.allocate(e.numNodes, e.time);
      }
    }
    return released;
  }

  /** Calls the scheduler at the current time until it starts nothing. */
  scheduleUntilStalled(): void {
    const now = this.time;
    for (;;) {
      const free = this.capacity - this.allocatedNodes;
      const result = this.scheduler.schedule(this.queue, {
        now,
        freeNodes: free > 0 ? free : 0,
        running: this.running,
      });
      if (result.start.length === 0) return;
      this.queue = result.queue;
      for (const job of result.start) this.startJob(job, now);
    }
  }

  private startJob(job: JobRecord, now: number): void {
    const r = runningJob(job.id, job.numNodes, job.timeLimit, now);
    this.running = this.running.add(r);
    this.events = this.events.add({
      time: this.drawn ? drawnEndTime(now, job.runTime) : now + job.runTime,
      kind: 0,
      id: job.id,
      numNodes: job.numNodes,
      beginTime: now,
      timeLimit: job.timeLimit,
    });
    this.stats.jobsStarted++;
    this.allocate(job.numNodes, now);
  }

  /** Allocates nodes and records a resource row. */
  allocate(nodes: number, now: number): void {
    this.allocatedNodes += nodes;
    this.checkOverallocation(now);
    this.pushResourceRow(now);
  }

  /**
   * Reports, once per run, allocation beyond the machine's total nodes (only a
   * replayed schedule can do that). Replay also calls it for a warm start's
   * initial occupancy, which is set without an allocation row.
   */
  checkOverallocation(now: number): void {
    if (this.allocatedNodes > this.config.totalNodes && !this.overallocationReported) {
      this.overallocationReported = true;
      this.notices.push({
        kind: "overallocated",
        time: now,
        allocatedNodes: this.allocatedNodes,
        totalNodes: this.config.totalNodes,
      });
    }
  }

  private endJob(e: ResourceEvent): void {
    this.running = this.running.delete(runningJob(e.id, e.numNodes, e.timeLimit, e.beginTime));
    this.allocatedNodes -= e.numNodes;
    this.pushResourceRow(e.time);
    const index = e.id - this.store.firstId;
    const records = this.store.records;
    const rec = records.get(index);
    if (rec === undefined) {
      throw new EvtsimError("state", `job ${e.id} ended but its record is not in the job store`);
    }
    const done: JobRecord = { ...rec, beginTime: e.beginTime, endTime: e.time };
    this.store = {
      ...this.store,
      records: records.set(index, done),
      completedSinceFlush: this.store.completedSinceFlush + 1,
    };
    if (!rec.hidden) {
      addCompletion(this.stats, rec.submitTime, e.beginTime, e.time, rec.numNodes);
    }
    if (this.store.completedSinceFlush >= this.flushInterval()) this.reclaimFront();
  }

  private flushInterval(): number {
    if (this.config.jobFlushInterval > 0) return this.config.jobFlushInterval;
    if (this.store.capacity > 0) return this.store.capacity;
    return DEFAULT_UNBOUNDED_FLUSH_INTERVAL;
  }

  private pushResourceRow(time: number): void {
    const row: ResourceRow = {
      time,
      freeNodes: this.capacity - this.allocatedNodes,
      allocatedNodes: this.allocatedNodes,
    };
    this.resourceBuffer = { row, next: this.resourceBuffer };
    this.resourceBufferLength++;
    const cap = this.config.resourceHistoryCapacity > 0
      ? this.config.resourceHistoryCapacity
      : DEFAULT_RESOURCE_HISTORY_CAPACITY;
    if (this.resourceBufferLength >= cap) this.flushResources();
  }

  // ---- output and reclamation ---------------------------------------------

  /** Emits every buffered resource row, oldest first. */
  flushResources(): void {
    const rows: ResourceRow[] = [];
    for (let n = this.resourceBuffer; n !== null; n = n.next) rows.push(n.row);
    for (let i = rows.length - 1; i >= 0; i--) this.resourceRows.push(rows[i]);
    this.resourceBuffer = null;
    this.resourceBufferLength = 0;
  }

  /** Writes and drops the contiguous front of finished (or rejected) records. */
  reclaimFront(): number {
    const records = this.store.records;
    let k = 0;
    for (const rec of records) {
      if (!rec.rejected && rec.endTime < 0) break;
      if (!rec.rejected && !rec.hidden) this.jobRows.push(jobRow(rec));
      k++;
    }
    this.store = {
      ...this.store,
      firstId: this.store.firstId + k,
      records: k === 0 ? records : records.skip(k) as List<JobRecord>,
      completedSinceFlush: 0,
    };
    return k;
  }

  /** Final output: writes every finished record in id order and empties the store. */
  writeAllFinished(): void {
    for (const rec of this.store.records) {
      if (!rec.rejected && !rec.hidden && rec.endTime >= 0) this.jobRows.push(jobRow(rec));
    }
    this.store = {
      ...this.store,
      firstId: this.store.firstId + this.store.records.size,
      records: this.store.records.clear(),
      completedSinceFlush: 0,
    };
  }
}

function jobRow(rec: JobRecord): JobRow {
  return {
    jobId: rec.id,
    submitTime: rec.submitTime,
    beginTime: rec.beginTime,
    endTime: rec.endTime,
    numNodes: rec.numNodes,
    timeLimit: rec.timeLimit,
    queue: rec.queue,
  };
}
