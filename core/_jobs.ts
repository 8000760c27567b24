// Creating job records (with their run time chosen once, at creation),
// storing them, and submitting them to the scheduler.

import type { Working } from "./_engine.ts";
import { EvtsimError } from "./errors.ts";
import { checkTimeBound, describeValue, MAX_EXACT } from "./_input_check.ts";
import { drawRunTime } from "./_run_time_draws.ts";
import { RngCursor } from "./rng.ts";
// A record's own copy of a demand, frozen like the record (policies and the
// resource model read it; the caller's object stays theirs).
import { frozenDemand } from "./_demand_shape.ts";
import type { JobRecord, JobSpec } from "./types.ts";

/** Limits the shell supplies for an append, from facts the core cannot read. */
export interface AppendLimits {
  /** Largest store capacity the shell allows growing to (memory pressure). */
  readonly maxCapacity?: number;
}

/**
 * Throws an input error naming `where` unless `spec` is a job spec: an object
 * with finite, non-negative (the submit time may be negative) numbers of at
 * most 2^53 − 1 (larger values are not held exactly), an integer node count,
 * an optional integer priority and an optional string queue. `where` may be
 * a function: it is called only to build a message.
 */
export function checkJobSpec(spec: JobSpec, where: string | (() => string)): void {
  if (isJobSpec(spec)) return;
  throw jobSpecError(spec, typeof where === "string" ? where : where());
}

// The common case costs a few comparisons; messages are built only on failure.
function isJobSpec(spec: JobSpec): boolean {
  return typeof spec === "object" && spec !== null && !Array.isArray(spec) &&
    Number.isFinite(spec.submitTime) && Math.abs(spec.submitTime) <= MAX_EXACT &&
    Number.isSafeInteger(spec.numNodes) && spec.numNodes >= 0 &&
    Number.isFinite(spec.timeLimit) && spec.timeLimit >= 0 && spec.timeLimit <= MAX_EXACT &&
    (spec.actualRunTime === undefined ||
      (Number.isFinite(spec.actualRunTime) && spec.actualRunTime >= 0 &&
        spec.actualRunTime <= MAX_EXACT)) &&
    (spec.queue === undefined || typeof spec.queue === "string") &&
    (spec.priority === undefined || Number.isSafeInteger(spec.priority)) &&
    (spec.power === undefined || isWatts(spec.power));
}

const isWatts = (p: unknown): boolean =>
  typeof p === "number" && Number.isFinite(p) && p >= 0 && p <= MAX_EXACT;

// The error for a job spec that failed checkJobSpec: the first field at fault.
function jobSpecError(spec: JobSpec, where: string): EvtsimError {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    return new EvtsimError(
      "input",
      `${where}: expected a job spec object, got ${describeValue(spec)}`,
    );
  }
  const bad = (what: string, v: unknown, expected: string) =>
    new EvtsimError("input", `${where}: ${what} must be ${expected}, got ${describeValue(v)}`);
  const exact = "of at most 2^53 - 1";
  if (!Number.isFinite(spec.submitTime) || Math.abs(spec.submitTime) > MAX_EXACT) {
    return bad("submit time", spec.submitTime, `a finite number ${exact}`);
  }
  if (!Number.isSafeInteger(spec.numNodes) || spec.numNodes < 0) {
    return bad("node count", spec.numNodes, `a non-negative integer ${exact}`);
  }
  if (!(Number.isFinite(spec.timeLimit) && spec.timeLimit >= 0 && spec.timeLimit <= MAX_EXACT)) {
    return bad("time limit", spec.timeLimit, `a non-negative number ${exact}`);
  }
  const actual = spec.actualRunTime;
  if (actual !== undefined && !(Number.isFinite(actual) && actual >= 0 && actual <= MAX_EXACT)) {
    return bad("actual run time", actual, `a non-negative number ${exact}`);
  }
  if (spec.queue !== undefined && typeof spec.queue !== "string") {
    return bad("queue", spec.queue, "a string");
  }
  if (spec.priority !== undefined && !Number.isSafeInteger(spec.priority)) {
    return bad("priority", spec.priority, "an integer");
  }
  return bad("power", spec.power, `a non-negative number of watts ${exact}`);
}

// With configured queues a job must name one of them; one naming none goes
// to the first queue.
function checkQueue(w: Working, spec: JobSpec, where: () => string): void {
  if (w.queues.list.length === 0 || spec.queue === undefined) return;
  if (!w.queues.byName.has(spec.queue)) {
    throw new EvtsimError(
      "input",
      `${where()}: unknown queue '${spec.queue}' (defined: ${
        w.queues.list.map((q) => q.def.name).join(", ")
      })`,
    );
  }
}

function queueOf(w: Working, spec: JobSpec): string | undefined {
  if (spec.queue !== undefined || w.queues.list.length === 0) return spec.queue;
  return w.queues.list[0].def.name;
}

function chooseRunTime(w: Working, spec: JobSpec, g: RngCursor | undefined, id: number): number {
  const c = w.config;
  const limit = spec.timeLimit;
  switch (c.runTimeMode) {
    case "actual":
      return spec.actualRunTime ?? limit;
    case "limit":
    case "external": // planned with the limit; the caller ends the job
      return limit;
    case "distribution": {
      if (limit <= 0) return 0;
      const x = drawRunTime(g!, c.runTimeDistribution, limit, c.runTimeScale, c.runTimeStddev);
      // Only a uniform draw can pass the limit: L·(scale + stddev) can be huge.
      if (!(x <= MAX_EXACT)) {
        throw new EvtsimError(
          "input",
          `job ${id}: drawn run time ${x} s is more than 2^53 - 1 s (time limit ${limit} s; lower the run time scale or stddev)`,
        );
      }
      return x;
    }
  }
}

// A demand a resource model can read: positive integer replicas, and
// non-negative integer units per replica.
function isDemand(d: unknown): boolean {
  if (typeof d !== "object" || d === null) return false;
  const { replicas, perReplica, topologyKey } = d as Record<string, unknown>;
  if (!Number.isSafeInteger(replicas) || (replicas as number) <= 0) return false;
  if (topologyKey !== undefined && typeof topologyKey !== "string") return false;
  if (typeof perReplica !== "object" || perReplica === null) return false;
  for (const v of Object.values(perReplica)) {
    if (!Number.isSafeInteger(v) || (v as number) < 0) return false;
  }
  return true;
}

/**
 * Creates records for `specs` (ids `nextJobId`, `nextJobId + 1`, …) and stores
 * them, reclaiming the written front first and growing or refusing per the
 * overflow policy. When `submit` is set every job is also submitted at its
 * own submit time. Throws without side effects on any invalid job.
 */
export function appendJobs(
  w: Working,
  specs: readonly JobSpec[],
  submit: boolean,
  limits: AppendLimits = {},
): number[] {
  if (w.finished) throw new EvtsimError("state", "the simulation has finished");
  const queued = w.queues.list.length > 0;
  const model = w.resourceModel;
  for (let i = 0; i < specs.length; i++) {
    if (!isJobSpec(specs[i])) throw jobSpecError(specs[i], `job ${w.nextJobId + i}`);
    if (model !== undefined && !isDemand(specs[i].demand)) {
      throw new EvtsimError(
        "input",
        `job ${
          w.nextJobId + i
        }: resource model ${model.name} needs a demand (a positive integer replicas and perReplica units), got ${
          describeValue(specs[i].demand)
        }`,
      );
    }
    if (queued) checkQueue(w, specs[i], () => `job ${w.nextJobId + i}`);
    if (submit) {
      if (i > 0 && specs[i].submitTime < specs[i - 1].submitTime) {
        throw new EvtsimError(
          "input",
          `job ${w.nextJobId + i}: batch is not sorted by submit time (${
            specs[i].submitTime
          } after ${specs[i - 1].submitTime})`,
        );
      }
      if (specs[i].submitTime < w.time) {
        throw new EvtsimError(
          "time",
          `job ${w.nextJobId + i}: submit time ${
            specs[i].submitTime
          } is before the clock ${w.time}`,
        );
      }
    }
  }
  reserve(w, specs.length, limits);
  const ids: number[] = [];
  const created: JobRecord[] = [];
  // One cursor per batch: the generator's words are copied at most once per twist.
  const g = w.config.runTimeMode === "distribution" ? RngCursor.from(w.rng) : undefined;
  // The computed times' bound (TimeBound, core/state.ts); a drawn end may round up a second.
  let latest = w.timeBound.latestInput;
  let spans = w.timeBound.jobSpans;
  const rounding = g === undefined ? 0 : 1;
  for (const spec of specs) {
    const id = w.nextJobId++;
    ids.push(id);
    const rec: JobRecord = {
      id,
      submitTime: spec.submitTime,
      numNodes: spec.numNodes,
      timeLimit: spec.timeLimit,
      runTime: chooseRunTime(w, spec, g, id),
      queue: queueOf(w, spec),
      priority: spec.priority ?? 0,
      user: spec.user,
      account: spec.account,
      beginTime: -1,
      endTime: -1,
      rejected: false,
      hidden: false,
      unsubmitted: !submit,
      outcome: undefined,
      exitStatus: undefined,
    };
    // Only jobs with a demand carry one: the records of every other run keep their shape.
    const withDemand = spec.demand === undefined
      ? rec
      : { ...rec, demand: frozenDemand(spec.demand) };
    created.push(spec.power === undefined ? withDemand : { ...withDemand, power: spec.power });
    if (submit && spec.submitTime > latest) latest = spec.submitTime;
    spans += (rec.runTime > rec.timeLimit ? rec.runTime : rec.timeLimit) + rounding;
    if (latest + spans > MAX_EXACT) checkTimeBound(latest, spans, `job ${id}`);
  }
  w.timeBound = Object.freeze({ latestInput: latest, jobSpans: spans });
  if (g !== undefined) w.rng = g.state();
  w.pushRecords(created);
  w.stats.jobsCreated += specs.length;
  if (submit) {
    const accepted: JobRecord[] = [];
    for (const r of created) submitRecord(w, r, accepted);
    w.arrivals = w.arrivals.addAll(accepted);
  }
  return ids;
}

/**
 * Makes room for `n` more records: reclaims the written front, then grows or
 * refuses per the overflow policy and the shell's limit. Also used by replay.
 */
export function reserve(w: Working, n: number, limits: AppendLimits): void {
  const cap = w.store.capacity;
  const max = limits.maxCapacity;
  if (cap === 0) {
    // An unbounded store grows with every append, so a memory limit bounds its size.
    if (max === undefined || w.store.records.size + n <= max) return;
    w.reclaimFront();
    if (w.store.records.size + n > max) throw memoryPressure(w.store.records.size + n, max);
    return;
  }
  if (w.store.records.size + n <= cap) return;
  w.reclaimFront();
  if (w.store.records.size + n <= cap) return;
  const needed = w.store.records.size + n;
  if (w.config.jobStoreOverflow === "abort") {
    throw new EvtsimError(
      "capacity",
      `job store full: ${w.store.records.size} records held after reclaiming, ${n} more requested, capacity ${cap} (job store overflow: abort)`,
    );
  }
  let grown = cap;
  while (grown < needed) grown *= 2;
  if (max !== undefined && grown > max) throw memoryPressure(grown, max);
  w.store.capacity = grown;
}

function memoryPressure(records: number, max: number): EvtsimError {
  return new EvtsimError(
    "capacity",
    `job store growth to ${records} records refused under memory pressure (limit ${max} records); nothing was appended`,
  );
}

/** Submits a stored, not yet submitted job at `submitTime` (≥ the clock). */
export function submitJob(w: Working, id: number, submitTime: number): void {
  if (w.finished) throw new EvtsimError("state", "the simulation has finished");
  const index = id - w.store.firstId;
  const rec = Number.isInteger(id) && index >= 0 ? w.store.records.get(index) : undefined;
  if (rec === undefined) {
    throw new EvtsimError("state", `job ${id} is not in the job store`);
  }
  if (!rec.unsubmitted) throw new EvtsimError("state", `job ${id} has already been submitted`);
  if (!Number.isFinite(submitTime) || Math.abs(submitTime) > MAX_EXACT) {
    throw new EvtsimError(
      "time",
      `job ${id}: submit time must be a finite number of at most 2^53 - 1, got ${submitTime}`,
    );
  }
  if (submitTime < w.time) {
    throw new EvtsimError(
      "time",
      `job ${id}: submit time ${submitTime} is before the clock ${w.time}`,
    );
  }
  const latest = Math.max(w.timeBound.latestInput, submitTime);
  checkTimeBound(latest, w.timeBound.jobSpans, `job ${id}`);
  w.timeBound = Object.freeze({ latestInput: latest, jobSpans: w.timeBound.jobSpans });
  const submitted: JobRecord = { ...rec, submitTime, unsubmitted: false };
  w.replaceRecord(submitted);
  submitRecord(w, submitted);
}

// Submits one record; accepted ones go to `batch` when given (added to the
// arrival queue in one go by the caller), else straight into the queue.
function submitRecord(w: Working, rec: JobRecord, batch?: JobRecord[]): void {
  if (rec.numNodes > w.config.totalNodes) {
    const rejected = { ...rec, rejected: true };
    w.replaceRecord(rejected);
    w.stats.jobsRejected++;
    w.notices.push({
      kind: "rejected",
      jobId: rec.id,
      numNodes: rec.numNodes,
      totalNodes: w.config.totalNodes,
    });
    return;
  }
  if (batch !== undefined) batch.push(rec);
  else w.arrivals = w.arrivals.add(rec);
}
