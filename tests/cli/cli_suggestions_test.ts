// Names that cannot mislead (issue 27): a mistyped option, value or command
// gets the close name in its one error line; `evtsim help help` works; and
// wherever a user picks policies, `conservative` is called what it is
// (DR_EVT's strict rule) with a pointer to `conservative_profile`.

import { computeMetrics, MetricsCollector } from "../../core/metrics.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { closest } from "../../cli/_suggest.ts";
import { compareTable, type PolicySummary } from "../../cli/compare_command.ts";

Deno.test("closest: a prefix or a slip or two away; nothing far", () => {
  const options = ["backfill_policy", "block_size", "msec_output", "seed", "total_nodes"];
  assertEquals(closest("backfil", options), "backfill_policy");
  assertEquals(closest("backfill-polcy", options), "backfill_policy");
  assertEquals(closest("msec", options), "msec_output");
  assertEquals(closest("sed", options), "seed");
  assertEquals(closest("totl_nodes", options), "total_nodes");
  assertEquals(closest("eassy", ["easy", "conservative", "none"]), "easy");
  assertEquals(closest("conservativ", ["conservative", "conservative_profile"]), "conservative");
  assertEquals(closest("greedy", ["easy", "conservative", "none"]), undefined);
  assertEquals(closest("x", options), undefined);
  assertEquals(closest("policy", ["traces", "policies", "seeds"]), "policies");
  assertEquals(closest("", options), undefined);
});

Deno.test("did you mean: options, values and commands of every command line", async () => {
  const cases: [string[], string][] = [
    [
      ["simulate", "x.csv", "--backfil", "easy"],
      "evtsim: unknown option '--backfil'; did you mean '--backfill_policy'? (see 'evtsim simulate --help')",
    ],
    [
      ["simulate", "x.csv", "--msec"],
      "evtsim: unknown option '--msec'; did you mean '--msec_output'? (see 'evtsim simulate --help')",
    ],
    [
      ["simulate", "x.csv", "-b", "eassy"],
      "evtsim: -b: unknown value 'eassy' (expected easy, conservative, none); did you mean 'easy'?",
    ],
    [
      ["simulate", "x.csv", "--bogus"],
      "evtsim: unknown option '--bogus' (see 'evtsim simulate --help')",
    ],
    [
      ["replay", "x.replay", "--verfy"],
      "evtsim: unknown option '--verfy'; did you mean '--verify'? (see 'evtsim replay --help')",
    ],
    [
      ["compare", "x.csv", "--policies", "easy,conservativ"],
      "evtsim: --policies: unknown admission policy 'conservativ' in 'conservativ' (registered: none, easy, conservative, easy_extra, conservative_profile, conservative_profile_no_compression); did you mean 'conservative'?",
    ],
    [
      ["simulat", "x.csv"],
      "evtsim: unknown command 'simulat' (expected: simulate, replay, dump, compare, report, serve, topo, sweep, sweep-cell); did you mean 'simulate'?",
    ],
    [
      ["simulate", "x.csv", "-c", "CONFIG"],
      "evtsim: CONFIG: total_node: unknown field (expected a Simulation_Params field such as total_nodes; see 'evtsim simulate --help'); did you mean 'total_nodes'?",
    ],
    [
      ["help", "comapre"],
      "evtsim: no help for 'comapre' (commands: simulate, replay, dump, compare, report, serve, topo, sweep, sweep-cell); did you mean 'compare'?",
    ],
  ];
  const dir = await Deno.makeTempDir({ prefix: "evtsim-suggest-" });
  try {
    await Deno.writeTextFile(`${dir}/c.yaml`, "total_node: 5\n");
    await Deno.writeTextFile(`${dir}/s.yaml`, "traces: t.csv\npolicy: [easy]\n");
    await Deno.writeTextFile(`${dir}/o.yaml`, "traces: t.csv\noptions:\n  swf_unt: nodes\n");
    await Deno.writeTextFile(`${dir}/t.csv`, "job_submit_time,num_nodes,time_limit\n0,1,1\n");
    const files = (s: string) =>
      s.replace("CONFIG", `${dir}/c.yaml`).replace("SPEC", `${dir}/s.yaml`)
        .replace("OPTS", `${dir}/o.yaml`);
    cases.push(
      [
        ["sweep", "SPEC", "--results", `${dir}/r`],
        "evtsim: SPEC:2: policy: unknown field (expected traces, policies, total_nodes, run_time_modes, seeds, options); did you mean 'policies'?",
      ],
      [
        ["sweep", "OPTS", "--results", `${dir}/r`],
        "evtsim: OPTS:3: options.swf_unt: unknown simulate option; did you mean 'swf_unit'? (see 'evtsim help simulate')",
      ],
    );
    for (const [args, line] of cases) {
      const r = await runCli(args.map(files));
      assertEquals([r.code, r.err], [1, [files(line)]], args.join(" "));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("evtsim help help", async () => {
  const r = await runCli(["help", "help"]);
  assertEquals([r.code, r.err], [0, []]);
  assertEquals(r.out[0].split("\n")[0], "usage: evtsim help [COMMAND]");
  assert(r.out.join("\n").includes("sweep-cell, help"), r.out.join("\n"));
});

Deno.test("conservative is called DR_EVT's rule in simulate's, compare's and sweep's help", async () => {
  for (const command of ["simulate", "compare", "sweep"]) {
    const r = await runCli(["help", command]);
    const text = r.out.join("\n");
    assertEquals(r.code, 0);
    assert(
      /conservative is DR_EVT's (conservative|strict) rule/.test(text),
      `${command}:\n${text}`,
    );
    assert(text.includes("conservative_profile"), command);
  }
});

Deno.test("compare's table marks DR_EVT's conservative rule and says what it is under the table", () => {
  const row = (policy: string): PolicySummary => ({
    policy,
    metrics: computeMetrics([], 1),
    fairness: new MetricsCollector().breakdowns().fairness,
    totalNodes: 1,
    simulationSeconds: 0,
  });
  const lines = compareTable(
    ["easy", "conservative", "sjf+conservative", "conservative_profile"].map(row),
  );
  assertEquals(lines.slice(1, 5).map((l) => l.split(" ")[0]), [
    "easy",
    "conservative*",
    "sjf+conservative*",
    "conservative_profile",
  ]);
  assertEquals(lines[5], "");
  assert(lines[6].startsWith("* conservative is DR_EVT's conservative rule"), lines[6]);
  assert(lines.slice(6).join(" ").includes("conservative_profile"));
  assertEquals(compareTable(["easy", "conservative_profile"].map(row)).length, 3);
});
