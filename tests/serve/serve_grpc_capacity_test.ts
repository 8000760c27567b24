// gRPC `change_capacity` (evtsim's own request, issue 28): HTTP's `POST
// /sessions/{id}/capacity` over DR_EVT's Session stream, with its decoder,
// meaning and errors. On a --machine server, nodes and groups go down and up
// live and the session's schedule, metrics and per-resource utilization equal
// `simulate --machine --capacity_schedule`'s (drain and kill); the recording
// replays with --verify. On whole nodes a node count equals HTTP's; both
// forms, neither, an unknown name and names on whole nodes are HTTP's lines.

import { GPU_NODE_CHANGES, gpuRunWithNodeChanges } from "../_gpu_example.ts";
import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { byTimes, grpcJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

// deno-lint-ignore no-explicit-any
type Json = any;

/** DR_EVT's two steps: append the jobs (stored), then submit each. */
async function append(g: GrpcSession, jobs: Json[]): Promise<void> {
  const { job_idx } = await g.ok({ append_jobs: { requests: jobs } });
  for (let i = 0; i < jobs.length; i++) {
    await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: jobs[i].submit_time } });
  }
}

for (const cut of ["drain", "kill"] as const) {
  Deno.test(`serve gRPC --machine: change_capacity down/up by node and group gives simulate --capacity_schedule's rows and metrics (${cut}); the recording replays with --verify`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-grpc-capacity-" });
    try {
      const { rows: expected, stats } = await gpuRunWithNodeChanges(dir, cut);
      const jobs = grpcJobs(await Deno.readTextFile(TRACE));
      const machine = await readMachine(MACHINE);
      await withServer(
        { machine, recordDir: `${dir}/rec` },
        async (server, api) => {
          // All over gRPC: the finish reply's metrics and per-resource utilization.
          const a = new GrpcSession(server.grpcPort!);
          try {
            await a.ok({
              init: { session_name: "a", backfill_policy: "easy", on_capacity_cut: cut },
            });
            await append(a, jobs);
            for (const change of GPU_NODE_CHANGES) await a.ok({ change_capacity: change });
            const done = await a.ok({ finish_simulation: {} });
            assertEquals(JSON.parse(done.metrics_json).metrics, stats.metrics);
            assertEquals(JSON.parse(done.resource_metrics_json), stats.resources);
          } finally {
            await a.close();
          }
          // Changes over gRPC, the rows and the recording read over HTTP.
          const b = new GrpcSession(server.grpcPort!);
          try {
            const { session_id } = await b.ok({
              init: { session_name: "b", backfill_policy: "easy", on_capacity_cut: cut },
            });
            await append(b, jobs);
            for (const change of GPU_NODE_CHANGES) await b.ok({ change_capacity: change });
            const out = await api.ok("POST", `/sessions/${session_id}/finish`, {});
            const got = out.jobs.map((r: Json) => [r.submitTime, r.beginTime, r.endTime])
              .sort(byTimes);
            assertEquals(got, expected);
            assertEquals(
              out.jobs.some((r: { outcome?: string }) => r.outcome === "killed"),
              cut === "kill",
            );
            const replay = await runCli(["replay", out.recording.file, "--verify"]);
            assertEquals(replay.code, 0, replay.err.join("\n"));
            assert(replay.out.join("\n").includes("every decision matches"), replay.out.join("\n"));
          } finally {
            await b.close();
          }
        },
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

for (const semantics of ["evtsim", "drevt"] as const) {
  Deno.test(`serve gRPC: change_capacity with a node count on whole nodes gives HTTP's schedule (capacity_semantics ${semantics})`, async () => {
    const jobs = [
      { submit_time: 0, num_nodes: 4, limit_time: 100, actual_run_time: 80 },
      { submit_time: 10, num_nodes: 6, limit_time: 50, actual_run_time: 50 },
      { submit_time: 20, num_nodes: 2, limit_time: 30, actual_run_time: 30 },
    ];
    const changes = [{ capacity: 5, time: 5 }, { capacity: 8, time: 300 }];
    await withServer({}, async (server, api) => {
      const http = await api.ok("POST", "/sessions", {
        totalNodes: 8,
        backfillPolicy: "none",
        capacitySemantics: semantics,
      });
      await api.ok("POST", `/sessions/${http.sessionId}/jobs`, {
        jobs: jobs.map((j) => ({
          submitTime: j.submit_time,
          numNodes: j.num_nodes,
          timeLimit: j.limit_time,
          actualRunTime: j.actual_run_time,
        })),
      });
      for (const c of changes) await api.ok("POST", `/sessions/${http.sessionId}/capacity`, c);
      const want = await api.ok("POST", `/sessions/${http.sessionId}/finish`, {});
      const g = new GrpcSession(server.grpcPort!);
      try {
        const { session_id } = await g.ok({
          init: {
            session_name: "n",
            total_nodes: 8,
            backfill_policy: "none",
            capacity_semantics: semantics,
          },
        });
        await append(g, jobs);
        for (const c of changes) assertEquals(await g.ok({ change_capacity: c }), {});
        const got = await api.ok("POST", `/sessions/${session_id}/finish`, {});
        assertEquals(got.jobs, want.jobs);
        assertEquals(got.metrics, want.metrics);
        // The 6-node job waits for the capacity to come back at 300; the
        // 2-node one starts when job 0 ends (held behind it: drevt, at 300).
        const begin = (id: number) => got.jobs.find((r: Json) => r.jobId === id).beginTime;
        assertEquals([begin(1), begin(2)], [300, semantics === "evtsim" ? 80 : 300]);
      } finally {
        await g.close();
      }
    });
  });
}

Deno.test("serve gRPC: change_capacity's refusals are HTTP's one-line errors; the stream goes on", async () => {
  const machine = await readMachine(MACHINE);
  await withServer({ machine }, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      const early = await g.request({ change_capacity: { down: ["gpu"] } });
      assertEquals(early.error.message, "send init first");
      const cut = await g.request({ init: { session_name: "e", on_capacity_cut: "melt" } });
      assertEquals(cut.error.message, "on_capacity_cut must be one of drain, kill, got 'melt'");
      const semantics = await g.request({
        init: { session_name: "e", capacity_semantics: "slurm" },
      });
      assertEquals(
        semantics.error.message,
        "capacity_semantics must be one of evtsim, drevt, got 'slurm'",
      );
      await g.ok({ init: { session_name: "e" } });
      for (
        const [body, message] of [
          [
            { down: ["gpu9"] },
            /^down: expected a node or group of the machine \(groups: cpu, gpu, bigmem\), got 'gpu9'$/,
          ],
          [
            { up: ["gpu001", "nope"] },
            /^up: expected a node or group of the machine .*got 'nope'$/,
          ],
          [{ capacity: 2, down: ["gpu"] }, /^give either capacity \(a node count\) or down\/up/],
          [{ time: 5 }, /^give either capacity \(a node count\) or down\/up/],
          [{ down: [] }, /^give either capacity \(a node count\) or down\/up/],
        ] as const
      ) {
        const r = await g.request({ change_capacity: body });
        assertEquals(r.response, "error", JSON.stringify(r));
        assert(message.test(r.error.message), `${JSON.stringify(body)}: ${r.error.message}`);
        assert(!r.error.message.includes("\n"), r.error.message);
      }
      await g.ok({ change_capacity: { down: ["gpu001"] } });
      await g.ok({ finish_simulation: {} });
    } finally {
      await g.close();
    }
  });
  await withServer({}, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      await g.ok({ init: { session_name: "w", total_nodes: 4 } });
      const r = await g.request({ change_capacity: { down: ["n1"] } });
      assert(
        /^down, up: name nodes of a machine .*give capacity/.test(r.error.message),
        r.error.message,
      );
    } finally {
      await g.close();
    }
  });
});
