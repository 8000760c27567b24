// The event loop. A `Working` copy is built from a state at the start of a
// step, updated in place, and frozen into the next state at the end, each
// edited field through its copy-on-write protocol (core/_cow.ts,
// core/_draft_fields.ts). Its persistent structures are transient while the
// step runs: each step has its own edit token, nodes (and job-store chunks)
// created under it are changed in place, and nodes an earlier state can
// reach are copied once, then owned.
// The arrivals, the running set and the event queue are updated by the
// hundred in a step that feeds a batch of jobs: they may switch to a sorted
// array for the step (OrderedSet's scratch form), which the next state shares
// and the next step copies before changing it.
// Freezing ends the editing, so a state once returned never changes.

import { DEFAULT_RESOURCE_HISTORY_CAPACITY, DEFAULT_UNBOUNDED_FLUSH_INTERVAL } from "./config.ts";
import type { DecisionRow } from "./decisions.ts";
import { EvtsimError } from "./errors.ts";
import { checkInterrupt } from "./_interrupt.ts";
import { defaultExitStatus } from "./live.ts";
import { preemptive, type QueueState } from "./queues.ts";
import { drawnEndTime } from "./_run_time_draws.ts";
import type { Placement, ResourceModel } from "./resource_model.ts";
import { runningJob, runningKey } from "./running.ts";
import type { ResourceEvent, SimState } from "./state.ts";
import { addCompletion, addEarlyEnd } from "./statistics.ts";
import type {
  CapacityChange,
  JobOutcome,
  JobRecord,
  JobRow,
  Notice,
  ResourceRow,
  StepRows,
  SubmissionRow,
} from "./types.ts";
import { applyLiveEventsAt, applyNodeChangesAt } from "./_live.ts";
import { runRound } from "./_session.ts";
import { policyFailure } from "./_policy_faults.ts";
import { endOnFailedNodes } from "./_failures.ts";
import { preemptOnce, stopAtGraceEnd } from "./_preemption.ts";
import { settleGraces } from "./_grace.ts";
import { addResumedCompletion, resumed } from "./_suspension.ts";
import { machineDraw, nextCapChange, powerCapped, powerModelOn, PowerTally } from "./_power.ts";
import { own } from "./_cow.ts";
import { closeDraft, DraftBase, EDITS, type ResourceDraft } from "./_draft_fields.ts";

export type { WorkingStore } from "./_draft_fields.ts";

// The draft's fields (config, time, capacity, the event queue, …, and the
// step's edit token `owner`) are declared once, in core/_draft_fields.ts,
// with the names and types of `SimState`, and filled by `DraftBase`; the
// edited ones change through their copy-on-write protocol (core/_cow.ts).

/** Mutable scratch copy of a SimState for the duration of one step. */
export class Working extends DraftBase {
  /** Drawn run times: end times follow DR_EVT's float-fraction arithmetic. */
  private readonly drawn: boolean;
  /** DR_EVT's capacity rules (`capacitySemantics: "drevt"`). */
  readonly drevtCapacity: boolean;
  /**
   * Resource rows show allocation beyond capacity as negative free nodes:
   * DR_EVT's capacity rules, and a replayed schedule (which may over-allocate).
   */
  private readonly negativeFree: boolean;
  /** No resource rows are made (`resourceRows: false`: their reader drops them). */
  readonly noResourceRows: boolean;
  /** A power model is configured (core/_power.ts): resource rows carry the draw. */
  readonly powered: boolean;
  /** A power cap is configured: starts are checked against it (core/_session.ts). */
  readonly capped: boolean;

  readonly jobRows: JobRow[] = [];
  readonly resourceRows: ResourceRow[] = [];
  readonly notices: Notice[] = [];
  /** Replay only (core/replay.ts); stays empty in simulation. */
  readonly submissionRows: SubmissionRow[] = [];
  readonly decisionRows: DecisionRow[] = [];
  /** The configuration's resource model (undefined: the node-count pool alone). */
  readonly resourceModel: ResourceModel | undefined;
  /**
   * With a power model, this step's tally of the running jobs' draw
   * (core/_power.ts), made on first use and kept at each start and end;
   * not part of the state, so snapshots are unchanged.
   */
  #powerTally: PowerTally | undefined = undefined;

  constructor(s: SimState) {
    super(s);
    // Only the ends of jobs the engine starts use it: a schedule replay starts none.
    this.drawn = s.config.runTimeMode === "distribution";
    this.drevtCapacity = s.config.capacitySemantics === "drevt";
    this.negativeFree = this.drevtCapacity || !s.runMode.decides;
    this.noResourceRows = s.config.resourceRows === false;
    // A schedule replay keeps its recorded times: no power is modelled there.
    this.powered = s.runMode.decides && powerModelOn(s.config);
    this.capped = this.powered && powerCapped(s.config);
    this.resourceModel = s.resources?.model;
  }

  /** The next state. */
  freeze(): SimState {
    return Object.freeze(closeDraft(this));
  }

  /** This step's tally of the running jobs for the draw (core/_power.ts). */
  powerTally(): PowerTally {
    return this.#powerTally ??= new PowerTally(this);
  }

  /** The state of the resource model's resources (undefined without a model). */
  get resourceState(): unknown {
    return this.resources?.state;
  }

  /** The resource model's state, this step's own (opened on the first change). */
  private ownResources(): ResourceDraft {
    // Called only with a resource model, so the draft exists.
    return own(this, "resources", EDITS.resources) as ResourceDraft;
  }

  /** What this step emitted. */
  rows(): StepRows {
    return {
      jobs: this.jobRows,
      resources: this.resourceRows,
      notices: this.notices,
      submissions: this.submissionRows,
      decisions: this.decisionRows,
    };
  }

  /**
   * The error for a picker hook that threw: `policy 'NAME' failed at t=T`
   * (an `EvtsimError` it threw passes unchanged).
   */
  pickerFailed(e: unknown): EvtsimError {
    return policyFailure(this.picker.name, this.time, e);
  }

  /** Jobs waiting with the picker (arrived, not started). */
  waitingCount(): number {
    try {
      return this.runMode.waitingJobs(this);
    } catch (e) {
      throw this.pickerFailed(e);
    }
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
    const changed = applyLiveEventsAt(this, this.time);
    if (synced || changed || !this.sampled) {
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
      const nextLive = this.liveEvents.first();
      const liveTime = nextLive === undefined ? Infinity : nextLive.time;
      const wakeTime = this.admission.wakeTime === undefined ? Infinity : this.wakeTime();
      const capTime = this.capped ? nextCapChange(this.config, this.time) : Infinity;
      const next = Math.min(eventTime, arrivalTime, capacityTime, liveTime, wakeTime, capTime);
      if (next === Infinity) break;
      if (inclusive ? next > target : next >= target) break;
      // A capacity change with nothing left to run cannot change any row;
      // running to completion must not move the clock just to apply it.
      if (
        target === Infinity && eventTime === Infinity && arrivalTime === Infinity &&
        liveTime === Infinity && this.waitingCount() === 0
      ) break;

      checkInterrupt();
      this.time = next;
      const arrived = this.syncArrivals();
      // Capacity first, so rows written at this instant show the new capacity.
      let released = capacityTime === next && this.applyCapacityChanges(next);
      // A machine's live node changes too (core/_live.ts): the same rows as scheduled ones.
      if (liveTime === next) released = applyNodeChangesAt(this, next) || released;
      if (eventTime === next) released = this.processEventsAt(next) || released;
      if (liveTime === next) released = applyLiveEventsAt(this, next) || released;
      if (capTime === next) released = this.capChanged() || released;
      if (arrived || released || wakeTime === next) {
        this.scheduleUntilStalled();
        this.sampleQueue();
      }
    }
    if (inclusive && target !== Infinity) this.time = target;
  }

  /**
   * The power cap changed at the clock: which jobs are held may change with
   * it, so a policy's memory starts again from `init()` (as after a capacity
   * change); a round is due if anyone waits.
   */
  private capChanged(): boolean {
    if (this.admission.init !== undefined) this.admissionMemory = this.admission.init();
    return this.waitingCount() > 0;
  }

  /** When the admission policy asked for its next session (Infinity: none, or nobody waits). */
  private wakeTime(): number {
    if (this.waitingCount() === 0) return Infinity;
    const t = this.admission.wakeTime!(this.admissionMemory);
    return t > this.time ? t : Infinity;
  }

  /**
   * Jobs still waiting when nothing else can happen only fit capacity that
   * never comes back (a capacity schedule cut it for good): the final output
   * says so instead of leaving them out of the schedule silently.
   */
  reportStranded(): void {
    const waiting = this.waitingCount();
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
      try {
        this.pickerState = this.picker.onJobPush(this.pickerState, job);
      } catch (e) {
        throw this.pickerFailed(e);
      }
      moved = true;
    }
    return moved;
  }

  sampleQueue(): void {
    const n = this.waitingCount();
    const s = this.stats;
    s.queueSamples++;
    s.queueSampleSum += n;
    if (n > s.queueSampleMax) s.queueSampleMax = n;
  }

  private applyCapacityChanges(now: number): boolean {
    const schedule = this.config.capacitySchedule;
    let roundDue = false;
    while (this.capacityIndex < schedule.length && schedule[this.capacityIndex].time <= now) {
      const change = schedule[this.capacityIndex];
      roundDue = this.setCapacity(change.capacity, now, change) || roundDue;
      this.capacityIndex++;
    }
    return roundDue;
  }

  /**
   * Sets the usable capacity now (the schedule's or a live change); true
   * when jobs wait and it rose, or a kill freed nodes.
   */
  setCapacity(capacity: number, now: number, nodes?: CapacityChange): boolean {
    // A machine's nodes going offline or back (by name, through the resource model).
    const cut = nodes?.down !== undefined && nodes.down.length > 0 &&
      this.setOnline(nodes.down, false);
    // Failed nodes go offline too (a node already down for maintenance may
    // fail as well: what still runs there ends all the same).
    const failed = nodes?.failed !== undefined && nodes.failed.length > 0
      ? nodes.failed
      : undefined;
    const broke = failed !== undefined && this.setOnline(failed, false);
    const back = nodes?.up !== undefined && nodes.up.length > 0 && this.setOnline(nodes.up, true);
    const raised = capacity > this.capacity || back;
    const changed = capacity !== this.capacity || cut || back || broke;
    this.capacity = capacity;
    // Which jobs are held changes with the capacity, and a policy's memory
    // (conservative_profile's reservations) may count a job now held: it
    // starts again from `init()`, as after a snapshot is restored.
    if (changed && !this.drevtCapacity && this.admission.init !== undefined) {
      this.admissionMemory = this.admission.init();
    }
    // A failure ends what runs on the failed nodes at once, never drained
    // (killed or requeued: core/_failures.ts), before a planned cut's rule.
    const hit = failed !== undefined && endOnFailedNodes(this, failed, now);
    // `kill`: the running jobs on the cut nodes end now (each end writes its row).
    const killed = this.config.onCapacityCut === "kill" &&
        ((this.allocatedNodes > capacity && this.killBeyondCapacity(now)) ||
          (cut && this.killOnOffline(now))) || hit;
    // Only while a job runs: an idle machine's capacity shows in the next
    // start's row, and a row for a change after the last job would depend
    // on how far a streaming caller happened to advance the clock.
    if (changed && !killed && this.running.size > 0) this.pushResourceRow(now);
    // A raise is a reason to schedule only if someone is waiting for it.
    return (raised || killed) && this.waitingCount() > 0;
  }

  /** Takes `names` offline or back online in the resource model; true if any changed. */
  private setOnline(names: readonly string[], online: boolean): boolean {
    const model = this.resourceModel;
    if (model?.setOnline === undefined || model.offline === undefined) {
      throw new EvtsimError(
        "usage",
        `a capacity change names nodes (${
          names[0]
        }), which needs a resource model that takes nodes offline`,
      );
    }
    const before = model.offline(this.resourceState).length;
    // Each node once: a name given twice (two failures of one node at one
    // instant) would take its units away twice.
    const once = new Set(names).size === names.length ? names : [...new Set(names)];
    const r = this.ownResources();
    r.state = model.setOnline(r.state, once, online);
    return model.offline(this.resourceState).length !== before;
  }

  /**
   * `kill`: ends every running job that holds resources on an offline node,
   * as `killed` (exit status 137). True if any ended.
   */
  private killOnOffline(now: number): boolean {
    const model = this.resourceModel!;
    const offline = new Set(model.offline!(this.resourceState));
    const victims = [...this.running.values()].filter((r) =>
      model.allocationOf?.(this.resourceState, r.id)?.some((a) => offline.has(a.nodeName))
    ).sort((a, b) => b.beginTime - a.beginTime || b.id - a.id);
    for (const r of victims) {
      this.endEarly(this.recordOf(r.id), now, "killed", defaultExitStatus("killed"));
    }
    return victims.length > 0;
  }

  /**
   * Ends running jobs, the latest started first (the least work lost; ties:
   * the highest id), until the allocation fits the capacity. Each ends as
   * `killed` (exit status 137), like a job killed at its limit.
   */
  private killBeyondCapacity(now: number): boolean {
    const victims = [...this.running.values()].sort((a, b) =>
      b.beginTime - a.beginTime || b.id - a.id
    );
    let killed = false;
    for (const r of victims) {
      if (this.allocatedNodes <= this.capacity) break;
      this.endEarly(this.recordOf(r.id), now, "killed", defaultExitStatus("killed"));
      killed = true;
    }
    return killed;
  }

  /**
   * Ends a running job at `now` before its planned end (a live end or a
   * capacity kill): its planned end event is dropped. `outcome` undefined
   * counts it as completed.
   */
  endEarly(
    rec: JobRecord,
    now: number,
    outcome: Exclude<JobOutcome, "cancelled"> | undefined,
    exitStatus: number,
  ): void {
    const begin = rec.beginTime;
    if (this.config.runTimeMode !== "external") {
      this.events = this.events.delete({
        time: rec.graceStop ?? this.endTimeOf(begin, rec.runTime),
        kind: 0,
        id: rec.id,
        numNodes: rec.numNodes,
        beginTime: begin,
        timeLimit: rec.timeLimit,
      });
    }
    this.finishRunning(rec.id, rec.numNodes, rec.timeLimit, begin, now, outcome, exitStatus);
  }

  /**
   * Takes a running job off the machine at `now` without ending it (a
   * requeue): its planned end is dropped, its nodes and resources are free
   * from `now` (a resource row), and its record is `back`, waiting again.
   */
  leaveRunning(rec: JobRecord, back: JobRecord, now: number): void {
    const begin = rec.beginTime;
    if (this.config.runTimeMode !== "external") {
      this.events = this.events.delete({
        time: rec.graceStop ?? this.endTimeOf(begin, rec.runTime),
        kind: 0,
        id: rec.id,
        numNodes: rec.numNodes,
        beginTime: begin,
        timeLimit: rec.timeLimit,
      });
    }
    // Before the resources are released: the tally reads its allocation.
    this.#powerTally?.remove(this, rec.id);
    this.running = this.running.delete(runningKey(rec.id, rec.numNodes, rec.timeLimit, begin));
    this.allocatedNodes -= rec.numNodes;
    this.pushResourceRow(now);
    const model = this.resourceModel;
    if (model !== undefined) {
      const r = this.ownResources();
      r.state = model.release(r.state, rec);
    }
    this.replaceRecord(back);
    if (this.queues.list.length > 0) this.countRunning(rec.queue, -1);
    // It counts as started again when it starts again.
    this.stats.jobsStarted--;
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

  /**
   * One scheduling round at the current time: picker sessions until one
   * starts nothing (a session may end early, e.g. DR_EVT's SJF after each
   * start, so that the picker can reorder).
   */
  scheduleUntilStalled(): void {
    if (this.waitingCount() === 0) return;
    this.round++;
    // While a preemption's grace runs, no job starts (core/_grace.ts).
    if (this.graces.length > 0 && !settleGraces(this)) return;
    for (;;) {
      if (this.admission.singleSession === true) runRound(this);
      else while (runRound(this) > 0) { /* the next session sees the new state */ }
      // Preemptive queues (core/_preemption.ts): after the policy's sessions;
      // a preemption is followed by more sessions of the same round.
      if (this.queues.list.length === 0 || !preemptive(this.queues) || !preemptOnce(this)) return;
      if (this.graces.length > 0 || this.waitingCount() === 0) return;
    }
  }

  /**
   * Starts a waiting job now: nodes, running set, end event (unless ended
   * externally), and, with a resource model, the resources of `placement`.
   */
  startJob(job: JobRecord, now: number, placement?: Placement): void {
    if (job.suspendedAt !== undefined) job = resumed(this, job, now);
    const model = this.resourceModel;
    if (model !== undefined && placement !== undefined) {
      const r = this.ownResources();
      r.state = model.allocate(r.state, job, placement);
    }
    // Frozen: admission policies read the running set's entries directly.
    const r = Object.freeze(runningJob(job.id, job.numNodes, job.timeLimit, now));
    this.running = this.running.add(r);
    this.#powerTally?.add(this, job.id);
    if (this.config.runTimeMode !== "external") {
      this.events = this.events.add({
        time: this.endTimeOf(now, job.runTime),
        kind: 0,
        id: job.id,
        numNodes: job.numNodes,
        beginTime: now,
        timeLimit: job.timeLimit,
      });
    }
    this.stats.jobsStarted++;
    if (this.queues.list.length > 0) this.countRunning(job.queue, +1);
    this.replaceRecord({ ...job, beginTime: now });
    this.allocate(job.numNodes, now);
  }

  /**
   * When a job started at `begin` ends by itself. Drawn run times end in
   * DR_EVT's single-precision fraction arithmetic (see _run_time_draws.ts).
   */
  endTimeOf(begin: number, runTime: number): number {
    return this.drawn ? drawnEndTime(begin, runTime) : begin + runTime;
  }

  /** The queue a job of this run is in (undefined without configured queues). */
  queueStateOf(job: JobRecord): QueueState | undefined {
    if (this.queues.list.length === 0 || job.queue === undefined) return undefined;
    const i = this.queues.byName.get(job.queue);
    return i === undefined ? undefined : this.queues.list[i];
  }

  /** This step's own copy of the queue table, made on first change. */
  ownQueues(): { list: QueueState[]; byName: Map<string, number> } {
    return own(this, "queues", EDITS.queues) as { list: QueueState[]; byName: Map<string, number> };
  }

  private countRunning(queue: string | undefined, delta: number): void {
    const i = queue === undefined ? undefined : this.queues.byName.get(queue);
    if (i === undefined) return;
    const t = this.ownQueues();
    t.list[i] = { def: t.list[i].def, running: t.list[i].running + delta };
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
    if (this.graces.length > 0 && stopAtGraceEnd(this, this.recordOf(e.id), e.time)) return;
    this.finishRunning(e.id, e.numNodes, e.timeLimit, e.beginTime, e.time, undefined, 0);
  }

  /**
   * Ends a running job at `end`: frees its nodes, writes the resource row,
   * completes its record and counts it. `outcome` is set for an early end
   * by the caller (failed or killed), which the averages leave out.
   */
  finishRunning(
    id: number,
    numNodes: number,
    timeLimit: number,
    beginTime: number,
    end: number,
    outcome: Exclude<JobOutcome, "cancelled"> | undefined,
    exitStatus: number,
  ): void {
    this.#powerTally?.remove(this, id);
    this.running = this.running.delete(runningKey(id, numNodes, timeLimit, beginTime));
    this.allocatedNodes -= numNodes;
    this.pushResourceRow(end);
    const rec = this.recordOf(id);
    const model = this.resourceModel;
    if (model !== undefined) {
      const r = this.ownResources();
      r.state = model.release(r.state, rec);
    }
    const done: JobRecord = outcome === undefined
      ? { ...rec, beginTime, endTime: end }
      : { ...rec, beginTime, endTime: end, outcome, exitStatus };
    this.completeRecord(done);
    if (this.runMode.decides && this.picker.onJobEnd !== undefined) {
      try {
        this.pickerState = this.picker.onJobEnd(this.pickerState, done);
      } catch (e) {
        throw this.pickerFailed(e);
      }
    }
    if (this.queues.list.length > 0) this.countRunning(rec.queue, -1);
    if (rec.hidden) return;
    if (outcome === undefined) {
      if (rec.firstBeginTime !== undefined) {
        addResumedCompletion(this.stats, rec, beginTime, end);
        return;
      }
      addCompletion(
        this.stats,
        rec.firstSubmitTime ?? rec.submitTime,
        beginTime,
        end,
        rec.numNodes,
      );
    } else {
      addEarlyEnd(this.stats, outcome, beginTime, end, rec.numNodes);
    }
  }

  /** The stored record of job `id`; throws if it has left the store. */
  recordOf(id: number): JobRecord {
    const rec = id >= this.store.firstId
      ? this.store.records.get(id - this.store.firstId)
      : undefined;
    if (rec === undefined) {
      throw new EvtsimError("state", `job ${id} is not in the job store`);
    }
    return rec;
  }

  /** Replaces a record with its final form and reclaims the written front when due. */
  completeRecord(done: JobRecord): void {
    this.replaceRecord(done);
    this.store.completedSinceFlush++;
    if (this.store.completedSinceFlush >= this.flushInterval()) this.reclaimFront();
  }

  // Stored records are frozen: pickers and admission policies are handed
  // them as they are, so a policy's write throws instead of changing what
  // the engine runs (a job's node count, its times).

  /** Replaces a record in the store (freezing it). */
  replaceRecord(rec: JobRecord): void {
    this.store.records.set(rec.id - this.store.firstId, Object.freeze(rec));
  }

  /** Appends records (ids following the last one) to the store, freezing each. */
  pushRecords(recs: readonly JobRecord[]): void {
    const records = this.store.records;
    for (const r of recs) records.push(Object.freeze(r));
  }

  private flushInterval(): number {
    if (this.config.jobFlushInterval > 0) return this.config.jobFlushInterval;
    if (this.store.capacity > 0) return this.store.capacity;
    return DEFAULT_UNBOUNDED_FLUSH_INTERVAL;
  }

  private pushResourceRow(time: number): void {
    if (this.noResourceRows) return;
    const free = this.capacity - this.allocatedNodes;
    const row: ResourceRow = {
      time,
      // Drained jobs hold nodes beyond the capacity: none of them is free
      // (DR_EVT's rule shows the difference as negative free nodes).
      freeNodes: free >= 0 || this.negativeFree ? free : 0,
      allocatedNodes: this.allocatedNodes,
    };
    // With a power model the row carries the machine's draw (core/_power.ts).
    this.resourceBuffer.push(this.powered ? { ...row, power: machineDraw(this) } : row);
    this.resourceBufferLength++;
    const cap = this.config.resourceHistoryCapacity > 0
      ? this.config.resourceHistoryCapacity
      : DEFAULT_RESOURCE_HISTORY_CAPACITY;
    if (this.resourceBufferLength >= cap) this.flushResources();
  }

  // ---- output and reclamation ---------------------------------------------

  /** Emits every buffered resource row, oldest first. */
  flushResources(): void {
    const buffer = this.resourceBuffer;
    const n = buffer.size;
    for (let i = 0; i < n; i++) this.resourceRows.push(buffer.get(i)!);
    buffer.clear();
    this.resourceBufferLength = 0;
  }

  /** Writes and drops the contiguous front of finished (or rejected) records. */
  reclaimFront(): number {
    const records = this.store.records;
    const n = records.size;
    let k = 0;
    for (; k < n; k++) {
      const rec = records.get(k)!;
      if (!rec.rejected && rec.endTime < 0) break;
      if (!rec.rejected && !rec.hidden) this.jobRows.push(jobRow(rec));
    }
    if (k > 0) {
      this.store.firstId += k;
      this.store.records.skip(k);
    }
    this.store.completedSinceFlush = 0;
    return k;
  }

  /** Final output: writes every finished record in id order and empties the store. */
  writeAllFinished(): void {
    for (const rec of this.store.records) {
      if (!rec.rejected && !rec.hidden && rec.endTime >= 0) this.jobRows.push(jobRow(rec));
    }
    this.store.firstId += this.store.records.size;
    this.store.records.clear();
    this.store.completedSinceFlush = 0;
  }
}

function jobRow(rec: JobRecord): JobRow {
  if (rec.requeues !== undefined || rec.suspensions !== undefined) return requeuedRow(rec);
  const row: JobRow = {
    jobId: rec.id,
    submitTime: rec.submitTime,
    beginTime: rec.beginTime,
    endTime: rec.endTime,
    numNodes: rec.numNodes,
    timeLimit: rec.timeLimit,
    queue: rec.queue,
  };
  return rec.outcome === undefined
    ? row
    : { ...row, outcome: rec.outcome, exitStatus: rec.exitStatus };
}

// A requeued job's row: its last run, its first submit time, its requeues.
// A suspended one's (core/_suspension.ts): from its first start to its final
// end, with its time limit as submitted.
function requeuedRow(rec: JobRecord): JobRow {
  const { requeues, firstSubmitTime, suspensions: _, ...plain } = rec;
  const row = jobRow({
    ...plain,
    submitTime: firstSubmitTime ?? rec.submitTime,
    beginTime: rec.firstBeginTime ?? rec.beginTime,
    timeLimit: rec.fullTimeLimit ?? rec.timeLimit,
  });
  const out = requeues === undefined ? row : { ...row, requeues };
  return rec.suspensions === undefined
    ? out
    : { ...out, suspendedSeconds: rec.suspendedSeconds ?? 0 };
}
