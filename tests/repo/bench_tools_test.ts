// The benchmark tooling's pure parts: the trace generator's shape, the CSV
// form, the log-log fit, flag parsing, and the in-process runner finishing
// every job. No timings are asserted.

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { fitExponent, formatTable } from "../../bench/_util.ts";
import { intArg, parseScriptArgs } from "../../bench/_args.ts";
import { POLICIES, runEngine } from "../../bench/engine_throughput.ts";
import { generateTopoWorkload, timePolicy } from "../../bench/topo_placement.ts";
import { simulateTopology } from "../../mod.ts";

Deno.test("generateTrace is deterministic for a seed and differs across seeds", () => {
  const a = generateTrace({ seed: 5, jobs: 500, nodes: 128, load: 1.2 });
  const b = generateTrace({ seed: 5, jobs: 500, nodes: 128, load: 1.2 });
  const c = generateTrace({ seed: 6, jobs: 500, nodes: 128, load: 1.2 });
  assertEquals(a, b);
  assert(JSON.stringify(a) !== JSON.stringify(c), "different seeds gave the same trace");
});

Deno.test("generateTrace: sorted integer submits, sizes within the machine, 1 <= actual <= limit", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: 1, max: 2048 }),
      fc.double({ min: 0.1, max: 3, noNaN: true }),
      fc.boolean(),
      (seed, jobs, nodes, load, ties) => {
        const t = generateTrace({ seed, jobs, nodes, load, ties });
        assertEquals(t.length, jobs);
        for (let i = 0; i < t.length; i++) {
          const j = t[i];
          assert(Number.isInteger(j.submitTime) && j.submitTime >= 0, "submit");
          assert(i === 0 || t[i - 1].submitTime <= j.submitTime, "unsorted");
          assert(Number.isInteger(j.numNodes) && j.numNodes >= 1 && j.numNodes <= nodes, "size");
          assert(Number.isInteger(j.timeLimit) && j.timeLimit >= 1, "limit");
          const actual = j.actualRunTime!;
          assert(Number.isInteger(actual) && actual >= 1 && actual <= j.timeLimit, "actual");
        }
      },
    ),
    { seed: 42, numRuns: 200 },
  );
});

Deno.test("generateTrace: offered load is close to the requested load", () => {
  for (const load of [0.9, 1.5]) {
    const nodes = 512;
    const t = generateTrace({ seed: 11, jobs: 20000, nodes, load });
    const work = t.reduce((s, j) => s + j.numNodes * j.actualRunTime!, 0);
    const span = t[t.length - 1].submitTime - t[0].submitTime;
    const offered = work / (nodes * span);
    assert(Math.abs(offered / load - 1) < 0.1, `load ${load}: offered ${offered}`);
  }
});

Deno.test("generateTrace: --ties gives many equal submit times", () => {
  const t = generateTrace({ seed: 3, jobs: 2000, nodes: 64, load: 1, ties: true });
  let equal = 0;
  for (let i = 1; i < t.length; i++) if (t[i].submitTime === t[i - 1].submitTime) equal++;
  assert(equal > 0.25 * t.length, `only ${equal} ties`);
});

Deno.test("generateTrace rejects bad parameters", () => {
  let threw = 0;
  for (
    const p of [{ jobs: -1, nodes: 4, load: 1 }, { jobs: 3, nodes: 0, load: 1 }, {
      jobs: 3,
      nodes: 4,
      load: 0,
    }]
  ) {
    try {
      generateTrace({ seed: 1, ...p });
    } catch (e) {
      assert(e instanceof RangeError);
      threw++;
    }
  }
  assertEquals(threw, 3);
});

Deno.test("traceToCsv writes the DR_EVT simple header and one line per job", () => {
  const csv = traceToCsv([
    { submitTime: 0, numNodes: 2, timeLimit: 60, actualRunTime: 30, queue: "pbatch" },
    { submitTime: 5, numNodes: 1, timeLimit: 10 },
  ]);
  assertEquals(
    csv,
    "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n0,2,pbatch,60,30\n5,1,pbatch,10,10\n",
  );
});

Deno.test("fitExponent recovers power laws and needs two points", () => {
  const xs = [25e3, 50e3, 1e5, 2e5, 4e5];
  assert(Math.abs(fitExponent(xs, xs.map((x) => 3e-6 * x)) - 1) < 1e-9);
  assert(Math.abs(fitExponent(xs, xs.map((x) => 1e-9 * x ** 1.5)) - 1.5) < 1e-9);
  assert(Number.isNaN(fitExponent([10], [1])));
  assert(Number.isNaN(fitExponent([10, 10], [1, 2])));
});

Deno.test("parseScriptArgs (node:util parseArgs): values, switches, positionals, one-line errors", () => {
  const options = {
    only: { type: "string" },
    data: { type: "string" },
    scaling: { type: "boolean" },
  } as const;
  const f = parseScriptArgs(["a.csv", "--only", "KTH,HPC2N", "--scaling", "--data=/x"], options);
  assertEquals(f.positionals, ["a.csv"]);
  assertEquals(f.values.only, "KTH,HPC2N");
  assertEquals(f.values.data, "/x");
  assertEquals(f.values.scaling, true);
  const message = (args: string[]) => {
    try {
      parseScriptArgs(args, options);
    } catch (e) {
      return (e as Error).message;
    }
    return "";
  };
  assert(message(["--only"]).includes("--only"), message(["--only"]));
  assert(message(["--bogus"]).includes("--bogus"), message(["--bogus"]));
  assert(!message(["--bogus"]).includes("\n"));
  assertEquals(intArg("--runs", "12", 1), 12);
  let bad = "";
  try {
    intArg("--runs", "0", 1);
  } catch (e) {
    bad = (e as Error).message;
  }
  assertEquals(bad, "--runs expects an integer >= 1, got '0'");
});

Deno.test("formatTable aligns numbers right and text left", () => {
  const t = formatTable(["input", "jobs"], [["KTH", "27,992"], ["cons_2k", "2,000"]]);
  assertEquals(t.split("\n"), [
    "input      jobs",
    "-------  ------",
    "KTH      27,992",
    "cons_2k   2,000",
  ]);
});

Deno.test("runEngine completes every job under each policy, sliced or not", () => {
  const jobs = generateTrace({ seed: 9, jobs: 1500, nodes: 100, load: 1.4, ties: true });
  for (const setup of Object.values(POLICIES)) {
    const whole = runEngine(jobs, 100, setup);
    const sliced = runEngine(jobs, 100, setup, 1e6);
    assertEquals(whole.jobsCompleted, 1500);
    assert(whole.complete && sliced.complete, setup.label);
    assertEquals(sliced.averageWait, whole.averageWait);
    assertEquals(sliced.jobsCompleted, whole.jobsCompleted);
  }
});

Deno.test("generateTopoWorkload: deterministic, and every job fits one domain of its key when the cluster is empty", () => {
  const o = { seed: 4, racks: 4, nodesPerRack: 4, zones: 2, jobs: 200, load: 0.9 };
  const a = generateTopoWorkload(o);
  assertEquals(a, generateTopoWorkload(o));
  assertEquals(a.cluster.nodes.length, 16);
  for (let i = 1; i < a.jobs.length; i++) {
    assert(a.jobs[i - 1].arrivalTick <= a.jobs[i].arrivalTick, "arrivals unsorted");
  }
  const r = simulateTopology(a.cluster, a.jobs, "backfill");
  assertEquals(r.completedJobCount, 200);
  assertEquals(timePolicy(a.cluster, a.jobs, "strict-fifo", 1).result.completedJobCount, 200);
});
