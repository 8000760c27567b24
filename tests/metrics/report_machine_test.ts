// `evtsim report` on a machine run (issue 28): the schedule alone counts whole
// nodes (a demand job holds none: utilization 0), so a run's stats JSON
// brings its machine figures and the summary shows the same metric set as
// simulate's stats JSON (utilization = node equivalents, machineMetrics) and
// its per-resource utilization; `simulate --report` shows the same. A stats
// JSON without machine figures, or measured over another span, is one line.

import { expectedCells } from "../_report_cells.ts";
import { summarizeRun, SUMMARY_METRICS } from "../../cli/report_command.ts";
import { readResourceCsv, readScheduleCsv } from "../../cli/_run_files.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/slurm_sacct.psv`;

/** The summary table: its header cells and each run's cells (label first). */
function summary(html: string): { head: string[]; rows: string[][] } {
  const table = /<table id="summary">(.*?)<\/table>/s.exec(html)![1];
  const head = [...table.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
  const rows = [...table.matchAll(/<tr><td class="l">([^<]*)<\/td>(.*?)<\/tr>/g)]
    .map((m) => [m[1], ...[...m[2].matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1])]);
  return { head, rows };
}

async function simulate(dir: string, name: string, extra: string[] = []) {
  const r = await runCli([
    "simulate",
    TRACE,
    "--machine",
    MACHINE,
    "--admission",
    "easy",
    "-o",
    `${dir}/${name}.csv`,
    "--stats_json",
    `${dir}/${name}.json`,
    "--no_progress",
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  // deno-lint-ignore no-explicit-any
  return JSON.parse(await Deno.readTextFile(`${dir}/${name}.json`)) as Record<string, any>;
}

Deno.test("report on a machine: with the run's stats JSON the summary is simulate's metric set (node equivalents) and per-resource utilization", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-machine-" });
  try {
    const stats = await simulate(dir, "easy", ["--report", `${dir}/own.html`]);
    assert(stats.metrics.utilization > 0.3, String(stats.metrics.utilization));
    // The library: the report's metric set from the files and the figures is the stats JSON's.
    const s = summarizeRun(
      await readScheduleCsv(`${dir}/easy.csv`),
      await readResourceCsv(`${dir}/easy_resources.csv`),
      {},
      stats.resources,
    );
    assertEquals(s.metrics, stats.metrics);
    const r = await runCli([
      "report",
      `easy=${dir}/easy.csv,${dir}/easy.json`,
      `plain=${dir}/easy.csv`,
      "--out",
      `${dir}/r.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const { head, rows } = summary(await Deno.readTextFile(`${dir}/r.html`));
    assertEquals(head, [
      "run",
      ...SUMMARY_METRICS,
      "utilization_cores",
      "utilization_gpus",
      "utilization_memory",
      "nodes",
    ]);
    assertEquals(rows[0], ["easy", ...expectedCells(stats)]);
    // Without its stats JSON the run counts whole nodes, which a demand job holds none of.
    const u = 1 + SUMMARY_METRICS.indexOf("utilization");
    assertEquals(rows[1][u], "0");
    assertEquals(rows[1].slice(u + 2, u + 5), ["-", "-", "-"]);
    // simulate --report: the same row, from the run itself.
    const own = summary(await Deno.readTextFile(`${dir}/own.html`));
    assertEquals(own.head, head);
    assertEquals(own.rows[0].slice(1), expectedCells(stats));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("report on a machine: measured with --trim, the figures need the report's --trim; whole-node runs are unchanged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-machine-trim-" });
  try {
    const stats = await simulate(dir, "t", ["--trim", "0.1,0.1"]);
    const run = `${dir}/t.csv,${dir}/t_resources.csv,${dir}/t.json`;
    const same = await runCli(["report", run, "--trim", "0.1,0.1", "--out", `${dir}/r.html`]);
    assertEquals(same.code, 0, same.err.join("\n"));
    assertEquals(
      summary(await Deno.readTextFile(`${dir}/r.html`)).rows[0].slice(1),
      expectedCells(stats),
    );
    const other = await runCli(["report", run, "--out", `${dir}/r2.html`]);
    assertEquals(other.code, 1);
    assertEquals(other.err.length, 1, other.err.join("\n"));
    assert(
      other.err[0].endsWith(
        "t.json: its machine figures were measured with no --measure_window and --trim 0.1,0.1: give the report the same",
      ),
      other.err[0],
    );
    // A whole-node run: no per-resource columns.
    const whole = await runCli([
      "simulate",
      `${ROOT}examples/demo_trace.csv`,
      "-n",
      "64",
      "-o",
      `${dir}/w.csv`,
      "--no_progress",
    ]);
    assertEquals(whole.code, 0, whole.err.join("\n"));
    const w = await runCli(["report", `${dir}/w.csv`, "--out", `${dir}/w.html`]);
    assertEquals(w.code, 0, w.err.join("\n"));
    assertEquals(summary(await Deno.readTextFile(`${dir}/w.html`)).head, [
      "run",
      ...SUMMARY_METRICS,
      "nodes",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
