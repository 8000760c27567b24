// Issue 29: one run's metric set is the same (names and values) in every
// output: `simulate --stats_json` (its `metrics`), `compare --json` and its
// table, sweep's results.json, the report's summary table and `serve`'s
// finish reply; --bsld_tau and --measure_window reach each command.

import { computeMetrics, METRIC_NAMES } from "../../core/metrics.ts";
import { formatG } from "../../cli/report.ts";
import { SUMMARY_METRICS } from "../../cli/report_command.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { withServer } from "../_service_helpers.ts";

const NODES = 16;

// 40 jobs with whole-second times (a fixed LCG), some waiting, one as large as the machine.
function jobs(): { submit: number; nodes: number; limit: number; run: number }[] {
  let x = 29;
  const next = (n: number) => (x = (x * 1103515245 + 12345) % 2147483648) % n;
  let t = 0;
  return Array.from({ length: 40 }, (_, i) => {
    t += next(120);
    const limit = 60 + next(900);
    return { submit: t, nodes: i === 7 ? NODES : 1 + next(NODES), limit, run: 1 + next(limit) };
  });
}

const TRACE = "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n" +
  jobs().map((j) => `${j.submit},${j.nodes},pbatch,${j.limit},${j.run}\n`).join("");

async function ok(args: string[]): Promise<string[]> {
  const r = await runCli(args);
  assertEquals(r.code, 0, r.err.join("\n"));
  return r.out;
}

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

// The report's summary table: its metric names (the header) and one run's cells.
function reportTable(html: string): { names: string[]; cells: string[] } {
  const head = /<table id="summary"><thead><tr>(.*?)<\/tr>/.exec(html)![1];
  const names = [...head.matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]);
  const row = /<tr><td class="l">[^<]*<\/td>(.*?)<\/tr>/.exec(html)![1];
  return { names, cells: [...row.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]) };
}

async function outputsOf(root: string, metricArgs: string[]): Promise<Doc[]> {
  const dir = await Deno.makeTempDir({ dir: root });
  await Deno.writeTextFile(`${dir}/trace.csv`, TRACE);
  const common = [`${dir}/trace.csv`, "-n", String(NODES), ...metricArgs];
  await ok(["simulate", ...common, "-o", `${dir}/s.csv`, "--stats_json", `${dir}/s.json`]);
  const stats = JSON.parse(await Deno.readTextFile(`${dir}/s.json`)).metrics;

  const [row] = JSON.parse(
    (await ok(["compare", ...common, "--policies", "easy", "--json", "--report", `${dir}/c.html`]))
      .slice(0, -1).join("\n"), // then "Report written to: ..."
  );
  assertEquals(row.policy, "easy");
  const compare = Object.fromEntries(METRIC_NAMES.map((k) => [k, row[k]]));
  // The table shows the same figures under the same names.
  const table = await ok(["compare", ...common, "--policies", "easy"]);
  const header = table[0].trim().split(/\s+/);
  const cells = table[1].trim().split(/\s+/);
  for (const [i, name] of header.entries()) {
    if (name === "policy" || name === "sim_s") continue;
    assertEquals(cells[i], name === "jobs" ? String(stats.jobs) : formatG(stats[name]), name);
  }

  const options: string[] = [];
  for (let i = 0; i < metricArgs.length; i += 2) {
    const v = metricArgs[i + 1];
    options.push(
      `${metricArgs[i].slice(2)}: ${Number.isFinite(Number(v)) ? v : JSON.stringify(v)}`,
    );
  }
  await Deno.writeTextFile(
    `${dir}/sweep.yaml`,
    `traces: [trace.csv]\npolicies: [easy]\ntotal_nodes: [${NODES}]\n` +
      (options.length > 0 ? `options:\n${options.map((o) => `  ${o}\n`).join("")}` : ""),
  );
  await ok(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/sweep`]);
  const [cell] = JSON.parse(await Deno.readTextFile(`${dir}/sweep/results.json`));
  const sweep = Object.fromEntries(METRIC_NAMES.map((k) => [k, cell[k]]));

  await ok(["report", `${dir}/s.csv`, "--out", `${dir}/r.html`, ...metricArgs]);
  // `report`, and compare's own report (measured as its runs were).
  for (const html of ["r.html", "c.html"]) {
    const report = reportTable(await Deno.readTextFile(`${dir}/${html}`));
    assertEquals(report.names, [...SUMMARY_METRICS, "nodes"]);
    for (const [i, name] of SUMMARY_METRICS.entries()) {
      assertEquals(
        report.cells[i],
        name.startsWith("jobs") ? String(stats[name]) : formatG(stats[name]),
        name,
      );
    }
  }
  return [stats, compare, sweep];
}

Deno.test("metrics: stats JSON, compare, sweep, report and serve give one run the same metric set", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-metrics-" });
  try {
    const [stats, compare, sweep] = await outputsOf(dir, []);
    assertEquals(Object.keys(stats), [...METRIC_NAMES]);
    assertEquals(compare, stats);
    assertEquals(sweep, stats);
    assert(stats.jobs === 40 && stats.wait_max_s > 0, JSON.stringify(stats));

    const serve = await withServer({}, async (_server, api) => {
      const { sessionId: id } = await api.ok("POST", "/sessions", { totalNodes: NODES });
      await api.ok("POST", `/sessions/${id}/jobs`, {
        jobs: jobs().map((j) => ({
          submitTime: j.submit,
          numNodes: j.nodes,
          timeLimit: j.limit,
          actualRunTime: j.run,
          queue: "pbatch",
        })),
      });
      return (await api.ok("POST", `/sessions/${id}/finish`, {})).metrics;
    });
    assertEquals(serve, stats);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("metrics: --bsld_tau and --measure_window reach simulate, compare, sweep and report", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-metrics-" });
  try {
    const [plain] = await outputsOf(dir, []);
    const [stats, compare, sweep] = await outputsOf(dir, [
      "--bsld_tau",
      "60",
      "--measure_window",
      "600:1800",
    ]);
    assertEquals(compare, stats);
    assertEquals(sweep, stats);
    assertEquals(stats.bsld_tau_s, 60);
    assert(stats.jobs > 0 && stats.jobs_excluded > 0, JSON.stringify(stats));
    assertEquals(stats.jobs + stats.jobs_excluded, plain.jobs);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("metrics: a bad --measure_window or --bsld_tau is one line, exit 1, nothing written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-metrics-" });
  try {
    await Deno.writeTextFile(`${dir}/trace.csv`, TRACE);
    for (
      const [args, line] of [
        [
          ["--measure_window", "900:60"],
          "evtsim: --measure_window: expected START:END in seconds with START < END, got '900:60'",
        ],
        [["--bsld_tau", "0"], "evtsim: --bsld_tau: must be > 0, got 0"],
      ] as const
    ) {
      const r = await runCli([
        "simulate",
        `${dir}/trace.csv`,
        "-n",
        "16",
        "-o",
        `${dir}/s.csv`,
        ...args,
      ]);
      assertEquals([r.code, r.err], [1, [line]]);
      assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["trace.csv"]);
    }
    assertThrows(() => computeMetrics([], 1, { bsldTau: -1 }), "bsld_tau must be");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
