// `info resource`'s nodes line on a machine (issue 28): the node count's
// "in use / free" counts whole nodes only (a job asking for GPUs per replica
// holds none: "0 in use, 14 free" while six nodes ran jobs). On a machine the
// line counts the model's nodes: busy (holding any job; partly used when a
// unit of some resource is still free there), idle, offline (draining when a
// job still runs there). Whole-node runs keep their line.

import {
  advanceTo,
  appendJobs,
  changeNodes,
  initialState,
  step,
  topologyCluster,
} from "../../mod.ts";
import { machineNodesLine } from "../../cli/_repl_node_counts.ts";
import { assertEquals } from "../_assert.ts";
import { recordMachineRun, repl } from "../_repl_helpers.ts";

// All four GPU nodes each hold one replica of job 0 (4 GPUs, cores and
// memory left); job 2 takes two cpu nodes whole; job 1 waits.
const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,memory,gpus," +
  "partition\n" +
  "0,4,1000,1000,,,4,gpu\n" +
  "10,2,500,500,8,16G,2,gpu\n" +
  "20,2,500,500,,,,cpu\n";

Deno.test("REPL info resource on a machine: nodes busy (partly used), idle and offline from the machine model, not the whole-node count", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-machine-nodes-" });
  try {
    await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
    const log = await recordMachineRun(dir, `${dir}/t.csv`);
    const r = await repl(log, ["next 3", "step", "info resource"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(
      r.of("info resource")[0],
      "nodes: 14 total: 6 busy (4 partly used), 8 idle, 0 offline; 2 jobs running",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("machine nodes line: a node taken offline under a running job is offline and draining; an empty one offline only", () => {
  const model = topologyCluster(
    ["n1", "n2", "n3", "n4"].map((name) => ({ name, capacity: { cpu: 8 } })),
  );
  const job = (cpu: number) => ({
    submitTime: 0,
    numNodes: 0,
    timeLimit: 100,
    demand: { replicas: 1, perReplica: { cpu } },
  });
  let s = initialState({ totalNodes: 4, resourceModel: model });
  s = step(s, appendJobs([job(8), job(3)])).state;
  s = step(s, advanceTo(0)).state;
  assertEquals(
    machineNodesLine(s),
    "nodes: 4 total: 2 busy (1 partly used), 2 idle, 0 offline; 2 jobs running",
  );
  // n1 holds job 0 (all 8 cpu), n2 job 1: n1 and n4 go offline.
  s = step(s, changeNodes({ time: 5, down: ["n1", "n4"] })).state;
  s = step(s, advanceTo(5)).state;
  assertEquals(
    machineNodesLine(s),
    "nodes: 4 total: 1 busy (1 partly used), 1 idle, 2 offline (1 draining); 2 jobs running",
  );
  // Whole nodes: no machine line (the node count's line stays).
  assertEquals(machineNodesLine(initialState({ totalNodes: 4 })), undefined);
});
