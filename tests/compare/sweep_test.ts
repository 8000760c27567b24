// The sweep spec and its cells (issue 17): the product is what the spec's
// lists say, ids are stable hashes of the canonical options (one pinned, so
// a change of the hashing shows), paths are the spec folder's whatever the
// working directory, and every bad spec is one line SPEC:LINE: field. Also
// the sbatch script's pieces.

import { assert, assertEquals, assertRejects, assertThrows } from "../_assert.ts";
import { ROOT } from "../_cli.ts";
import { parseSweepSpec, readSweepSpec } from "../../cli/_sweep_spec.ts";
import { canonicalJson, cellAt, cellId, type Sweep } from "../../cli/_sweep_model.ts";
import { arrayList, sbatchOptionLines, sbatchScript, shellQuote } from "../../cli/_sweep_slurm.ts";

const EXAMPLE = `${ROOT}examples/sweep.yaml`;

/** Every cell of `sweep`, by index. */
const cellsOf = (sweep: Sweep) => Array.from({ length: sweep.count }, (_, i) => cellAt(sweep, i));

Deno.test("sweep spec: the example's 6 cells in the spec's order, ids stable, one pinned", async () => {
  const sweep = await readSweepSpec(EXAMPLE);
  const cells = cellsOf(sweep);
  assertEquals(sweep.count, 6);
  assertEquals(cells.map((c) => c.index), [0, 1, 2, 3, 4, 5]);
  assertEquals(new Set(cells.map((c) => c.id)).size, 6);
  // The spec's product order: policies [none, easy, sjf+easy] x total_nodes
  // [128, 256], the last list fastest.
  assertEquals(cells.map((c) => `${c.options.policy}/${c.options.total_nodes}`), [
    "none/128",
    "none/256",
    "easy/128",
    "easy/256",
    "sjf+easy/128",
    "sjf+easy/256",
  ]);
  // Pinned: the demo trace under EASY on 128 nodes, actual run times, seed 0.
  const easy128 = cells[2];
  assertEquals(easy128.options, {
    trace: "demo_trace.csv",
    policy: "easy",
    total_nodes: 128,
    run_time_mode: "actual",
    seed: 0,
  });
  assertEquals(easy128.id, "6a8710f73ed2");
  assertEquals(
    canonicalJson(easy128.options),
    '{"policy":"easy","run_time_mode":"actual","seed":0,"total_nodes":128,"trace":"demo_trace.csv"}',
  );
  assertEquals(cellId({ ...easy128.options }), easy128.id);
  // simulate's arguments: the trace from the spec's folder, the policy split.
  assertEquals(easy128.args, [
    `${ROOT}examples/demo_trace.csv`,
    "--admission=easy",
    "--total_nodes=128",
    "--run_time_mode=actual",
    "--seed=0",
  ]);
  const sjf = cells.find((c) => c.options.policy === "sjf+easy")!;
  assert(sjf.args.includes("--admission=easy") && sjf.args.includes("--picker=sjf"));
  // The same spec read again, and read as text from elsewhere: the same cells.
  const again = await parseSweepSpec(await Deno.readTextFile(EXAMPLE), "x.yaml", EXAMPLE);
  assertEquals(cellsOf(again), cells);
  assertEquals(again.cellsSha256, sweep.cellsSha256);
  // A list in another order: the same cells (ids) at other indices, another sweep.
  const swapped = await parseSweepSpec(
    (await Deno.readTextFile(EXAMPLE)).replace("[128, 256]", "[256, 128]"),
    "x.yaml",
    EXAMPLE,
  );
  assertEquals(cellAt(swapped, 3).id, easy128.id);
  assertEquals(new Set(cellsOf(swapped).map((c) => c.id)), new Set(cells.map((c) => c.id)));
  assert(swapped.cellsSha256 !== sweep.cellsSha256, "another order is another sweep");
});

Deno.test("sweep spec: options multiply the product; scalars are lists of one", async () => {
  const text = [
    "traces: demo_trace.csv",
    "policies: [easy, conservative]",
    "run_time_modes: [actual, distribution]",
    "seeds: [0, 1, 2]",
    "options:",
    "  run_time_scale: [1, 1.5]",
    "  run_time_stddev: 0.1",
    "  swf_replay_wait: false",
  ].join("\n");
  const sweep = await parseSweepSpec(text, "s.yaml", EXAMPLE);
  assertEquals(sweep.count, 2 * 2 * 3 * 2);
  assertEquals(sweep.optionKeys, ["run_time_scale", "run_time_stddev", "swf_replay_wait"]);
  const c = cellAt(sweep, 0);
  assert(!("total_nodes" in c.options), "total_nodes is simulate's default when not given");
  assert(c.args.includes("--run_time_stddev=0.1"), c.args.join(" "));
  assert(!c.args.some((a) => a.includes("swf_replay_wait")), "a false flag is not passed");
  // Key order in the spec changes neither the ids nor the order (traces,
  // policies, total_nodes, run_time_modes, seeds are always in that order).
  const reordered = await parseSweepSpec(
    text.replace("traces: demo_trace.csv\n", "") + "\ntraces: demo_trace.csv",
    "s.yaml",
    EXAMPLE,
  );
  assertEquals(cellsOf(reordered).map((x) => x.id), cellsOf(sweep).map((x) => x.id));
  assertEquals(reordered.cellsSha256, sweep.cellsSha256);
});

const BAD: [string, string][] = [
  ["traces: [demo_trace.csv]\npolices: [easy]\n", "s.yaml:2: polices: unknown field"],
  ["policies: [easy]\n", "s.yaml:1: traces: required"],
  ["traces: []\n", "s.yaml:1: traces: expected a non-empty list"],
  ["traces:\n", "s.yaml:1: traces: expected a trace file (CSV or SWF), got nothing"],
  ["traces: demo_trace.csv\npolicies:\n", "s.yaml:2: policies: expected a policy name"],
  ["traces: [demo_trace.csv, nope.csv]\n", "s.yaml:1: traces[1]: cannot read nope.csv"],
  [
    "traces: demo_trace.csv\ntotal_nodes:\n  - 64\n  - x\n",
    's.yaml:4: total_nodes[1]: expected a positive integer, got "x"',
  ],
  ["traces: demo_trace.csv\npolicies: [easy, foo]\n", "s.yaml:2: policies[1]: unknown admission"],
  ["traces: demo_trace.csv\npolicies: [bogus+easy]\n", "s.yaml:2: policies[0]: unknown picker"],
  [
    "traces: demo_trace.csv\nrun_time_modes: exact\n",
    's.yaml:2: run_time_modes: expected one of actual, limit, distribution, got "exact"',
  ],
  ["traces: demo_trace.csv\nseeds: [1, 1]\n", "s.yaml:2: seeds[1]: 1 is listed twice"],
  [
    "traces: demo_trace.csv\noptions:\n  outfile: x.csv\n",
    "s.yaml:3: options.outfile: sweep sets each cell's outputs itself",
  ],
  [
    "traces: demo_trace.csv\noptions:\n  total_nodes: 8\n",
    "s.yaml:3: options.total_nodes: give it as the top-level total_nodes list",
  ],
  ["traces: demo_trace.csv\noptions:\n  nosuch: 1\n", "s.yaml:3: options.nosuch: unknown simulate"],
  [
    "traces: demo_trace.csv\noptions:\n  swf_unit: [nodes, bogus]\n",
    "s.yaml:3: options.swf_unit[1]: unknown value 'bogus' (expected procs, nodes)",
  ],
  [
    "traces: demo_trace.csv\noptions:\n  run_time_scale: 0\n",
    "s.yaml:3: options.run_time_scale: must be > 0, got 0",
  ],
  ["traces: demo_trace.csv\noptions:\n  queues: none.yaml\n", "s.yaml:3: options.queues: cannot"],
  [
    "traces: demo_trace.csv\noptions:\n  duration_scale: 2\n",
    "s.yaml:3: options.duration_scale: write it as run_time_scale",
  ],
  [
    "traces: demo_trace.csv\noptions:\n  swf-unit: nodes\n",
    "s.yaml:3: options.swf-unit: write it as swf_unit",
  ],
  [
    "traces: demo_trace.csv\noptions:\n  config: run.yaml\n",
    "s.yaml:3: options.config: a command-line option of simulate, not accepted in a sweep",
  ],
  ["traces: [demo_trace.csv\n", "s.yaml:2: not valid YAML"],
  ["- a\n", "s.yaml:1: expected a mapping"],
];

Deno.test("sweep spec: every bad spec is one line SPEC:LINE: field: problem", async () => {
  for (const [text, start] of BAD) {
    const e = await assertRejects(() => parseSweepSpec(text, "s.yaml", EXAMPLE));
    assert(e.message.startsWith(start), `${JSON.stringify(text)}: got ${e.message}`);
    assert(!e.message.includes("\n"), e.message);
  }
});

Deno.test("sweep slurm: array lists, quoting and the script's lines", () => {
  assertEquals(arrayList([0, 1, 2, 3, 4, 5]), "0-5");
  assertEquals(arrayList([3]), "3");
  assertEquals(arrayList([0, 2, 3, 4, 7, 9, 10]), "0,2-4,7,9-10");
  assertEquals(shellQuote("/a/b.yaml"), "/a/b.yaml");
  assertEquals(shellQuote("it's here"), `'it'\\''s here'`);
  const script = sbatchScript({
    dir: "/r",
    spec: "/s/sweep.yaml",
    indices: [1, 2, 5],
    totalCells: 6,
    partition: "debug",
    maxParallel: 2,
    evtsim: "evtsim",
    cwd: "/w d",
    sbatchOptions: sbatchOptionLines(" --time 00:30:00  --account=proj -N 1 "),
  });
  const lines = script.split("\n");
  assertEquals(lines[0], "#!/bin/bash");
  for (
    const l of [
      "#SBATCH --job-name=evtsim-sweep",
      "#SBATCH --array=1-2,5%2",
      "#SBATCH --output=/r/logs/%A_%a.out",
      "#SBATCH --partition=debug",
      "#SBATCH --time 00:30:00",
      "#SBATCH --account=proj",
      "#SBATCH -N 1",
      "cd '/w d'",
      'exec evtsim sweep-cell /s/sweep.yaml --cell "$SLURM_ARRAY_TASK_ID" --results /r',
    ]
  ) assert(lines.includes(l), `no line ${l} in:\n${script}`);
  // The options that map tasks to cells and place the logs are the sweep's own.
  for (const own of ["--array=0-3", "-a 1", "--output=x", "-o x", "--parsable"]) {
    assertThrows(
      () => sbatchOptionLines(own),
      `${own.split(/[= ]/)[0]} is set by the sweep itself`,
    );
  }
  assertThrows(() => sbatchOptionLines("time=1"), "expects sbatch options starting with '-'");
});
