// `conservative_profile` (conservative backfilling with an availability
// profile and compression) and `conservative_profile_no_compression`: the
// engine against the plain reference simulator (tests/_reference_sim.ts),
// the guarantees that define conservative backfilling as properties over the
// reservations the policy gives (seen through a test observer), and a worked
// example pinned job by job.

import fc from "fast-check";
import type { BackfillPolicy, JobSpec, SimulationConfig } from "../../core/types.ts";
import { conservativeProfilePolicy } from "../../schedulers/conservative_profile.ts";
import { type ActualRunTimeKind, arbScenario, fuzzScheduler, runBatch } from "../../testing/mod.ts";
import { referenceSimulate } from "../_reference_sim.ts";
import { initialState } from "../../api/initial_state.ts";
import { type Input, step } from "../../core/step.ts";
import { assert, assertEquals } from "../_assert.ts";
import type { Picker } from "../../core/picker.ts";
import { builtinFcfs } from "../../schedulers/builtin_fcfs.ts";
import { orderedPicker } from "../../schedulers/ordered_picker.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 500);
const NAMES = ["conservative_profile", "conservative_profile_no_compression"] as const;

/** Small traces, and deep queues (fast arrivals on a small machine). */
const scenarios = fc.oneof(
  { weight: 4, arbitrary: arbScenario({ allowOversized: true, minJobs: 5, maxJobs: 40 }) },
  {
    weight: 1,
    arbitrary: arbScenario({ totalNodes: 16, maxGap: 2, minJobs: 30, maxJobs: 40, ties: true }),
  },
);

for (const name of NAMES) {
  Deno.test(`${name}: the engine equals the plain reference on 500 random traces, deep queues included`, () => {
    let deep = 0;
    let differs = 0;
    fc.assert(
      fc.property(scenarios, ({ config, trace }) => {
        const c: SimulationConfig = { ...config, priorityPolicy: "fcfs", backfillPolicy: name };
        const engine = runBatch(c, trace);
        const ref = referenceSimulate(c, trace);
        assertEquals(engine.jobRows, ref.jobRows);
        assertEquals(engine.resourceRows, ref.resourceRows);
        if (engine.statistics.peakQueueLength >= 20) deep++;
        const easy = runBatch({ ...c, backfillPolicy: "easy" }, trace);
        if (JSON.stringify(easy.jobRows) !== JSON.stringify(engine.jobRows)) differs++;
      }),
      { seed: 1620 + NAMES.indexOf(name), numRuns: RUNS },
    );
    assert(deep >= RUNS / 20, `only ${deep} of ${RUNS} traces had 20 or more jobs waiting`);
    assert(differs >= RUNS / 10, `only ${differs} traces differ from DR_EVT's EASY`);
  });
}

Deno.test("conservative_profile: with compression and without, any picker, decisions change nothing", () => {
  fc.assert(
    fc.property(
      scenarios,
      fc.constantFrom(...NAMES),
      fc.constantFrom("builtin_fcfs", "sjf", "ljf"),
      ({ config, trace }, backfillPolicy, picker) => {
        const c: SimulationConfig = { ...config, backfillPolicy, picker };
        const quiet = runBatch(c, trace);
        const loud = runBatch({ ...c, decisions: true }, trace);
        assertEquals(loud.jobRows, quiet.jobRows);
        assertEquals(loud.resourceRows, quiet.resourceRows);
        // Every job that fits the machine finishes.
        const fitting = trace.filter((j) => j.numNodes <= config.totalNodes).length;
        assertEquals(quiet.jobRows.length, fitting);
      },
    ),
    { seed: 1622, numRuns: 150 },
  );
});

/** Runs a trace with an observer; returns each job's reservations in order, and the rows. */
function observed(config: SimulationConfig, trace: readonly JobSpec[], compression: boolean) {
  const seen = new Map<number, { start: number; now: number }[]>();
  const admission = conservativeProfilePolicy({
    compression,
    observe: (id, start, now) => {
      const list = seen.get(id) ?? [];
      list.push({ start, now });
      seen.set(id, list);
    },
  });
  const out = runBatch({ ...config, priorityPolicy: "fcfs", admission }, trace);
  return { seen, rows: out.jobRows };
}

const positiveRuns = (o: { actual: ActualRunTimeKind }) =>
  arbScenario({ actual: o.actual, zeroLimits: false, minJobs: 5, maxJobs: 40, maxGap: 15 })
    .map(({ config, trace }) => ({
      config,
      // Runs of at least 1 s (a zero run holds nodes that no profile expects back).
      trace: trace.map((j) =>
        j.actualRunTime === undefined ? j : { ...j, actualRunTime: Math.max(1, j.actualRunTime) }
      ),
    }));

for (const actual of ["equalsLimit", "atMostLimit"] as ActualRunTimeKind[]) {
  for (const compression of [true, false]) {
    const label = compression ? "conservative_profile" : "conservative_profile_no_compression";
    Deno.test(
      `${label} (actual ${actual}): every job starts no later than the reservation it got on arrival${
        compression ? ", and no reservation ever moves later" : ""
      }`,
      () => {
        let reserved = 0;
        let moved = 0;
        fc.assert(
          fc.property(positiveRuns({ actual }), ({ config, trace }) => {
            const { seen, rows } = observed(config, trace, compression);
            for (const r of rows) {
              const list = seen.get(r.jobId)!;
              const first = list[0];
              // Given on arrival: the first pass that saw the job ran at its submit time.
              assertEquals(first.now, r.submitTime);
              assert(
                r.beginTime <= first.start,
                `job ${r.jobId} reserved ${first.start} at ${first.now} began at ${r.beginTime}`,
              );
              if (first.start > first.now) reserved++;
              for (let i = 1; i < list.length; i++) {
                if (list[i].start < list[i - 1].start) moved++;
                if (compression) {
                  assert(
                    list[i].start <= list[i - 1].start,
                    `job ${r.jobId}: reservation ${list[i - 1].start} moved to ${
                      list[i].start
                    } at ${list[i].now}`,
                  );
                }
              }
            }
          }),
          {
            seed: 1623 + (compression ? 0 : 1) + (actual === "equalsLimit" ? 0 : 2),
            numRuns: Math.max(300, RUNS),
          },
        );
        assert(reserved > 300, `only ${reserved} jobs were reserved a later start`);
        if (actual === "atMostLimit" && compression) assert(moved > 100, `only ${moved} moves`);
      },
    );
  }
}

Deno.test("conservative_profile: a session's profile taken from the last one equals one built from scratch (capacity changes, overruns, queues)", () => {
  let changed = 0;
  fc.assert(
    fc.property(
      arbScenario({ actual: "unbounded", minJobs: 5, maxJobs: 40, queues: ["a", "b"] }),
      fc.array(
        fc.record({
          time: fc.integer({ min: 0, max: 800 }),
          capacity: fc.integer({ min: 0, max: 24 }),
        }),
        { maxLength: 4 },
      ),
      fc.boolean(),
      fc.constantFrom("builtin_fcfs", "sjf"),
      ({ config, trace }, changes, compression, picker) => {
        const capacitySchedule = [...changes].sort((a, b) => a.time - b.time)
          .filter((c, i, all) => i === 0 || c.time !== all[i - 1].time)
          .map((c) => ({ time: c.time, capacity: Math.min(c.capacity, config.totalNodes) }));
        const queues = [{ name: "a", maxRunning: 2 }, { name: "b" }];
        const run = (carry: boolean) =>
          runBatch({
            ...config,
            capacitySchedule,
            queues,
            picker,
            decisions: true,
            admission: conservativeProfilePolicy({ compression, carry }),
          }, trace);
        const carried = run(true);
        const built = run(false);
        assertEquals(carried.jobRows, built.jobRows);
        assertEquals(carried.resourceRows, built.resourceRows);
        assertEquals(carried.decisions, built.decisions);
        if (capacitySchedule.length > 0) changed++;
      },
    ),
    { seed: 1627, numRuns: RUNS },
  );
  assert(changed > RUNS / 2, `only ${changed} runs changed the capacity`);
});

Deno.test("conservative_profile: a step that failed midway, after its first session changed the kept profile, leaves the same state planning as if it had not run", () => {
  let failed = 0;
  fc.assert(
    fc.property(
      arbScenario({ totalNodes: 16, maxGap: 3, minJobs: 10, maxJobs: 40, ties: true }),
      fc.boolean(),
      fc.nat(),
      ({ config, trace }, compression, pick) => {
        // One step per arrival time, then the rest: each step's first session
        // is given the memory the state holds.
        const times = [...new Set(trace.map((j) => j.submitTime))];
        const inputs: Input[] = [
          { kind: "appendJobs", jobs: trace },
          ...times.map((time): Input => ({ kind: "advanceTo", time })),
          { kind: "runToCompletion" },
          { kind: "finish" },
        ];
        const run = (failStep: number) => {
          // Throws at the second reservation seen in step `failStep` (once).
          let seen = 0;
          let armed = false;
          const admission = conservativeProfilePolicy({
            compression,
            observe: () => {
              if (armed && ++seen === 2) {
                armed = false;
                throw new Error("midway");
              }
            },
          });
          let s = initialState({ ...config, admission });
          const jobs: unknown[] = [];
          inputs.forEach((input, i) => {
            if (i === failStep) {
              armed = true;
              try {
                step(s, input);
              } catch {
                failed++;
              }
              armed = false;
            }
            const r = step(s, input);
            s = r.state;
            jobs.push(...r.rows.jobs);
          });
          return jobs;
        };
        assertEquals(run(1 + (pick % (inputs.length - 2))), run(-1));
      },
    ),
    { seed: 3401, numRuns: Math.min(RUNS, 300) },
  );
  assert(failed > 50, `only ${failed} steps failed midway`);
});

Deno.test("conservative_profile: skipping the session right after a start (stable order) changes no row, decisions included", () => {
  let started = 0;
  fc.assert(
    fc.property(
      scenarios,
      fc.constantFrom("builtin_fcfs", "sjf", "fairshare"),
      fc.constantFrom(true, "heads" as const),
      ({ config, trace }, picker, decisions) => {
        const run = (skipFollowUps: boolean) =>
          runBatch({
            ...config,
            picker,
            decisions,
            admission: conservativeProfilePolicy({ skipFollowUps }),
          }, trace);
        const skipped = run(true);
        const walked = run(false);
        assertEquals(skipped.jobRows, walked.jobRows);
        assertEquals(skipped.resourceRows, walked.resourceRows);
        assertEquals(skipped.decisions, walked.decisions);
        started += skipped.decisions.filter((d) => d.type === "DISPATCH").length;
      },
    ),
    { seed: 1628, numRuns: RUNS },
  );
  assert(started > RUNS * 5, `only ${started} starts`);
});

// The worked example (docs/policies.md, conservative_profile): a
// 10-node machine. Job 0 holds 6 nodes until 100. Job 1 (8 nodes) is
// reserved 100-150, job 2 (the whole machine) 150-200. Job 3 (2 nodes, 180 s)
// fits the 2 nodes job 1 leaves at 100, but would still run at 150: textbook
// EASY starts it (it protects only the head, job 1), which delays job 2 to
// 183; conservative backfilling protects every reservation and reserves job
// 3 at 200. Job 4 (2 nodes, 90 s) ends by 100 and backfills under both.
export const WORKED_EXAMPLE: readonly JobSpec[] = [
  { submitTime: 0, numNodes: 6, timeLimit: 100 },
  { submitTime: 1, numNodes: 8, timeLimit: 50 },
  { submitTime: 2, numNodes: 10, timeLimit: 50 },
  { submitTime: 3, numNodes: 2, timeLimit: 180 },
  { submitTime: 4, numNodes: 2, timeLimit: 90 },
];

Deno.test("conservative_profile: the worked example, against textbook and DR_EVT EASY", () => {
  const begins = (backfillPolicy: string) =>
    runBatch({ totalNodes: 10, backfillPolicy, runTimeMode: "limit" }, WORKED_EXAMPLE)
      .jobRows.map((r) => r.beginTime);
  assertEquals(begins("conservative_profile"), [0, 100, 150, 200, 4]);
  assertEquals(begins("conservative_profile_no_compression"), [0, 100, 150, 200, 4]);
  assertEquals(begins("easy_extra"), [0, 100, 183, 3, 4]);
  assertEquals(begins("easy"), [0, 100, 150, 200, 4]);
  const out = runBatch(
    {
      totalNodes: 10,
      backfillPolicy: "conservative_profile",
      runTimeMode: "limit",
      decisions: true,
    },
    WORKED_EXAMPLE,
  );
  const pend3 = out.decisions.find((d) => d.type === "PEND" && d.jobId === 3);
  assert(
    pend3?.type === "PEND" && pend3.reason.code === "reservation_blocked" &&
      pend3.reason.message === "would end at 183, not before the reservation at 150 of job 2",
    JSON.stringify(pend3),
  );
  // With an early end, compression moves the reservations earlier, in queue order.
  const early = WORKED_EXAMPLE.map((j, i) => (i === 0 ? { ...j, actualRunTime: 40 } : j));
  const { seen, rows } = observed({ totalNodes: 10 }, early, true);
  assertEquals(rows.map((r) => r.beginTime), [0, 40, 94, 144, 4]);
  const starts = seen.get(2)!.map((x) => x.start);
  // Job 2's reservation, session after session: 150 from its arrival, 94 from job 0's early end.
  assertEquals(starts.filter((t, i) => i === 0 || t !== starts[i - 1]), [150, 94]);
  assertEquals(seen.get(2)!.find((x) => x.start === 94)?.now, 40);
});

Deno.test("fuzzScheduler: the textbook admission policies pass the invariants that apply, with evtsim's pickers", () => {
  // Work conservation (the first job in order starts when it fits) holds for
  // easy_extra; conservative backfilling may keep it waiting for a
  // reservation behind it (without compression, or after an overrun).
  const invariants = [
    "runs",
    "capacity",
    "schedule-rows",
    "clock-monotone",
    "batch-streaming",
    "purity",
  ] as const;
  for (const admission of ["easy_extra", ...NAMES]) {
    const r = fuzzScheduler({}, {
      numRuns: 60,
      seed: 1625,
      // The option lists DR_EVT's names; registered names of the default registry work too.
      admissions: [admission as BackfillPolicy],
      invariants: admission === "easy_extra" ? [...invariants, "work-conservation"] : invariants,
    });
    assert(r.ok, r.ok ? "" : `${admission}: ${r.report}`);
    for (const name of ["capacity", "batch-streaming", "purity"] as const) {
      assertEquals(r.checked[name], 60, `${admission}: ${name}`);
    }
    if (admission === "easy_extra") assertEquals(r.checked["work-conservation"], 60);
  }
});

// A picker of stable order whose sessions count the skips that succeed.
function countingSkips(picker: Picker, count: () => void): Picker {
  return {
    ...picker,
    beginSession(state, ctx) {
      const s = picker.beginSession(state, ctx);
      return {
        nextJob: () => s.nextJob(),
        onDispatch: (job) => s.onDispatch(job),
        onPend: (job) => s.onPend(job),
        endSession: () => s.endSession(),
        search: s.search,
        skip(n, to) {
          const ok = s.skip!(n, to);
          if (ok) count();
          return ok;
        },
      };
    },
  };
}

Deno.test("conservative_profile: passing over the held jobs where jobs only arrived changes no row, decisions included (cancels, updates and arrivals at equal times)", () => {
  let skips = 0;
  let cancelled = 0;
  fc.assert(
    fc.property(
      arbScenario({ totalNodes: 16, maxGap: 3, minJobs: 10, maxJobs: 40, ties: true }),
      fc.array(fc.record({ job: fc.nat(), after: fc.integer({ min: 0, max: 6 }) }), {
        maxLength: 6,
      }),
      fc.array(
        fc.record({ job: fc.nat(), after: fc.integer({ min: 0, max: 6 }), priority: fc.nat(3) }),
        { maxLength: 2 },
      ),
      fc.boolean(),
      fc.constantFrom("fcfs", "limit"),
      fc.constantFrom(true, "heads" as const, false),
      ({ config, trace }, cancels, updates, compression, order, decisions) => {
        // Cancels and updates at a job's arrival time or a little after
        // (equal times with other arrivals), all given before the run.
        const inputs: Input[] = [
          { kind: "appendJobs", jobs: trace },
          ...cancels.map(({ job, after }): Input => {
            const id = job % trace.length;
            return { kind: "cancelJob", id, time: trace[id].submitTime + after };
          }),
          ...updates.map(({ job, after, priority }): Input => {
            const id = job % trace.length;
            return {
              kind: "updateJob",
              id,
              time: trace[id].submitTime + after,
              update: { priority },
            };
          }),
          { kind: "runToCompletion" },
          { kind: "finish" },
        ];
        const run = (skipHeld: boolean) => {
          const base = order === "fcfs" ? builtinFcfs : orderedPicker({
            name: "shortest_limit",
            compare: (a, b) => a.timeLimit - b.timeLimit || a.id - b.id,
          });
          const picker = countingSkips(base, () => skipHeld && skips++);
          const admission = conservativeProfilePolicy({ compression, skipHeld });
          let s = initialState({ ...config, picker, admission, decisions });
          const rows: { jobs: unknown[]; resources: unknown[]; decisions: unknown[] } = {
            jobs: [],
            resources: [],
            decisions: [],
          };
          for (const input of inputs) {
            const r = step(s, input);
            s = r.state;
            rows.jobs.push(...r.rows.jobs);
            rows.resources.push(...r.rows.resources);
            rows.decisions.push(...r.rows.decisions);
          }
          return rows;
        };
        const skipped = run(true);
        const walked = run(false);
        assertEquals(skipped.jobs, walked.jobs);
        assertEquals(skipped.resources, walked.resources);
        assertEquals(skipped.decisions, walked.decisions);
        cancelled += cancels.length;
      },
    ),
    { seed: 3402, numRuns: RUNS },
  );
  assert(skips > RUNS, `only ${skips} sessions passed over the held jobs`);
  assert(cancelled > RUNS, `only ${cancelled} cancels`);
});
