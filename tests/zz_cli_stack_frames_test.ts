// No stack trace reaches a user (issue 18): every CLI run of the test suite
// (tests/_cli.ts, in-process or as a real process) appended its stderr to a
// per-process log. This file sorts last, so it scans all of them. Run alone,
// it first makes its own runs on a set of bad command lines and inputs.

import { assert, assertEquals } from "./_assert.ts";
import { runCli, STACK_FRAME, STDERR_LOG } from "./_cli.ts";

interface Logged {
  readonly how: string;
  readonly args: string[];
  readonly stderr: string;
}

function readLog(): Logged[] {
  try {
    return Deno.readTextFileSync(STDERR_LOG).trim().split("\n").filter((l) => l !== "")
      .map((l) => JSON.parse(l));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

Deno.test("the runner's check catches a stack trace", () => {
  assert(STACK_FRAME.test("error: Uncaught TypeError: x\n    at f (file:///a.ts:1:1)"));
  assert(!STACK_FRAME.test("evtsim: jobs.csv:3: num_nodes: expected an integer, got 'x'"));
});

Deno.test("no CLI run in the test suite printed a stack frame", async () => {
  // Run alone (a file run without the preload keeps no log): its own runs.
  const own: Logged[] = [];
  if (readLog().length === 0) {
    const dir = Deno.makeTempDirSync();
    try {
      Deno.writeTextFileSync(`${dir}/bad.csv`, "job_submit_time,num_nodes,time_limit\n0,x,1\n");
      for (
        const args of [
          ["simulate"],
          ["simulate", `${dir}/missing.csv`],
          ["simulate", `${dir}/bad.csv`, "-r", "limit"],
          ["simulate", `${dir}/bad.csv`, "-o", dir],
          ["simulate", `${dir}/bad.csv`, "-n", "1e300"],
          ["bogus"],
        ]
      ) {
        const r = await runCli(args);
        own.push({ how: "in-process", args, stderr: r.err.join("\n") });
      }
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  }
  const logged = readLog();
  const runs = logged.length > 0 ? logged : own;
  const withFrames = runs.filter((r) => STACK_FRAME.test(r.stderr));
  assertEquals(
    withFrames.map((r) => `${r.how}: evtsim ${r.args.join(" ")}\n${r.stderr}`),
    [],
  );
  assert(runs.length > 0);
  console.log(`scanned the stderr of ${runs.length} CLI runs`);
  try {
    Deno.removeSync(STDERR_LOG);
  } catch { /* already gone */ }
});
