// The fuzz runner (fuzz/main.ts): every property of its list holds on a few
// runs with a fixed seed, and a failing property leaves a counterexample
// whose files and commands really reproduce the failure.

import fc from "fast-check";
import { main } from "../../cli/main.ts";
import type { JobSpec } from "../../core/types.ts";
import { parseTrace } from "../../io/trace_csv.ts";
import { cliOptions, traceCsv, writeCounterexample } from "../../fuzz/counterexample.ts";
import { fuzzMain, parseFuzzArgs, runProperty } from "../../fuzz/main.ts";
import { type FuzzProperty, PROPERTIES } from "../../fuzz/properties.ts";
import { arbScenario, runBatch } from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";

// Deep enough to guard the engine in every run of the suite (about 5 s): the
// whole list at 300 runs each, purity (every step twice) at 100.
Deno.test("every fuzz property holds on 300 runs (seed 42)", () => {
  assert(PROPERTIES.length >= 11, "the list covers the library's properties");
  assertEquals(new Set(PROPERTIES.map((p) => p.name)).size, PROPERTIES.length);
  for (const p of PROPERTIES) {
    const failure = runProperty(p, { seed: 42, runs: p.name === "purity" ? 100 : 300 });
    assertEquals(failure, undefined, `${p.name}: ${failure?.error}`);
  }
});

/** A property that fails on any trace where some job waits. */
const noWait: FuzzProperty = {
  name: "no-wait",
  description: "(deliberately false) no job ever waits",
  arbitrary: arbScenario({ maxJobs: 12, totalNodes: 4 }),
  check: ({ config, trace }) => {
    const waited = runBatch(config, trace).jobRows.filter((r) => r.beginTime > r.submitTime);
    if (waited.length > 0) throw new Error(`job ${waited[0].jobId} waited`);
  },
};

function collect(): {
  out: string[];
  err: string[];
  con: { out(l: string): void; err(l: string): void };
} {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, con: { out: (l) => out.push(l), err: (l) => err.push(l) } };
}

const comparable = (
  j: JobSpec,
) => [j.submitTime, j.numNodes, j.timeLimit, j.actualRunTime ?? j.timeLimit];

Deno.test("a failing property writes the shrunk trace, the case, and commands that reproduce it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-fuzz-" });
  try {
    const c = collect();
    const code = await fuzzMain(["--runs", "200", "--seed", "42", "--out", dir], c.con, [noWait]);
    assertEquals(code, 1);
    assert(c.out[0] === "fuzz: seed 42, 200 runs", c.out[0]);
    assert(c.out.some((l) => l.startsWith("FAIL  no-wait")), c.out.join("\n"));

    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assertEquals(names, ["no-wait-42.csv", "no-wait-42.json", "no-wait-42.txt"]);
    const note = Deno.readTextFileSync(`${dir}/no-wait-42.txt`);
    assert(note.startsWith("property: no-wait\n"), note);
    assert(note.includes("seed: 42\n") && note.includes("error:\n  job "), note);
    assert(c.out.some((l) => l.trim() === note.split("\n")[0]), "the note is printed");

    // The replay command names the property, the seed and the shrunk path ...
    const replay = note.match(/deno task fuzz --only no-wait --seed 42 --path ([\d:]+)\n/);
    assert(replay !== null, note);
    const path = replay[1];
    const again = runProperty(noWait, { seed: 42, runs: 1, path });
    const exact = JSON.parse(Deno.readTextFileSync(`${dir}/no-wait-42.json`));
    assert(again !== undefined, "replaying seed + path fails again");
    assertEquals(JSON.parse(JSON.stringify(again.counterexample)), exact);
    // ... and through the runner's own command line.
    const r = collect();
    assertEquals(
      await fuzzMain(["--only", "no-wait", "--seed", "42", "--path", path, "--out", dir], r.con, [
        noWait,
      ]),
      1,
    );

    // The CSV is the trace, readable by evtsim's reader.
    const csv = Deno.readTextFileSync(`${dir}/no-wait-42.csv`);
    assert(csv.startsWith("job_submit_time,num_nodes,time_limit,actual_run_time\n"), csv);
    const read = parseTrace(csv, { file: "x.csv", requireActualRunTime: true });
    assertEquals(read.jobs.map(comparable), exact.trace.map(comparable));

    // The CLI command, run in-process, shows the failure: some job waits.
    const cli = note.match(/\n {2}(?:evtsim|deno task --cwd \S+ evtsim) (simulate .*)\n/);
    assert(cli !== null, note);
    const args = cli[1].split(" ");
    assert(args.includes("--total_nodes") && args.includes(`${dir}/no-wait-42.csv`), cli[1]);
    const run = await main(args, { out: () => {}, err: () => {}, isTerminal: false });
    assertEquals(run, 0);
    const rows = Deno.readTextFileSync(`${dir}/no-wait-42_sim.csv`).trim().split("\n").slice(1);
    assert(rows.some((l) => Number(l.split(",")[1]) > Number(l.split(",")[0])), rows.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a counterexample with a capacity schedule writes it and passes it to the CLI", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-fuzz-" });
  try {
    const config = {
      totalNodes: 8,
      backfillPolicy: "conservative" as const,
      jobStoreCapacity: 2,
      capacitySchedule: [{ time: 0, capacity: 4 }, { time: 30, capacity: 8 }],
    };
    const trace = [{ submitTime: 0, numNodes: 6, timeLimit: 10, actualRunTime: 4 }];
    const w = await writeCounterexample(`${dir}/out/`, {
      property: "p",
      description: "d",
      seed: -7,
      path: "1:2",
      numRuns: 3,
      numShrinks: 0,
      error: "boom\nsecond line",
      counterexample: { config, trace, plan: [{ kind: "append", count: 1 }] },
    });
    assertEquals(w.capacityPath, `${dir}/out/p--7-capacity.csv`);
    assertEquals(Deno.readTextFileSync(w.capacityPath!), "time,capacity\n0,4\n30,8\n");
    assert(w.note.includes("deno task fuzz --only p --seed -7 --path 1:2\n"), w.note);
    assert(w.note.includes("  boom\n  second line\n"), w.note);
    assert(w.note.includes("note: the property feeds the trace live"), w.note);
    const cli = w.note.match(/\n {2}(?:evtsim|deno task --cwd \S+ evtsim) (simulate .*)\n/)!;
    const args = cli[1].split(" ");
    assertEquals(args.slice(args.indexOf("--capacity_schedule"))[1], w.capacityPath);
    assertEquals(await main(args, { out: () => {}, err: () => {}, isTerminal: false }), 0);
    assertEquals(
      Deno.readTextFileSync(`${dir}/out/p--7_sim.csv`).trim().split("\n")[1],
      "0,30,34,6,0,10",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("traceCsv writes decimals the reader takes back exactly, and says when it cannot", () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (x) => {
      const t = traceCsv([{ submitTime: x, numNodes: 1, timeLimit: x }]);
      const back = parseTrace(t.text, { file: "t.csv" }).jobs[0];
      if (t.exact) assertEquals(back.submitTime, x);
      else assert(!String(x).match(/^[\d.]+$/), String(x));
    }),
    { seed: 42, numRuns: 300 },
  );
  assertEquals(traceCsv([{ submitTime: 1e-7, numNodes: 1, timeLimit: 1 }]).exact, true);
  assertEquals(traceCsv([{ submitTime: 5e-324, numNodes: 1, timeLimit: 1 }]).exact, false);
});

Deno.test("fuzz command line: defaults, a printed random seed, and one-line errors", async () => {
  const o = parseFuzzArgs([], () => 1234);
  assertEquals(o, {
    runs: 5000,
    seed: 1234,
    only: undefined,
    path: undefined,
    out: "fuzz-failures/",
  });
  assertEquals(parseFuzzArgs(["--runs=7", "--only", "reference"], () => 5), {
    runs: 7,
    seed: 5,
    only: "reference",
    path: undefined,
    out: "fuzz-failures/",
  });
  const bad = [
    ["--runs", "0"],
    ["--only", "nope"],
    ["--path", "1:2"],
    ["--seed", "x"],
    ["--bogus"],
  ];
  for (const args of bad) {
    const c = collect();
    assertEquals(await fuzzMain(args, c.con), 2, args.join(" "));
    assert(c.err[0].startsWith("fuzz: "), c.err[0]);
  }
  const list = collect();
  assertEquals(await fuzzMain(["--list"], list.con), 0);
  assertEquals(list.out.length, PROPERTIES.length);
  const ok = collect();
  assertEquals(
    await fuzzMain(["--only", "fcfs-order", "--runs", "5"], ok.con, PROPERTIES, () => 99),
    0,
  );
  assertEquals(ok.out[0], "fuzz: seed 99, 5 runs");
  assertEquals(cliOptions({ totalNodes: 3 }), [
    "--total_nodes",
    "3",
    "--priority_policy",
    "fcfs",
    "--backfill_policy",
    "easy",
  ]);
});
