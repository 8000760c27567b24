// Live events: cancels, external ends, job and queue updates. A stream of
// them is chosen while a simulation runs (each against the state it sees,
// always for a time after the clock); the same events given all at once
// before the run must give the same rows, flushing must not change them, a
// cancelled job never starts and an ended job's nodes are free from its end.

import fc from "fast-check";
import {
  EvtsimError,
  initialState,
  type Input,
  type JobRow,
  type JobSpec,
  type QueueDef,
  type ResourceRow,
  type SimState,
  Simulation,
  type SimulationConfig,
  step,
} from "../../mod.ts";
import { arbTrace, stepTwice } from "../../testing/mod.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 200);

interface Outcome {
  jobs: JobRow[];
  resources: ResourceRow[];
  notices: unknown[];
  decisions: unknown[];
}

function drive(config: SimulationConfig, inputs: readonly Input[]): Outcome {
  let s = initialState(config);
  const out: Outcome = { jobs: [], resources: [], notices: [], decisions: [] };
  for (const input of inputs) {
    const r = step(s, input);
    s = r.state;
    out.jobs.push(...r.rows.jobs);
    out.resources.push(...r.rows.resources);
    out.notices.push(...r.rows.notices);
    out.decisions.push(...r.rows.decisions);
  }
  return out;
}

/** A tiny deterministic chooser over fast-check's numbers. */
function chooser(picks: readonly number[]) {
  let i = 0;
  return (n: number) => (n <= 0 ? 0 : picks[i++ % picks.length] % n);
}

/**
 * Runs `trace` live: the clock moves through `stops`; at each stop, events
 * are chosen against the state then, for times at or after the stop.
 * Returns the inputs of the live run and the events alone, in order.
 */
function liveRun(
  config: SimulationConfig,
  trace: readonly JobSpec[],
  stops: readonly number[],
  picks: readonly number[],
  flushEvery: number,
): { inputs: Input[]; events: Input[] } {
  const pick = chooser(picks);
  let s: SimState = initialState(config);
  const inputs: Input[] = [];
  const events: Input[] = [];
  const apply = (input: Input) => {
    s = step(s, input).state;
    inputs.push(input);
  };
  apply({ kind: "appendJobs", jobs: trace });
  stops.forEach((stop, k) => {
    apply({ kind: "runUntilExclusive", time: stop });
    if (flushEvery > 0 && k % flushEvery === 0) apply({ kind: "flush" });
    const waiting = [...s.picker.pending(s.pickerState)];
    const running = s.running.toArray();
    const queues = s.queues.list.map((q) => q.def.name);
    for (let n = pick(4); n > 0; n--) {
      const time = stop + pick(3) * 5;
      let event: Input | undefined;
      switch (pick(5)) {
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
            const id = waiting[pick(waiting.length)].id;
            const queue = queues.length > 0 && pick(2) === 0
              ? queues[pick(queues.length)]
              : undefined;
            event = {
              kind: "updateJob",
              id,
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
                maxRunning: pick(3) === 0 ? undefined : pick(4),
              },
            };
          }
          break;
        default:
          break;
      }
      if (event !== undefined) {
        apply(event);
        events.push(event);
      }
    }
  });
  apply({ kind: "runToCompletion" });
  apply({ kind: "finish" });
  return { inputs, events };
}

const arbLive = fc.integer({ min: 1, max: 16 }).chain((totalNodes) =>
  fc.record({
    totalNodes: fc.constant(totalNodes),
    backfillPolicy: fc.constantFrom(
      "none",
      "easy",
      "conservative",
      "easy_extra",
      "conservative_profile",
      "conservative_profile_no_compression",
    ),
    priorityPolicy: fc.constantFrom("fcfs", "sjf", "ljf"),
    queued: fc.boolean(),
    decisions: fc.boolean(),
    store: fc.constantFrom(0, 3),
    trace: arbTrace({ totalNodes, maxJobs: 25, allowOversized: true }),
    stops: fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 12 }).map((xs) =>
      xs.sort((a, b) => a - b)
    ),
    picks: fc.array(fc.nat({ max: 1000 }), { minLength: 20, maxLength: 60 }),
    flushEvery: fc.constantFrom(0, 1, 3),
  })
);

type LivePlan = typeof arbLive extends fc.Arbitrary<infer T> ? T : never;

function configOf(p: LivePlan): SimulationConfig {
  const queues: QueueDef[] | undefined = p.queued
    ? [{ name: "a", priority: 1 }, { name: "b", maxRunning: 2 }]
    : undefined;
  return {
    totalNodes: p.totalNodes,
    backfillPolicy: p.backfillPolicy,
    priorityPolicy: p.priorityPolicy as SimulationConfig["priorityPolicy"],
    decisions: p.decisions,
    jobStoreCapacity: p.store,
    ...(queues === undefined ? {} : { queues }),
  };
}

function traceOf(p: LivePlan): JobSpec[] {
  return p.queued ? p.trace.map((j, i) => ({ ...j, queue: i % 2 === 0 ? "a" : "b" })) : p.trace;
}

Deno.test("live events: batch ≡ streaming ≡ flush-invariant; a cancelled job never starts; an ended job's nodes are free from its end", () => {
  const seen = { cancelled: 0, failed: 0, killed: 0, ignored: 0, updates: 0 };
  fc.assert(
    fc.property(arbLive, (p) => {
      const config = configOf(p);
      const trace = traceOf(p);
      const live = liveRun(config, trace, p.stops, p.picks, p.flushEvery);
      const streamed = drive(config, live.inputs);
      const batch = drive(config, [
        { kind: "appendJobs", jobs: trace },
        ...live.events,
        { kind: "runToCompletion" },
        { kind: "finish" },
      ]);
      assertEquals(streamed, batch);
      for (const r of streamed.jobs) if (r.outcome !== undefined) seen[r.outcome]++;
      seen.ignored += streamed.notices.filter((n) => (n as { kind: string }).kind === "ignored")
        .length;
      seen.updates += live.events.filter((e) => e.kind.startsWith("update")).length;

      // A cancelled job never starts: begin = end = the cancel time, no nodes held.
      for (const r of streamed.jobs) {
        if (r.outcome === "cancelled") assertEquals(r.beginTime, r.endTime);
      }
      // Every resource row equals the nodes of the jobs running then, per the job rows.
      const last = new Map<number, ResourceRow>();
      for (const row of streamed.resources) last.set(row.time, row);
      for (const [t, row] of last) {
        const held = streamed.jobs
          .filter((j) => j.outcome !== "cancelled" && j.beginTime <= t && j.endTime > t)
          .reduce((sum, j) => sum + j.numNodes, 0);
        assertEquals(row.allocatedNodes, held, `allocated nodes at ${t}`);
      }
    }),
    { seed: 5050, numRuns: RUNS },
  );
  // The property must have seen every kind of event take effect.
  for (const [k, n] of Object.entries(seen)) assert(n >= RUNS / 20, `only ${n} ${k}`);
});

Deno.test("live events: every step is pure, and a refused event changes nothing", () => {
  fc.assert(
    fc.property(arbLive, (p) => {
      const config = configOf(p);
      const live = liveRun(config, traceOf(p), p.stops, p.picks, 0);
      let s = initialState(config);
      for (const input of live.inputs) {
        if (!s.finished) {
          const refused = stepTwice(s, { kind: "cancelJob", id: s.nextJobId + 3 });
          assert(refused instanceof EvtsimError, "an unknown job must be refused");
        }
        const r = stepTwice(s, input);
        if (r instanceof Error) throw r;
        s = r.state;
      }
    }),
    { seed: 5151, numRuns: Math.min(RUNS, 50) },
  );
});

Deno.test("live events: bad inputs are refused with one clear line and change nothing", () => {
  const sim = new Simulation({ totalNodes: 4, queues: [{ name: "batch" }] });
  sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
    { submitTime: 50, numNodes: 1, timeLimit: 10 },
  ]);
  sim.advanceTo(5);
  const state = sim.state;
  const refused = (fn: () => void, includes: string) => {
    const e = assertThrows(fn, includes);
    assert(e instanceof EvtsimError, e.message);
    assert(sim.state === state, `${includes}: the state must not change`);
  };
  refused(() => sim.cancelJob(9), "cannot cancel job 9: no such job");
  refused(() => sim.cancelJob(0), "cannot cancel job 0: it is running (end it with endJob)");
  refused(() => sim.cancelJob(2, 10), "cannot cancel job 2 at 10: it is submitted at 50");
  refused(() => sim.endJob(0, 3), "event time 3 is before the clock 5");
  refused(() => sim.endJob(7), "cannot end job 7: no such job");
  refused(() => sim.updateJob(1, { priority: 0.5 }), "priority must be an integer");
  refused(() => sim.updateJob(1, { queue: "gpu" }), "unknown queue 'gpu'");
  refused(() => sim.updateJob(0, { priority: 1 }), "cannot update job 0: it has started");
  refused(
    () => sim.updateQueue({ name: "batch", maxRunning: -2 }),
    "maxRunning must be a non-negative integer",
  );
  refused(() => sim.updateQueue({ name: "new", picker: "nope" }), "unknown picker 'nope'");
  refused(() => sim.changeCapacity(9), "capacity must be an integer in 0..4");
  refused(() => sim.advanceTo(Number.NaN), "target time is not a number");
  // A finished job, and a job stored but not submitted.
  sim.advanceTo(10);
  const done = sim.state;
  assertThrows(() => sim.cancelJob(0), "cannot cancel job 0: it has finished");
  assert(sim.state === done);
  const pre = new Simulation({
    totalNodes: 4,
    jobs: [{ submitTime: 0, numNodes: 1, timeLimit: 1 }],
  });
  pre.initializeTrace();
  assertThrows(() => pre.cancelJob(0), "cannot cancel job 0: it has not been submitted");
  // No queues configured: queue updates are refused.
  assertThrows(
    () => new Simulation({ totalNodes: 4 }).updateQueue({ name: "x" }),
    "no queues are configured",
  );
});

Deno.test("live events: an event that no longer applies at its time is dropped with a notice", () => {
  const sim = new Simulation({ totalNodes: 4 });
  sim.appendJobs([{ submitTime: 0, numNodes: 2, timeLimit: 10 }, {
    submitTime: 0,
    numNodes: 2,
    timeLimit: 100,
  }]);
  sim.advanceTo(0);
  sim.endJob(0, 20, { outcome: "failed" }); // job 0 ends by itself at 10
  const out = sim.finish();
  assertEquals(out.notices.map((n) => n.kind === "ignored" ? n.reason : n.kind), [
    "end of job 0: it had already ended",
  ]);
  assertEquals(out.jobs[0].endTime, 10);
  assertEquals(out.jobs[0].outcome, undefined);
});

Deno.test("external run-time mode: only the caller ends jobs; statistics keep failures and cancels out of the averages", () => {
  const sim = new Simulation({ totalNodes: 4, runTimeMode: "external" });
  const [a, b, c] = sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 100 },
    { submitTime: 0, numNodes: 4, timeLimit: 100 },
    { submitTime: 0, numNodes: 4, timeLimit: 100 },
  ]);
  sim.advanceTo(1000);
  assertEquals(sim.nodesInUse, 4); // job 0 runs past its limit: nobody ended it
  sim.endJob(a, 1000);
  sim.cancelJob(c, 1000);
  sim.advanceTo(1000);
  sim.advanceTo(1500);
  sim.endJob(b, 1500, { outcome: "failed", exitStatus: 9 });
  const out = sim.finish();
  assertEquals(
    out.jobs.map((r) => [r.jobId, r.beginTime, r.endTime, r.outcome ?? "", r.exitStatus ?? 0]),
    [[0, 0, 1000, "", 0], [1, 1000, 1500, "failed", 9], [2, 1000, 1000, "cancelled", 143]],
  );
  const st = out.statistics;
  assertEquals([st.jobsCompleted, st.jobsFailed, st.jobsCancelled, st.averageWait], [1, 1, 1, 0]);
  assertEquals(st.utilization, (4 * 1000 + 4 * 500) / (4 * 1500));
});
