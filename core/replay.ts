// Replay of a recorded schedule. Recorded begin and end times are
// authoritative and no scheduler is ever asked: each job's start and end
// become resource events, processed with the same accounting, rows and
// statistics as a simulation. The total node count only changes the free
// count; a schedule that over-allocates is reported once and replay goes on.
//
// Ordering within one instant t (the simulation's order, so that replaying a
// simulated schedule reproduces its resource rows):
//   1. ends of jobs that began before t, by job id;
//   2. capacity changes at t;
//   3. starts at t, in the order the configured priority policy starts them
//      (core/_replay_order.ts);
//   4. ends of zero-length jobs (begin = end = t), by job id. In the
//      simulation they fire after the scheduling pass that started them and
//      may free nodes for a second pass at t, which a record cannot show;
//      replay applies them as late as possible but before any start that
//      would not fit without them.
// An instant is processed only once every job submitted at or before it is
// known (a later submit time arrived, or the caller advanced the clock),
// because a job submitted at t may start at t ahead of earlier jobs.
//
// Warm start (config.startTime = T): jobs submitted before T come first.
// A job running at T (begin < T < end) becomes a hidden record that holds
// its nodes from T and ends at its recorded end; it is never written and
// never counted. A job that ended by T (end <= T) holds nothing at T and is
// dropped; a job submitted before T that began at or after T is excluded.
// The baseline row at T shows the initial occupancy (free = capacity − held).

import type { Working } from "./_engine.ts";
import { type AppendLimits, checkJobSpec, reserve } from "./_jobs.ts";
import { OrderedSet } from "./_ordered_set.ts";
import { orderSameTimeStarts } from "./_replay_order.ts";
import type { RunMode } from "./_run_mode.ts";
import { EvtsimError } from "./errors.ts";
import { runningJob } from "./running.ts";
import type { ResourceEvent } from "./state.ts";
import type { JobRecord, RecordedJob } from "./types.ts";

/**
 * The schedule replay's run mode (core/_run_mode.ts): jobs come with their
 * recorded times (`replayJobs`), instants are processed as described above,
 * no policy is asked, and jobs to schedule and live events are refused.
 */
export const REPLAY_SCHEDULE: RunMode = Object.freeze({
  name: "replay-schedule",
  decides: false,
  checkInput: (_w: Working, kind: string) => {
    if (kind === "appendJobs" || kind === "submitJob") {
      throw new EvtsimError("state", `a replay state takes replayJobs input, not ${kind}`);
    }
  },
  replayJobs: (w: Working, jobs: readonly RecordedJob[], limits: AppendLimits) =>
    replayJobs(w, jobs, limits),
  advance: (w: Working, target: number, inclusive: boolean) => replayAdvance(w, target, inclusive),
  finish: () => {},
  waitingJobs: () => 0,
});

/**
 * Replays recorded jobs (sorted by submit time; a submit time may be split
 * across calls). For each job, every instant before its submit time is
 * processed, then the ends at its submit time; the nodes then in use are
 * emitted as its submission row; its record is stored and its start and end
 * events are queued. The clock moves to the job's submit time. Throws
 * `EvtsimError` on a malformed or out-of-order job.
 */
export function replayJobs(
  w: Working,
  jobs: readonly RecordedJob[],
  limits: AppendLimits = {},
): void {
  if (w.finished) throw new EvtsimError("state", "the simulation has finished");
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i];
    const where = `replayed job ${i}`;
    checkRecorded(job, where);
    if (i > 0 && job.submitTime < jobs[i - 1].submitTime) {
      throw new EvtsimError(
        "input",
        `${where}: batch is not sorted by submit time (${job.submitTime} after ${
          jobs[i - 1].submitTime
        })`,
      );
    }
    if (job.submitTime < w.config.startTime) warmStartJob(w, job, where, limits);
    else replayOne(w, job, where, limits);
  }
}

/**
 * Processes every instant up to `target` (inclusive or exclusive) in replay
 * mode, like `Working.advance` does for a simulation; with a finite
 * inclusive target the clock ends at `target`.
 */
export function replayAdvance(w: Working, target: number, inclusive: boolean): void {
  if (!w.acceptsTarget(target, inclusive)) return;
  sealWarmStart(w);
  processInstants(w, target, inclusive);
  if (inclusive && target !== Infinity) w.time = target;
}

function checkRecorded(job: RecordedJob, where: string): void {
  checkJobSpec(job, where);
  for (const [name, v] of [["begin", job.beginTime], ["end", job.endTime]] as const) {
    if (!Number.isFinite(v)) {
      throw new EvtsimError("input", `${where}: ${name} time must be a finite number, got ${v}`);
    }
  }
  if (job.submitTime > job.beginTime || job.beginTime > job.endTime) {
    const why = job.submitTime > job.beginTime ? "submit > begin" : "begin > end";
    throw new EvtsimError("input", `${where}: job event times are incorrect (${why})`);
  }
}

function replayOne(w: Working, job: RecordedJob, where: string, limits: AppendLimits): void {
  const s = job.submitTime;
  if (s < w.time) {
    throw new EvtsimError("time", `${where}: submit time ${s} is before the clock ${w.time}`);
  }
  sealWarmStart(w);
  processInstants(w, s, false);
  releaseEarlierJobsAt(w, s);
  w.time = s;
  reserve(w, 1, limits);
  const rec = newRecord(w, job, false);
  w.submissionRows.push({ jobId: rec.id, submitTime: s, nodesBusy: w.allocatedNodes });
  w.stats.jobsCreated++;
  w.arrivals = w.arrivals.add(rec);
  w.events = w.events.add(event(rec, job, 1)).add(event(rec, job, 0));
}

function warmStartJob(w: Working, job: RecordedJob, where: string, limits: AppendLimits): void {
  const start = w.config.startTime;
  if (!atBaseline(w)) {
    throw new EvtsimError(
      "time",
      `${where}: submit time ${job.submitTime} is before the start time ${start}, but jobs from the start time on have already been replayed`,
    );
  }
  if (job.beginTime >= start || job.endTime <= start) return;
  reserve(w, 1, limits);
  const rec = newRecord(w, job, true);
  w.running = w.running.add(runningJob(rec.id, rec.numNodes, rec.timeLimit, job.beginTime));
  w.events = w.events.add(event(rec, job, 0));
  w.allocatedNodes += rec.numNodes;
  // The baseline row (the only one buffered) shows the occupancy so far.
  w.resourceBuffer.set(0, {
    time: start,
    freeNodes: w.capacity - w.allocatedNodes,
    allocatedNodes: w.allocatedNodes,
  });
}

// Nothing but warm-start jobs has been replayed and the baseline row is
// still buffered, so the initial occupancy can still change.
function atBaseline(w: Working): boolean {
  const b = w.resourceBuffer;
  return w.time === w.config.startTime && w.stats.jobsCreated === 0 &&
    w.resourceBufferLength === 1 && b.size === 1 && b.get(0)!.time === w.config.startTime;
}

// The warm-start occupancy is final once anything else happens; an
// over-allocation it causes is reported at the start time with its full size.
function sealWarmStart(w: Working): void {
  if (w.allocatedNodes > 0 && atBaseline(w)) w.checkOverallocation(w.config.startTime);
}

function newRecord(w: Working, job: RecordedJob, hidden: boolean): JobRecord {
  const rec: JobRecord = {
    id: w.nextJobId++,
    submitTime: job.submitTime,
    numNodes: job.numNodes,
    timeLimit: job.timeLimit,
    runTime: job.endTime - job.beginTime,
    queue: job.queue,
    priority: job.priority ?? 0,
    user: job.user,
    account: job.account,
    beginTime: -1,
    endTime: -1,
    rejected: false,
    hidden,
    unsubmitted: false,
    outcome: undefined,
    exitStatus: undefined,
  };
  w.pushRecords([rec]);
  return rec;
}

function event(rec: JobRecord, job: RecordedJob, kind: 0 | 1): ResourceEvent {
  return {
    time: kind === 0 ? job.endTime : job.beginTime,
    kind,
    id: rec.id,
    numNodes: rec.numNodes,
    beginTime: job.beginTime,
    timeLimit: rec.timeLimit,
  };
}

// ---- event processing -----------------------------------------------------

function processInstants(w: Working, limit: number, inclusive: boolean): void {
  const schedule = w.config.capacitySchedule;
  for (;;) {
    const e = w.events.first();
    const eventTime = e === undefined ? Infinity : e.time;
    const capacityTime = w.capacityIndex < schedule.length
      ? schedule[w.capacityIndex].time
      : Infinity;
    const next = Math.min(eventTime, capacityTime);
    if (next === Infinity) break;
    if (inclusive ? next > limit : next >= limit) break;
    w.time = next;
    processInstant(w, next);
  }
}

// Ends at `t` of jobs that began before `t`: every such job is already known
// when the first job submitted at `t` arrives, and they come first at `t`.
function releaseEarlierJobsAt(w: Working, t: number): void {
  const ends: ResourceEvent[] = [];
  for (const e of w.events.values()) {
    if (e.time !== t || e.kind !== 0) break;
    if (e.beginTime < t) ends.push(e);
  }
  if (ends.length === 0) return;
  // Deleted after the walk: the step's event set is edited in place.
  for (const e of ends) w.events = w.events.delete(e);
  processEnds(w, ends, t);
}

function processInstant(w: Working, t: number): void {
  const ends: ResourceEvent[] = [];
  const zeroEnds = new Map<number, ResourceEvent>();
  const starts: ResourceEvent[] = [];
  for (let e = w.events.first(); e !== undefined && e.time === t; e = w.events.first()) {
    w.events = w.events.deleteFirst();
    if (e.kind === 1) starts.push(e);
    else if (e.beginTime < t) ends.push(e);
    else zeroEnds.set(e.id, e);
  }
  processEnds(w, ends, t);
  applyCapacityChanges(w, t);
  let ready: ResourceEvent[] = [];
  for (const e of orderStarts(w, starts)) {
    if (ready.length > 0 && w.capacity - w.allocatedNodes < e.numNodes) {
      processEnds(w, ready, t);
      ready = [];
    }
    startRecorded(w, e, t);
    const end = zeroEnds.get(e.id);
    if (end !== undefined) {
      zeroEnds.delete(e.id);
      ready.push(end);
    }
  }
  processEnds(w, [...ready, ...zeroEnds.values()], t);
}

// Applies end events through the engine's own end path (record, statistics,
// reclamation), in event order, leaving the other pending events in place.
function processEnds(w: Working, ends: readonly ResourceEvent[], t: number): void {
  if (ends.length === 0) return;
  const pending = w.events;
  let batch = OrderedSet.empty(w.events.spec).transient(w.owner);
  for (const e of ends) batch = batch.add(e);
  w.events = batch;
  w.processEventsAt(t);
  w.events = pending;
}

function applyCapacityChanges(w: Working, t: number): void {
  const schedule = w.config.capacitySchedule;
  while (w.capacityIndex < schedule.length && schedule[w.capacityIndex].time <= t) {
    w.capacity = schedule[w.capacityIndex].capacity;
    w.capacityIndex++;
  }
}

function recordOf(w: Working, id: number): JobRecord {
  const rec = w.store.records.get(id - w.store.firstId);
  if (rec === undefined || id < w.store.firstId) {
    throw new EvtsimError("state", `job ${id} started but its record is not in the job store`);
  }
  return rec;
}

function orderStarts(w: Working, starts: ResourceEvent[]): ResourceEvent[] {
  if (starts.length < 2) return starts;
  const byId = new Map(starts.map((e) => [e.id, e]));
  const records = starts.map((e) => recordOf(w, e.id));
  const waiting: OrderedSet<JobRecord> = w.arrivals;
  return orderSameTimeStarts(w.config.priorityPolicy, records, waiting).map((r) => byId.get(r.id)!);
}

function startRecorded(w: Working, e: ResourceEvent, t: number): void {
  w.arrivals = w.arrivals.delete(recordOf(w, e.id));
  w.running = w.running.add(runningJob(e.id, e.numNodes, e.timeLimit, e.beginTime));
  w.stats.jobsStarted++;
  w.allocate(e.numNodes, t);
}
