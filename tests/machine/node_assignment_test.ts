// The whole-node tracker names the nodes each job of a whole-node run held:
// it must never give one node to two jobs that run at the same time, give
// every job as many nodes as it held, and stay within the machine.

import fc from "fast-check";
import { arbAnyScenario, runBatch } from "../../testing/mod.ts";
import {
  assignWholeNodes,
  type NodeInterval,
  wholeNodeIndex,
  wholeNodeName,
} from "../../core/node_assignment.ts";
import { assert, assertEquals } from "../_assert.ts";

const PARAMS = { seed: 2028, numRuns: 200 };

Deno.test("node assignment: lowest free nodes first, ends before starts", () => {
  const nodes = assignWholeNodes([
    { jobId: 0, beginTime: 0, endTime: 10, numNodes: 2 },
    { jobId: 1, beginTime: 0, endTime: 5, numNodes: 1 },
    { jobId: 3, beginTime: 5, endTime: 6, numNodes: 1 },
    { jobId: 2, beginTime: 5, endTime: 9, numNodes: 2 },
    { jobId: 4, beginTime: 7, endTime: 7, numNodes: 1 },
    { jobId: 5, beginTime: 7, endTime: 8, numNodes: 1 },
    { jobId: 6, beginTime: -1, endTime: -1, numNodes: 3 },
  ], 5);
  const text = [...nodes].map(([id, n]) => `${id}:${[...n].join("+")}`).join(" ");
  // At 5 job 1's node 2 is free again; job 2 (lower id) takes 2 and 3, job 3 takes 4.
  // At 7 job 4 (no length) takes node 4 and gives it back; job 5 takes it too.
  assertEquals(text, "0:0+1 1:2 2:2+3 3:4 4:4 5:4");
  // A job of no length starting with others at one time goes first (as the engine may run it).
  const first = assignWholeNodes([
    { jobId: 0, beginTime: 0, endTime: 1, numNodes: 2 },
    { jobId: 1, beginTime: 0, endTime: 0, numNodes: 2 },
  ], 2);
  assertEquals([...first.get(1)!], [0, 1]);
});

Deno.test("node assignment: a replayed over-allocation gets nodes past the machine", () => {
  const nodes = assignWholeNodes([
    { jobId: 0, beginTime: 0, endTime: 10, numNodes: 2 },
    { jobId: 1, beginTime: 1, endTime: 5, numNodes: 2 },
  ], 3);
  assertEquals([...nodes.get(1)!], [2, 3]);
});

Deno.test("node names: n and the number from 1, padded to the machine's width", () => {
  assertEquals(wholeNodeName(0, 4), "n001");
  assertEquals(wholeNodeName(1233, 1234), "n1234");
  assertEquals(wholeNodeIndex("n0042"), 41);
  assertEquals(wholeNodeIndex("n0"), undefined);
  assertEquals(wholeNodeIndex("x1"), undefined);
});

Deno.test("node assignment: no node runs two jobs at once, on random whole-node runs (property)", () => {
  fc.assert(
    fc.property(arbAnyScenario(), ({ config, trace }) => {
      const rows = runBatch(config, trace).jobRows;
      const nodes = assignWholeNodes(rows, config.totalNodes);
      // Per node, the intervals of the jobs on it, which must not overlap.
      const byNode = new Map<number, [number, number, number][]>();
      for (const r of rows) {
        if (r.numNodes === 0 || r.beginTime < 0) continue;
        const mine = nodes.get(r.jobId)!;
        assertEquals(new Set(mine).size, r.numNodes, `job ${r.jobId}: its own nodes`);
        for (const n of mine) {
          assert(n >= 0 && n < config.totalNodes, `job ${r.jobId}: node ${n} is on the machine`);
          const list = byNode.get(n) ?? [];
          list.push([r.beginTime, r.endTime, r.jobId]);
          byNode.set(n, list);
        }
      }
      for (const [n, list] of byNode) {
        list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        for (let i = 1; i < list.length; i++) {
          assert(
            list[i][0] >= list[i - 1][1] || list[i][0] === list[i][1] ||
              list[i - 1][0] === list[i - 1][1],
            `node ${n}: job ${list[i][2]} starts at ${list[i][0]} before job ${
              list[i - 1][2]
            } ends at ${list[i - 1][1]}`,
          );
        }
      }
    }),
    PARAMS,
  );
});

// The plain tracker: a boolean per node, scanned from node 0 at each start.
function referenceAssign(jobs: NodeInterval[], total: number): Map<number, number[]> {
  const starts = jobs.filter((j) => j.numNodes > 0 && j.beginTime >= 0 && j.endTime >= j.beginTime)
    .sort((a, b) =>
      a.beginTime - b.beginTime ||
      Number(a.endTime !== a.beginTime) - Number(b.endTime !== b.beginTime) || a.jobId - b.jobId
    );
  const busy: boolean[] = new Array(total).fill(false);
  const out = new Map<number, number[]>();
  const running: NodeInterval[] = [];
  for (const j of starts) {
    running.sort((a, b) => a.endTime - b.endTime || a.jobId - b.jobId);
    while (running.length > 0 && running[0].endTime <= j.beginTime) {
      for (const n of out.get(running.shift()!.jobId)!) busy[n] = false;
    }
    const mine: number[] = [];
    for (let n = 0; mine.length < j.numNodes; n++) {
      if (n >= busy.length) busy.push(false);
      if (!busy[n]) mine.push(n);
    }
    for (const n of mine) busy[n] = true;
    out.set(j.jobId, mine);
    if (j.endTime === j.beginTime) { for (const n of mine) busy[n] = false; }
    else running.push(j);
  }
  return out;
}

Deno.test("node assignment agrees with a plain tracker on wide machines and over-allocations (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 200 }),
      fc.array(
        fc.record({
          beginTime: fc.integer({ min: 0, max: 50 }),
          length: fc.integer({ min: 0, max: 20 }),
          numNodes: fc.integer({ min: 0, max: 90 }),
        }),
        { maxLength: 40 },
      ),
      (total, specs) => {
        const jobs = specs.map((s, jobId) => ({
          jobId,
          beginTime: s.beginTime,
          endTime: s.beginTime + s.length,
          numNodes: s.numNodes,
        }));
        const fast = assignWholeNodes(jobs, total);
        const plain = referenceAssign(jobs, total);
        assertEquals(new Map([...fast].map(([id, n]) => [id, [...n]])), plain);
      },
    ),
    PARAMS,
  );
});
