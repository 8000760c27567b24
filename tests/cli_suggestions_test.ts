// Names that cannot mislead (issue 27): a mistyped option, value or command
// gets the close name in its one error line; `evtsim help help` works; and
// wherever a user picks policies, `conservative` is called what it is
// (DR_EVT's strict rule) with a pointer to `conservative_profile`.

import { assert, assertEquals } from "./_assert.ts";
import { runCli } from "./_cli.ts";
import { closest } from "../cli/_suggest.ts";
import { compareTable, type PolicySummary } from "../cli/compare_command.ts";

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
      ["help", "comapre"],
      "evtsim: no help for 'comapre' (commands: simulate, replay, dump, compare, report, serve, topo, sweep, sweep-cell); did you mean 'compare'?",
    ],
  ];
  for (const [args, line] of cases) {
    const r = await runCli(args);
    assertEquals([r.code, r.err], [1, [line]], args.join(" "));
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
    jobs: 1,
    averageWait: 1,
    medianWait: 1,
    p95Wait: 1,
    maxWait: 1,
    averageBoundedSlowdown: 1,
    utilization: 1,
    makespan: 1,
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
