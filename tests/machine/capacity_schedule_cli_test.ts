// `--capacity_schedule FILE`: the CSV format (`time,capacity`, exactly two
// fields a row, digits-only capacity no larger than the machine, each error
// naming file, line and field) and what the CLI writes and prints with it:
// capacity-change rows in the resource timeline (only for changes while a
// job runs), a warning line for jobs stranded below the final capacity, and
// a clock that late changes do not move. The engine rules are in
// capacity_schedule_test.ts.

import { parseCapacitySchedule, readCapacitySchedule } from "../../io/capacity_schedule.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../_assert.ts";
import { type Captured, runCli } from "../_cli.ts";

Deno.test("parseCapacitySchedule: rows, blank lines, CRLF, date-times, the machine bound", () => {
  const text = "time,capacity\r\n0,100\r\n\r\n50, 60\n2024-01-01T00:00:00Z,70\n";
  const expected = [
    { time: 0, capacity: 100 },
    { time: 50, capacity: 60 },
    { time: 1704067200, capacity: 70 },
  ];
  assertEquals(parseCapacitySchedule(text, "cap.csv", "UTC"), expected);
  assertEquals(parseCapacitySchedule(text, "cap.csv", "UTC", 100), expected); // bound inclusive
  assertEquals(parseCapacitySchedule("time,capacity\n", "cap.csv", "UTC"), []);
  assertEquals(parseCapacitySchedule("time,capacity\n5,0\n", "cap.csv", "UTC", 0), [
    { time: 5, capacity: 0 },
  ]);
});

Deno.test("parseCapacitySchedule: each error names the file, the line and the field", () => {
  const any = "expected a non-negative integer";
  const cases: [string, string][] = [
    ["capacity,time\n0,4\n", "cap.csv:1: expected the header 'time,capacity'"],
    ["", "cap.csv:1: expected the header 'time,capacity'"],
    // Exactly two fields: a row with one or three names no field, only the count.
    ["time,capacity\n10\n", "cap.csv:2: expected 2 fields (time,capacity), got 1"],
    ["time,capacity\n0,4\n5,6,7\n", "cap.csv:3: expected 2 fields (time,capacity), got 3"],
    ["time,capacity\n0,4,\n", "cap.csv:2: expected 2 fields (time,capacity), got 3"],
    ["time,capacity\n,4\n", "cap.csv:2: time: expected a time, got an empty field"],
    ["time,capacity\n  ,4\n", "cap.csv:2: time: expected a time, got an empty field"],
    ["time,capacity\n0,4\nsoon,5\n", "cap.csv:3: time: "],
    ["time,capacity\n0,4\n5,\n", `cap.csv:3: capacity: ${any}, got ''`],
    ["time,capacity\n0,-1\n", `cap.csv:2: capacity: ${any}, got '-1'`],
    ["time,capacity\n0,2.5\n", `cap.csv:2: capacity: ${any}, got '2.5'`],
    ["time,capacity\n0,lots\n", `cap.csv:2: capacity: ${any}, got 'lots'`],
    // Digits only: what Number() would take is not enough.
    ["time,capacity\n0,+4\n", `cap.csv:2: capacity: ${any}, got '+4'`],
    ["time,capacity\n0,1e3\n", `cap.csv:2: capacity: ${any}, got '1e3'`],
    ["time,capacity\n0,0x10\n", `cap.csv:2: capacity: ${any}, got '0x10'`],
    ["time,capacity\n0,4.0\n", `cap.csv:2: capacity: ${any}, got '4.0'`],
    ["time,capacity\n0,9999999999999999\n", `cap.csv:2: capacity: ${any}, got '9999999999999999'`],
    ["time,capacity\n10,4\n\n5,6\n", "cap.csv:4: time: times must be non-decreasing"],
  ];
  for (const [text, message] of cases) {
    const e = assertThrows(() => parseCapacitySchedule(text, "cap.csv", "UTC"), message);
    assert(!e.message.includes("\n"), e.message);
  }
  // With the machine size as a bound, a larger capacity is an error at its line.
  const e = assertThrows(
    () => parseCapacitySchedule("time,capacity\n0,4\n5,11\n", "cap.csv", "UTC", 10),
    "cap.csv:3: capacity: expected an integer in 0..10 (the machine size), got '11'",
  );
  assert(!e.message.includes("\n"), e.message);
  assertThrows(
    () => parseCapacitySchedule("time,capacity\n0,x\n", "cap.csv", "UTC", 10),
    "cap.csv:2: capacity: expected an integer in 0..10 (the machine size), got 'x'",
  );
});

const run = runCli;

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  "0,6,100,100\n0,4,20,20\n10,5,10,10\n30,10,10,10\n";

/** Runs `simulate` on TRACE (or `trace`) with `cap.csv` holding `schedule`, in a fresh directory (`{dir}` in `extra` names it). */
async function withSchedule(
  schedule: string,
  extra: string[],
  body: (r: Captured, dir: string) => void,
  trace = TRACE,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-capacity-" });
  try {
    Deno.writeTextFileSync(`${dir}/jobs.csv`, trace);
    Deno.writeTextFileSync(`${dir}/cap.csv`, schedule);
    body(
      await run([
        "simulate",
        `${dir}/jobs.csv`,
        ...extra.map((a) => a.replace("{dir}", dir)),
        "--capacity_schedule",
        `${dir}/cap.csv`,
        "-o",
        `${dir}/jobs_sim.csv`,
      ]),
      dir,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const lines = (path: string) => Deno.readTextFileSync(path).trim().split("\n");

Deno.test("CLI: --capacity_schedule shapes the schedule and the resource timeline (drevt)", async () => {
  // 10 nodes; cut to 6 at 20 while 10 are in use; back to 10 at 150.
  const args = ["-n", "10", "--capacity_semantics", "drevt"];
  await withSchedule("time,capacity\n20,6\n150,10\n", args, (r, dir) => {
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err, []);
    // Job 2 (5 nodes) waits for job 0's end at 100 (6 - 6 = 0 free until then);
    // job 3 (the whole machine) is not rejected: it waits for the raise at 150.
    // Nothing runs then, so the raise has no row: job 3's start row shows it.
    assertEquals(lines(`${dir}/jobs_sim.csv`), [
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit",
      "0,0,100,6,0,100",
      "0,0,20,4,0,20",
      "10,100,110,5,0,10",
      "30,150,160,10,0,10",
    ]);
    assertEquals(lines(`${dir}/jobs_sim_resources.csv`), [
      "time,free_nodes,allocated_nodes",
      "0,10,0",
      "0,4,6",
      "0,0,10",
      "20,-4,10", // the cut's own row: 4 nodes owed (cuts never preempt)
      "20,0,6", // job 1's end at the same instant, after the cut
      "100,6,0",
      "100,1,5",
      "110,6,0",
      "150,0,10",
      "160,10,0",
    ]);
    assert(r.out.includes("Jobs completed: 4"), r.out.join("\n"));
    assert(r.out.includes("Current time: 160"), r.out.join("\n"));
  });
});

Deno.test("CLI: by default the drained nodes are not free: free never goes negative", async () => {
  await withSchedule("time,capacity\n20,6\n150,10\n", ["-n", "10"], (r, dir) => {
    assertEquals([r.code, r.err], [0, []]);
    const res = lines(`${dir}/jobs_sim_resources.csv`);
    assert(res.includes("20,0,10"), res.join("\n")); // DR_EVT writes 20,-4,10
    assert(res.slice(1).every((l) => Number(l.split(",")[1]) >= 0), res.join("\n"));
    assertEquals(lines(`${dir}/jobs_sim.csv`).slice(1), [
      "0,0,100,6,0,100",
      "0,0,20,4,0,20",
      "10,100,110,5,0,10",
      "30,150,160,10,0,10",
    ]);
  });
});

Deno.test("CLI: a capacity change after the last job does not move the clock", async () => {
  await withSchedule("time,capacity\n20,6\n150,10\n1000,2\n", ["-n", "10"], (r, dir) => {
    assertEquals([r.code, r.err], [0, []]);
    assert(r.out.includes("Current time: 160"), r.out.join("\n"));
    const res = lines(`${dir}/jobs_sim_resources.csv`);
    assertEquals(res[res.length - 1], "160,10,0"); // no row for the change at 1000
  });
});

Deno.test("CLI: jobs stranded below the final capacity get one warning line and no rows", async () => {
  // Cut to 5 for good at 20: job 3 (10 nodes) never fits again; jobs 0-2 run.
  await withSchedule("time,capacity\n20,5\n", ["-n", "10"], (r, dir) => {
    assertEquals(r.code, 0, r.err.join("\n"));
    // The time is the clock at the end of the run (job 2's end), not when
    // the capacity of 5 took effect (20).
    assertEquals(r.err, [
      "Warning: 1 job(s) never started: at the end of the run (time 110) they still need more " +
      "nodes than the usable capacity (5 nodes, --capacity_schedule); they are left out of the " +
      "schedule",
    ]);
    assertEquals(lines(`${dir}/jobs_sim.csv`).slice(1), [
      "0,0,100,6,0,100",
      "0,0,20,4,0,20",
      "10,100,110,5,0,10",
    ]);
    assert(r.out.includes("Jobs completed: 3"), r.out.join("\n"));
    assert(r.out.includes("Current time: 110"), r.out.join("\n"));
  });
});

Deno.test("CLI: the KTH cut on a small trace: one too-large job no longer strands the jobs behind it", async () => {
  // 10 nodes cut to 8 for good at 50; job 1 (10 nodes) arrives after the cut,
  // five 2-node jobs behind it. DR_EVT's rule strands all six on an idle
  // machine; evtsim's holds job 1 alone and says so.
  const trace = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
    "0,10,40,40\n60,10,10,10\n61,2,10,10\n62,2,10,10\n63,2,10,10\n64,2,10,10\n65,2,10,10\n";
  const schedule = "time,capacity\n50,8\n";
  await withSchedule(schedule, ["-n", "10", "--capacity_semantics", "drevt"], (r, dir) => {
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(r.err[0].startsWith("Warning: 1 job(s) never started"), r.err.join("\n"));
    assert(
      r.err[1].startsWith(
        "Warning: 5 job(s) (the first: job 2) never started: blocked behind job 1",
      ),
      r.err.join("\n"),
    );
    assertEquals(lines(`${dir}/jobs_sim.csv`).length, 2); // the header and job 0
  }, trace);
  await withSchedule(schedule, [
    "-n",
    "10",
    "--decisions",
    "{dir}/decisions.jsonl",
    "--stats_json",
    "{dir}/stats.json",
  ], (r, dir) => {
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(r.err[0].startsWith("Warning: 1 job(s) never started"), r.err.join("\n"));
    assertEquals(lines(`${dir}/jobs_sim.csv`).slice(1), [
      "0,0,40,10,0,40",
      "61,61,71,2,0,10",
      "62,62,72,2,0,10",
      "63,63,73,2,0,10",
      "64,64,74,2,0,10",
      "65,71,81,2,0,10",
    ]);
    const held = lines(`${dir}/decisions.jsonl`).map((l) => JSON.parse(l))
      .filter((d) => d.type === "PEND" && d.jobId === 1);
    assertEquals(held.length, 1);
    assertEquals(held[0].reason.code, "exceeds_capacity");
    const stats = JSON.parse(Deno.readTextFileSync(`${dir}/stats.json`));
    assertEquals([stats.statistics.jobsHeld, stats.statistics.jobsCompleted], [1, 6]);
    assertEquals([stats.config.onCapacityCut, stats.config.capacitySemantics], ["drain", "evtsim"]);
    assert(
      r.out.includes(
        "[evtsim] Jobs held (larger than the capacity left them, or than the machine can ever hold; never started, not in the averages): 1",
      ),
      r.out.join("\n"),
    );
  }, trace);
});

Deno.test("CLI: a bad capacity schedule is one line naming file, line and field; exit 1; no outputs", async () => {
  const cases: [string, string[], string][] = [
    ["time,capacity\n0,4\n5,x\n", ["-n", "10"], "cap.csv:3: capacity: "],
    ["time,capacity\n0,4\nlater,5\n", ["-n", "10"], "cap.csv:3: time: "],
    ["time,capacity\n0,4\n,5\n", ["-n", "10"], "cap.csv:3: time: expected a time"],
    ["time,capacity\n0,4,1\n", ["-n", "10"], "cap.csv:2: expected 2 fields (time,capacity), got 3"],
    // Above the machine: the machine size bounds the file, so the error has its line.
    [
      "time,capacity\n0,4\n5,11\n",
      ["-n", "10"],
      "cap.csv:3: capacity: expected an integer in 0..10 (the machine size), got '11'",
    ],
    // Without -n the machine is the default 795 nodes.
    [
      "time,capacity\n0,796\n",
      [],
      "cap.csv:2: capacity: expected an integer in 0..795 (the machine size), got '796'",
    ],
  ];
  for (const [text, extra, message] of cases) {
    await withSchedule(text, extra, (r, dir) => {
      assertEquals(r.code, 1, text);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${dir}/${message}`), r.err[0]);
      assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["cap.csv", "jobs.csv"]);
    });
  }
  await withSchedule("time,capacity\n0,4\n5,11\n", ["-n", "11"], (r) => {
    assertEquals([r.code, r.err], [0, []]); // 11 is the machine: accepted
  });
  const dir = await Deno.makeTempDir({ prefix: "evtsim-capacity-" });
  try {
    Deno.writeTextFileSync(`${dir}/jobs.csv`, TRACE);
    const r = await run(["simulate", `${dir}/jobs.csv`, "--capacity_schedule", `${dir}/nope.csv`]);
    assertEquals(r.code, 1);
    assert(r.err[0].includes(`${dir}/nope.csv: cannot read`), r.err[0]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readCapacitySchedule: the bound is optional and checked per line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-capacity-" });
  try {
    Deno.writeTextFileSync(`${dir}/cap.csv`, "time,capacity\n0,4\n5,11\n");
    assertEquals(await readCapacitySchedule(`${dir}/cap.csv`, "UTC"), [
      { time: 0, capacity: 4 },
      { time: 5, capacity: 11 },
    ]);
    await assertRejects(
      () => readCapacitySchedule(`${dir}/cap.csv`, "UTC", 10),
      `${dir}/cap.csv:3: capacity: expected an integer in 0..10`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
