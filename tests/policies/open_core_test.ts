// The open scheduler core: pickers × admission policies from a registry,
// queues with priorities and limits. DR_EVT's pairs must come out exactly as
// before, a picker written here (not in schedulers/) must run through `step`
// and `Simulation` under every admission policy, and queue priorities, limits
// and closed queues must hold.

import fc from "fast-check";
import {
  type Admission,
  type DecisionRow,
  EvtsimError,
  initialState,
  type JobRecord,
  type JobRow,
  type Picker,
  type PickerSession,
  type QueueDef,
  Simulation,
  type SimulationConfig,
  withPolicies,
} from "../../mod.ts";
import {
  arbScenario,
  arbTrace,
  checkCapacity,
  checkClockMonotone,
  checkEasyHeadReservation,
  checkScheduleRows,
  runBatch,
  runInputs,
  withIds,
} from "../../testing/mod.ts";
import { referenceSimulate } from "../_reference_sim.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

/** Throws unless `fn` throws an EvtsimError (whose message includes `includes`). */
function evtsimError(fn: () => unknown, includes?: string): EvtsimError {
  const e = assertThrows(fn, includes);
  assert(e instanceof EvtsimError, `expected an EvtsimError, got ${e.name}: ${e.message}`);
  return e;
}

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 200);
const ADMISSIONS = [
  "none",
  "easy",
  "conservative",
  "easy_extra",
  "conservative_profile",
  "conservative_profile_no_compression",
] as const;

Deno.test("builtin_fcfs with one queue and equal priorities gives today's FCFS, EASY and CONSERVATIVE rows", () => {
  const priorities = ["fcfs", "fcfs_conservative"] as const;
  fc.assert(
    fc.property(
      arbScenario({ allowOversized: true, priorities: [...priorities], maxJobs: 30 }),
      fc.boolean(),
      ({ config, trace }, queued) => {
        const ref = referenceSimulate(config, trace);
        const explicit: SimulationConfig = {
          ...config,
          picker: "builtin_fcfs",
          ...(queued ? { queues: [{ name: "only" }] } : {}),
        };
        const jobs = queued ? trace.map((j) => ({ ...j, queue: "only" })) : trace;
        const out = runBatch(explicit, jobs);
        const label = (rows: readonly JobRow[]) =>
          rows.map((r) => ({ ...r, queue: queued ? undefined : r.queue }));
        assertEquals(label(out.jobRows), label(ref.jobRows));
        assertEquals(out.resourceRows, ref.resourceRows);
      },
    ),
    { seed: 1010, numRuns: RUNS },
  );
});

// A picker of the test's own: largest job first, over a frozen array.
const order = (a: JobRecord, b: JobRecord) => b.numNodes - a.numNodes || a.id - b.id;
const largestFirst: Picker<readonly JobRecord[]> = {
  name: "largest_first",
  init: () => [],
  onQueueUpdate: (jobs) => jobs,
  onJobPush: (jobs, job) => [...jobs, job].sort(order),
  onJobStateChange: (jobs, job, change) =>
    change === "pending" ? [...jobs, job].sort(order) : jobs.filter((j) => j.id !== job.id),
  onJobUpdate: (jobs, _before, job) => jobs.map((j) => (j.id === job.id ? job : j)).sort(order),
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

Deno.test("a picker written here runs through step and Simulation under every admission policy, and the invariants hold", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 20 }).chain((totalNodes) =>
        fc.tuple(
          fc.constant(totalNodes),
          fc.constantFrom(...ADMISSIONS),
          arbTrace({ totalNodes, maxJobs: 25, allowOversized: true }),
        )
      ),
      ([totalNodes, backfillPolicy, trace]) => {
        const config: SimulationConfig = { totalNodes, backfillPolicy, picker: largestFirst };
        const out = runBatch(config, trace);
        const traced = withIds(trace);
        const violations = [
          ...checkCapacity(out.resourceRows, totalNodes),
          ...checkScheduleRows(out.jobRows, traced, config),
          ...checkClockMonotone(out.resourceRows),
          ...checkClockMonotone(out.clocks),
        ];
        // The head reservation is a promise only with limits that hold.
        const exact = traced.every((j) => j.timeLimit > 0 && (j.actualRunTime ?? 0) <= j.timeLimit);
        if (backfillPolicy === "easy" && exact) {
          violations.push(
            ...checkEasyHeadReservation(out.jobRows, traced, config, {
              order: (a, b) => b.numNodes - a.numNodes || a.jobId - b.jobId,
            }),
          );
        }
        assertEquals(violations, []);
        // The same picker through the streaming class gives the same rows.
        const sim = new Simulation(config);
        sim.appendJobs(trace);
        assertEquals(sim.finish().jobs, out.jobRows);
      },
    ),
    { seed: 2020, numRuns: RUNS },
  );
});

Deno.test("the picker's order decides: largest-first differs from FCFS where it should", () => {
  const trace = [
    { submitTime: 0, numNodes: 8, timeLimit: 10 },
    { submitTime: 1, numNodes: 2, timeLimit: 10 },
    { submitTime: 1, numNodes: 7, timeLimit: 10 },
  ];
  const begins = (picker: SimulationConfig["picker"]) =>
    runBatch({ totalNodes: 8, backfillPolicy: "none", picker }, trace).jobRows.map((r) =>
      r.beginTime
    );
  assertEquals(begins(largestFirst), [0, 20, 10]);
  assertEquals(begins("builtin_fcfs"), [0, 10, 20]);
});

Deno.test("a picker registered by name is found; an unknown name lists the registered ones", () => {
  const registry = withPolicies({ pickers: [largestFirst as Picker] });
  const s = initialState({ totalNodes: 4, picker: "largest_first" }, { registry });
  assertEquals(s.picker.name, "largest_first");
  const e = evtsimError(() => initialState({ totalNodes: 4, picker: "largest_first" }));
  assertEquals(
    e.message,
    "unknown picker 'largest_first' (registered: builtin_fcfs, fairshare, ljf, sjf)",
  );
  const a = evtsimError(() => initialState({ totalNodes: 4, backfillPolicy: "greedy" }));
  assertEquals(
    a.message,
    "unknown backfill policy 'greedy' (registered: conservative, conservative_profile, conservative_profile_no_compression, easy, easy_extra, none)",
  );
  assertThrows(() => withPolicies({ pickers: [{ ...largestFirst, name: "sjf" } as Picker] }));
});

Deno.test("a faulty picker or admission policy fails loudly instead of corrupting the state", () => {
  const twice: Admission = {
    name: "greedy_bug",
    runSession(s) {
      const job = s.next();
      if (job !== undefined) s.dispatch(job, false);
      if (job !== undefined) s.dispatch(job, false);
    },
  };
  const sim = new Simulation({ totalNodes: 4, admission: twice });
  sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 5 });
  const before = sim.state;
  const e = evtsimError(() => sim.advanceTo(0));
  // The admission policy is at fault (it decided twice), not the picker that offered the job once.
  assert(
    e.message.startsWith(
      "admission policy greedy_bug started job 0, which is not the candidate just offered",
    ),
    e.message,
  );
  assert(sim.state === before, "the failed call must leave the state as it was");
  const oversize: Admission = {
    name: "oversize_bug",
    runSession(s) {
      const job = s.next();
      if (job !== undefined) s.dispatch(job, false);
    },
  };
  const sim2 = new Simulation({ totalNodes: 4, admission: oversize });
  sim2.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 5 }, {
    submitTime: 0,
    numNodes: 2,
    timeLimit: 5,
  }]);
  evtsimError(() => sim2.advanceTo(0), "started job 1 needing 2 nodes with 0 free");
});

/** Random queues (priorities, limits, open/closed) and a trace spread over them. */
const arbQueued = fc.integer({ min: 1, max: 16 }).chain((totalNodes) =>
  fc.tuple(
    fc.constant(totalNodes),
    fc.array(
      fc.record({
        priority: fc.integer({ min: -2, max: 3 }),
        maxRunning: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        open: fc.constantFrom(true, true, true, false),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    arbTrace({ totalNodes, maxJobs: 30 }),
    fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
  )
).map(([totalNodes, qs, trace, picks]) => {
  const queues: QueueDef[] = qs.map((q, i) => ({
    name: `q${i}`,
    priority: q.priority,
    ...(q.maxRunning === undefined ? {} : { maxRunning: q.maxRunning }),
    open: q.open,
  }));
  const jobs = trace.map((j, i) => ({ ...j, queue: `q${picks[i] % queues.length}` }));
  return { totalNodes, queues, jobs };
});

Deno.test("queues (admission none): no job of a higher-priority queue could have started instead; max_running and closed queues hold", () => {
  fc.assert(
    fc.property(arbQueued, ({ totalNodes, queues, jobs }) => {
      const config: SimulationConfig = {
        totalNodes,
        backfillPolicy: "none",
        queues,
        decisions: true,
        runTimeMode: "limit",
      };
      const out = runBatch(config, jobs);
      const byId = new Map(out.jobRows.map((r) => [r.jobId, r]));
      const queueOf = (id: number) => queues.find((q) => q.name === jobs[id].queue)!;
      const violations: string[] = [];
      // Running jobs per queue and in total, replayed from the decisions and job rows.
      const dispatches = out.decisions.filter((d) => d.type === "DISPATCH");
      for (const d of dispatches) {
        const q = queueOf(d.jobId);
        if (q.open === false) violations.push(`job ${d.jobId} of closed queue ${q.name} started`);
        const runningInQueue = out.jobRows.filter((r) =>
          r.queue === q.name && r.beginTime <= d.time && r.endTime > d.time &&
          (r.beginTime < d.time || beforeIn(dispatches, r.jobId, d))
        ).length;
        if (q.maxRunning !== undefined && runningInQueue >= q.maxRunning + 1) {
          violations.push(`queue ${q.name} ran ${runningInQueue} > ${q.maxRunning} at ${d.time}`);
        }
        // A waiting job of a higher-priority, ready queue that fit must not have been passed.
        const free = totalNodes - out.jobRows.filter((r) =>
          r.beginTime <= d.time && r.endTime > d.time &&
          (r.beginTime < d.time || beforeIn(dispatches, r.jobId, d))
        ).reduce((s, r) =>
          s + r.numNodes, 0);
        for (const w of out.jobRows) {
          const wq = queueOf(w.jobId);
          if (!(w.submitTime <= d.time && w.beginTime > d.time)) {
            continue;
          }
          if ((wq.priority ?? 0) <= (q.priority ?? 0) || wq.open === false) {
            continue;
          }
          const wRunning = out.jobRows.filter((r) =>
            r.queue === wq.name && r.beginTime <= d.time && r.endTime > d.time &&
            (r.beginTime < d.time || beforeIn(dispatches, r.jobId, d))
          ).length;
          if (wq.maxRunning !== undefined && wRunning >= wq.maxRunning) {
            continue;
          }
          if (w.numNodes <= free + byId.get(d.jobId)!.numNodes) {
            violations.push(
              `job ${d.jobId} (${q.name}) started at ${d.time} while job ${w.jobId} of higher-priority ${wq.name} fit`,
            );
          }
        }
      }
      assertEquals(violations, []);
      assertEquals(checkCapacity(out.resourceRows, totalNodes), []);
    }),
    { seed: 3030, numRuns: RUNS },
  );
});

// Whether job `id` was dispatched before decision `d` in the stream (same instant).
function beforeIn(dispatches: readonly DecisionRow[], id: number, d: DecisionRow): boolean {
  const i = dispatches.findIndex((x) => x.jobId === id && x.time === d.time);
  return i >= 0 && i < dispatches.indexOf(d);
}

Deno.test("recording decisions never changes the schedule, for every picker and admission policy", () => {
  fc.assert(
    fc.property(arbScenario({ allowOversized: true, maxJobs: 25 }), ({ config, trace }) => {
      const off = runBatch(config, trace);
      const on = runBatch({ ...config, decisions: true }, trace);
      assertEquals(on.jobRows, off.jobRows);
      assertEquals(on.resourceRows, off.resourceRows);
      assertEquals(off.decisions, []);
      const started = on.decisions.filter((d) => d.type === "DISPATCH").map((d) => d.jobId);
      assertEquals(started.sort((a, b) => a - b), on.jobRows.map((r) => r.jobId));
    }),
    { seed: 4040, numRuns: RUNS },
  );
});

Deno.test("queues: a trace job naming an undefined queue, or a bad priority, is refused and nothing changes", () => {
  const sim = new Simulation({ totalNodes: 4, queues: [{ name: "batch" }] });
  const e = evtsimError(
    () => sim.appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 1, queue: "gpu" }]),
  );
  assertEquals(e.message, "job 0: unknown queue 'gpu' (defined: batch)");
  evtsimError(
    () => sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1, priority: 1.5 }),
    "priority must be an integer",
  );
  assertEquals(sim.state.nextJobId, 0);
  // A job without a queue goes to the first one.
  sim.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1 });
  assertEquals(sim.finish().jobs[0].queue, "batch");
  for (
    const bad of [[{ name: "a" }, { name: "a" }], [{ name: "a", maxRunning: -1 }], [{ name: "" }]]
  ) {
    evtsimError(() => new Simulation({ totalNodes: 4, queues: bad }));
  }
});

Deno.test("queue priorities order the queues; job priorities order within a queue; a per-queue picker orders its queue", () => {
  const queues: QueueDef[] = [
    { name: "low", priority: 0 },
    { name: "high", priority: 10 },
    { name: "short", priority: 5, picker: "sjf" },
  ];
  const job = (queue: string, timeLimit: number, priority = 0) => ({
    submitTime: 1,
    numNodes: 4,
    timeLimit,
    queue,
    priority,
  });
  const out = runInputs({ totalNodes: 4, queues, backfillPolicy: "none" }, [
    {
      kind: "appendJobs",
      jobs: [
        { submitTime: 0, numNodes: 4, timeLimit: 10, queue: "low" },
        job("low", 10),
        job("low", 10, 3),
        job("short", 50),
        job("short", 20),
        job("high", 10),
      ],
    },
    { kind: "runToCompletion" },
    { kind: "finish" },
  ]);
  const order = [...out.jobRows].sort((a, b) => a.beginTime - b.beginTime).map((r) => r.jobId);
  // high (5), then the short queue in SJF order (4 before 3), then low by priority (2 before 1).
  assertEquals(order, [0, 5, 4, 3, 2, 1]);
});
