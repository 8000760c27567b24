// Tests touch nothing outside their own temp folders, and remove those
// (issue 27). The preload (tests/_doc_preload.ts, tests/_temp_root.ts) made
// one temp folder for this whole run; this file sorts last, after
// tests/zz_cli_stack_frames_test.ts has removed the CLI stderr log, so the
// folder must be empty now. The doc tests run first, in a process of their
// own (one process for both grew past V8's 4 GB heap), with the real temp folder.

import { assertEquals } from "./_assert.ts";
import { leaveRunTempFolder, RUN_TMPDIR } from "./_temp_root.ts";

// Without tests/_doc_preload.ts (which makes the run's temp folder) there is
// nothing to check: the test is then ignored, not passed.
const RUN = Deno.env.get(RUN_TMPDIR) ?? "";

Deno.test({
  name: "the test run left nothing in its temp folder",
  ignore: RUN === "",
}, () => {
  const run = RUN;
  const left = [...Deno.readDirSync(run)].map((e) => e.name).sort();
  leaveRunTempFolder();
  Deno.removeSync(run, { recursive: true });
  assertEquals(left, [], `left in the run's temp folder ${run} (now removed)`);
});
