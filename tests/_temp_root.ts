// One temp folder per test run: the preload (tests/_doc_preload.ts) points
// TMPDIR at the run's folder before the first test module loads, so every
// Deno.makeTempDir/makeTempFile of a test, of the code under test and of the
// processes it starts lands there. tests/_run_tests.ts makes that folder,
// runs the suite, then tests/after_run/ (is it empty? did any CLI run print
// a stack frame?) and removes it, so a test that forgets its temp folder
// fails the suite instead of leaving it behind, even while other runs share
// the machine. A file run alone with the preload gets a folder of its own.

/** The environment variable holding the temp folder the run started with. */
export const ORIGINAL_TMPDIR = "EVTSIM_TEST_ORIGINAL_TMPDIR";

/** The environment variable holding the run's own temp folder ("" once checked). */
export const RUN_TMPDIR = "EVTSIM_TEST_RUN_TMPDIR";

/** Set (to "1") by tests/_run_tests.ts: keep every CLI stderr log for tests/after_run/. */
export const KEEP_CLI_LOGS = "EVTSIM_TEST_KEEP_CLI_LOGS";

/** Set (to "1") by tests/_run_tests.ts for tests/after_run/ once the suite has ended. */
export const AFTER_RUN = "EVTSIM_TEST_AFTER_RUN";

/** The name of a CLI stderr log (one per test process). */
export const cliLogName = /^evtsim-cli-stderr-\d+\.jsonl$/;

/** Where the CLI runs of this test process record their stderr (tests/_cli.ts). */
export function stderrLogPath(): string {
  return `${Deno.env.get("TMPDIR") ?? "/tmp"}/evtsim-cli-stderr-${Deno.pid}.jsonl`;
}

/** A stack frame line as V8 prints it. */
export const STACK_FRAME = /^\s{4}at /m;

/** Points TMPDIR at this run's temp folder (made once per process). */
export function enterRunTempFolder(): void {
  let run: string | undefined;
  try {
    run = Deno.env.get(RUN_TMPDIR);
    if (run === undefined) {
      const original = Deno.env.get("TMPDIR") ?? "/tmp";
      run = `${original.replace(/\/$/, "")}/evtsim-tests-${Deno.pid}`;
      Deno.env.set(ORIGINAL_TMPDIR, original);
      Deno.env.set(RUN_TMPDIR, run);
      Deno.env.set("TMPDIR", run);
    }
    Deno.mkdirSync(run, { recursive: true });
  } catch {
    return; // no env or write permission: the test uses whatever temp folder it gets
  }
  // Run alone, a test file that cleans up leaves nothing behind: its CLI
  // stderr log goes unless it holds a stack frame (tests/_cli.ts has already
  // failed that run), then the empty run folder. Under tests/_run_tests.ts
  // the logs stay for tests/after_run/ and the runner removes the folder.
  if (Deno.env.get(KEEP_CLI_LOGS) === "1") return;
  globalThis.addEventListener("unload", () => {
    const log = stderrLogPath();
    try {
      if (!STACK_FRAME.test(Deno.readTextFileSync(log))) Deno.removeSync(log);
    } catch { /* no CLI run in this file */ }
    try {
      Deno.removeSync(run);
    } catch { /* not empty: the final check reports what is left */ }
  });
}
