// The report's "Utilization over time" chart on a machine (issue 28): a
// demand job holds no share of the node count, so the whole-node line is
// flat 0. With the run's machine figures (its stats JSON, or simulate's and
// compare's own --report) and a resource CSV with the per-resource pairs
// (`--resource_columns per_resource`), the chart draws one line per resource:
// used units / the machine's capacity, whose time-weighted mean over the
// measured span is the stats JSON's `utilization_<resource>`. Whole-node
// runs, and machine runs without the pairs, keep the one line they had.

import { utilizationLines } from "../../cli/_report_machine.ts";
import { readResourceCsv, readScheduleCsv } from "../../cli/_run_files.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/slurm_sacct.psv`;

/** The utilization chart's legend names (the SVG's text after its title, before the axis). */
function legend(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
}

/** The time-weighted mean of a step function (row i holds from t[i] to t[i+1]) over [lo, hi]. */
function stepMean(t: Float64Array, v: Float64Array, lo: number, hi: number): number {
  let sum = 0;
  for (let i = 0; i < t.length; i++) {
    const from = Math.max(t[i], lo), to = Math.min(i + 1 < t.length ? t[i + 1] : hi, hi);
    if (to > from) sum += v[i] * (to - from);
  }
  return sum / (hi - lo);
}

Deno.test("report on a machine: with per-resource columns the utilization chart has a line per resource whose mean is the stats JSON's utilization_<resource>", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-machine-chart-" });
  try {
    const common = [TRACE, "--machine", MACHINE, "--no_progress"];
    for (const [name, extra] of [["p", ["--resource_columns", "per_resource"]], ["d", []]]) {
      const r = await runCli([
        "simulate",
        ...common,
        "--admission",
        "easy",
        "-o",
        `${dir}/${name}.csv`,
        "--stats_json",
        `${dir}/${name}.json`,
        ...extra,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
    }
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/p.json`));
    const resources = await readResourceCsv(`${dir}/p_resources.csv`);
    const lines = utilizationLines("easy", resources, stats.resources);
    assertEquals(lines.map((l) => l.name), ["easy cores", "easy gpus", "easy memory"]);
    const s = await readScheduleCsv(`${dir}/p.csv`);
    const lo = Math.min(...s.submit), hi = Math.max(...s.end);
    for (const l of lines) {
      const want = stats.resources.by_resource[l.name.split(" ")[1]].utilization;
      const got = stepMean(resources.time, l.fraction, lo, hi);
      assert(want > 0.05 && Math.abs(got - want) < 1e-9, `${l.name}: ${got} vs ${want}`);
      assert(l.fraction.every((f) => f >= 0 && f <= 1), l.name);
    }
    // Without its figures, or without the pairs, the run keeps its whole-node line.
    assertEquals(utilizationLines("easy", resources, undefined).map((l) => l.name), ["easy"]);
    const plain = await readResourceCsv(`${dir}/d_resources.csv`);
    assertEquals(plain.used, undefined);
    assertEquals(utilizationLines("d", plain, stats.resources).map((l) => l.name), ["d"]);
    // The report's chart: one line per resource for the run with the pairs.
    const r = await runCli([
      "report",
      `easy=${dir}/p.csv,${dir}/p_resources.csv,${dir}/p.json`,
      `plain=${dir}/d.csv,${dir}/d_resources.csv,${dir}/d.json`,
      "--out",
      `${dir}/r.html`,
      "--figures",
      `${dir}/fig`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const names = legend(await Deno.readTextFile(`${dir}/fig/utilization.svg`));
    for (const n of ["easy cores", "easy gpus", "easy memory", "plain"]) {
      assert(names.includes(n), `${n} not in ${names.join(" | ")}`);
    }
    assert(names.includes("used / capacity (nodes or resource units)"), names.join(" | "));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("report on whole nodes: the utilization chart keeps its one line per run and its axis", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-machine-chart-" });
  try {
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n0,4,100,100\n10,3,50,50\n",
    );
    const sim = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "-n",
      "4",
      "-o",
      `${dir}/w.csv`,
      "--resource_columns",
      "per_resource",
      "--no_progress",
      "--report",
      `${dir}/w.html`,
    ]);
    assertEquals(sim.code, 0, sim.err.join("\n"));
    const r = await runCli([
      "report",
      `${dir}/w.csv`,
      "--out",
      `${dir}/r.html`,
      "--figures",
      `${dir}/fig`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const names = legend(await Deno.readTextFile(`${dir}/fig/utilization.svg`));
    assert(names.includes("w") && names.includes("allocated / total nodes"), names.join(" | "));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
