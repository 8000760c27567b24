// The external-decision protocol from a command (`--external_command`) in
// the fronts that run many policies: compare's policy `external` and a
// sweep's `options.external_command` run the command for that policy only,
// and examples/external_easy.ts as the command gives `easy`'s figures.

import { ROOT, runCli } from "./_cli.ts";
import { assert, assertEquals } from "./_assert.ts";

const EASY = `${Deno.execPath()} run ${ROOT}examples/external_easy.ts --stdio`;
const DEMO = `${ROOT}examples/demo_trace.csv`;

Deno.test("compare --external_command: the policy 'external' is the command's, the others evtsim's", async () => {
  const r = await runCli([
    "compare",
    DEMO,
    "-n",
    "128",
    "--policies",
    "easy,external",
    "--external_command",
    EASY,
    "--json",
    "--jobs",
    "1",
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const rows = JSON.parse(r.out.join("\n")) as Record<string, unknown>[];
  assertEquals(rows.map((x) => x.policy), ["easy", "external"]);
  const { policy: _a, sim_s: _b, ...easy } = rows[0];
  const { policy: _c, sim_s: _d, ...external } = rows[1];
  assertEquals(external, easy);
  // The command decides for `external` only: naming no such policy is an error.
  const none = await runCli([
    "compare",
    DEMO,
    "-n",
    "128",
    "--policies",
    "easy",
    "--external_command",
    EASY,
  ]);
  assertEquals(none.code, 1);
  assertEquals(none.err, [
    "evtsim: --external_command decides for the policy 'external': name it in --policies",
  ]);
});

Deno.test("sweep options.external_command: the cells of policy 'external' run the command", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-extsweep-" });
  try {
    await Deno.copyFile(DEMO, `${dir}/demo_trace.csv`);
    await Deno.writeTextFile(
      `${dir}/sweep.yaml`,
      [
        "traces: [demo_trace.csv]",
        "policies: [easy, external]",
        "total_nodes: [128]",
        "options:",
        `  external_command: ${JSON.stringify(EASY)}`,
        "",
      ].join("\n"),
    );
    const r = await runCli([
      "sweep",
      `${dir}/sweep.yaml`,
      "--results",
      `${dir}/res`,
      "--no_progress",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = JSON.parse(await Deno.readTextFile(`${dir}/res/results.json`)) as {
      cells?: Record<string, unknown>[];
    } | Record<string, unknown>[];
    const cells = (Array.isArray(rows) ? rows : rows.cells!) as Record<string, unknown>[];
    assertEquals(cells.map((c) => c.policy), ["easy", "external"]);
    for (const k of ["wait_mean_s", "bsld_mean", "utilization", "makespan_s"]) {
      assert(cells[0][k] !== undefined, k);
      assertEquals(cells[1][k], cells[0][k], k);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
