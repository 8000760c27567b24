// Node failures of a machine (core/_failures.ts): a capacity change's
// `failed` nodes end what runs there at once, killed or requeued, with a
// requeue limit; lost work and requeues in the statistics.

import {
  type CapacityChange,
  finish,
  type JobSpec,
  loadSnapshot,
  type Machine,
  machineDemand,
  machineNodes,
  type Notice,
  runToCompletion,
  saveSnapshot,
  Simulation,
  type SimulationConfig,
  statistics,
  step,
  topologyCluster,
} from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";

const MACHINE: Machine = { groups: [{ name: "n", count: 2, resources: { cores: 4 } }] };

function model() {
  return topologyCluster(
    machineNodes(MACHINE).map((n) => ({
      name: n.name,
      topology: n.topology,
      capacity: n.capacity,
    })),
  );
}

function job(submitTime: number, runTime: number, replicas = 1): JobSpec {
  const d = machineDemand(MACHINE, { replicas });
  if (d.demand === undefined) throw new Error("demand");
  return {
    submitTime,
    numNodes: 0,
    timeLimit: runTime * 2,
    actualRunTime: runTime,
    demand: d.demand,
  };
}

function run(
  schedule: CapacityChange[],
  jobs: JobSpec[],
  extra: Partial<SimulationConfig> = {},
) {
  const notices: Notice[] = [];
  const sim = new Simulation({
    totalNodes: 2,
    resourceModel: model(),
    backfillPolicy: "easy",
    capacitySchedule: schedule,
    ...extra,
  }, { onNotice: (n) => notices.push(n) });
  sim.appendJobs(jobs);
  const out = sim.finish();
  return { ...out, notices };
}

Deno.test("node failure, kill: the job on the failed node ends at the failure (137), its node's work is lost", () => {
  // Job 0 on n001 from 0, job 1 on n002 from 0; n001 fails at 40, back at 100.
  const out = run(
    [{ time: 40, capacity: 1, failed: ["n001"] }, { time: 100, capacity: 2, up: ["n001"] }],
    [job(0, 200), job(0, 50), job(10, 30)],
  );
  const rows = out.jobs.map((r) => [r.jobId, r.beginTime, r.endTime, r.exitStatus ?? 0]);
  assertEquals(rows, [[0, 0, 40, 137], [1, 0, 50, 0], [2, 50, 80, 0]]);
  assertEquals(out.statistics.lostWork, 40);
  assertEquals(out.statistics.requeues, 0);
  assertEquals(out.statistics.jobsKilled, 1);
});

Deno.test("node failure, requeue: same id back to waiting, its node free at once, its row is its last run", () => {
  const out = run(
    [{ time: 40, capacity: 1, failed: ["n001"] }, { time: 100, capacity: 2, up: ["n001"] }],
    [job(0, 200), job(0, 50), job(10, 30)],
    { onNodeFailure: "requeue" },
  );
  // At 40 job 0 is requeued (submit time reset to 40, behind job 2 submitted at 10);
  // job 2 starts on n002 at 50, job 0 when n002 is free again at 80.
  const rows = out.jobs.map((r) => [r.jobId, r.submitTime, r.beginTime, r.endTime, r.requeues]);
  assertEquals(rows, [[0, 0, 80, 280, 1], [1, 0, 0, 50, undefined], [2, 10, 50, 80, undefined]]);
  assertEquals(out.statistics.lostWork, 40);
  assertEquals(out.statistics.requeues, 1);
  assertEquals(out.statistics.maxRequeues, 1);
  assertEquals(out.statistics.jobsStarted, 3);
  const changes = out.notices.filter((n) => n.kind === "jobStateChange");
  assertEquals(changes, [{
    kind: "jobStateChange",
    time: 40,
    jobId: 0,
    oldState: "running",
    newState: "pending",
    cause: "node_failure",
    nodes: ["n001"],
    requeues: 1,
  }]);
});

Deno.test("node failure, requeue limit: a job requeued N times is killed at the next failure", () => {
  const fail = (t: number): CapacityChange[] => [
    { time: t, capacity: 1, failed: ["n001", "n002"].slice(0, 1) },
    { time: t + 1, capacity: 2, up: ["n001"] },
  ];
  // One job of both nodes: every failure of n001 hits it.
  const jobs = [job(0, 100, 2)];
  const schedule = [...fail(10), ...fail(20), ...fail(30)];
  const limit1 = run(schedule, jobs, { onNodeFailure: "requeue", requeueLimit: 1 });
  assertEquals(limit1.jobs.map((r) => [r.beginTime, r.endTime, r.exitStatus, r.requeues]), [
    [11, 20, 137, 1],
  ]);
  assertEquals(limit1.statistics.lostWork, 2 * 10 + 2 * 9);
  const limit5 = run(schedule, jobs, { onNodeFailure: "requeue", requeueLimit: 5 });
  assertEquals(limit5.jobs.map((r) => [r.beginTime, r.endTime, r.exitStatus, r.requeues]), [
    [31, 131, undefined, 3],
  ]);
  assertEquals(limit5.statistics.maxRequeues, 3);
  const limit0 = run(schedule, jobs, { onNodeFailure: "requeue", requeueLimit: 0 });
  assertEquals(limit0.jobs.map((r) => [r.endTime, r.exitStatus]), [[10, 137]]);
});

Deno.test("node failure: a failure never drains (even with onCapacityCut drain), a planned cut does", () => {
  const failed = run([{ time: 40, capacity: 1, failed: ["n001"] }], [job(0, 200)]);
  assertEquals(failed.jobs.map((r) => r.endTime), [40]);
  const planned = run([{ time: 40, capacity: 1, down: ["n001"] }], [job(0, 200)]);
  assertEquals(planned.jobs.map((r) => r.endTime), [200]);
  assert(!("lostWork" in planned.statistics), "no failure statistics without failures");
});

Deno.test("node failure, requeue: a snapshot while the job waits again restores it (requeues, first submit)", () => {
  const schedule: CapacityChange[] = [
    { time: 40, capacity: 1, failed: ["n001"] },
    { time: 100, capacity: 2, up: ["n001"] },
  ];
  const config: SimulationConfig = {
    totalNodes: 2,
    resourceModel: model(),
    capacitySchedule: schedule,
    onNodeFailure: "requeue",
    requeueLimit: 2,
  };
  const jobs = [job(0, 200), job(0, 50), job(10, 30)];
  const whole = new Simulation(config);
  whole.appendJobs(jobs);
  const expected = whole.finish();
  const first = new Simulation(config);
  first.appendJobs(jobs);
  first.advanceTo(45);
  const data = saveSnapshot(first.state) as unknown as {
    config: { onNodeFailure?: string; requeueLimit?: number };
  };
  assertEquals(data.config.onNodeFailure, "requeue");
  assertEquals(data.config.requeueLimit, 2);
  let s = loadSnapshot(JSON.parse(JSON.stringify(data)));
  const jobRows = [...first.finish().jobs.filter((r) => r.endTime <= 45)];
  s = step(s, runToCompletion()).state;
  const r = step(s, finish());
  jobRows.push(...r.rows.jobs);
  assertEquals(jobRows.sort((a, b) => a.jobId - b.jobId), expected.jobs);
  assertEquals(statistics(r.state), expected.statistics);
});

Deno.test("a node named twice in one change goes offline once (it used to lose its units for good)", () => {
  for (const field of ["down", "failed"] as const) {
    const sim = new Simulation({ totalNodes: 2, resourceModel: model() });
    sim.changeNodes({ time: 0, [field]: ["n001", "n001"] });
    sim.changeNodes({ time: 5, up: ["n001"] });
    sim.appendJob({ ...job(10, 10, 2) });
    assertEquals(sim.finish().jobs.map((r) => r.beginTime), [10], field);
  }
});
