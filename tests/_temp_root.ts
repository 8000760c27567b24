// One temp folder per test run (issue 27): the preload (tests/_doc_preload.ts)
// points TMPDIR at `evtsim-tests-PID` inside the real temp folder before the
// first test module loads, so every Deno.makeTempDir/makeTempFile of a test,
// of the code under test and of the processes it starts lands there. The last
// test file (tests/zz_temp_folders_test.ts) checks that it is empty and
// removes it, so a test that forgets its temp folder fails the suite instead
// of leaving it behind, even while other runs share the machine.

/** The environment variable holding the temp folder the run started with. */
export const ORIGINAL_TMPDIR = "EVTSIM_TEST_ORIGINAL_TMPDIR";

/** The environment variable holding the run's own temp folder ("" once checked). */
export const RUN_TMPDIR = "EVTSIM_TEST_RUN_TMPDIR";

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
    if (run === "") return; // checked and removed: the doc tests after it use the real one
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
  // stderr log goes unless it holds a stack frame (left for
  // tests/zz_cli_stack_frames_test.ts to report), then the empty run folder.
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

/** Puts TMPDIR back to what the run started with and marks the run folder checked. */
export function leaveRunTempFolder(): void {
  const original = Deno.env.get(ORIGINAL_TMPDIR);
  if (original !== undefined) Deno.env.set("TMPDIR", original);
  Deno.env.set(RUN_TMPDIR, "");
}
