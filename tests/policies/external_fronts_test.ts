// The external-decision protocol from a command (`--external_command`) in
// compare: its policy `external` runs the command for that policy only, and
// examples/external_easy.ts as the command gives `easy`'s figures.

import { ROOT, runCli } from "../_cli.ts";
import { assertEquals } from "../_assert.ts";

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
