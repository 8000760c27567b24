// Jobs that never started are classified (issue 32 item 15): larger than the
// usable capacity, held by queue limits, never offered by the picker, blocked
// behind a job that can never fit, or left waiting by the admission policy;
// one warning line per class with its count, not one per job. Through the
// library (the `stranded` notice's causes) and `evtsim simulate`.

import {
  type Admission,
  type JobRecord,
  type Notice,
  type Picker,
  Simulation,
  type SimulationConfig,
  type StrandedCause,
  topologyCluster,
} from "../../mod.ts";
import { assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

type Spec = {
  submitTime: number;
  numNodes: number;
  timeLimit: number;
  queue?: string;
  demand?: { replicas: number; perReplica: Record<string, number> };
};

function causesOf(
  config: SimulationConfig,
  jobs: Spec[],
  before: (sim: Simulation) => void = () => {},
): readonly StrandedCause[] {
  const sim = new Simulation(config);
  before(sim);
  sim.appendJobs(jobs);
  const stranded = sim.finish().notices.filter((n): n is Extract<Notice, { kind: "stranded" }> =>
    n.kind === "stranded"
  );
  assertEquals(stranded.length, 1, JSON.stringify(stranded));
  const causes = stranded[0].causes ?? [];
  // Every waiting job is in exactly one class.
  assertEquals(causes.reduce((n, c) => n + c.jobs, 0), stranded[0].waitingJobs);
  return causes;
}

const job = (submitTime: number, numNodes: number, queue?: string): Spec => ({
  submitTime,
  numNodes,
  timeLimit: 10,
  ...(queue === undefined ? {} : { queue }),
});

Deno.test("library: jobs held by a queue's max_running 0 or a closed queue are not blamed on capacity", () => {
  const queues = [
    { name: "batch" },
    { name: "held", maxRunning: 0 },
    { name: "shut", open: false },
  ];
  const causes = causesOf({ totalNodes: 8, queues }, [
    job(0, 1, "batch"),
    job(0, 2, "held"),
    job(1, 2, "held"),
    job(2, 1, "shut"),
  ]);
  assertEquals(causes, [
    { cause: "held_by_queue", jobs: 2, firstJob: 1, queue: "held (max_running 0)" },
    { cause: "held_by_queue", jobs: 1, firstJob: 3, queue: "shut (closed)" },
  ]);
});

Deno.test("library: capacity, blocked behind, never offered and not started are told apart", () => {
  // Capacity cut to 4: job 0 (8 nodes) never fits and, under DR_EVT's rule
  // for cuts without backfilling, jobs 1 and 2 wait behind it.
  assertEquals(
    causesOf({
      totalNodes: 8,
      backfillPolicy: "none",
      capacitySchedule: [{ time: 0, capacity: 4 }],
      capacitySemantics: "drevt",
    }, [job(0, 8), job(0, 2), job(1, 1)]),
    [
      { cause: "larger_than_capacity", jobs: 1, firstJob: 0 },
      { cause: "blocked_behind", jobs: 2, firstJob: 1, behindJob: 0 },
    ],
  );
  // A picker that never offers odd jobs.
  const evenOnly: Picker<readonly JobRecord[]> = {
    name: "even_only",
    init: () => [],
    onQueueUpdate: (s) => s,
    onJobPush: (s, j) => [...s, j],
    onJobStateChange: (s, j) => s.filter((x) => x.id !== j.id),
    onJobUpdate: (s) => s,
    size: (s) => s.length,
    pending: (s) => s,
    beginSession: (s) => {
      const offer = s.filter((j) => j.id % 2 === 0);
      let i = 0;
      const started = new Set<number>();
      return {
        nextJob: () => offer[i++],
        onDispatch: (j) => void started.add(j.id),
        onPend: () => {},
        endSession: () => s.filter((j) => !started.has(j.id)),
      };
    },
  };
  assertEquals(
    causesOf({ totalNodes: 8, picker: evenOnly as Picker }, [
      job(0, 1),
      job(0, 1),
      job(0, 1),
      job(5, 1),
    ]),
    [{ cause: "never_offered", jobs: 2, firstJob: 1, by: "even_only" }],
  );
  // An admission policy that starts nothing.
  const idle: Admission = {
    name: "idle",
    runSession(s) {
      for (let j = s.next(); j !== undefined; j = s.next()) {
        s.pend(j, { code: "insufficient_nodes", message: "idle" });
      }
    },
  };
  assertEquals(
    causesOf({ totalNodes: 8, admission: idle }, [job(0, 1), job(3, 2)]),
    [{ cause: "not_started", jobs: 2, firstJob: 0, by: "idle" }],
  );
});

Deno.test("library on a machine: a job never placeable and one that does not fit the nodes online are told apart, as the round holds them", () => {
  // Three 8-cpu nodes, two taken offline for good at 0: job 0 (16 cpu on one
  // node) can never be placed; job 1 (two 8-cpu replicas) fits the machine
  // but not the one node online; job 2 runs.
  const model = topologyCluster(
    ["n1", "n2", "n3"].map((name) => ({ name, capacity: { cpu: 8 } })),
  );
  const demand = (replicas: number, cpu: number): Spec => ({
    submitTime: 1,
    numNodes: 0,
    timeLimit: 10,
    demand: { replicas, perReplica: { cpu } },
  });
  assertEquals(
    causesOf(
      { totalNodes: 3, resourceModel: model },
      [demand(1, 16), demand(2, 8), demand(1, 4)],
      (sim) => sim.changeNodes({ time: 0, down: ["n1", "n2"] }),
    ),
    [
      { cause: "never_fits", jobs: 1, firstJob: 0 },
      { cause: "larger_than_capacity", jobs: 1, firstJob: 1 },
    ],
  );
});

Deno.test("cli: one warning line per class, with its count", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-stranded-" });
  try {
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n" +
        "0,4,batch,10,10\n0,2,held,10,10\n1,2,held,10,10\n2,2,held,10,10\n",
    );
    await Deno.writeTextFile(
      `${dir}/q.yaml`,
      "queues:\n  - name: batch\n  - name: held\n    max_running: 0\n",
    );
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "-n",
      "8",
      "--queues",
      `${dir}/q.yaml`,
      "-o",
      `${dir}/s.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err, [
      "Warning: 3 job(s) (the first: job 1) never started: held by the limits of queue held " +
      "(max_running 0); they are left out of the schedule",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
