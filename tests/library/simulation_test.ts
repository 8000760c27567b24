// The streaming API (api/simulation.ts): unit tests of each method and error,
// and properties comparing streaming runs against one batch run of the same jobs.

import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import {
  advanceTo,
  appendJobs,
  EvtsimError,
  finish,
  flush,
  initialState,
  type JobRow,
  type JobSpec,
  memoryPressureLimit,
  type Notice,
  type PriorityPolicy,
  type ResourceRow,
  runToCompletion,
  runUntilExclusive,
  Simulation,
  type SimulationConfig,
  type SimulationOptions,
  type Statistics,
  statistics,
  step,
  submitJob,
} from "../../mod.ts";

const SEED = 42;
const RUNS = 200;
const PRIORITIES: PriorityPolicy[] = ["fcfs", "fcfs_conservative", "sjf", "ljf"];
const BACKFILLS = ["none", "easy", "conservative"] as const;
const PAIRS = PRIORITIES.flatMap((p) => BACKFILLS.map((b) => [p, b] as const));

function kindOf(fn: () => unknown, kind: string, includes?: string): void {
  const e = assertThrows(fn, includes);
  assert(e instanceof EvtsimError, `expected EvtsimError, got ${e}`);
  assertEquals((e as EvtsimError).kind, kind);
}

// ---- unit tests -------------------------------------------------------------

Deno.test("appendJob creates and submits; ids are sequential", () => {
  const sim = new Simulation({ totalNodes: 100 });
  assertEquals(sim.appendJob({ submitTime: 10, numNodes: 20, queue: "pbatch", timeLimit: 200 }), 0);
  assertEquals(sim.appendJobs([{ submitTime: 15, numNodes: 10, timeLimit: 100 }]), [1]);
  assertEquals(sim.nodesInUse, 0);
  sim.advanceTo(10);
  assertEquals([sim.currentTime, sim.nodesInUse, sim.availableNodes], [10, 20, 80]);
  sim.advanceTo(15);
  assertEquals(sim.nodesInUse, 30);
  const out = sim.finish();
  assertEquals(out.jobs.map((j) => [j.jobId, j.beginTime, j.endTime, j.queue]), [
    [0, 10, 210, "pbatch"],
    [1, 15, 115, undefined],
  ]);
});

Deno.test("time never goes back: typed 'time' errors with clear messages", () => {
  const sim = new Simulation({ totalNodes: 10 });
  sim.advanceTo(50);
  kindOf(
    () => sim.advanceTo(49),
    "time",
    "cannot advance backwards in time: target 49 is before the clock 50",
  );
  kindOf(() => sim.runUntilExclusive(10), "time", "before the clock 50");
  kindOf(() => sim.advanceTo(NaN), "time");
  kindOf(
    () => sim.appendJob({ submitTime: 40, numNodes: 1, timeLimit: 1 }),
    "time",
    "submit time 40 is before the clock 50",
  );
  kindOf(
    () =>
      sim.appendJobs([{ submitTime: 50, numNodes: 1, timeLimit: 1 }, {
        submitTime: 60,
        numNodes: 1,
        timeLimit: 1,
      }, {
        submitTime: 49,
        numNodes: 1,
        timeLimit: 1,
      }]),
    "input",
    "not sorted",
  );
  assertEquals(sim.currentTime, 50);
  assertEquals(sim.appendJob({ submitTime: 50, numNodes: 1, timeLimit: 1 }), 0); // nothing was numbered
});

Deno.test("advanceTo is inclusive and never moves the target; runUntilExclusive stops before it", () => {
  const sim = new Simulation({ totalNodes: 100 });
  sim.appendJob({ submitTime: 0, numNodes: 10, timeLimit: 150 });
  sim.runUntilExclusive(0);
  assertEquals([sim.nodesInUse, sim.activeJobCount], [0, 0]); // not even arrived
  sim.advanceTo(0);
  assertEquals(sim.nodesInUse, 10);
  sim.advanceTo(50); // the end at 150 does not pull the clock along
  assertEquals([sim.currentTime, sim.nodesInUse], [50, 10]);
  sim.runUntilExclusive(150);
  assertEquals([sim.currentTime, sim.nodesInUse], [50, 10]);
  sim.runUntilExclusive(151);
  assertEquals([sim.currentTime, sim.nodesInUse], [150, 0]);
});

Deno.test("initializeTrace sorts stably, honours maxJobs, is idempotent; submitJob submits once", () => {
  const jobs: JobSpec[] = [
    { submitTime: 5, numNodes: 1, timeLimit: 10, queue: "a" },
    { submitTime: 0, numNodes: 1, timeLimit: 10, queue: "b" },
    { submitTime: 5, numNodes: 1, timeLimit: 10, queue: "c" },
    { submitTime: 1, numNodes: 1, timeLimit: 10, queue: "d" },
  ];
  const sim = new Simulation({ totalNodes: 4, jobs });
  assertEquals(sim.initializeTrace(3), 3); // the first 3 lines, then sorted
  assertEquals(sim.initializeTrace(), 4);
  const again = sim.state;
  assertEquals(sim.initializeTrace(), 4);
  assertEquals(sim.state.store.records.toArray(), again.store.records.toArray());
  assertEquals(sim.state.store.records.toArray().map((r) => r.queue), ["b", "d", "a", "c"]);
  kindOf(() => sim.submitJob(9, 0), "state", "job 9 is not in the job store");
  kindOf(() => sim.submitJob(-1, 0), "state");
  sim.submitJob(0, 0);
  kindOf(() => sim.submitJob(0, 0), "state", "already been submitted");
  sim.advanceTo(2);
  kindOf(() => sim.submitJob(1, 1), "time", "before the clock 2");
  sim.submitJob(1, 3); // a preloaded job may be submitted later than its trace time
  kindOf(() => sim.initializeTrace(), "state", "must come before");
  kindOf(() => sim.loadTrace([]), "state");
  const out = sim.finish();
  assertEquals(out.jobs.map((j) => [j.jobId, j.submitTime, j.queue]), [[0, 0, "b"], [1, 3, "d"]]);
  kindOf(() => new Simulation({ totalNodes: 1 }).initializeTrace(-1), "usage");
});

Deno.test("loadTrace replaces the trace; preloaded batch equals appended batch", () => {
  const jobs: JobSpec[] = [
    { submitTime: 0, numNodes: 70, timeLimit: 200 },
    { submitTime: 10, numNodes: 45, timeLimit: 300 },
    { submitTime: 20, numNodes: 20, timeLimit: 50 },
  ];
  const pre = new Simulation({
    totalNodes: 100,
    jobs: [{ submitTime: 1, numNodes: 1, timeLimit: 1 }],
  });
  pre.loadTrace(jobs);
  const n = pre.initializeTrace();
  for (let i = 0; i < n; i++) pre.submitJob(i, jobs[i].submitTime);
  const app = new Simulation({ totalNodes: 100 });
  app.appendJobs(jobs);
  const a = pre.finish();
  assertEquals(a, app.finish());
  assertEquals(a.jobs.map((j) => j.beginTime), [0, 200, 20]);
});

Deno.test("sinks receive rows as they become final; finish returns what no sink took", () => {
  const jobRows: JobRow[] = [];
  const notices: Notice[] = [];
  const sim = new Simulation({ totalNodes: 8, resourceHistoryCapacity: 100 }, {
    onJobRow: (r) => jobRows.push(r),
    onNotice: (n) => notices.push(n),
  });
  sim.appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 10 }, {
    submitTime: 0,
    numNodes: 9,
    timeLimit: 10,
  }]);
  assertEquals(notices, [{ kind: "rejected", jobId: 1, numNodes: 9, totalNodes: 8 }]);
  sim.advanceTo(10);
  assertEquals(jobRows.length, 0); // written when the front is reclaimed, not before
  sim.flush();
  assertEquals(jobRows.map((r) => r.jobId), [0]);
  const out = sim.finish();
  assertEquals([out.jobs.length, out.notices.length], [0, 0]);
  assertEquals(out.resources, [
    { time: 0, freeNodes: 8, allocatedNodes: 0 },
    { time: 0, freeNodes: 6, allocatedNodes: 2 },
    { time: 10, freeNodes: 8, allocatedNodes: 0 },
  ]);
  assertEquals(out.statistics.jobsRejected, 1);
  assertEquals(sim.finish(), out); // idempotent
  kindOf(() => sim.appendJob({ submitTime: 20, numNodes: 1, timeLimit: 1 }), "state", "finished");
  kindOf(() => sim.advanceTo(30), "state");
});

Deno.test("finish({ runToCompletion: false }) stops at the clock, like --max_time", () => {
  const sim = new Simulation({ totalNodes: 8 });
  sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, {
    submitTime: 0,
    numNodes: 8,
    timeLimit: 10,
  }]);
  sim.advanceTo(15);
  const out = sim.finish({ runToCompletion: false });
  assertEquals(out.jobs.map((j) => j.jobId), [0]);
  assertEquals([out.statistics.jobsRunning, out.statistics.currentTime], [1, 15]);
});

Deno.test("monitors: statistics, head shadow time and backfill window", () => {
  const sim = new Simulation({ totalNodes: 10 });
  assertEquals(sim.headShadowTime(), -1);
  sim.appendJobs([
    { submitTime: 0, numNodes: 6, timeLimit: 30, actualRunTime: 20 },
    { submitTime: 0, numNodes: 2, timeLimit: 30 },
    { submitTime: 0, numNodes: 8, timeLimit: 10 },
  ]);
  sim.advanceTo(0);
  assertEquals([sim.nodesInUse, sim.availableNodes, sim.activeJobCount], [8, 2, 1]);
  assertEquals(sim.headShadowTime(), 30);
  assertEquals(sim.backfillWindow(), {
    currentTime: 0,
    availableNodes: 2,
    shadowTime: 30,
    releases: [{ time: 30, nodesReleased: 8 }],
  });
  const out = sim.finish();
  const s: Statistics = out.statistics;
  // Job 2 starts when job 0 ends early (at 20, before the shadow time).
  assertEquals(out.jobs.map((j) => [j.beginTime, j.endTime]), [[0, 20], [0, 30], [20, 30]]);
  assertEquals([s.jobsCompleted, s.jobsStarted, s.totalJobs, s.makespan], [3, 3, 3, 30]);
  assertEquals([s.averageWait, s.maxWait, s.averageTurnaround], [20 / 3, 20, 80 / 3]);
  assertEquals(s.averageBoundedSlowdown, (1 + 1 + 3) / 3);
  assertEquals(s.utilization, (6 * 20 + 2 * 30 + 8 * 10) / (10 * 30));
  assertEquals(sim.headShadowTime(), -1);
});

Deno.test("bounded job store: ids stay stable across reclamation; abort refuses atomically", () => {
  const rows: JobRow[] = [];
  const sim = new Simulation({ totalNodes: 4, jobStoreCapacity: 2, jobStoreOverflow: "abort" }, {
    onJobRow: (r) => rows.push(r),
  });
  sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 5 }, {
    submitTime: 0,
    numNodes: 4,
    timeLimit: 5,
  }]);
  const before = sim.state;
  kindOf(
    () => sim.appendJob({ submitTime: 1, numNodes: 1, timeLimit: 1 }),
    "capacity",
    "job store full",
  );
  assert(sim.state === before, "state changed by a failed append");
  sim.advanceTo(5);
  assertEquals(sim.appendJob({ submitTime: 6, numNodes: 1, timeLimit: 1 }), 2); // job 0 reclaimed
  assertEquals(sim.state.store.firstId, 1);
  sim.finish();
  assertEquals(rows.map((r) => [r.jobId, r.beginTime]), [[0, 0], [1, 5], [2, 10]]);
});

Deno.test("memory pressure: growth refused with a clear error and nothing appended", () => {
  kindOf(() => new Simulation({ totalNodes: 1, checkMemoryPressure: 0 }), "usage", "0 < F <= 1");
  kindOf(() => new Simulation({ totalNodes: 1, checkMemoryPressure: 1.5 }), "usage");
  assertEquals(memoryPressureLimit(0.5, { availableBytes: 1000, bytesPerRecord: 100 }), 5);
  assert(memoryPressureLimit(1) > 0); // reads Deno.systemMemoryInfo (needs --allow-sys)
  // A tiny fraction of real memory allows no record at all.
  const tiny = new Simulation({ totalNodes: 1, checkMemoryPressure: 1e-15 });
  kindOf(
    () => tiny.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1 }),
    "capacity",
    "memory pressure",
  );
  assertEquals(tiny.state.nextJobId, 0);
  // A bounded store fills to its capacity without asking, and refuses to grow.
  const bounded = new Simulation({
    totalNodes: 1,
    jobStoreCapacity: 2,
    checkMemoryPressure: 1e-15,
  });
  bounded.appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 1 }, {
    submitTime: 0,
    numNodes: 1,
    timeLimit: 1,
  }]);
  kindOf(
    () => bounded.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1 }),
    "capacity",
    "growth to 4 records",
  );
  assertEquals(bounded.state.store.records.size, 2);
  // The pure API takes the limit as a record count.
  const s = step(
    initialState({ totalNodes: 1 }),
    appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 1 }]),
  ).state;
  const two = [{ submitTime: 0, numNodes: 1, timeLimit: 1 }, {
    submitTime: 0,
    numNodes: 1,
    timeLimit: 1,
  }];
  kindOf(() => step(s, appendJobs(two, { maxStoreCapacity: 2 })), "capacity");
  assertEquals(step(s, appendJobs(two, { maxStoreCapacity: 3 })).ids, [1, 2]);
});

Deno.test("input constructors build the reducer's inputs", () => {
  assertEquals(appendJobs([], { submit: false }), { kind: "appendJobs", jobs: [], submit: false });
  assertEquals(submitJob(3, 4), { kind: "submitJob", id: 3, submitTime: 4 });
  assertEquals(advanceTo(5), { kind: "advanceTo", time: 5 });
  assertEquals(runUntilExclusive(6), { kind: "runUntilExclusive", time: 6 });
  assertEquals([runToCompletion(), flush(), finish()].map((i) => i.kind), [
    "runToCompletion",
    "flush",
    "finish",
  ]);
  kindOf(() => step(initialState({ totalNodes: 1 }), advanceTo(-1)), "time");
});

// ---- properties ---------------------------------------------------------------

interface Output {
  jobs: JobRow[];
  resources: ResourceRow[];
  notices: Notice[];
  stats: Statistics;
}

/** The reference: initialState → appendJobs all → runToCompletion → finish. */
function batchRun(config: SimulationConfig, jobs: readonly JobSpec[]): Output {
  const out: Output = { jobs: [], resources: [], notices: [], stats: undefined! };
  let s = initialState(config);
  for (const input of [appendJobs(jobs), runToCompletion(), finish()]) {
    const r = step(s, input);
    s = r.state;
    out.jobs.push(...r.rows.jobs);
    out.resources.push(...r.rows.resources);
    out.notices.push(...r.rows.notices);
  }
  out.stats = statistics(s);
  return out;
}

type Op = {
  kind: "advance" | "exclusive" | "advanceEvent" | "exclusiveEvent" | "flush";
  frac: number;
};
interface Plan {
  take: number;
  single: boolean;
  ops: Op[];
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom("advance", "exclusive", "advanceEvent", "exclusiveEvent", "flush"),
  frac: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
});
const planArb: fc.Arbitrary<Plan[]> = fc.array(
  fc.record({ take: fc.nat(4), single: fc.boolean(), ops: fc.array(opArb, { maxLength: 3 }) }),
  { maxLength: 16, size: "max" },
);

function scenarioArb(priorityPolicy: PriorityPolicy, backfillPolicy: (typeof BACKFILLS)[number]) {
  return fc.integer({ min: 1, max: 12 }).chain((totalNodes) =>
    fc.record({
      config: fc.record({
        totalNodes: fc.constant(totalNodes),
        priorityPolicy: fc.constant(priorityPolicy),
        backfillPolicy: fc.constant(backfillPolicy),
        runTimeMode: fc.constantFrom("actual", "actual", "limit", "distribution"),
        runTimeStddev: fc.constantFrom(0, 0.3),
        runTimeScale: fc.constantFrom(0.5, 1),
        seed: fc.nat(1000),
        capacitySchedule: fc.array(
          fc.record({ time: fc.nat(80), capacity: fc.integer({ min: 0, max: totalNodes }) }),
          { maxLength: 3 },
        ).map((cs) => [...cs].sort((a, b) => a.time - b.time)),
      }) as fc.Arbitrary<SimulationConfig>,
      jobs: fc.array(
        fc.record({
          submitTime: fc.nat(60),
          numNodes: fc.integer({ min: 0, max: totalNodes + 1 }),
          timeLimit: fc.nat(40),
          actualRunTime: fc.option(fc.nat(50), { nil: undefined }),
          queue: fc.option(fc.constantFrom("a", "b"), { nil: undefined }),
        }),
        { maxLength: 30, size: "max" },
      ).map((js) => [...js].sort((a, b) => a.submitTime - b.submitTime)),
      plan: planArb,
    })
  );
}

const storeArb = fc.record({
  jobStoreCapacity: fc.nat(6),
  jobFlushInterval: fc.nat(5),
  resourceHistoryCapacity: fc.nat(5),
  sinks: fc.boolean(),
});

/**
 * Runs `jobs` through a Simulation following `plan`, respecting the contract:
 * an advanceTo target is strictly before the next not-yet-appended submit
 * time, a runUntilExclusive target at most that time. Only the first
 * `stopAt` jobs are appended; the rest still bound the targets.
 */
function streamRun(
  options: SimulationOptions,
  jobs: readonly JobSpec[],
  plan: readonly Plan[],
  useSinks: boolean,
  stopAt = jobs.length,
): { sim: Simulation; rows: Output; out: () => Output } {
  const out: Output = { jobs: [], resources: [], notices: [], stats: undefined! };
  const sim = new Simulation(
    options,
    useSinks
      ? {
        onJobRow: (r) => out.jobs.push(r),
        onResourceRow: (r) => out.resources.push(r),
        onNotice: (n) => out.notices.push(n),
      }
      : {},
  );
  let next = 0;
  for (const p of plan) {
    const batch = jobs.slice(next, Math.min(stopAt, next + p.take));
    next += batch.length;
    if (batch.length === 1 && p.single) sim.appendJob(batch[0]);
    else if (batch.length > 0) sim.appendJobs(batch);
    for (const op of p.ops) applyOp(sim, op, next < jobs.length ? jobs[next].submitTime : Infinity);
  }
  if (next < stopAt) sim.appendJobs(jobs.slice(next, stopAt));
  return {
    sim,
    rows: out,
    out: () => {
      const f = sim.finish();
      return {
        jobs: [...out.jobs, ...f.jobs],
        resources: [...out.resources, ...f.resources],
        notices: [...out.notices, ...f.notices],
        stats: f.statistics,
      };
    },
  };
}

function applyOp(sim: Simulation, op: Op, nextSubmit: number): void {
  const now = sim.currentTime;
  const firstEvent = sim.state.events.first()?.time ?? Infinity;
  const span = nextSubmit === Infinity ? 50 : nextSubmit - now;
  switch (op.kind) {
    case "flush":
      return sim.flush();
    case "advance": {
      const t = now + Math.floor(op.frac * span);
      if (nextSubmit !== Infinity && t < nextSubmit) sim.advanceTo(t);
      return;
    }
    case "exclusive":
      return sim.runUntilExclusive(Math.min(nextSubmit, now + Math.ceil(op.frac * span)));
    case "advanceEvent":
      if (firstEvent < nextSubmit) sim.advanceTo(firstEvent);
      return;
    case "exclusiveEvent":
      if (firstEvent <= nextSubmit && firstEvent !== Infinity) sim.runUntilExclusive(firstEvent);
      return;
  }
}

for (const [priority, backfill] of PAIRS) {
  Deno.test(`property: batch ≡ streaming, any flushing (${priority} + ${backfill})`, () => {
    fc.assert(
      fc.property(
        scenarioArb(priority, backfill),
        storeArb,
        fc.boolean(),
        ({ config, jobs, plan }, store, bounded) => {
          const expected = batchRun(config, jobs);
          // Plain streaming.
          assertEquals(streamRun(config, jobs, plan, store.sinks).out(), expected);
          // The same with a bounded job store (down to 1 with grow), flush intervals,
          // small resource buffers and the flush() calls of the plan.
          const options: SimulationOptions = bounded
            ? { ...config, jobStoreCapacity: store.jobStoreCapacity + 1, jobStoreOverflow: "grow" }
            : { ...config, jobStoreCapacity: store.jobStoreCapacity };
          const tuned = {
            ...options,
            jobFlushInterval: store.jobFlushInterval,
            resourceHistoryCapacity: store.resourceHistoryCapacity,
          };
          assertEquals(streamRun(tuned, jobs, plan, !store.sinks).out(), expected);
          // Preloaded trace submitted job by job gives the batch result too.
          const pre = new Simulation({ ...tuned, jobs });
          pre.initializeTrace();
          jobs.forEach((j, i) => pre.submitJob(i, j.submitTime));
          const f = pre.finish();
          assertEquals({
            jobs: f.jobs,
            resources: f.resources,
            notices: f.notices,
            stats: f.statistics,
          }, expected);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  Deno.test(`property: a failing appendJobs leaves the state as it was (${priority} + ${backfill})`, () => {
    fc.assert(
      fc.property(
        scenarioArb(priority, backfill),
        fc.constantFrom("unsorted", "past", "invalid", "abort", "memory"),
        fc.nat(5),
        ({ config, jobs, plan }, failure, extra) => {
          const expected = batchRun(config, jobs);
          const half = Math.floor(jobs.length / 2);
          // Under abort the prefix always fits; the failing batch never does.
          const capacity = half + extra + 1;
          const options: SimulationOptions = failure === "abort"
            ? { ...config, jobStoreCapacity: capacity, jobStoreOverflow: "abort" }
            : config;
          const { sim, rows, out } = streamRun(options, jobs, plan, true, half);
          const now = sim.currentTime;
          const job = (dt: number, numNodes = 1): JobSpec => ({
            submitTime: now + dt,
            numNodes,
            timeLimit: 1,
          });
          const bad: JobSpec[] = failure === "unsorted"
            ? [job(1), job(5), job(4)]
            : failure === "past"
            ? [job(-1), job(1)]
            : failure === "invalid"
            ? [job(0), job(1), job(2, -1)]
            : Array.from({ length: capacity + 1 }, () => job(0));
          const expectKind = {
            unsorted: "input",
            past: "time",
            invalid: "input",
            abort: "capacity",
            memory: "capacity",
          };
          const check = (attempt: () => unknown, kind: string) => {
            const before = sim.state;
            const emitted = JSON.stringify(rows);
            kindOf(attempt, kind);
            assert(sim.state === before, "a failed append changed the state");
            assertEquals(JSON.stringify(rows), emitted);
          };
          if (failure === "memory") {
            const limit = bad.length - 1;
            check(() => step(sim.state, appendJobs(bad, { maxStoreCapacity: limit })), "capacity");
          } else {
            check(() => sim.appendJobs(bad), expectKind[failure]);
          }
          const rest = jobs.slice(half);
          if (rest.length > 0) {
            try {
              assertEquals(sim.appendJobs(rest), rest.map((_, i) => half + i)); // same ids as without the failure
            } catch (e) {
              if (!(e instanceof EvtsimError && e.kind === "capacity" && failure === "abort")) {
                throw e;
              }
              return;
            }
          }
          assertEquals(out(), expected);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  Deno.test(`property: runUntilExclusive(t) then advanceTo(t) ≡ advanceTo(t) (${priority} + ${backfill})`, () => {
    fc.assert(
      fc.property(
        scenarioArb(priority, backfill),
        fc.nat(80),
        fc.boolean(),
        fc.nat(30),
        ({ config, jobs, plan }, dt, onEvent, cut) => {
          // Stop the stream after `cut` jobs; t must stay before the next submit time.
          const stopAt = Math.min(cut, jobs.length);
          const nextSubmit = stopAt < jobs.length ? jobs[stopAt].submitTime : Infinity;
          const a = streamRun(config, jobs, plan, true, stopAt);
          const b = streamRun(config, jobs, plan, true, stopAt);
          const firstEvent = a.sim.state.events.first()?.time;
          let t = onEvent && firstEvent !== undefined ? firstEvent : a.sim.currentTime + dt;
          if (t >= nextSubmit) t = nextSubmit - 1;
          if (t < a.sim.currentTime) return;
          a.sim.runUntilExclusive(t);
          a.sim.advanceTo(t);
          b.sim.advanceTo(t);
          for (const sim of [a.sim, b.sim]) assertEquals(sim.currentTime, t);
          assertEquals(a.rows, b.rows);
          assertEquals(a.sim.statistics(), b.sim.statistics());
          assertEquals(a.sim.backfillWindow(), b.sim.backfillWindow());
          for (const { sim } of [a, b]) {
            if (stopAt < jobs.length) sim.appendJobs(jobs.slice(stopAt));
          }
          assertEquals(a.out(), b.out());
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
}
