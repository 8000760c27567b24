// Topology placement as TopoQueue does it (seed 004, observed-behaviour J.3),
// through the resource model on its own and through the engine: slots per
// node, the `global` domain, best fit on domain slots, then fewest nodes,
// then name, compact packing, the reasons and their exact messages, and
// the engine's checks on a policy that starts what the model cannot place.

import {
  type Admission,
  advanceTo,
  appendJobs,
  type DecisionRow,
  EvtsimError,
  finish,
  initialState,
  type JobSpec,
  noBackfill,
  type ResourceDemand,
  runToCompletion,
  saveSnapshot,
  step,
  topologyCluster,
  type TopologyNode,
  type TopologyState,
} from "../../mod.ts";
import { goQuote } from "../../schedulers/topology_reasons.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { demandRecord } from "../_topo_helpers.ts";

const node = (
  name: string,
  labels: Record<string, string>,
  cpu: number,
  gpu = 0,
): TopologyNode => ({
  name,
  topology: labels,
  capacity: { cpu, gpu },
});

const record = demandRecord;

/** `domain node=replicas,…`, or `code: message`. */
function placed(nodes: TopologyNode[], demand: ResourceDemand, state?: TopologyState): string {
  const m = topologyCluster(nodes);
  const r = m.place(state ?? m.initial, record(0, demand));
  if (r.placement === undefined) return `${r.reason.code}: ${r.reason.message}`;
  return `${r.placement.domain} ${
    r.placement.allocation.map((a) => `${a.nodeName}=${a.replicas}`).join(",")
  }`;
}

const cpu = (replicas: number, perReplica: number, topologyKey?: string): ResourceDemand => ({
  replicas,
  perReplica: { cpu: perReplica },
  topologyKey,
});

Deno.test("placement: no topology key is one domain, global; nodes by slots desc then name", () => {
  const nodes = [node("n3", {}, 12), node("n1", {}, 4), node("n2", {}, 12)];
  // Slots 1 (n1), 3 (n2), 3 (n3): packing takes n2, then n3, listed by name.
  assertEquals(placed(nodes, cpu(4, 4)), "global n2=3,n3=1");
  assertEquals(placed(nodes, cpu(7, 4)), "global n1=1,n2=3,n3=3");
});

Deno.test("placement: slots are the minimum over the positive requests of floor(free/request)", () => {
  const nodes = [node("a", {}, 8, 4), node("b", {}, 32, 1)];
  // a: min(8/4, 4/1) = 2; b: min(32/4, 1/1) = 1.
  const d = (replicas: number, gpu: number): ResourceDemand => ({
    replicas,
    perReplica: { cpu: 4, gpu },
  });
  assertEquals(placed(nodes, d(3, 1)), "global a=2,b=1");
  assertEquals(
    placed(nodes, d(4, 1)),
    "insufficient_capacity: requested 4 replicas, but only 3 cluster-wide replica slots are available",
  );
  // A zero request is not a limit: b then has 8 slots.
  assertEquals(placed(nodes, d(4, 0)), "global b=4");
  // A resource no node has gives no slot anywhere.
  assertEquals(
    placed(nodes, { replicas: 1, perReplica: { tpu: 1 } }),
    "insufficient_capacity: requested 1 replicas, but only 0 cluster-wide replica slots are available",
  );
});

Deno.test("placement: the candidate with the fewest domain slots wins (best fit)", () => {
  const nodes = [
    node("a1", { rack: "a" }, 16),
    node("a2", { rack: "a" }, 16),
    node("b1", { rack: "b" }, 16),
  ];
  // rack a has 8 slots, rack b 4: a 4-replica job goes to b though a comes first.
  assertEquals(placed(nodes, cpu(4, 4, "rack")), "b b1=4");
  assertEquals(placed(nodes, cpu(5, 4, "rack")), "a a1=4,a2=1");
});

Deno.test("placement: equal domain slots → fewest nodes packed, then the first domain name", () => {
  const fewer = [
    node("a1", { rack: "a" }, 8),
    node("a2", { rack: "a" }, 8),
    node("b1", { rack: "b" }, 16),
  ];
  // Both racks have 4 slots; rack b packs into one node.
  assertEquals(placed(fewer, cpu(4, 4, "rack")), "b b1=4");
  const same = [node("x1", { rack: "x" }, 16), node("w1", { rack: "w" }, 16)];
  assertEquals(placed(same, cpu(4, 4, "rack")), "w w1=4");
});

Deno.test("placement: topology_fragmented names the first domain, by name, with the most slots", () => {
  const nodes = [
    node("c1", { rack: "c" }, 8),
    node("a1", { rack: "a" }, 12),
    node("b1", { rack: "b" }, 12),
  ];
  assertEquals(
    placed(nodes, cpu(4, 4, "rack")),
    'topology_fragmented: requested 4 replicas in one "rack" domain; 8 slots are available cluster-wide, but the largest domain "a" has 3',
  );
  // The same job without a topology key fits across racks.
  assertEquals(placed(nodes, cpu(4, 4)), "global a1=3,b1=1");
  // Fewer slots than replicas cluster-wide is insufficient capacity, key or not.
  assertEquals(
    placed(nodes, cpu(9, 4, "rack")),
    "insufficient_capacity: requested 9 replicas, but only 8 cluster-wide replica slots are available",
  );
});

Deno.test("placement: the reason's facts carry TopoQueue's fields", () => {
  const m = topologyCluster([node("a1", { rack: "a" }, 4), node("b1", { rack: "b" }, 4)]);
  const r = m.place(m.initial, record(0, cpu(2, 4, "rack")));
  assertEquals(r.reason, {
    code: "topology_fragmented",
    message:
      'requested 2 replicas in one "rack" domain; 2 slots are available cluster-wide, but the largest domain "a" has 1',
    requestedReplicas: 2,
    topologyKey: "rack",
    totalAvailableReplicaSlots: 2,
    largestTopologyDomain: "a",
    largestTopologyDomainReplicaSlots: 1,
  });
});

Deno.test("placement: names quoted as Go's %q quotes them", () => {
  assertEquals(goQuote('ra"ck\\1'), '"ra\\"ck\\\\1"');
  assertEquals(goQuote("a\tb\nc\x01\x7f"), '"a\\tb\\nc\\x01\\x7f"');
  assertEquals(goQuote("zone-é\u200b"), '"zone-é\\u200b"');
});

Deno.test("placement: nodes are ordered by code point (Go's byte order), not by locale", () => {
  const nodes = [node("b", {}, 4), node("B", {}, 4), node("a", {}, 4)];
  assertEquals(placed(nodes, cpu(3, 4)), "global B=1,a=1,b=1");
  assertEquals(placed(nodes, cpu(1, 4)), "global B=1");
});

Deno.test("allocate and release: free units follow the allocation; a state never changes after endEdit", () => {
  const m = topologyCluster([node("n1", {}, 8, 2), node("n2", {}, 8, 2)]);
  const job = record(7, { replicas: 3, perReplica: { cpu: 4, gpu: 1 } });
  const p = m.place(m.initial, job).placement!;
  const s1 = m.endEdit(m.allocate(m.beginEdit(m.initial), job, p));
  assertEquals([...m.initial.free], [8, 2, 8, 2]);
  assertEquals([...s1.free], [0, 0, 4, 1]);
  assertEquals(placed([node("n1", {}, 8, 2), node("n2", {}, 8, 2)], cpu(1, 4), s1), "global n2=1");
  assert(Object.isFrozen(s1));
  assertThrows(() => m.allocate(s1, record(8, cpu(1, 4)), p), "only between beginEdit and endEdit");
  const s2 = m.endEdit(m.release(m.beginEdit(s1), job));
  assertEquals([...s2.free], [8, 2, 8, 2]);
  assertThrows(() => m.release(m.beginEdit(s2), job), "job 7 holds no resources");
  // An allocation beyond what is free is refused, not applied.
  const e = m.beginEdit(s1);
  assertThrows(() => m.allocate(e, record(9, cpu(2, 4)), p), "needs 8 cpu on n1, which has 0 free");
});

const demand = (name: string, replicas: number, topologyKey?: string): JobSpec => ({
  submitTime: 0,
  numNodes: 0,
  timeLimit: 10,
  demand: { name, replicas, perReplica: { cpu: 4, gpu: 1 }, topologyKey },
});

function decisionText(d: DecisionRow): string {
  return d.type === "DISPATCH"
    ? `DISPATCH ${d.jobId} nodes=${d.numNodes}${d.backfill ? " backfill" : ""} ${d.domain} ${
      d.allocation!.map((a) => `${a.nodeName}=${a.replicas}`).join(",")
    }`
    : `PEND ${d.jobId} ${d.reason.code}: ${d.reason.message}`;
}

const RACKS = [
  { name: "node-a1", topology: { zone: "zone-a", rack: "rack-a" }, capacity: { cpu: 32, gpu: 4 } },
  { name: "node-a2", topology: { zone: "zone-a", rack: "rack-a" }, capacity: { cpu: 32, gpu: 4 } },
  { name: "node-b1", topology: { zone: "zone-a", rack: "rack-b" }, capacity: { cpu: 32, gpu: 4 } },
  { name: "node-b2", topology: { zone: "zone-a", rack: "rack-b" }, capacity: { cpu: 32, gpu: 4 } },
];

Deno.test("engine: DISPATCH rows carry the allocation, PEND rows TopoQueue's reasons (seed 004 jobs)", async () => {
  const { greedyBackfillAdmission, strictFifoAdmission } = await import("../../mod.ts");
  const jobs = [
    demand("warmup", 4, "rack"),
    demand("train-xl", 10, "rack"),
    demand("batch", 4, "rack"),
  ];
  const run = (admission: typeof strictFifoAdmission) => {
    let s = initialState({
      totalNodes: 4,
      resourceModel: topologyCluster(RACKS),
      admission,
      decisions: true,
    });
    s = step(s, appendJobs(jobs)).state;
    return step(s, advanceTo(0)).rows.decisions.map(decisionText);
  };
  const fragmented =
    'PEND 1 topology_fragmented: requested 10 replicas in one "rack" domain; 12 slots are available cluster-wide, but the largest domain "rack-b" has 8';
  assertEquals(run(greedyBackfillAdmission), [
    "DISPATCH 0 nodes=1 rack-a node-a1=4",
    fragmented,
    "DISPATCH 2 nodes=1 backfill rack-a node-a2=4",
  ]);
  assertEquals(run(strictFifoAdmission), [
    "DISPATCH 0 nodes=1 rack-a node-a1=4",
    fragmented,
    "PEND 2 head_of_line_blocked: head_of_line_blocked_by=train-xl",
  ]);
});

Deno.test("engine: a policy that starts a job the model cannot place fails loudly", () => {
  // Checks nothing: every topology job has numNodes 0, so node counts never stop it.
  const blind: Admission = {
    name: "blind",
    runSession(s) {
      for (let job = s.next(); job !== undefined; job = s.next()) s.dispatch(job, false);
    },
  };
  let s = initialState({ totalNodes: 4, resourceModel: topologyCluster(RACKS), admission: blind });
  s = step(s, appendJobs([demand("a", 16), demand("b", 1)])).state;
  const e = assertThrows(() => step(s, advanceTo(0)), "cannot place now (insufficient_capacity");
  assert(e instanceof EvtsimError);
  assert(e.message.includes("admission policy blind started job 1"), e.message);
  // `none` asks the model: job 1 waits for job 0 instead.
  let t = initialState({
    totalNodes: 4,
    resourceModel: topologyCluster(RACKS),
    admission: noBackfill,
  });
  t = step(t, appendJobs([demand("a", 16), demand("b", 1)])).state;
  t = step(t, runToCompletion()).state;
  const rows = step(t, finish()).rows.jobs;
  assert(rows[1].beginTime === rows[0].endTime, JSON.stringify(rows));
});

Deno.test("engine: with a resource model every job needs a demand; no replay state", () => {
  const s = initialState({ totalNodes: 4, resourceModel: topologyCluster(RACKS) });
  assertThrows(
    () => step(s, appendJobs([{ submitTime: 0, numNodes: 0, timeLimit: 5 }])),
    "job 0: resource model topology needs a demand",
  );
  assertThrows(
    () => step(s, appendJobs([{ ...demand("z", 0), numNodes: 0 }])),
    "job 0: resource model topology needs a demand",
  );
  // A snapshot stores the model's nodes; a model that lists none cannot be stored.
  const { nodes: _, ...bare } = topologyCluster(RACKS);
  const unnamed = initialState({ totalNodes: 4, resourceModel: { ...bare, name: "bare" } });
  assertThrows(() => saveSnapshot(unnamed), "resource model bare lists no nodes");
  assertThrows(
    () => initialState({ totalNodes: 4, resourceModel: topologyCluster(RACKS) }, { replay: true }),
    "a replay state takes no resource model",
  );
});

Deno.test("engine: ends release the allocation; a stepped state stays as it was", async () => {
  const { strictFifoAdmission } = await import("../../mod.ts");
  const model = topologyCluster(RACKS);
  let s = initialState({ totalNodes: 4, resourceModel: model, admission: strictFifoAdmission });
  s = step(s, appendJobs([demand("a", 16), demand("b", 16)])).state;
  const s1 = step(s, advanceTo(0)).state;
  const before = [...(s1.resources!.state as TopologyState).free];
  // Every GPU is taken (cpu, gpu per node, nodes by name).
  assertEquals(before, [16, 0, 16, 0, 16, 0, 16, 0]);
  const s2 = step(s1, runToCompletion()).state;
  assertEquals([...(s1.resources!.state as TopologyState).free], before);
  assertEquals([...(s2.resources!.state as TopologyState).free], [32, 4, 32, 4, 32, 4, 32, 4]);
  assertEquals(s2.time, 20);
});
