// What-if on a machine (issue 28): `replay LOG --admission …` or
// `--alt_events F` of a `--machine` run prints each run's utilization as its
// node equivalents and each resource's utilization, the figures simulate's
// stats JSON gives the same run (the schedule's node count is 0 for demand
// jobs); a whole-node what-if has no resource rows. An alternate event
// stream with a node taken down moves the figures.

import { runCliLines } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/slurm_sacct.psv`;

const cli = runCliLines;

/** `simulate --machine` under `admission`: its stats JSON. */
async function simulate(dir: string, admission: string, extra: string[] = []) {
  const r = await cli([
    "simulate",
    TRACE,
    "--machine",
    MACHINE,
    "--admission",
    admission,
    "-o",
    `${dir}/${admission}.csv`,
    "--stats_json",
    `${dir}/${admission}.json`,
    "--no_progress",
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return JSON.parse(await Deno.readTextFile(`${dir}/${admission}.json`));
}

/** The what-if table's row `name`: its two cells as printed. */
function row(lines: string[], name: string): [string, string] {
  const l = lines.find((x) => x.startsWith(`${name}  `));
  assert(l !== undefined, `no row '${name}' in\n${lines.join("\n")}`);
  const cells = l.slice(name.length).trim().split(/\s+/);
  return [cells[0], cells[1]];
}

const six = (x: number) => `${Math.round(x * 1e6) / 1e6}`;

/** The rows simulate's stats JSON gives: utilization, then each resource's. */
// deno-lint-ignore no-explicit-any
function machineRows(stats: any): [string, string][] {
  return [
    ["utilization", six(stats.metrics.utilization)],
    ...Object.keys(stats.resources.by_resource).sort().map((r): [string, string] => [
      `utilization (${r})`,
      six(stats.resources.by_resource[r].utilization),
    ]),
  ];
}

Deno.test("what-if on a machine: utilization in node equivalents and per resource, as simulate's stats JSON for both runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-whatif-machine-" });
  try {
    const easy = await simulate(dir, "easy", ["--record", `${dir}/easy.replay`]);
    const none = await simulate(dir, "none");
    assert(easy.metrics.utilization > 0.3, String(easy.metrics.utilization));
    const w = await cli(["replay", `${dir}/easy.replay`, "--admission", "none"]);
    assertEquals(w.code, 0, w.err.join("\n"));
    const recorded = machineRows(easy), whatIf = machineRows(none);
    recorded.forEach(([name, v], k) => {
      assertEquals(row(w.out, name), [v, whatIf[k][1]], name);
    });
    // In the table's order: the machine's utilization, then each resource's.
    const names = w.out.map((l) => l.split(/\s{2,}/)[0]);
    const at = names.indexOf("utilization");
    assertEquals(names.slice(at, at + 4), recorded.map(([name]) => name));
    assertEquals(names[at + 4], "makespan (s)");

    // An alternate event stream: the GPU nodes down from t=1000 to the end.
    const lines = (await Deno.readTextFile(`${dir}/easy.replay`)).trimEnd().split("\n");
    const first = lines.findIndex((l) => l.includes('"kind":"appendJobs"'));
    const append = JSON.parse(lines[first]);
    const input = {
      kind: "changeNodes",
      down: ["gpu001", "gpu002", "gpu003", "gpu004"],
      time: 1000,
    };
    lines.splice(
      first + 1,
      0,
      JSON.stringify({ type: "event", version: 1, seq: append.seq, time: append.time, input }),
    );
    await Deno.writeTextFile(`${dir}/alt.replay`, lines.join("\n") + "\n");
    const alt = await cli(["replay", `${dir}/easy.replay`, "--alt_events", `${dir}/alt.replay`]);
    assertEquals(alt.code, 0, alt.err.join("\n"));
    const gpus = row(alt.out, "utilization (gpus)");
    assertEquals(gpus[0], six(easy.resources.by_resource.gpus.utilization));
    assert(Number(gpus[1]) < Number(gpus[0]), gpus.join(" "));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("what-if on whole nodes: no resource rows", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-whatif-whole-" });
  try {
    const r = await cli([
      "simulate",
      `${ROOT}examples/demo_trace.csv`,
      "-n",
      "128",
      "-o",
      `${dir}/s.csv`,
      "--no_progress",
      "--record",
      `${dir}/w.replay`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const w = await cli(["replay", `${dir}/w.replay`, "--admission", "none"]);
    assertEquals(w.code, 0, w.err.join("\n"));
    assert(!w.out.some((l) => l.startsWith("utilization (")), w.out.join("\n"));
    assert(Number(row(w.out, "utilization")[0]) > 0, w.out.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
