// Utilization against the capacity the run had (issue 29 item 1): with
// --capacity_schedule, the stats JSON measures node-seconds used over the
// usable node-seconds (a step function), and the report, reading the
// resource timeline, says the same.

import { formatG } from "../../cli/report.ts";
import { SUMMARY_METRICS } from "../../cli/report_command.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  Array.from({ length: 30 }, (_, i) => `${i * 100},${1 + (i * 7) % 8},600,${50 + (i * 37) % 400}`)
    .join("\n") +
  "\n";

Deno.test("utilization with capacity changes: measured against the usable nodes over time, the same in stats JSON and report", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-capacity-util-" });
  try {
    Deno.writeTextFileSync(`${dir}/t.csv`, TRACE);
    Deno.writeTextFileSync(`${dir}/cap.csv`, "time,capacity\n1500,8\n2500,12\n");
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "-n",
      "16",
      "--capacity_schedule",
      `${dir}/cap.csv`,
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/s.json`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const stats = JSON.parse(Deno.readTextFileSync(`${dir}/s.json`)).metrics;
    const rows = Deno.readTextFileSync(`${dir}/s.csv`).trim().split("\n").slice(1)
      .map((l) => l.split(",").map(Number));
    const first = Math.min(...rows.map((j) => j[0]));
    const last = Math.max(...rows.map((j) => j[2]));
    let used = 0;
    for (const [, begin, end, nodes] of rows) used += nodes * (end - begin);
    const usable = (lo: number, hi: number, nodes: number) =>
      Math.max(0, Math.min(hi, last) - Math.max(lo, first)) * nodes;
    const capacity = usable(-Infinity, 1500, 16) + usable(1500, 2500, 8) +
      usable(2500, Infinity, 12);
    assert(
      Math.abs(stats.utilization - used / capacity) < 1e-12,
      `${stats.utilization} vs ${used / capacity}`,
    );
    assert(
      stats.utilization > used / (16 * (last - first)),
      "not measured against the cut capacity",
    );

    const rep = await runCli(["report", `${dir}/s.csv`, "--out", `${dir}/r.html`]);
    assertEquals(rep.code, 0, rep.err.join("\n"));
    const html = Deno.readTextFileSync(`${dir}/r.html`);
    const row = /<tr><td class="l">[^<]*<\/td>(.*?)<\/tr>/.exec(html)![1];
    const cells = [...row.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
    assertEquals(cells[SUMMARY_METRICS.indexOf("utilization")], formatG(stats.utilization));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
