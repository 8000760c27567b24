// `evtsim compare --report` on a machine (issue 28): each run's schedule
// counts whole nodes (a demand job holds none: utilization 0), so compare
// hands each run's machine figures (its stats JSON's `resources`) to the
// report, whose summary then shows simulate's metric set (utilization in node
// equivalents) and per-resource utilization for every policy.

import { expectedCells } from "../_report_cells.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/slurm_sacct.psv`;

/** The summary table's rows (label first). */
function summaryRows(html: string): string[][] {
  const table = /<table id="summary">(.*?)<\/table>/s.exec(html)![1];
  return [...table.matchAll(/<tr><td class="l">([^<]*)<\/td>(.*?)<\/tr>/g)]
    .map((m) => [m[1], ...[...m[2].matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1])]);
}

Deno.test("compare --report on a machine: every policy's summary row is simulate's (node-equivalent utilization, per resource), not 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-compare-report-machine-" });
  try {
    const r = await runCli([
      "compare",
      TRACE,
      "--machine",
      MACHINE,
      "--policies",
      "easy,none",
      "--report",
      `${dir}/r.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = summaryRows(await Deno.readTextFile(`${dir}/r.html`));
    assertEquals(rows.map((row) => row[0]), ["easy", "none"]);
    for (const [i, admission] of ["easy", "none"].entries()) {
      const s = await runCli([
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
      ]);
      assertEquals(s.code, 0, s.err.join("\n"));
      const stats = JSON.parse(await Deno.readTextFile(`${dir}/${admission}.json`));
      assert(stats.metrics.utilization > 0.1, String(stats.metrics.utilization));
      assertEquals(rows[i].slice(1), expectedCells(stats));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
