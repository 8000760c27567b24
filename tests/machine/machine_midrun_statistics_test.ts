// Statistics in the middle of a run on a machine (issue 28): a job asking
// for cores, memory or GPUs per replica holds no share of the node count, so
// the engine's own utilization is 0 there. The library's `statistics()` and
// `resourceMetrics()`, gRPC `get_statistics` and HTTP `/statistics` give,
// at any instant, what `simulate --machine --max_time T --stats_json` gives
// for the run stopped then: node equivalents as `utilization`, and the
// per-resource figures (`resources`). At T jobs 0 and 3 have ended while
// job 1 (a lower id than 3) still runs, so job 3's row is not written yet:
// it counts all the same.

import { simulateGpu } from "../_gpu_example.ts";
import { ROOT } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { machineInput } from "../../io/_machine_demands.ts";
import { machineSession } from "../../api/service/_machine_session.ts";
import { grpcJobs, httpJobs } from "../_trace_jobs.ts";
import { Simulation } from "../../mod.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;
const T = 2000;

// deno-lint-ignore no-explicit-any
type Json = any;

/** simulate --machine stopped at `t`: its stats JSON. */
async function statsAt(dir: string, t: number): Promise<Json> {
  await simulateGpu([
    "--max_time",
    String(t),
    "-o",
    `${dir}/s.csv`,
    "--stats_json",
    `${dir}/stats.json`,
  ]);
  return JSON.parse(await Deno.readTextFile(`${dir}/stats.json`));
}

async function withStats(f: (stats: Json) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-midrun-" });
  try {
    const stats = await statsAt(dir, T);
    const want = stats.statistics.utilization;
    // Something has ended and something still runs: a real mid-run figure.
    assert(want > 0 && stats.statistics.jobsRunning > 0, JSON.stringify(stats.statistics));
    assertEquals(want, stats.resources.node_equivalents.utilization);
    await f(stats);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("library Simulation on a machine: statistics() and resourceMetrics() mid-run equal simulate --max_time's stats JSON", async () => {
  await withStats(async (stats) => {
    const m = machineInput(await readMachine(MACHINE));
    const session = machineSession(m);
    // Decisions on ("heads"), as simulate --machine and the servers run.
    const config = session.config({ backfillPolicy: "easy" });
    assertEquals(config.decisions, "heads");
    const sim = new Simulation(config);
    const jobs = session.jobs(httpJobs(await Deno.readTextFile(TRACE)));
    sim.appendJobs(jobs);
    sim.advanceTo(T);
    const s = sim.statistics();
    assertEquals(s.utilization, stats.statistics.utilization);
    assertEquals(s.jobsCompleted, stats.statistics.jobsCompleted);
    assertEquals(sim.resourceMetrics(), stats.resources);
    // Stopped at T: the same figures.
    assertEquals(sim.finish({ runToCompletion: false }).statistics.utilization, s.utilization);
    assertEquals(sim.statistics().utilization, stats.statistics.utilization);
    // Without decisions the allocations are not known: no per-resource figures.
    const { decisions: _, ...plain } = config;
    const blind = new Simulation(plain);
    blind.appendJobs(jobs);
    blind.advanceTo(T);
    assertEquals(blind.resourceMetrics(), undefined);
    // Whole nodes: none either.
    assertEquals(new Simulation({ totalNodes: 4 }).resourceMetrics(), undefined);
  });
});

Deno.test("serve --machine: gRPC get_statistics mid-run gives simulate --max_time's utilization and per-resource figures", async () => {
  await withStats(async (stats) => {
    const jobs = grpcJobs(await Deno.readTextFile(TRACE));
    await withServer({ machine: await readMachine(MACHINE) }, async (server) => {
      const g = new GrpcSession(server.grpcPort!);
      try {
        await g.ok({ init: { session_name: "u", backfill_policy: "easy" } });
        const { job_idx } = await g.ok({ append_jobs: { requests: jobs } });
        for (let i = 0; i < jobs.length; i++) {
          await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: jobs[i].submit_time } });
        }
        await g.ok({ advance_to: { target_time: T } });
        const st = await g.ok({ get_statistics: {} });
        assertEquals(st.utilization, stats.statistics.utilization);
        assertEquals(Number(st.jobs_completed), stats.statistics.jobsCompleted);
        assertEquals(JSON.parse(st.resource_metrics_json), stats.resources);
      } finally {
        await g.close();
      }
    });
  });
});

Deno.test("serve --machine: HTTP /statistics mid-run gives simulate --max_time's utilization and resources; whole nodes unchanged", async () => {
  await withStats(async (stats) => {
    const jobs = httpJobs(await Deno.readTextFile(TRACE));
    await withServer({ machine: await readMachine(MACHINE) }, async (_server, api) => {
      const { sessionId } = await api.ok("POST", "/sessions", { backfillPolicy: "easy" });
      await api.ok("POST", `/sessions/${sessionId}/jobs`, { jobs });
      await api.ok("POST", `/sessions/${sessionId}/advance`, { time: T });
      const st = await api.ok("GET", `/sessions/${sessionId}/statistics`);
      assertEquals(st.utilization, stats.statistics.utilization);
      assertEquals(st.resources, stats.resources);
      const { resources: _, ...rest } = st;
      assertEquals(rest, { ...stats.statistics, currentTime: T });
    });
    await withServer({}, async (_server, api) => {
      const { sessionId } = await api.ok("POST", "/sessions", { totalNodes: 4 });
      const st = await api.ok("GET", `/sessions/${sessionId}/statistics`);
      assertEquals(st.resources, undefined);
    });
  });
});
