// The optimised schedulers (size-classed queue index, pruned searches,
// incremental structures) against the plain reference simulator in
// tests/_reference_sim.ts, which scans the whole queue on every pass:
// byte-identical rows on >= 500 random traces per policy, including deep
// queues where the indexed searches matter.

import fc from "fast-check";
import type { BackfillPolicy, PriorityPolicy } from "../../core/types.ts";
import { arbScenario, runBatch } from "../../testing/mod.ts";
import { referenceSimulate } from "../_reference_sim.ts";
import { assert, assertEquals } from "../_assert.ts";

const POLICIES: [string, PriorityPolicy, BackfillPolicy][] = [
  ["FCFS", "fcfs", "none"],
  ["EASY", "fcfs", "easy"],
  ["CONSERVATIVE", "fcfs_conservative", "conservative"],
  ["SJF", "sjf", "easy"],
  ["LJF", "ljf", "easy"],
];

for (const [name, priority, backfill] of POLICIES) {
  Deno.test(`${name}: optimised engine equals the reference on 500 random traces`, () => {
    // Half the traces arrive fast on a small machine so the queue gets deeper
    // than the size-class index's small-queue cut-off (64) and classes of
    // every width hold waiting jobs at once.
    const scenario = fc.oneof(
      arbScenario({
        priorities: [priority],
        backfills: [backfill],
        allowOversized: true,
        maxJobs: 40,
      }),
      arbScenario({
        priorities: [priority],
        backfills: [backfill],
        totalNodes: 64,
        maxNodes: 64,
        maxGap: 3,
        minJobs: 80,
        maxJobs: 160,
        ties: true,
      }),
    );
    let deep = 0;
    fc.assert(
      fc.property(scenario, ({ config, trace }) => {
        const engine = runBatch(config, trace);
        const ref = referenceSimulate(config, trace);
        assertEquals(engine.jobRows, ref.jobRows);
        assertEquals(engine.resourceRows, ref.resourceRows);
        if (engine.statistics.peakQueueLength > 64) deep++;
      }),
      { seed: 4242, numRuns: 500 },
    );
    assert(deep >= 50, `only ${deep} of 500 traces had a queue deeper than 64`);
  });
}
