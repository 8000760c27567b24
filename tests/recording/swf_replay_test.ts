// Replaying an SWF log as it ran (begin = submit + recorded wait): the
// recorded schedule comes out unchanged and the scheduler is never asked.

import { readSwf } from "../../io/swf.ts";
import { replay } from "../_replay_helpers.ts";
import { assertEquals } from "../_assert.ts";

const FIXTURES = new URL("../fixtures/swf/", import.meta.url).pathname;

for (const file of ["kth_500.swf.gz", "sdsc_blue_300.swf"]) {
  Deno.test(`replaying ${file} with its recorded waits reproduces it without the scheduler`, async () => {
    const log = await readSwf(FIXTURES + file, { replayRecordedWait: true, overrun: "run" });
    const totalNodes = log.machineSize!;
    // Chunked like the CLI feeds it, to cross chunk boundaries too.
    const run = replay({ totalNodes }, log.recorded, [100, 37, 1]);
    assertEquals(run.schedulerCalls, 0);
    assertEquals(
      run.jobs.map((r) => [r.submitTime, r.beginTime, r.endTime, r.numNodes]),
      log.recorded.map((j) => [j.submitTime, j.beginTime, j.endTime, j.numNodes]),
    );
    // Every recorded start and end is one resource row, after the baseline.
    assertEquals(run.resources.length, 1 + 2 * log.recorded.length);
    assertEquals(run.resources.at(-1)!.allocatedNodes, 0);
  });
}
