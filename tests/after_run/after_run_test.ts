// What a test run left behind, checked after the whole suite by
// tests/_run_tests.ts (which runs this folder in a process of its own once
// the suite's process has ended): no CLI run of the suite printed a stack
// frame (tests/_cli.ts logs every run's stderr), and no test left anything in
// the run's temp folder. Run any other way, there is no finished suite to
// look at: the tests are ignored, and their names say so.

import { assert, assertEquals } from "../_assert.ts";
import { AFTER_RUN, cliLogName, RUN_TMPDIR, STACK_FRAME } from "../_temp_root.ts";

const ACTIVE = Deno.env.get(AFTER_RUN) === "1";
const RUN = Deno.env.get(RUN_TMPDIR) ?? "";
const WHY = ACTIVE ? "" : " (ignored: only tests/_run_tests.ts runs this after a suite)";

interface Logged {
  readonly how: string;
  readonly args: string[];
  readonly stderr: string;
}

function entries(): string[] {
  try {
    return [...Deno.readDirSync(RUN)].map((e) => e.name).sort();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

Deno.test("the check catches a stack trace and passes an error line", () => {
  assert(STACK_FRAME.test("error: Uncaught TypeError: x\n    at f (file:///a.ts:1:1)"));
  assert(!STACK_FRAME.test("evtsim: jobs.csv:3: num_nodes: expected an integer, got 'x'"));
  assert(cliLogName.test("evtsim-cli-stderr-123.jsonl") && !cliLogName.test("x.jsonl"));
});

Deno.test({
  name: `no CLI run of the suite printed a stack frame${WHY}`,
  ignore: !ACTIVE,
}, () => {
  const runs: Logged[] = entries().filter((n) => cliLogName.test(n)).flatMap((n) =>
    Deno.readTextFileSync(`${RUN}/${n}`).split("\n").filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Logged)
  );
  const withFrames = runs.filter((r) => STACK_FRAME.test(r.stderr));
  assertEquals(withFrames.map((r) => `${r.how}: evtsim ${r.args.join(" ")}\n${r.stderr}`), []);
  console.log(`scanned the stderr of ${runs.length} CLI runs`);
});

Deno.test({
  name: `the suite left nothing in its temp folder${WHY}`,
  ignore: !ACTIVE,
}, () => {
  assertEquals(entries().filter((n) => !cliLogName.test(n)), [], `left in ${RUN}`);
});
