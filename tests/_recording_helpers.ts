// Random live sessions for the recording and snapshot tests: a Simulation
// (or the pure reducer) driven call by call, with events chosen against the
// state it is in — appends, cancels, early ends, job and queue updates,
// capacity changes, advances and flushes — under every registered picker
// (two of them written here: one with an indexed search, one without) and
// every admission policy.

import fc from "fast-check";
import {
  type Input,
  type JobRecord,
  type JobSpec,
  orderedPicker,
  type Picker,
  type PickerSession,
  type PolicyRegistry,
  type QueueDef,
  type SimState,
  type Simulation,
  type SimulationConfig,
  withPolicies,
} from "../mod.ts";
import { arbTrace } from "../testing/mod.ts";

const bySize = (a: JobRecord, b: JobRecord) => b.numNodes - a.numNodes || a.id - b.id;

/** A picker written here, over a plain array: no indexed search, so every admission walks. */
export const walkOnly: Picker<readonly JobRecord[]> = {
  name: "walk_only",
  init: () => [],
  onQueueUpdate: (jobs) => jobs,
  onJobPush: (jobs, job) => [...jobs, job].sort(bySize),
  onJobStateChange: (jobs, job, change) =>
    change === "pending" ? [...jobs, job].sort(bySize) : jobs.filter((j) => j.id !== job.id),
  onJobUpdate: (jobs, _before, job) => jobs.map((j) => (j.id === job.id ? job : j)).sort(bySize),
  size: (jobs) => jobs.length,
  pending: (jobs) => jobs,
  beginSession(jobs): PickerSession<readonly JobRecord[]> {
    let i = 0;
    const started = new Set<number>();
    return {
      nextJob: () => jobs[i++],
      onDispatch: (job) => void started.add(job.id),
      onPend: () => {},
      endSession: () => jobs.filter((j) => !started.has(j.id)),
    };
  },
};

/** Evtsim's pickers plus two written here. */
export const REGISTRY: PolicyRegistry = withPolicies({
  pickers: [
    orderedPicker({
      name: "smallest_first",
      compare: (a, b) => a.numNodes - b.numNodes || a.id - b.id,
    }),
    walkOnly as Picker,
  ],
});

/** Every registered picker. */
export const PICKERS = [
  "builtin_fcfs",
  "sjf",
  "ljf",
  "fairshare",
  "smallest_first",
  "walk_only",
] as const;
/** Every admission policy. */
export const ADMISSIONS = ["none", "easy", "conservative"] as const;

/** One random live session. */
export interface LivePlan {
  readonly totalNodes: number;
  readonly picker: (typeof PICKERS)[number];
  readonly backfillPolicy: (typeof ADMISSIONS)[number];
  readonly queued: boolean;
  readonly decisions: false | true | "heads";
  readonly runTimeMode: "actual" | "external" | "distribution";
  readonly store: number;
  readonly trace: JobSpec[];
  readonly stops: number[];
  readonly picks: number[];
  /** The stop at which recording starts (0: before anything) and how long it lasts. */
  readonly recordFrom: number;
  readonly recordStopsEarly: boolean;
  readonly snapshotInterval: number;
}

/** A random live session (small machines, a few dozen jobs). */
export const arbLivePlan: fc.Arbitrary<LivePlan> = fc.integer({ min: 1, max: 12 }).chain((
  totalNodes,
) =>
  fc.record({
    totalNodes: fc.constant(totalNodes),
    picker: fc.constantFrom(...PICKERS),
    backfillPolicy: fc.constantFrom(...ADMISSIONS),
    queued: fc.boolean(),
    decisions: fc.constantFrom(false as const, true as const, "heads" as const),
    runTimeMode: fc.constantFrom("actual" as const, "external" as const, "distribution" as const),
    store: fc.constantFrom(0, 3),
    // Users for the fairshare picker (some jobs have none).
    trace: arbTrace({ totalNodes, maxJobs: 30, allowOversized: true }).map((t) =>
      t.map((j, i) => (i % 4 === 3 ? j : { ...j, user: `u${(i * 7) % 3}` }))
    ),
    stops: fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 14, size: "max" }).map((
      xs,
    ) => xs.sort((a, b) => a - b)),
    picks: fc.array(fc.nat({ max: 1000 }), { minLength: 20, maxLength: 60 }),
    recordFrom: fc.nat({ max: 3 }),
    recordStopsEarly: fc.boolean(),
    snapshotInterval: fc.integer({ min: 1, max: 4 }),
  })
);

/** The configuration of a plan. */
export function configOf(p: LivePlan): SimulationConfig {
  const queues: QueueDef[] | undefined = p.queued
    ? [{ name: "a", priority: 1 }, { name: "b", maxRunning: 2 }]
    : undefined;
  return {
    totalNodes: p.totalNodes,
    picker: p.picker,
    backfillPolicy: p.backfillPolicy,
    decisions: p.decisions,
    jobStoreCapacity: p.store,
    runTimeMode: p.runTimeMode,
    ...(p.runTimeMode === "distribution"
      ? {
        runTimeDistribution: "lognormal" as const,
        runTimeScale: 0.5,
        runTimeStddev: 0.4,
        seed: 7,
      }
      : {}),
    ...(queues === undefined ? {} : { queues }),
  };
}

/** The plan's trace, with queues assigned when it has queues. */
export function traceOf(p: LivePlan): JobSpec[] {
  return p.queued ? p.trace.map((j, i) => ({ ...j, queue: i % 2 === 0 ? "a" : "b" })) : p.trace;
}

/** A tiny deterministic chooser over fast-check's numbers. */
function chooser(picks: readonly number[]) {
  let i = 0;
  return (n: number) => (n <= 0 ? 0 : picks[i++ % picks.length] % n);
}

/**
 * Drives a plan: `apply` applies an input to the live run and `state` reads
 * its state; `atStop(k)` is called before the events of stop k (and with
 * k = stops.length at the end, before the final run to completion).
 */
export function drivePlan(
  p: LivePlan,
  apply: (input: Input) => void,
  state: () => SimState,
  atStop: (k: number) => void = () => {},
): void {
  const pick = chooser(p.picks);
  const trace = traceOf(p);
  // Half of the jobs up front, the rest appended live as the clock passes them.
  const split = Math.floor(trace.length / 2);
  apply({ kind: "appendJobs", jobs: trace.slice(0, split) });
  let next = split;
  p.stops.forEach((stop, k) => {
    atStop(k);
    const later: JobSpec[] = [];
    while (next < trace.length && trace[next].submitTime < stop) later.push(trace[next++]);
    if (later.length > 0) {
      const at = state().time;
      apply({
        kind: "appendJobs",
        jobs: later.map((j) => ({ ...j, submitTime: Math.max(j.submitTime, at) }))
          .sort((a, b) => a.submitTime - b.submitTime),
      });
    }
    apply(
      pick(2) === 0 ? { kind: "runUntilExclusive", time: stop } : { kind: "advanceTo", time: stop },
    );
    if (pick(4) === 0) apply({ kind: "flush" });
    const s = state();
    const waiting = [...s.picker.pending(s.pickerState)];
    const running = s.running.toArray();
    const queues = s.queues.list.map((q) => q.def.name);
    for (let n = pick(5); n > 0; n--) {
      const time = s.time + pick(3) * 5;
      let event: Input | undefined;
      switch (pick(6)) {
        case 0:
          if (waiting.length > 0) {
            event = { kind: "cancelJob", id: waiting[pick(waiting.length)].id, time };
          }
          break;
        case 1:
          if (running.length > 0) {
            const r = running[pick(running.length)];
            const outcome = (["completed", "failed", "killed"] as const)[pick(3)];
            event = { kind: "endJob", id: r.id, time: Math.max(time, r.beginTime), outcome };
          }
          break;
        case 2:
          if (waiting.length > 0) {
            const queue = queues.length > 0 && pick(2) === 0
              ? queues[pick(queues.length)]
              : undefined;
            event = {
              kind: "updateJob",
              id: waiting[pick(waiting.length)].id,
              time,
              update: { priority: pick(5) - 2, ...(queue === undefined ? {} : { queue }) },
            };
          }
          break;
        case 3:
          if (queues.length > 0) {
            event = {
              kind: "updateQueue",
              time,
              queue: {
                name: queues[pick(queues.length)],
                priority: pick(4),
                open: pick(4) !== 0,
                // An explicit undefined removes the limit: it must survive the log.
                maxRunning: pick(3) === 0 ? undefined : pick(4),
              },
            };
          }
          break;
        case 4:
          event = { kind: "changeCapacity", time, capacity: pick(p.totalNodes + 1) };
          break;
        default:
          break;
      }
      if (event !== undefined) apply(event);
    }
  });
  atStop(p.stops.length);
  if (next < trace.length) {
    const at = state().time;
    apply({
      kind: "appendJobs",
      jobs: trace.slice(next).map((j) => ({ ...j, submitTime: Math.max(j.submitTime, at) })),
    });
  }
  // External ends: end everything still running so that the run completes.
  if (p.runTimeMode === "external") {
    for (let guard = 0; guard < 50; guard++) {
      apply({ kind: "changeCapacity", capacity: p.totalNodes });
      apply({ kind: "runToCompletion" });
      const s = state();
      const running = s.running.toArray();
      if (running.length === 0) break;
      for (const r of running) apply({ kind: "endJob", id: r.id, time: s.time + 1 });
      apply({ kind: "advanceTo", time: s.time + 1 });
    }
  }
  apply({ kind: "runToCompletion" });
  apply({ kind: "finish" });
}

/** Applies an input through the Simulation method that makes it. */
export function applyToSimulation(sim: Simulation, input: Input): void {
  switch (input.kind) {
    case "appendJobs":
      sim.appendJobs(input.jobs);
      return;
    case "advanceTo":
      sim.advanceTo(input.time);
      return;
    case "runUntilExclusive":
      sim.runUntilExclusive(input.time);
      return;
    case "runToCompletion":
      sim.runToCompletion();
      return;
    case "flush":
      sim.flush();
      return;
    case "finish":
      sim.finish({ runToCompletion: false });
      return;
    case "cancelJob":
      sim.cancelJob(input.id, input.time);
      return;
    case "endJob":
      sim.endJob(input.id, input.time, {
        ...(input.outcome === undefined ? {} : { outcome: input.outcome }),
      });
      return;
    case "updateJob":
      sim.updateJob(input.id, input.update, input.time);
      return;
    case "updateQueue":
      sim.updateQueue(input.queue, input.time);
      return;
    case "changeCapacity":
      sim.changeCapacity(input.capacity, input.time);
      return;
    default:
      throw new Error(`no Simulation method for ${input.kind}`);
  }
}
