// Node failures and preemption on the gRPC front (issue 30): the same
// session driven over HTTP and over DR_EVT's gRPC stream gives the same rows
// (jobs, resources, notices with the requeues, decisions with PREEMPT) and
// the same statistics (lost work, requeues, preempted work, preemptions).
// Three sessions each time: one over HTTP; one over gRPC finished over gRPC
// (its statistics and metrics); one over gRPC finished over HTTP with its
// session id (its rows: DR_EVT's finish reply has none).

import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, type HttpClient, seeded, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { grpcJobs, httpJobs } from "../_trace_jobs.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

/** docs/failures.md's failures: gpu001 fails at 600 s under job 1, gpu002 at 1500 s. */
const FAILURES = [
  { time: 600, failed: ["gpu001"] },
  { time: 1500, failed: ["gpu002"] },
  { time: 2400, up: ["gpu001"] },
  { time: 4000, up: ["gpu002"] },
];

/** HTTP's statistics as gRPC's GetStatisticsResponse gives them (uint64 as strings). */
function asGrpc(s: Json, available: number): Json {
  const count = (v: number | undefined) => v === undefined ? undefined : String(v);
  return {
    jobs_submitted: String(s.jobsStarted),
    jobs_completed: String(s.jobsCompleted),
    jobs_running: String(s.jobsRunning),
    jobs_waiting: String(s.jobsWaiting),
    current_time: s.currentTime,
    total_nodes: s.totalNodes,
    nodes_in_use: s.nodesInUse,
    nodes_available: available,
    utilization: s.utilization,
    avg_wait_time: s.averageWait,
    avg_turnaround_time: s.averageTurnaround,
    makespan: s.makespan,
    lost_work: s.lostWork,
    requeues: count(s.requeues),
    max_requeues: count(s.maxRequeues),
    preempted_work: s.preemptedWork,
    preemptions: count(s.preemptions),
    max_preemptions: count(s.maxPreemptions),
    suspensions: count(s.suspensions),
    suspended_seconds: s.suspendedSeconds,
  };
}

/** A gRPC statistics message with only the fields asGrpc compares (unset optional ones: undefined). */
function compared(m: Json): Json {
  const keys = Object.keys(asGrpc({}, 0));
  return Object.fromEntries(keys.map((k) => [k, m[k] ?? undefined]));
}

/** What one run of a scenario does, on either front. */
interface Scenario {
  /** HTTP's POST /sessions body and gRPC's init. */
  readonly http: Json;
  readonly init: Json;
  readonly httpJobs: Json[];
  readonly grpcJobs: Json[];
  /** Capacity changes (HTTP's body; gRPC's change_capacity takes the same names). */
  readonly changes: Json[];
  /** Queue updates: HTTP's POST /sessions/{id}/queues body, gRPC's update_queue with queue_json. */
  readonly queueUpdates?: { queue: Json; time: number }[];
  /** Where the statistics are compared mid-run. */
  readonly midway: number;
}

/** The HTTP session: its statistics at `midway` and its finish reply. */
async function overHttp(api: HttpClient, s: Scenario): Promise<{ mid: Json; out: Json }> {
  const { sessionId: id } = await api.ok("POST", "/sessions", s.http);
  await api.ok("POST", `/sessions/${id}/jobs`, { jobs: s.httpJobs });
  for (const c of s.changes) await api.ok("POST", `/sessions/${id}/capacity`, c);
  for (const u of s.queueUpdates ?? []) await api.ok("POST", `/sessions/${id}/queues`, u);
  await api.ok("POST", `/sessions/${id}/advance`, { time: s.midway });
  const mid = await api.ok("GET", `/sessions/${id}/statistics`);
  return { mid, out: await api.ok("POST", `/sessions/${id}/finish`, {}) };
}

/** A gRPC session up to `midway` (DR_EVT's append, then submit each); its statistics there. */
async function overGrpc(g: GrpcSession, s: Scenario, name: string): Promise<Json> {
  const init = await g.ok({ init: { ...s.init, session_name: name } });
  const { job_idx } = await g.ok({ append_jobs: { requests: s.grpcJobs } });
  for (const [i, job] of s.grpcJobs.entries()) {
    await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: job.submit_time } });
  }
  for (const c of s.changes) await g.ok({ change_capacity: c });
  for (const u of s.queueUpdates ?? []) {
    await g.ok({ update_queue: { queue_json: JSON.stringify(u.queue), time: u.time } });
  }
  await g.ok({ advance_to: { target_time: s.midway } });
  return { id: init.session_id, mid: await g.ok({ get_statistics: {} }) };
}

/** Runs a scenario over both fronts and checks they agree; returns the HTTP finish reply. */
async function bothFronts(api: HttpClient, port: number, s: Scenario): Promise<Json> {
  const http = await overHttp(api, s);
  const a = new GrpcSession(port);
  const b = new GrpcSession(port);
  try {
    const ga = await overGrpc(a, s, "a");
    const fin = await a.ok({ finish_simulation: {} });
    const gb = await overGrpc(b, s, "b");
    const rows = await api.ok("POST", `/sessions/${gb.id}/finish`, {});
    for (const k of ["jobs", "resources", "notices", "decisions", "statistics", "metrics"]) {
      assertEquals(rows[k], http.out[k], `${k}: gRPC's session read over HTTP ≠ HTTP's`);
    }
    const st = http.out.statistics;
    assertEquals(compared(fin.statistics), asGrpc(st, st.totalNodes - st.nodesInUse), "finish");
    assertEquals(JSON.parse(fin.metrics_json).metrics, http.out.metrics);
    for (const mid of [ga.mid, gb.mid]) {
      assertEquals(compared(mid), compared(asGrpc(http.mid, mid.nodes_available)), "midway");
    }
  } finally {
    await a.close();
    await b.close();
  }
  return http.out;
}

for (const mode of ["kill", "requeue"] as const) {
  Deno.test(`serve gRPC --machine: node failures (${mode}) over gRPC ≡ over HTTP: rows, lost work, requeues`, async () => {
    const text = await Deno.readTextFile(TRACE);
    const machine = await readMachine(MACHINE);
    const out = await withServer({ machine }, (server, api) =>
      bothFronts(api, server.grpcPort!, {
        http: { onNodeFailure: mode, requeueLimit: 2, decisions: true },
        init: {
          on_node_failure: mode,
          requeue_limit: 2,
          decisions: "true",
          backfill_policy: "easy",
        },
        httpJobs: httpJobs(text),
        grpcJobs: grpcJobs(text),
        changes: FAILURES,
        midway: 2000,
      }));
    // docs/failures.md's example: job 1 loses its 600 s on gpu001, killed or requeued.
    const job1 = out.jobs.find((r: Json) => r.jobId === 1);
    if (mode === "kill") {
      assertEquals([job1.endTime, job1.outcome, job1.exitStatus], [600, "killed", 137]);
      assertEquals(out.statistics.requeues, 0);
    } else {
      assertEquals(job1.requeues, 1);
      assert(out.notices.some((n: Json) => n.cause === "node_failure"), "a requeue notice");
    }
    assert(out.statistics.lostWork >= 600, `lost work ${out.statistics.lostWork}`);
  });
}

interface QueueJob {
  submitTime: number;
  numNodes: number;
  timeLimit: number;
  queue: string;
}

// One session of `jobs` on 8 nodes with `queues`, over both fronts (as
// bothFronts compares them), recorded; `check` looks at its output, then the
// recording must re-simulate with every decision matching.
async function queueSession(
  queues: readonly Json[],
  jobs: readonly QueueJob[],
  midway: number,
  check: (out: Json) => void,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-grpc-queues-" });
  try {
    const out = await withServer(
      { recordDir: dir },
      (server, api) =>
        bothFronts(api, server.grpcPort!, {
          http: { totalNodes: 8, queues, decisions: true, runTimeMode: "limit" },
          init: {
            total_nodes: 8,
            queues_json: JSON.stringify(queues),
            decisions: "true",
            run_time_mode: "limit",
          },
          httpJobs: [...jobs],
          grpcJobs: jobs.map((j) => ({
            submit_time: j.submitTime,
            num_nodes: j.numNodes,
            limit_time: j.timeLimit,
            queue: j.queue,
          })),
          changes: [],
          midway,
        }),
    );
    check(out);
    const replay = await runCli(["replay", out.recording.file, "--verify"]);
    assertEquals(replay.code, 0, replay.err.join("\n"));
    assert(replay.out.join("\n").includes("every decision matches"), replay.out.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("serve gRPC: a preempting queue (queues_json) over gRPC ≡ over HTTP: PREEMPT rows, preemptions; the recording replays with --verify", async () => {
  const rand = seeded(30);
  const queues = [
    { name: "batch", preemptMode: "requeue" },
    { name: "scavenger", priority: -1, preemptMode: "cancel" },
    { name: "urgent", priority: 10 },
  ];
  const jobs = Array.from({ length: 60 }, (_, i) => ({
    submitTime: i * 7 + Math.floor(rand() * 5),
    numNodes: 1 + Math.floor(rand() * 6),
    timeLimit: 30 + Math.floor(rand() * 120),
    queue: queues[Math.floor(rand() * 3)].name,
  }));
  await queueSession(queues, jobs, 200, (out) => {
    const preempts = out.decisions.filter((d: Json) => d.type === "PREEMPT");
    assert(preempts.length > 0, "no PREEMPT decision");
    assert(out.statistics.preemptions > 0 && out.statistics.preemptedWork > 0, "preempted");
    assert(out.jobs.some((r: Json) => r.outcome === "killed"), "a cancelled scavenger job");
  });
});

Deno.test("serve gRPC: a suspend queue with a grace time (queues_json) over gRPC ≡ over HTTP: suspensions and suspended seconds; the recording replays with --verify", async () => {
  const rand = seeded(31);
  const queues = [
    { name: "batch", preemptMode: "suspend", graceTime: 5 },
    { name: "urgent", priority: 10 },
  ];
  const jobs = Array.from({ length: 40 }, (_, i) => ({
    submitTime: i * 9 + Math.floor(rand() * 5),
    numNodes: 1 + Math.floor(rand() * 6),
    timeLimit: 30 + Math.floor(rand() * 120),
    queue: queues[rand() < 0.7 ? 0 : 1].name,
  }));
  await queueSession(queues, jobs, 150, (out) => {
    const preempts = out.decisions.filter((d: Json) => d.type === "PREEMPT");
    assert(preempts.some((d: Json) => d.stopAt !== undefined), "a PREEMPT with a grace time");
    assert(out.statistics.suspensions > 0, "suspended");
    assert(out.statistics.suspendedSeconds > 0, "suspended seconds");
  });
});

Deno.test("serve gRPC: a session without failures or preemption answers get_statistics without their fields", async () => {
  await withServer({}, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      await g.ok({
        init: { total_nodes: 4, session_name: "plain", queues_json: '[{"name":"q"}]' },
      });
      const st = await g.ok({ get_statistics: {} });
      for (
        const k of ["lost_work", "requeues", "preempted_work", "preemptions", "suspensions"]
      ) {
        assertEquals(st[k] ?? undefined, undefined, k);
      }
    } finally {
      await g.close();
    }
  });
});

Deno.test("serve gRPC: update_queue makes a queue preemptible mid-session as HTTP's POST /sessions/{id}/queues does; the recording replays with --verify", async () => {
  const jobs = [
    { submitTime: 0, numNodes: 3, timeLimit: 100, queue: "batch" },
    { submitTime: 0, numNodes: 3, timeLimit: 100, queue: "batch" },
    { submitTime: 20, numNodes: 4, timeLimit: 30, queue: "urgent" },
    { submitTime: 60, numNodes: 4, timeLimit: 30, queue: "urgent" },
  ];
  const queues = [{ name: "batch" }, { name: "urgent", priority: 10 }];
  const dir = await Deno.makeTempDir({ prefix: "evtsim-grpc-queue-" });
  try {
    const out = await withServer(
      { recordDir: dir },
      (server, api) =>
        bothFronts(api, server.grpcPort!, {
          http: { totalNodes: 6, queues, decisions: true, runTimeMode: "limit" },
          init: {
            total_nodes: 6,
            queues_json: JSON.stringify(queues),
            decisions: "true",
            run_time_mode: "limit",
          },
          httpJobs: [...jobs],
          grpcJobs: jobs.map((j) => ({
            submit_time: j.submitTime,
            num_nodes: j.numNodes,
            limit_time: j.timeLimit,
            queue: j.queue,
          })),
          changes: [],
          // From 50 on, batch jobs may be preempted: the urgent job waiting since 20 preempts both.
          queueUpdates: [{ queue: { name: "batch", preemptMode: "requeue" }, time: 50 }],
          midway: 70,
        }),
    );
    const preempts = out.decisions.filter((d: Json) => d.type === "PREEMPT");
    assertEquals(preempts.map((d: Json) => [d.time, d.jobId, d.victims]), [[50, 2, [1, 0]]]);
    assertEquals(out.jobs.find((r: Json) => r.jobId === 2).beginTime, 50);
    const replay = await runCli(["replay", out.recording.file, "--verify"]);
    assertEquals(replay.code, 0, replay.err.join("\n"));
    assert(replay.out.join("\n").includes("every decision matches"), replay.out.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
