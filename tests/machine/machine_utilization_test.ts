// `utilization` on a machine (issue 28): jobs placed by a resource model hold
// no share of the node-count pool, so the whole-node figure would be 0. On a
// `--machine` run it counts node equivalents instead (on each node a job
// held, the largest fraction of any resource of it: the share fairshare
// charges), and compare and sweep rows gain one `utilization_<resource>`
// column per resource; rows are still those of one `simulate` per cell.

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { readSweepSpec } from "../../cli/_sweep_spec.ts";
import { cellAt } from "../../cli/_sweep_model.ts";
import { rowOf } from "../../cli/_sweep_results.ts";
import { FAIRNESS_NAMES, METRIC_NAMES } from "../../core/metrics.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

// deno-lint-ignore no-explicit-any
async function statsOf(args: string[], dir: string): Promise<any> {
  const r = await runCli([
    "simulate",
    ...args,
    `--outfile=${dir}/one.csv`,
    `--resource_trace=${dir}/one_res.csv`,
    `--stats_json=${dir}/one.json`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return JSON.parse(await Deno.readTextFile(`${dir}/one.json`));
}

Deno.test("simulate --machine: utilization counts node equivalents (by hand: a quarter of a 2-node machine)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/m.yaml`,
      "groups:\n  - name: g\n    count: 2\n    resources: { cores: 32, gpus: 4 }\n",
    );
    // 8 of 32 cores and 2 of 4 GPUs of one node for the whole span: half a node of two.
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,gpus\n0,1,100,100,8,2\n",
    );
    const s = await statsOf([`${dir}/t.csv`, "--machine", `${dir}/m.yaml`], dir);
    assertEquals(s.metrics.utilization, 0.25);
    assertEquals(s.resources.node_equivalents, { capacity: 2, used_unit_s: 50, utilization: 0.25 });
    assertEquals(s.resources.by_resource.gpus.utilization, 0.25);
    assertEquals(s.resources.by_resource.cores.utilization, 0.125);
    // The end-of-run statistics say the same, in the JSON and on stdout.
    assertEquals(s.statistics.utilization, 0.25);
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "--machine",
      `${dir}/m.yaml`,
      `--outfile=${dir}/two.csv`,
      `--resource_trace=${dir}/two_res.csv`,
    ]);
    assert(r.out.includes("[evtsim] Utilization: 0.25"), r.out.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare --machine: utilization is the machine's, utilization_<resource> columns follow, each row one simulate", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const policies = ["none", "easy", "fairshare+conservative_profile"];
    const common = [TRACE, "--machine", MACHINE];
    const r = await runCli(["compare", ...common, "--policies", policies.join(","), "--json"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = JSON.parse(r.out.join("\n"));
    for (const [i, p] of policies.entries()) {
      const [picker, admission] = p.includes("+") ? p.split("+") : [undefined, p];
      const stats = await statsOf([
        ...common,
        "--admission",
        admission,
        ...(picker === undefined ? [] : ["--picker", picker]),
      ], dir);
      const row = rows[i];
      delete row.sim_s;
      const want: Record<string, unknown> = { policy: p, total_nodes: 14 };
      for (const k of METRIC_NAMES) want[k] = stats.metrics[k];
      for (const k of FAIRNESS_NAMES) want[k] = stats.fairness[k];
      for (const res of ["cores", "gpus", "memory"]) {
        want[`utilization_${res}`] = stats.resources.by_resource[res].utilization;
      }
      assertEquals(JSON.stringify(row), JSON.stringify(want));
      assert(row.utilization > 0.3 && row.utilization_gpus > 0.3, JSON.stringify(row));
    }
    const table = await runCli(["compare", ...common, "--policies", "easy"]);
    assertEquals(table.code, 0, table.err.join("\n"));
    assertEquals(
      table.out[0].split(/\s+/).slice(6, 11),
      ["bsld_mean", "utilization", "utilization_cores", "utilization_gpus", "utilization_memory"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweep over a machine: results carry utilization_<resource> columns; every row is one simulate of its cell", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.copyFile(MACHINE, `${dir}/m.yaml`);
    await Deno.copyFile(TRACE, `${dir}/t.csv`);
    // The machine path is taken from the spec's folder, as the trace's is.
    await Deno.writeTextFile(
      `${dir}/spec.yaml`,
      "traces: [t.csv]\npolicies: [none, easy]\noptions:\n  machine: m.yaml\n",
    );
    const r = await runCli(["sweep", `${dir}/spec.yaml`, "--results", `${dir}/res`]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const sweep = await readSweepSpec(`${dir}/spec.yaml`, undefined);
    const rows = JSON.parse(await Deno.readTextFile(`${dir}/res/results.json`));
    assertEquals(rows.length, 2);
    for (let i = 0; i < sweep.count; i++) {
      const cell = cellAt(sweep, i);
      const stats = await statsOf([...cell.args], dir);
      const want = rowOf(cell, sweep.optionKeys, stats);
      assertEquals(JSON.stringify(rows[i]), JSON.stringify(want));
      assert((want.utilization as number) > 0.3, JSON.stringify(want));
    }
    const header = (await Deno.readTextFile(`${dir}/res/results.csv`)).split("\n")[0].split(",");
    assertEquals(header.slice(-3), ["utilization_cores", "utilization_gpus", "utilization_memory"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulate --machine --trim: per-resource utilization spans the trimmed jobs, as the metric set does", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/m.yaml`,
      "groups:\n  - name: g\n    count: 1\n    resources: { cores: 4 }\n",
    );
    // Job 0 holds the node 0–100; job 1 half of it 100–200.
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores\n0,1,100,100,4\n100,1,100,100,2\n",
    );
    const all = await statsOf([`${dir}/t.csv`, "--machine", `${dir}/m.yaml`], dir);
    assertEquals(all.resources.node_equivalents.utilization, 0.75);
    // Trimming the first job measures 100–200 only: half the node.
    const trimmed = await statsOf(
      [`${dir}/t.csv`, "--machine", `${dir}/m.yaml`, "--trim", "1,0"],
      dir,
    );
    assertEquals(trimmed.metrics.jobs_excluded, 1);
    assertEquals(trimmed.resources.node_equivalents.utilization, 0.5);
    assertEquals(trimmed.resources.by_resource.cores.utilization, 0.5);
    assertEquals(trimmed.metrics.utilization, 0.5);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
