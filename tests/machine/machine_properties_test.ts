// A property of machine runs (fast-check, fixed seed; fast-check prints the
// seed and path of a failure): on random machines (1-4 node groups, 1-4
// resources, overlapping partitions, racks) and random jobs (whole nodes or
// units per replica, a partition or none, a rack or not), under admission
// none and every built-in picker, no resource of any node is ever
// oversubscribed, a whole-node job has its nodes to itself, every job runs
// on its partition's nodes (and in one rack when it asks), and every job runs.

import fc from "fast-check";
import {
  appendJobs,
  type DecisionRow,
  finish,
  initialState,
  type JobRow,
  type JobSpec,
  type Machine,
  machineNodes,
  runToCompletion,
  step,
  topologyCluster,
} from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";

/** Runs `jobs` on `m` under admission none; the job rows and the DISPATCH rows. */
function runOn(
  m: Machine,
  jobs: JobSpec[],
  picker: string,
): { rows: JobRow[]; dispatches: DecisionRow[] } {
  const model = topologyCluster(
    machineNodes(m).map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
  );
  let s = initialState({
    totalNodes: machineNodes(m).length,
    resourceModel: model,
    backfillPolicy: "none",
    picker,
    decisions: "heads",
  });
  const rows: JobRow[] = [];
  const dispatches: DecisionRow[] = [];
  for (const input of [appendJobs(jobs), runToCompletion(), finish()]) {
    const r = step(s, input);
    s = r.state;
    rows.push(...r.rows.jobs);
    dispatches.push(...r.rows.decisions.filter((d) => d.type === "DISPATCH"));
  }
  return { rows, dispatches };
}

const arbPicker = fc.constantFrom("builtin_fcfs", "sjf", "ljf", "fairshare");

Deno.test("property: on random machines no resource of any node is ever oversubscribed (admission none, every built-in picker), and every job runs", () => {
  const placed: number[] = [];
  fc.assert(
    fc.property(arbMachine, fc.array(arbRequest, { minLength: 1, maxLength: 25 }), arbPicker, (
      m,
      reqs,
      picker,
    ) => {
      const nodes = machineNodes(m);
      const { jobs, asked, placeable } = machineJobs(m, reqs);
      placed.push(jobs.length);
      if (jobs.length === 0) return;
      const { rows, dispatches } = runOn(m, jobs, picker);
      // Every job the empty machine can hold runs; the others are held, blocking none.
      assertEquals(rows.length, placeable, "every placeable job runs");
      for (const r of rows) assert(asked[r.jobId].placeable, `job ${r.jobId} ran`);
      const byId = new Map(rows.map((r) => [r.jobId, r]));
      const capacity = new Map(nodes.map((n) => [n.name, n.capacity]));
      const partitionsOf = new Map(nodes.map((n) => [n.name, n.partitions]));
      const rackOf = new Map(nodes.map((n) => [n.name, n.topology.rack]));
      // At every start, the jobs running then use at most each node's units,
      // a whole-node job has its nodes to itself, and each job is on its partition's nodes.
      for (const d of dispatches) {
        const t = d.time;
        const used = new Map<string, number>();
        const holders = new Map<string, number[]>();
        const exclusive = new Set<string>();
        for (const e of dispatches) {
          if (e.type !== "DISPATCH") continue;
          const row = byId.get(e.jobId)!;
          if (!(row.beginTime <= t && t < row.endTime)) continue;
          const a = asked[e.jobId];
          if (a.rack) {
            const racks = new Set(e.allocation!.map((x) => rackOf.get(x.nodeName)));
            assertEquals(racks.size, 1, `job ${e.jobId} spans racks`);
          }
          for (const share of e.allocation ?? []) {
            const p = a.partition ?? m.defaultPartition;
            if (p !== undefined) {
              assert(
                partitionsOf.get(share.nodeName)!.includes(p),
                `job ${e.jobId} off partition ${p}`,
              );
            }
            holders.set(share.nodeName, [...(holders.get(share.nodeName) ?? []), e.jobId]);
            if (a.whole) {
              assertEquals(share.replicas, 1, `whole-node job ${e.jobId}: one replica per node`);
              exclusive.add(share.nodeName);
              continue;
            }
            for (const [res, units] of Object.entries(a.per)) {
              const k = `${share.nodeName} ${res}`;
              used.set(k, (used.get(k) ?? 0) + units * share.replicas);
            }
          }
        }
        for (const [k, u] of used) {
          const [node, res] = k.split(" ");
          assert(u <= (capacity.get(node)![res] ?? 0), `${k}: ${u} used at ${t}`);
        }
        for (const node of exclusive) {
          assertEquals(
            holders.get(node)!.length,
            1,
            `${node} shared with a whole-node job at ${t}`,
          );
        }
      }
    }),
    { seed: 28, numRuns: Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 150) },
  );
  // The generator makes runs of several jobs, not mostly refused ones.
  const mean = placed.reduce((a, b) => a + b, 0) / placed.length;
  assert(mean >= 4, `only ${mean} jobs per run on average`);
});
