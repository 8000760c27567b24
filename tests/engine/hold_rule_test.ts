// The hold rule is one function (core/_hold_rule.ts) read by the scheduling
// round, the head's reservation and the held-job count (issue 28): a job the
// machine as it is cannot run — more nodes than a cut leaves, one its empty
// machine can never hold, one that does not fit the nodes online — is held
// (`exceeds_capacity`). Property: on random machines with nodes taken
// offline, under policies that are and are not offered unplaceable jobs,
// `heldJobCount` (statistics' `jobsHeld`) is the number of waiting jobs a
// round holds (their pend reason is `exceeds_capacity`), at every instant.

import fc from "fast-check";
import {
  advanceTo,
  appendJobs,
  changeNodes,
  greedyBackfillAdmission,
  heldJobCount,
  initialState,
  machineNodes,
  type SimState,
  step,
  strictFifoAdmission,
  topologyCluster,
} from "../../mod.ts";
import { waitingReasons } from "../../core/queries.ts";
import { assert } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";

/** Waiting jobs whose reason is a hold. */
function heldByRound(s: SimState): number {
  let n = 0;
  for (const r of waitingReasons(s).values()) if (r.code === "exceeds_capacity") n++;
  return n;
}

Deno.test("property: on random machines with nodes offline, heldJobCount is the number of jobs a round holds (easy, none, strict FIFO, greedy backfill)", () => {
  let held = 0;
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 2, maxLength: 16 }),
      fc.constantFrom("easy", "none", "strict-fifo", "greedy"),
      fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 40 }),
      (m, reqs, policy, downAt, cutTime) => {
        const nodes = machineNodes(m);
        const model = topologyCluster(
          nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
        );
        const { jobs } = machineJobs(m, reqs);
        const down = [...new Set(downAt.map((k) => nodes[k % nodes.length].name))];
        let s = initialState({
          totalNodes: nodes.length,
          resourceModel: model,
          ...(policy === "strict-fifo"
            ? { admission: strictFifoAdmission }
            : policy === "greedy"
            ? { admission: greedyBackfillAdmission }
            : { backfillPolicy: policy }),
        });
        s = step(s, appendJobs(jobs)).state;
        s = step(s, changeNodes({ time: cutTime, down })).state;
        const times = [
          ...new Set([cutTime, ...jobs.flatMap((j) => [j.submitTime, j.submitTime + 9])]),
        ]
          .sort((a, b) => a - b);
        for (const t of times) {
          s = step(s, advanceTo(t)).state;
          const want = heldByRound(s);
          const got = heldJobCount(s);
          if (got !== want) {
            throw new Error(`t=${t} ${policy}: heldJobCount ${got}, the round holds ${want}`);
          }
          held += got;
        }
      },
    ),
    { seed: 2029, numRuns: 150 },
  );
  assert(held > 20, `held jobs seen: ${held}`);
});
