// Preemption (core/_preemption.ts): a waiting job of a queue of higher
// priority that cannot start for lack of resources ends running jobs of
// lower-priority queues whose preemptMode is requeue or cancel, and starts.

import {
  type Admission,
  type DecisionRow,
  type JobSpec,
  type Machine,
  machineDemand,
  machineNodes,
  type Notice,
  type QueueDef,
  Simulation,
  type SimulationConfig,
  topologyCluster,
} from "../../mod.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const QUEUES = (mode: "requeue" | "cancel" | "off"): QueueDef[] => [
  { name: "batch", priority: 0, preemptMode: mode },
  { name: "urgent", priority: 10 },
];

function run(jobs: JobSpec[], config: Partial<SimulationConfig>) {
  const notices: Notice[] = [];
  const sim = new Simulation(
    { totalNodes: 4, decisions: true, backfillPolicy: "easy", ...config },
    { onNotice: (n) => notices.push(n) },
  );
  sim.appendJobs(jobs);
  const out = sim.finish();
  return { ...out, notices, stats: sim.statistics() };
}

const two = (queue: string, submitTime = 0, nodes = 2): JobSpec => ({
  submitTime,
  numNodes: nodes,
  timeLimit: 100,
  queue,
});

Deno.test("requeue: the victims go back to waiting with their ids, the preemptor starts at once", () => {
  const r = run([two("batch"), two("batch"), two("urgent", 10, 3)], { queues: QUEUES("requeue") });
  const preempt = r.decisions.filter((d) => d.type === "PREEMPT");
  assertEquals(preempt, [{
    type: "PREEMPT",
    time: 10,
    round: 2,
    jobId: 2,
    victims: [1, 0],
    mode: ["requeue", "requeue"],
    reason: { code: "insufficient_nodes", message: "needs 3 nodes, 0 free", needed: 3, free: 0 },
    queue: "urgent",
  }] as DecisionRow[]);
  // PREEMPT right before the preemptor's DISPATCH.
  const i = r.decisions.findIndex((d) => d.type === "PREEMPT");
  assertEquals([r.decisions[i + 1].type, r.decisions[i + 1].jobId], ["DISPATCH", 2]);
  assertEquals(r.jobs.map((j) => [j.jobId, j.beginTime, j.endTime, j.requeues]), [
    [0, 110, 210, 1],
    [1, 110, 210, 1],
    [2, 10, 110, undefined],
  ]);
  const changes = r.notices.filter((n) => n.kind === "jobStateChange");
  assertEquals(
    changes.map((n) => n.kind === "jobStateChange" && [n.jobId, n.cause, n.preemptedBy]),
    [
      [1, "preemption", 2],
      [0, "preemption", 2],
    ],
  );
  assertEquals([r.stats.preemptedWork, r.stats.preemptions, r.stats.maxPreemptions], [40, 2, 1]);
});

Deno.test("cancel: the victims end at once as killed, exit status 143", () => {
  const r = run([two("batch"), two("batch"), two("urgent", 10, 3)], { queues: QUEUES("cancel") });
  assertEquals(r.jobs.map((j) => [j.jobId, j.endTime, j.outcome, j.exitStatus]), [
    [0, 10, "killed", 143],
    [1, 10, "killed", 143],
    [2, 110, undefined, undefined],
  ]);
  assertEquals([r.stats.jobsKilled, r.stats.preemptions], [2, 2]);
});

Deno.test("no preemption: mode off, equal priorities, or a job that fits without it", () => {
  const off = run([two("batch"), two("batch"), two("urgent", 10, 3)], { queues: QUEUES("off") });
  assertEquals(off.decisions.some((d) => d.type === "PREEMPT"), false);
  assertEquals(off.stats.preemptedWork, undefined);
  const same = run([two("a"), two("a"), two("b", 10, 3)], {
    queues: [{ name: "a", preemptMode: "requeue" }, { name: "b" }],
  });
  assertEquals(same.decisions.some((d) => d.type === "PREEMPT"), false);
  assertEquals([same.stats.preemptions, same.jobs[2].beginTime], [0, 100]);
  // Preempting every lower job would not make room for 5 nodes on 4.
  const never = run([two("batch"), two("urgent", 10, 5)], { queues: QUEUES("requeue") });
  assertEquals(never.stats.preemptions, 0);
});

Deno.test("victims: youngest first, then given back the most nodes first while the job still starts", () => {
  // 6 nodes: A (4 nodes, t=0), B (1, t=5), C (1, t=6); the urgent job needs 4.
  const r = run([
    { submitTime: 0, numNodes: 4, timeLimit: 100, queue: "batch" },
    { submitTime: 5, numNodes: 1, timeLimit: 100, queue: "batch" },
    { submitTime: 6, numNodes: 1, timeLimit: 100, queue: "batch" },
    { submitTime: 10, numNodes: 4, timeLimit: 10, queue: "urgent" },
  ], { totalNodes: 6, queues: QUEUES("requeue") });
  // Taken C, B, A (youngest first); given back B then C: A alone suffices.
  assertEquals(
    r.decisions.filter((d) => d.type === "PREEMPT").map((d) => d.type === "PREEMPT" && d.victims),
    [[0]],
  );
  // Two young 1-node jobs suffice for a 2-node job: the oldest one is left running.
  const y = run([two("batch"), two("batch", 1, 1), two("batch", 2, 1), two("urgent", 10, 2)], {
    queues: QUEUES("requeue"),
  });
  assertEquals(
    y.decisions.filter((d) => d.type === "PREEMPT").map((d) => d.type === "PREEMPT" && d.victims),
    [[2, 1]],
  );
});

Deno.test("orderVictims: the admission policy's hook orders the victims; a bad answer is one error", () => {
  const oldestFirst: Admission = {
    name: "first_fit_oldest",
    runSession(s) {
      for (let job = s.next(); job !== undefined; job = s.next()) {
        if (s.place(job).placement !== undefined) s.dispatch(job, false);
        else s.pend(job, { code: "insufficient_nodes", message: "no room" });
      }
    },
    orderVictims: (_job, c) => [...c].reverse(),
  };
  const jobs = [two("batch"), two("batch", 1), two("urgent", 10)];
  const r = run(jobs, { queues: QUEUES("requeue"), admission: oldestFirst });
  assertEquals(
    r.decisions.filter((d) => d.type === "PREEMPT").map((d) => d.type === "PREEMPT" && d.victims),
    [[0]],
  );
  const bad: Admission = { ...oldestFirst, name: "bad", orderVictims: () => [{ id: 99 } as never] };
  const e = assertThrows(() => run(jobs, { queues: QUEUES("requeue"), admission: bad })) as Error;
  assert(e.message.includes("admission policy bad's orderVictims returned something other"));
});

const MACHINE: Machine = {
  groups: [
    { name: "c", count: 1, resources: { cores: 4 } },
    { name: "g", count: 1, resources: { cores: 4, gpus: 2 } },
  ],
};

function machineJob(submitTime: number, queue: string, gpus?: number): JobSpec {
  const d = machineDemand(MACHINE, { replicas: 1, ...(gpus ? { perReplica: { gpus } } : {}) });
  if (d.demand === undefined) throw new Error("demand");
  return { submitTime, numNodes: 0, timeLimit: 100, queue, demand: d.demand };
}

Deno.test("a machine: only victims whose release lets the model place the job", () => {
  const model = () =>
    topologyCluster(
      machineNodes(MACHINE).map((n) => ({
        name: n.name,
        topology: n.topology,
        capacity: n.capacity,
      })),
    );
  // Job 0 holds the GPU node (older), job 1 the CPU node (younger): a GPU job preempts job 0 only.
  const r = run(
    [machineJob(0, "batch", 1), machineJob(1, "batch"), machineJob(10, "urgent", 2)],
    { totalNodes: 2, resourceModel: model(), queues: QUEUES("requeue") },
  );
  const p = r.decisions.filter((d) => d.type === "PREEMPT");
  assertEquals(p.map((d) => d.type === "PREEMPT" && d.victims), [[0]]);
  assert(r.jobs[1].requeues === undefined && r.jobs[1].beginTime === 1);
});
