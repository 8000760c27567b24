// Runs a test suite, then the checks of what the suite left behind, in that
// order by construction rather than by file names that sort last:
//
//   deno run -A tests/_run_tests.ts [deno test options and paths...]
//
// 1. makes one temp folder for the run (`evtsim-tests-PID` in the real temp
//    folder) and points TMPDIR at it for the suite, so every temp folder of a
//    test, of the code under test and of the processes it starts lands there;
// 2. runs `deno test` with the arguments given (the suite), keeping every
//    CLI run's stderr log (tests/_cli.ts) in that folder;
// 3. runs tests/after_run/ in a process of its own: no CLI run of the suite
//    printed a stack frame, and the suite left nothing in its temp folder;
// 4. removes the folder and exits non-zero when either step failed.
//
// `deno test` alone runs a suite without step 3 (tests/after_run/ is then
// ignored, with its reason in the test's name).

import { AFTER_RUN, KEEP_CLI_LOGS, ORIGINAL_TMPDIR, RUN_TMPDIR } from "./_temp_root.ts";

const AFTER_RUN_DIR = new URL("./after_run/", import.meta.url).pathname;

async function deno(args: string[], env: Record<string, string>): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const stop = () => child.kill("SIGTERM");
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  try {
    return (await child.status).code;
  } finally {
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
  }
}

if (import.meta.main) {
  const original = (Deno.env.get("TMPDIR") ?? "/tmp").replace(/\/$/, "");
  const run = `${original}/evtsim-tests-${Deno.pid}`;
  Deno.mkdirSync(run, { recursive: true });
  const env = {
    [ORIGINAL_TMPDIR]: original,
    [RUN_TMPDIR]: run,
    [KEEP_CLI_LOGS]: "1",
    TMPDIR: run,
  };
  let code = 1;
  try {
    const suite = await deno(["test", ...Deno.args], env);
    console.log(`\nafter the run (${AFTER_RUN_DIR}):`);
    const after = await deno([
      "test",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      AFTER_RUN_DIR,
    ], { ...env, [AFTER_RUN]: "1" });
    code = suite !== 0 ? suite : after;
  } finally {
    Deno.removeSync(run, { recursive: true });
  }
  Deno.exit(code);
}
