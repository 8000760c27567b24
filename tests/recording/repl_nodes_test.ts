// The REPL's `info node NAME` (issue 28 item 7): the job running on a node
// and what the node has free — the same node the extended schedule's
// `nodes` column names for that job, and a resource model's own view.

import { type NodeHistory, nodeInfo, noteWritten } from "../../cli/_repl_nodes.ts";
import { ReplError } from "../../cli/_repl_types.ts";
import { initialState } from "../../api/initial_state.ts";
import { step } from "../../core/step.ts";
import { strictFifoAdmission } from "../../schedulers/topology_admission.ts";
import { topologyCluster } from "../../schedulers/topology_cluster.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { assertOneError, recordDemo, repl } from "../_repl_helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("REPL info node: the running job's nodes are the ones the schedule's nodes column names", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-nodes-" });
  try {
    const log = await recordDemo(dir);
    const ext = await runCli([
      "simulate",
      `${ROOT}examples/demo_queues_trace.csv`,
      "-n",
      "128",
      "--queues",
      `${ROOT}examples/demo_queues.yaml`,
      "-o",
      `${dir}/ext.csv`,
      "--no_progress",
      "--extended_output",
    ]);
    assertEquals(ext.code, 0, ext.err.join("\n"));
    const lines = Deno.readTextFileSync(`${dir}/ext.csv`).trim().split("\n");
    const job2 = lines[3];
    assert(job2.startsWith("321,321,750,64,0,pbatch,429,2,"), job2);
    const r = await repl(log, [
      "break DECISION type=DISPATCH job=3",
      "continue",
      "info node n001",
      "info node n002",
      "info node n128",
      "info node n999",
      "info node",
      "info node gpu1",
      "info node n001 extra",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    // Job 2 started at 321 on n001 (job 0's, free again) and the 63 nodes after job 1's two.
    assert(job2.endsWith(',"n[001,004-066]"'), job2);
    // At t=570 (job 1 ended at 558) job 2 is the one running job.
    assertEquals(r.of("info node n001"), [
      "node n001: running job 2 since 321 (64 nodes: n[001,004-066]); nothing free",
    ]);
    assertEquals(r.of("info node n002"), ["node n002: free, no job running"]);
    assertEquals(r.of("info node n128"), ["node n128: free, no job running"]);
    assertOneError(r.of("info node n999"), "no node 'n999': this run's nodes are n001-n128");
    assertOneError(r.of("info node"), "info node needs a node name (n001-n128)");
    assertOneError(r.of("info node gpu1"), "no node 'gpu1'");
    assertOneError(r.of("info node n001 extra"), "unexpected 'extra'");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("REPL info node after going back to a breakpoint says what it said there", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-nodes-back-" });
  try {
    const log = await recordDemo(dir);
    const there = ["break DECISION type=DISPATCH job=3", "continue", "info session"];
    const first = await repl(log, [
      ...there,
      "info node n001",
      "info node n002",
      "delete all",
      "continue",
      "info session",
    ]);
    const eventOf = (lines: string[]) => Number(/^event #(\d+)/.exec(lines[0])![1]);
    const at = eventOf(first.of("info session"));
    const end = eventOf(first.of("info session", 1));
    assert(end > at + 100, `${at} .. ${end}`);
    // To the end (every row written), then back to the breakpoint's position.
    const back = await repl(log, [
      ...there,
      "delete all",
      "continue",
      `back ${end - at}`,
      "info session",
      "info node n001",
      "info node n002",
    ], ["--history", "100000"]);
    assertEquals(eventOf(back.of("info session", 1)), at);
    assertEquals(back.of("info node n001"), first.of("info node n001"));
    assertEquals(back.of("info node n002"), first.of("info node n002"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("info node on a resource model: the jobs' replicas on the node and its free units", () => {
  const node = (name: string, rack: string) => ({
    name,
    topology: { rack },
    capacity: { cpu: 8, gpu: 2 },
  });
  const resourceModel = topologyCluster([node("a01", "ra"), node("a02", "ra"), node("b01", "rb")]);
  const job = (replicas: number) => ({
    submitTime: 0,
    numNodes: 0,
    timeLimit: 10,
    demand: { replicas, perReplica: { cpu: 3, gpu: 1 }, topologyKey: "rack" },
  });
  let s = initialState({
    totalNodes: 3,
    resourceModel,
    admission: strictFifoAdmission,
    decisions: true,
  });
  s = step(s, { kind: "appendJobs", jobs: [job(3), job(1)] }).state;
  const h: NodeHistory = { rows: new Map(), allocations: new Map() };
  const r = step(s, { kind: "advanceTo", time: 1 });
  noteWritten(h, r.rows.jobs, r.rows.decisions);
  s = r.state;
  // Job 0 packs rack a (2 + 1 replicas); job 1 takes the smallest domain that fits: a02's last slot.
  assertEquals(nodeInfo(s, h, "a01"), [
    "node a01: running job 0 since 0 (2 replicas: cpu=6 gpu=2); free cpu=2 gpu=0 of cpu=8 gpu=2",
  ]);
  assertEquals(nodeInfo(s, h, "a02"), [
    "node a02: running job 0 since 0 (1 replicas: cpu=3 gpu=1), job 1 since 0 (1 replicas: cpu=3 gpu=1); free cpu=2 gpu=0 of cpu=8 gpu=2",
  ]);
  assertEquals(nodeInfo(s, h, "b01"), [
    "node b01: no job running; free cpu=8 gpu=2 of cpu=8 gpu=2",
  ]);
  const e = assertThrows(() => nodeInfo(s, h, "c01"), "this run's nodes are a[01-02],b01");
  assert(e instanceof ReplError);
  // A model that does not name its nodes: one line saying so.
  const { nodes: _n, freeOn: _f, ...bare } = resourceModel as unknown as Record<string, unknown>;
  void _n, _f;
  const anonymous = {
    ...s,
    resources: { model: { ...bare, name: "mine" }, state: s.resources!.state },
  };
  assertEquals(nodeInfo(anonymous as typeof s, h, "a01"), [
    "info node: resource model mine does not name its nodes",
  ]);
});

Deno.test("REPL info resource on a machine: each resource's free units are the per_resource columns' at that time", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-resources-" });
  try {
    const sim = await runCli([
      "simulate",
      `${ROOT}examples/gpu_trace.csv`,
      "--machine",
      `${ROOT}examples/gpu_machine.yaml`,
      "-o",
      `${dir}/s.csv`,
      "-R",
      `${dir}/r.csv`,
      "--resource_columns",
      "per_resource",
      "--record",
      `${dir}/g.replay`,
      "--no_progress",
    ]);
    assertEquals(sim.code, 0, sim.err.join("\n"));
    const [head, ...rows] = Deno.readTextFileSync(`${dir}/r.csv`).trim().split("\n");
    const names = head.split(",");
    // The last row at t=120: a whole-node job (4 nodes) and three demand jobs run.
    const row = rows.filter((l) => l.startsWith("120,")).at(-1)!.split(",");
    const at = (c: string) => row[names.indexOf(c)];
    const r = await repl(`${dir}/g.replay`, ["next 3", "info resource"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const info = r.of("info resource");
    assertEquals(
      info[1],
      `resources: cores ${at("cores_free")} free of 768, gpus ${at("gpus_free")} free of 16, ` +
        `memory ${at("memory_free")} free of 8388608`,
    );
    assert(info[2].includes("(4 replicas)"), info[2]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
