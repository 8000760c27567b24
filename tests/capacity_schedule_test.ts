// `--capacity_schedule FILE` / `config.capacitySchedule`: the usable node
// count changes over time. A cut never preempts running jobs, a job larger
// than the current capacity waits, and only a job larger than the machine is
// rejected. Library tests pin the event order at one instant (ends, then
// capacity changes, then scheduling); the CLI tests check the file format.

import fc from "fast-check";
import { main } from "../cli/main.ts";
import { availableNodes } from "../core/queries.ts";
import { initialState } from "../core/state.ts";
import { step } from "../core/step.ts";
import type { JobSpec, SimulationConfig } from "../core/types.ts";
import { parseCapacitySchedule, readCapacitySchedule } from "../io/capacity_schedule.ts";
import { checkCapacityRows, checkStartsWithinCapacity } from "../fuzz/capacity_checks.ts";
import { PROPERTIES } from "../fuzz/properties.ts";
import { runBatch, runInputs, streamingInputs } from "../testing/mod.ts";
import { assert, assertEquals, assertThrows } from "./_assert.ts";

const job = (submitTime: number, numNodes: number, timeLimit: number): JobSpec => ({
  submitTime,
  numNodes,
  timeLimit,
});

/** Job rows as `id:submit/begin-end`, resource rows as `time:free/allocated`. */
function compact(config: SimulationConfig, trace: readonly JobSpec[]) {
  const out = runBatch(config, trace);
  return {
    jobs: out.jobRows.map((r) => `${r.jobId}:${r.submitTime}/${r.beginTime}-${r.endTime}`),
    resources: out.resourceRows.map((r) => `${r.time}:${r.freeNodes}/${r.allocatedNodes}`),
    out,
  };
}

Deno.test("a cut below the running allocation preempts nothing; free_nodes is capacity - allocated", () => {
  // Two 5-node jobs fill the machine; at 10 the capacity drops to 4. Both run
  // to their ends; job 2 (2 nodes, submitted at 20) waits until the
  // allocation is back within the capacity.
  const config = { totalNodes: 10, capacitySchedule: [{ time: 10, capacity: 4 }] };
  const r = compact(config, [job(0, 5, 100), job(0, 5, 50), job(20, 2, 10)]);
  assertEquals(r.jobs, ["0:0/0-100", "1:0/0-50", "2:20/100-110"]);
  // No row marks the cut itself, and the first row after it (job 1's end at
  // 50) shows free = 4 - 5 = -1: over capacity by one node. Pinned as is.
  assertEquals(r.resources, [
    "0:10/0",
    "0:5/5",
    "0:0/10",
    "50:-1/5",
    "100:4/0",
    "100:2/2",
    "110:4/0",
  ]);
  assertEquals(checkStartsWithinCapacity(r.out.jobRows, config), []);
  assertEquals(checkCapacityRows(r.out.resourceRows, config), []);
  // The monitor clamps what the row does not.
  let s = step(initialState(config), { kind: "appendJobs", jobs: [job(0, 5, 100), job(0, 5, 50)] })
    .state;
  s = step(s, { kind: "advanceTo", time: 60 }).state;
  assertEquals([s.capacity, s.allocatedNodes, availableNodes(s)], [4, 5, 0]);
});

Deno.test("a job larger than the current capacity waits until the capacity is raised", () => {
  for (const backfillPolicy of ["none", "easy", "conservative"] as const) {
    const config: SimulationConfig = {
      totalNodes: 10,
      backfillPolicy,
      capacitySchedule: [{ time: 0, capacity: 4 }, { time: 50, capacity: 10 }],
    };
    // Job 0 (8 nodes) is the head and cannot be reserved against running
    // jobs (there are none), so DR_EVT's reservation is "now" and nothing
    // backfills past it: job 1 waits too, although it fits.
    const r = compact(config, [job(0, 8, 10), job(5, 2, 10)]);
    assertEquals(r.jobs, ["0:0/50-60", "1:5/50-60"], backfillPolicy);
    assertEquals(r.resources, ["0:4/0", "50:2/8", "50:0/10", "60:8/2", "60:10/0"]);
    assertEquals(r.out.notices, []);
  }
  // A raise with no other event at that instant starts a scheduling pass.
  const raised = compact({
    totalNodes: 10,
    backfillPolicy: "none",
    capacitySchedule: [{ time: 0, capacity: 2 }, { time: 30, capacity: 3 }],
  }, [job(0, 3, 50)]);
  assertEquals(raised.jobs, ["0:0/30-80"]);
});

Deno.test("only a job larger than the machine is rejected, whatever the current capacity", () => {
  const config = {
    totalNodes: 10,
    capacitySchedule: [{ time: 0, capacity: 4 }, { time: 20, capacity: 10 }],
  };
  const r = compact(config, [job(0, 11, 5), job(0, 10, 5), job(1, 4, 5)]);
  assertEquals(r.out.notices, [{ kind: "rejected", jobId: 0, numNodes: 11, totalNodes: 10 }]);
  assertEquals(r.jobs, ["1:0/20-25", "2:1/25-30"]);
  assertEquals([r.out.statistics.jobsRejected, r.out.statistics.jobsCompleted], [1, 2]);
});

Deno.test("a job that never fits the final capacity waits for ever: no row, no notice", () => {
  // Pinned current behaviour: the 8-node job is accepted (8 <= 10) but the
  // capacity never comes back above 4, so it never starts, and as the head it
  // blocks job 1 as well. Neither is written or reported; the statistics
  // count them as waiting.
  const config = { totalNodes: 10, capacitySchedule: [{ time: 0, capacity: 4 }] };
  const r = compact(config, [job(0, 8, 10), job(5, 2, 10)]);
  assertEquals([r.jobs, r.out.notices, r.resources], [[], [], ["0:4/0"]]);
  assertEquals([r.out.statistics.jobsWaiting, r.out.statistics.jobsCompleted], [2, 0]);
});

Deno.test("at one instant: ends, then capacity changes, then one scheduling pass", () => {
  // A raise at the instant a job ends and another arrives: the arrival sees
  // the raised capacity.
  const up = {
    totalNodes: 10,
    capacitySchedule: [{ time: 0, capacity: 4 }, { time: 50, capacity: 10 }],
  };
  const a = compact(up, [job(0, 4, 50), job(50, 10, 10)]);
  assertEquals(a.jobs, ["0:0/0-50", "1:50/50-60"]);
  assertEquals(a.resources, ["0:4/0", "0:0/4", "50:4/0", "50:0/10", "60:10/0"]);
  // A cut at the instant a job ends and another arrives: the arrival sees the
  // cut. The end's row is written before the change, with the old capacity
  // (10 - 6 = 4 free). Job 2 never fits 2 nodes again, so it is never written.
  const down = { totalNodes: 10, capacitySchedule: [{ time: 50, capacity: 2 }] };
  const b = compact(down, [job(0, 4, 50), job(0, 6, 100), job(50, 3, 10)]);
  assertEquals(b.jobs, ["0:0/0-50", "1:0/0-100"]);
  assertEquals(b.resources, ["0:10/0", "0:6/4", "0:0/10", "50:4/6", "100:2/0"]);
  assertEquals(checkCapacityRows(b.out.resourceRows, down), []);
  // Several changes at one instant: the last one holds.
  const many = {
    totalNodes: 10,
    backfillPolicy: "none" as const,
    capacitySchedule: [{ time: 0, capacity: 2 }, { time: 30, capacity: 9 }, {
      time: 30,
      capacity: 3,
    }],
  };
  assertEquals(compact(many, [job(0, 3, 50), job(0, 4, 10)]).jobs, ["0:0/30-80"]);
});

Deno.test("changes at or before the start apply to the baseline row; streaming across a change ≡ batch", () => {
  const config = {
    totalNodes: 10,
    capacitySchedule: [{ time: -5, capacity: 8 }, { time: 0, capacity: 6 }, {
      time: 40,
      capacity: 9,
    }],
  };
  const s = initialState(config);
  assertEquals([s.capacity, s.capacityIndex], [6, 2]);
  const trace = [job(0, 6, 30), job(10, 7, 5), job(40, 2, 5), job(40, 1, 1)];
  const batch = runBatch(config, trace);
  assertEquals(batch.resourceRows[0], { time: 0, freeNodes: 6, allocatedNodes: 0 });
  // At 40: the raise, then job 1 (7 nodes) and job 2 (2) start; job 3 waits for their ends.
  assertEquals(batch.jobRows.map((r) => r.beginTime), [0, 40, 40, 45]);
  const live = runInputs(
    config,
    streamingInputs(trace, [
      { kind: "append", count: 2 },
      { kind: "runUntilExclusive", time: 40 },
      { kind: "append", count: 2 },
    ]),
  );
  assertEquals([live.jobRows, live.resourceRows], [batch.jobRows, batch.resourceRows]);
});

Deno.test("the configuration refuses a capacity outside 0..total or out of time order", () => {
  const bad: SimulationConfig["capacitySchedule"][] = [
    [{ time: 0, capacity: 11 }],
    [{ time: 0, capacity: -1 }],
    [{ time: 0, capacity: 2.5 }],
    [{ time: 5, capacity: 1 }, { time: 4, capacity: 1 }],
    [{ time: Number.NaN, capacity: 1 }],
  ];
  for (const capacitySchedule of bad) {
    assertThrows(() => initialState({ totalNodes: 10, capacitySchedule }), "capacity change");
  }
});

// ---- the file format ---------------------------------------------------------

Deno.test("parseCapacitySchedule: rows, blank lines, CRLF, date-times", () => {
  const text = "time,capacity\r\n0,100\r\n\r\n50, 60\n2024-01-01T00:00:00Z,70\n";
  assertEquals(parseCapacitySchedule(text, "cap.csv", "UTC"), [
    { time: 0, capacity: 100 },
    { time: 50, capacity: 60 },
    { time: 1704067200, capacity: 70 },
  ]);
  assertEquals(parseCapacitySchedule("time,capacity\n", "cap.csv", "UTC"), []);
});

Deno.test("parseCapacitySchedule: each error names the file, the line and the field", () => {
  const cases: [string, string][] = [
    ["capacity,time\n0,4\n", "cap.csv:1: expected the header 'time,capacity'"],
    ["", "cap.csv:1: expected the header 'time,capacity'"],
    ["time,capacity\n0,4\nsoon,5\n", "cap.csv:3: time: "],
    ["time,capacity\n0,4\n5,\n", "cap.csv:3: capacity: expected a non-negative integer, got ''"],
    ["time,capacity\n10\n", "cap.csv:2: capacity: expected a non-negative integer, got ''"],
    ["time,capacity\n0,-1\n", "cap.csv:2: capacity: expected a non-negative integer, got '-1'"],
    ["time,capacity\n0,2.5\n", "cap.csv:2: capacity: expected a non-negative integer, got '2.5'"],
    ["time,capacity\n0,lots\n", "cap.csv:2: capacity: expected a non-negative integer, got 'lots'"],
    ["time,capacity\n10,4\n\n5,6\n", "cap.csv:4: time: times must be non-decreasing"],
  ];
  for (const [text, message] of cases) {
    const e = assertThrows(() => parseCapacitySchedule(text, "cap.csv", "UTC"), message);
    assert(!e.message.includes("\n"), e.message);
  }
});

interface Captured {
  code: number;
  out: string[];
  err: string[];
}

async function run(args: string[]): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTerminal: false,
  });
  return { code, out, err };
}

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  "0,6,100,100\n0,4,20,20\n10,5,10,10\n30,10,10,10\n";

Deno.test("CLI: --capacity_schedule shapes the schedule and the resource timeline", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-capacity-" });
  try {
    Deno.writeTextFileSync(`${dir}/jobs.csv`, TRACE);
    // 10 nodes; cut to 6 at 20 while 10 are in use; back to 10 at 150.
    Deno.writeTextFileSync(`${dir}/cap.csv`, "time,capacity\n20,6\n150,10\n");
    const r = await run([
      "simulate",
      `${dir}/jobs.csv`,
      "-n",
      "10",
      "--capacity-schedule",
      `${dir}/cap.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err, []);
    // Job 2 (5 nodes) waits for job 0's end at 100 (6 - 6 = 0 free until then);
    // job 3 (the whole machine) is not rejected: it waits for the raise at 150.
    assertEquals(Deno.readTextFileSync(`${dir}/jobs_sim.csv`).trim().split("\n"), [
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit",
      "0,0,100,6,0,100",
      "0,0,20,4,0,20",
      "10,100,110,5,0,10",
      "30,150,160,10,0,10",
    ]);
    assertEquals(Deno.readTextFileSync(`${dir}/jobs_sim_resources.csv`).trim().split("\n"), [
      "time,free_nodes,allocated_nodes",
      "0,10,0",
      "0,4,6",
      "0,0,10",
      "20,4,6", // job 1's end is applied before the cut at the same instant
      "100,6,0",
      "100,1,5",
      "110,6,0",
      "150,0,10",
      "160,10,0",
    ]);
    assert(r.out.includes("Jobs completed: 4"), r.out.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI: a bad capacity schedule is one line naming file, line and field; exit 1; no outputs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-capacity-" });
  try {
    Deno.writeTextFileSync(`${dir}/jobs.csv`, TRACE);
    const cases: [string, string][] = [
      ["time,capacity\n0,4\n5,x\n", `${dir}/cap.csv:3: capacity: `],
      ["time,capacity\n0,4\nlater,5\n", `${dir}/cap.csv:3: time: `],
      // Above the machine: refused by the configuration check, which knows no line.
      ["time,capacity\n0,4\n5,11\n", "capacity change 1: capacity must be an integer in 0..10"],
    ];
    for (const [text, message] of cases) {
      Deno.writeTextFileSync(`${dir}/cap.csv`, text);
      const r = await run([
        "simulate",
        `${dir}/jobs.csv`,
        "-n",
        "10",
        "--capacity_schedule",
        `${dir}/cap.csv`,
      ]);
      assertEquals(r.code, 1);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith("evtsim: ") && r.err[0].includes(message), r.err[0]);
      assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["cap.csv", "jobs.csv"]);
    }
    const missing = await run([
      "simulate",
      `${dir}/jobs.csv`,
      "--capacity_schedule",
      `${dir}/nope.csv`,
    ]);
    assertEquals(missing.code, 1);
    assert(missing.err[0].includes(`${dir}/nope.csv: cannot read`), missing.err[0]);
    await readCapacitySchedule(`${dir}/cap.csv`, "UTC"); // readable (the range check is the config's)
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---- property ----------------------------------------------------------------

Deno.test("property: starts stay within the capacity in force; cuts never preempt; streaming ≡ batch", () => {
  const p = PROPERTIES.find((x) => x.name === "capacity-schedule")!;
  let overCapacity = 0; // runs where a cut left the allocation above the capacity
  let waited = 0; // runs where a job that fit the machine waited for capacity
  fc.assert(
    fc.property(p.arbitrary, (c) => {
      p.check(c);
      const out = runBatch(c.config, c.trace);
      if (out.resourceRows.some((r) => r.freeNodes < 0)) overCapacity++;
      if (out.jobRows.some((r) => r.beginTime > r.submitTime)) waited++;
    }),
    { seed: 42, numRuns: 300 },
  );
  assert(overCapacity >= 10 && waited >= 30, `coverage: ${overCapacity} cut, ${waited} waited`);
});

Deno.test("the capacity checks report a start above the capacity in force", () => {
  const config = { totalNodes: 8, capacitySchedule: [{ time: 5, capacity: 2 }] };
  const row = (jobId: number, beginTime: number, endTime: number, numNodes: number) => ({
    jobId,
    submitTime: 0,
    beginTime,
    endTime,
    numNodes,
    timeLimit: endTime - beginTime,
    queue: undefined,
  });
  // Job 0 runs across the cut (allowed); job 1 starts at 6 with 7 nodes in use.
  assertEquals(checkStartsWithinCapacity([row(0, 0, 9, 6)], config), []);
  assertEquals(checkStartsWithinCapacity([row(0, 0, 9, 6), row(1, 6, 7, 1)], config).length, 1);
  const rows = [
    { time: 0, freeNodes: 8, allocatedNodes: 0 },
    { time: 6, freeNodes: -1, allocatedNodes: 3 },
  ];
  assertEquals(checkCapacityRows(rows, config).length, 1);
});
