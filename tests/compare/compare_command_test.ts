// `evtsim compare`: every row agrees with a separate `evtsim simulate` run of
// the same trace, options and policy (the KTH log, 100 nodes); bad policy
// names are one line and exit 1; the table and --json hold the same rows.

import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { percentile } from "../../io/stats_json.ts";
import { FAIRNESS_NAMES, METRIC_NAMES } from "../../core/metrics.ts";
import { formatG } from "../../cli/report.ts";
import { defaultRegistry } from "../../schedulers/registry.ts";

const KTH = "/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz";
const DEMO = new URL("../../examples/demo_trace.csv", import.meta.url).pathname;
const haveKth = (() => {
  try {
    return Deno.statSync(KTH).isFile;
  } catch {
    return false;
  }
})();

interface Row {
  policy: string;
  jobs: number;
  wait_mean_s: number;
  sim_s: number;
  [metric: string]: number | string | null;
}

// A separate simulate run: its printed average wait, and its stats JSON.
async function simulate(trace: string, args: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-cmp-" });
  try {
    const r = await runCli([
      "simulate",
      trace,
      ...args,
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/s.json`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const printed = r.out.find((l) => l.startsWith("Average wait time: "))!;
    const json = JSON.parse(Deno.readTextFileSync(`${dir}/s.json`));
    const waits = Deno.readTextFileSync(`${dir}/s.csv`).trim().split("\n").slice(1)
      .map((l) => l.split(",").map(Number)).map((f) => f[1] - f[0]);
    return { printed, json, waits: Float64Array.from(waits).sort() };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const POLICY_ARGS: Record<string, string[]> = {
  none: ["-b", "none"],
  easy: ["-b", "easy"],
  conservative: ["-b", "conservative"],
  "sjf+easy": ["-b", "easy", "--picker", "sjf"],
};

async function checkAgainstSimulate(trace: string, common: string[]) {
  const policies = Object.keys(POLICY_ARGS);
  const table = await runCli(["compare", trace, ...common, "--policies", policies.join(",")]);
  assertEquals(table.code, 0, table.err.join("\n"));
  const json = await runCli([
    "compare",
    trace,
    ...common,
    "--policies",
    policies.join(","),
    "--json",
  ]);
  assertEquals(json.code, 0, json.err.join("\n"));
  const rows: Row[] = JSON.parse(json.out.join("\n"));
  assertEquals(rows.map((r) => r.policy), policies);
  // One progress line per policy on stderr.
  assertEquals(
    table.err.filter((l) => l.startsWith("compare: ")).map((l) => l.split(" ")[1]),
    policies,
  );
  const header = table.out[0].trim().split(/\s+/);
  assertEquals(header[0], "policy");
  for (const [i, policy] of policies.entries()) {
    const sim = await simulate(trace, [...common, ...POLICY_ARGS[policy]]);
    const row = rows[i];
    const cells = table.out[i + 1].trim().split(/\s+/);
    // DR_EVT's conservative rule is marked (the note under the table says what it is).
    assertEquals(cells[0], policy === "conservative" ? "conservative*" : policy);
    // The printed average wait, to its 6 digits, in the table (the metrics
    // sum in row order, the statistics in end order); exact in JSON.
    const printed = Number(/^Average wait time: (\S+) sec$/.exec(sim.printed)![1]);
    const shown = Number(cells[header.indexOf("wait_mean_s")]);
    assert(Math.abs(printed - shown) <= 1e-5 * Math.max(1, printed), `${printed} vs ${shown}`);
    assertEquals(
      Object.keys(row),
      ["policy", "total_nodes", ...METRIC_NAMES, ...FAIRNESS_NAMES, "sim_s"],
    );
    for (const k of METRIC_NAMES) assertEquals(row[k], sim.json.metrics[k], k);
    for (const k of FAIRNESS_NAMES) assertEquals(row[k], sim.json.fairness[k], k);
    assertEquals(row.total_nodes, sim.json.statistics.totalNodes);
    assertEquals(row.jobs, sim.json.statistics.jobsCompleted);
    assertEquals(row.wait_max_s, sim.json.waitTime.max);
    assertEquals(row.wait_p50_s, sim.json.waitTime.p50);
    assertEquals(row.wait_p95_s, percentile(sim.waits, 95));
    assertEquals(cells[header.indexOf("bsld_mean")], formatG(row.bsld_mean as number));
  }
  // The policies differ, so the rows cannot all be one run copied.
  assert(new Set(rows.map((r) => r.wait_mean_s)).size > 1);
}

Deno.test({
  name: "compare on the KTH log: every row equals a separate simulate run (100 nodes)",
  ignore: !haveKth,
  fn: () => checkAgainstSimulate(KTH, ["-n", "100"]),
});

Deno.test("compare on the demo CSV: every row equals a separate simulate run", () =>
  checkAgainstSimulate(DEMO, ["-n", "128"]));

Deno.test("compare without --policies runs every registered admission policy", async () => {
  const r = await runCli(["compare", DEMO, "-n", "128", "--json"]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const registered = [...defaultRegistry().admissions.keys()];
  assert(registered.includes("easy_extra"), "the textbook policies are registered");
  assertEquals(JSON.parse(r.out.join("\n")).map((x: Row) => x.policy), registered);
});

Deno.test("compare --picker applies to plain admission names", async () => {
  const a = await runCli(["compare", DEMO, "-n", "128", "--picker", "sjf", "--json"]);
  const b = await runCli(["compare", DEMO, "-n", "128", "--policies", "sjf+easy", "--json"]);
  assertEquals(a.code, 0, a.err.join("\n"));
  const rows: Row[] = JSON.parse(a.out.join("\n"));
  assertEquals(
    rows.map((r) => r.policy),
    [...defaultRegistry().admissions.keys()].map((name) => `sjf+${name}`),
  );
  assertEquals(rows[1].wait_mean_s, JSON.parse(b.out.join("\n"))[0].wait_mean_s);
});

for (
  const [policies, message] of [
    ["easy,fifo", "--policies: unknown admission policy 'fifo' in 'fifo'"],
    ["easy,lifo+easy", "--policies: unknown picker 'lifo' in 'lifo+easy'"],
    ["easy,,none", "--policies: empty policy name"],
    ["easy,easy", "--policies: 'easy' given twice"],
  ]
) {
  Deno.test(`compare --policies ${policies}: one line, exit 1`, async () => {
    const r = await runCli(["compare", DEMO, "-n", "128", "--policies", policies]);
    assertEquals(r.code, 1);
    assertEquals(r.out, []);
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(r.err[0].startsWith(`evtsim: ${message}`), r.err[0]);
  });
}

Deno.test("compare rejects the options it sets per run", async () => {
  const r = await runCli(["compare", DEMO, "-o", "x.csv"]);
  assertEquals(r.code, 1);
  assertEquals(r.err, [
    "evtsim: compare sets '-o' itself for each policy (see 'evtsim help compare')",
  ]);
});

Deno.test("evtsim help compare", async () => {
  const r = await runCli(["help", "compare"]);
  assertEquals(r.code, 0);
  assert(r.out[0].startsWith("usage: evtsim compare TRACE"));
});
