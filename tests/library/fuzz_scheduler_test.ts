// fuzzScheduler (testing/fuzz_scheduler.ts): evtsim's own pickers ×
// admission policies pass every invariant; lazy, unsafe and impure
// schedulers of a user's own are caught with a readable report, the same
// for the same seed; and the report's trace CSV, run through the CLI with the
// report's own command, gives the same rows as the engine run that failed.

import fc from "fast-check";
import {
  type Admission,
  defaultRegistry,
  type JobRecord,
  orderedPicker,
  type Picker,
  withPolicies,
} from "../../mod.ts";
import type { JobRow } from "../../core/types.ts";
import {
  arbAnyScenario,
  DEFAULT_BACKFILLS,
  fuzzScheduler,
  type FuzzSchedulerFailed,
  runBatch,
} from "../../testing/mod.ts";
import { headOnly, idleOnly, neverBackfills, stopsAtFirstMisfit } from "../_lazy_policies.ts";
import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 200);
const FCFS_ROWS = (a: JobRow, b: JobRow) => a.submitTime - b.submitTime || a.jobId - b.jobId;

function failed(r: ReturnType<typeof fuzzScheduler>): FuzzSchedulerFailed {
  if (r.ok) throw new Error(`expected a counterexample (seed ${r.seed}, ${r.numRuns} runs)`);
  return r;
}

Deno.test("fuzzScheduler: evtsim's own pickers × admissions pass every invariant (seed 42)", () => {
  const r = fuzzScheduler({}, { numRuns: RUNS, seed: 42 });
  assert(r.ok, r.ok ? "" : r.report);
  assertEquals(r.numRuns, RUNS);
  // Each policy-specific check found cases it applies to.
  for (const name of ["work-conservation", "head-reservation", "fcfs-order", "purity"] as const) {
    assert((r.checked[name] ?? 0) > RUNS / 10, `${name}: ${r.checked[name]}`);
  }
  const conservative = fuzzScheduler({}, {
    numRuns: 40,
    seed: 42,
    admissions: ["conservative"],
    priorities: ["fcfs", "fcfs_alt"],
  });
  assert(conservative.ok && (conservative.checked["conservative-reservations"] ?? 0) > 0);
});

Deno.test("fuzzScheduler: every registered admission policy is fuzzed by default, each by its promise", () => {
  // The default pairs come from the registry: a policy registered there is
  // drawn with no list to edit. A lazy one registered with a promise of
  // `head` is caught; the textbook policies promise nothing about waiting
  // jobs (conservative backfilling may keep a job that fits waiting behind
  // another's reservation), so only the promise-free checks run on them.
  const lazyHead: Admission = { ...idleOnly, name: "lazy_head", promise: "head" };
  const registry = withPolicies({ admissions: [lazyHead] });
  const caught = failed(fuzzScheduler({}, { numRuns: RUNS, seed: 42, registry }));
  assertEquals(caught.invariant, "work-conservation");
  assert(caught.report.includes("lazy_head"), caught.report);
  const names = [...defaultRegistry().admissions.keys()];
  assertEquals(DEFAULT_BACKFILLS, names);
  for (
    const name of ["easy_extra", "conservative_profile", "conservative_profile_no_compression"]
  ) {
    assert(names.includes(name), name);
    const r = fuzzScheduler({}, { numRuns: 60, seed: 7, admissions: [name] });
    assert(r.ok, r.ok ? "" : r.report);
    const promise = defaultRegistry().admissions.get(name)!.promise;
    assertEquals(r.checked["work-conservation"] !== undefined, promise !== undefined, name);
  }
  // The library's properties draw every registered name too.
  const drawn = new Set(
    fc.sample(arbAnyScenario(), { numRuns: 400, seed: 1 }).map((c) => c.config.backfillPolicy),
  );
  assertEquals([...drawn].sort(), [...names].sort());
  assertThrows(
    () => fuzzScheduler({}, { numRuns: 1, seed: 1, admissions: ["no_such_policy"] }),
    "unknown backfill policy 'no_such_policy'",
  );
});

Deno.test("fuzzScheduler: a user's picker with its order passes under every admission policy", () => {
  const compare = (a: JobRecord, b: JobRecord) => b.numNodes - a.numNodes || a.id - b.id;
  const largest = orderedPicker({ name: "largest_first", compare });
  const r = fuzzScheduler({
    picker: largest,
    headOrder: { order: (a, b) => b.numNodes - a.numNodes || a.jobId - b.jobId },
  }, { numRuns: 150, seed: 3 });
  assert(r.ok, r.ok ? "" : r.report);
  assert((r.checked["head-reservation"] ?? 0) > 0 && r.checked["fcfs-order"] === undefined);
});

Deno.test("fuzzScheduler: lazy schedulers are caught by work conservation, with a readable report", () => {
  const lazy = [
    { admission: idleOnly },
    { admission: neverBackfills, guarantee: "easy" as const },
    { admission: stopsAtFirstMisfit, guarantee: "easy" as const },
    { picker: headOnly as Picker, headOrder: { order: FCFS_ROWS } },
    { picker: headOnly as Picker }, // order unknown: the form that holds in every order
  ];
  for (const scheduler of lazy) {
    const r = failed(fuzzScheduler(scheduler, { numRuns: 300, seed: 11 }));
    assertEquals(r.invariant, "work-conservation", r.report);
    assert(/^at [\d.]+: /.test(r.violations[0]), r.violations[0]);
    const lines = r.report.split("\n");
    assertEquals(lines[0], "property: work-conservation");
    assert(lines.includes("seed: 11") && lines.includes(`path: ${r.path}`), r.report);
    assert(r.report.includes(`error:\n  work-conservation:\n    ${r.violations[0]}\n`), r.report);
    assert(r.report.includes(`trace CSV (counterexample.csv):\n  job_submit_time,`), r.report);
    for (const row of r.traceCsv.trim().split("\n")) assert(lines.includes(`  ${row}`), row);
    assert(r.report.includes(`reproduce:\n  ${r.reproduce}\n`), r.report);
    assert(r.report.includes(`CLI view:\n  ${r.command}\n`), r.report);
    // The shrunk case is small, and its rows are the run that failed.
    assert(r.counterexample.trace.length <= 6, r.traceCsv);
    assertEquals(r.jobRows, runBatch(r.counterexample.config, r.counterexample.trace).jobRows);
  }
  // Without `guarantee`, a policy of your own is held only to the head rule, which
  // never-backfilling EASY keeps.
  assert(fuzzScheduler({ admission: neverBackfills }, { numRuns: 150, seed: 11 }).ok);
});

Deno.test("fuzzScheduler: the same seed gives the same report; seed + path replays the counterexample", () => {
  const o = { numRuns: 300, seed: 2024, maxJobs: 12 };
  const a = failed(fuzzScheduler({ admission: stopsAtFirstMisfit, guarantee: "easy" }, o));
  const b = failed(fuzzScheduler({ admission: stopsAtFirstMisfit, guarantee: "easy" }, o));
  assertEquals(b.report, a.report);
  assert(
    a.reproduce.startsWith(
      `fuzzScheduler({ admission: stops_at_first_misfit, guarantee: "easy" }, {"numRuns":300,` +
        `"seed":2024,"maxJobs":12,"path":"${a.path}"})`,
    ),
    a.reproduce,
  );
  const again = failed(
    fuzzScheduler({ admission: stopsAtFirstMisfit, guarantee: "easy" }, { ...o, path: a.path }),
  );
  assertEquals(again.counterexample.trace, a.counterexample.trace);
  assertEquals(again.violations, a.violations);
});

Deno.test("fuzzScheduler: the report's trace CSV and command reproduce the same rows through the CLI", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-fuzz-scheduler-" });
  try {
    const schedulers = [
      { admission: stopsAtFirstMisfit, guarantee: "easy" as const },
      { picker: headOnly as Picker, headOrder: { order: FCFS_ROWS } },
    ];
    for (const [i, scheduler] of schedulers.entries()) {
      const tracePath = `${dir}/case${i}.csv`;
      const r = failed(fuzzScheduler(scheduler, {
        numRuns: 300,
        seed: 8,
        policyModule: `${ROOT}tests/_lazy_policies.ts`,
        tracePath,
      }));
      await Deno.writeTextFile(tracePath, r.traceCsv);
      const cli = r.command.match(/^(?:evtsim|deno task --cwd \S+ evtsim) (simulate .*)$/);
      assert(cli !== null && !r.report.includes("MODULE.ts"), r.command);
      const args = cli[1].split(" ");
      const run = await runCli(args);
      assertEquals(run.code, 0, run.err.join("\n"));
      const rows = (await Deno.readTextFile(`${dir}/case${i}_sim.csv`)).trim().split("\n");
      assertEquals(rows[0], "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit");
      const expected = r.jobRows!.map((j) =>
        [j.submitTime, j.beginTime, j.endTime, j.numNodes, 0, j.timeLimit].join(",")
      );
      assertEquals(rows.slice(1), expected);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fuzzScheduler: an unsafe admission policy and an impure picker are caught too", () => {
  // Starts the first candidate whether it fits or not: the engine refuses.
  const unsafe: Admission = {
    name: "unsafe",
    runSession(s) {
      const job = s.next();
      if (job !== undefined) s.dispatch(job, false);
    },
  };
  const u = failed(fuzzScheduler({ admission: unsafe }, { numRuns: 100, seed: 5 }));
  assertEquals(u.invariant, "runs");
  assert(u.violations[0].includes("needing") && u.jobRows === undefined, u.violations[0]);
  // Keeps its jobs in one array that every hook changes in place.
  const sharing: Picker<JobRecord[]> = {
    name: "in_place",
    init: () => [],
    onQueueUpdate: (jobs) => jobs,
    onJobPush: (jobs, job) => {
      jobs.push(job);
      return jobs;
    },
    onJobStateChange: (jobs) => jobs,
    onJobUpdate: (jobs) => jobs,
    size: (jobs) => jobs.length,
    pending: (jobs) => jobs,
    beginSession(jobs) {
      let i = 0;
      return {
        nextJob: () => jobs[i],
        onDispatch: () => void jobs.splice(i, 1),
        onPend: () => void i++,
        endSession: () => jobs,
      };
    },
  };
  const p = failed(fuzzScheduler({ picker: sharing as Picker }, { numRuns: 100, seed: 5 }));
  assert(p.invariant === "purity" || p.invariant === "batch-streaming", p.report);
});
