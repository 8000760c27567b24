// gRPC finish on a --machine server (issue 28): demand jobs hold no whole
// node (numNodes 0), so the engine's utilization is 0 there. The finish
// reply's statistics message gives the node-equivalent figure instead, the
// one `simulate --machine --stats_json` gives (statistics and metrics alike).

import { simulateGpu } from "../_gpu_example.ts";
import { ROOT } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { grpcJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("serve gRPC --machine: finish_simulation's statistics give simulate --stats_json's node-equivalent utilization (not 0)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-grpc-machine-stats-" });
  try {
    await simulateGpu(["-o", `${dir}/s.csv`, "--stats_json", `${dir}/stats.json`]);
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/stats.json`));
    const want = stats.resources.node_equivalents.utilization;
    assert(want > 0.1, `simulate's node-equivalent utilization ${want}`);
    assertEquals(stats.statistics.utilization, want);
    const jobs = grpcJobs(await Deno.readTextFile(TRACE));
    const machine = await readMachine(MACHINE);
    await withServer({ machine }, async (server) => {
      const g = new GrpcSession(server.grpcPort!);
      try {
        await g.ok({ init: { session_name: "u", backfill_policy: "easy" } });
        const { job_idx } = await g.ok({ append_jobs: { requests: jobs } });
        for (let i = 0; i < jobs.length; i++) {
          await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: jobs[i].submit_time } });
        }
        const done = await g.ok({ finish_simulation: {} });
        assertEquals(Number(done.statistics.jobs_completed), jobs.length);
        assertEquals(done.statistics.utilization, want);
        assertEquals(JSON.parse(done.metrics_json).metrics.utilization, want);
      } finally {
        await g.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
