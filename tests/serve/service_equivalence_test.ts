// Live ≡ library ≡ re-simulation: a seeded random session (appends,
// advances, run-untils, cancels, external ends) driven over HTTP, and one
// driven over DR_EVT's gRPC stream (append, then submit, as DR_EVT's clients
// do; cancels and ends over HTTP with the same session id). Each call is made
// on a library `Simulation` in lockstep: accepted or refused alike, the same
// monitors after it, the same output at the end; and the server's recording
// of the session re-simulates with zero mismatches (`evtsim replay --verify`).

import { Simulation } from "../../api/simulation.ts";
import type { JobSpec, SimulationConfig } from "../../core/types.ts";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, type HttpClient, seeded, withServer } from "../_service_helpers.ts";

const json = (x: unknown) => JSON.parse(JSON.stringify(x));

/** One remote call and the same call on the library; both must accept or both refuse. */
async function lockstep(
  sim: Simulation,
  remote: () => Promise<boolean>,
  local: (sim: Simulation) => void,
  what: string,
): Promise<boolean> {
  const accepted = await remote();
  let ok = true;
  try {
    local(sim);
  } catch {
    ok = false;
  }
  assertEquals(accepted, ok, `${what}: server ${accepted ? "accepted" : "refused"}, library not`);
  return ok;
}

function randomJobs(rand: () => number, from: number, nodes: number): JobSpec[] {
  const n = 1 + Math.floor(rand() * 6);
  let t = from;
  const jobs: JobSpec[] = [];
  for (let i = 0; i < n; i++) {
    t += Math.floor(rand() * 15);
    jobs.push({
      submitTime: t,
      // Now and then a job larger than the machine (rejected, with a notice).
      numNodes: rand() < 0.05 ? nodes + 1 : 1 + Math.floor(rand() * nodes),
      timeLimit: 5 + Math.floor(rand() * 80),
      ...(rand() < 0.5 ? { actualRunTime: Math.floor(rand() * 60) } : {}),
    });
  }
  return jobs;
}

async function verifyRecording(file: string): Promise<void> {
  const r = await runCli(["replay", file, "--verify"]);
  assertEquals(r.code, 0, r.err.join("\n"));
  assert(/verify: every decision matches the recording$/.test(r.out.join("\n")), r.out.join("\n"));
}

async function checkMonitors(api: HttpClient, id: string, sim: Simulation, what: string) {
  const m = await api.ok("GET", `/sessions/${id}`);
  assertEquals(
    [m.currentTime, m.nodesInUse, m.availableNodes, m.activeJobCount, m.headShadowTime],
    [sim.currentTime, sim.nodesInUse, sim.availableNodes, sim.activeJobCount, sim.headShadowTime()],
    what,
  );
}

async function withRecordDir(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-eq-" });
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (const seed of [1, 2, 3]) {
  Deno.test(`serve: a random HTTP session (seed ${seed}) ≡ the library ≡ its re-simulation`, async () => {
    const rand = seeded(seed);
    const config: SimulationConfig = {
      totalNodes: 24,
      runTimeMode: "external",
      backfillPolicy: (["easy", "conservative", "none"] as const)[seed % 3],
      decisions: true,
    };
    await withRecordDir((dir) =>
      withServer({ recordDir: dir }, async (_server, api) => {
        const created = await api.ok("POST", "/sessions", { ...config, name: `http${seed}` });
        const id = created.sessionId;
        const sim = new Simulation(config);
        const running = new Set<number>();
        let appended = 0;
        const post = (path: string, body: unknown) => async () => {
          const r = await api.send("POST", `/sessions/${id}${path}`, body);
          assert(r.status < 500 && typeof r.body === "object", JSON.stringify(r.body));
          if (r.status === 200) {
            for (const d of r.body.decisions ?? []) if (d.type === "DISPATCH") running.add(d.jobId);
          }
          return r.status === 200;
        };
        for (let i = 0; i < 120; i++) {
          const r = rand();
          const now = sim.currentTime;
          if (r < 0.3) {
            const jobs = randomJobs(rand, now, config.totalNodes);
            if (await lockstep(sim, post("/jobs", { jobs }), (s) => s.appendJobs(jobs), "append")) {
              appended += jobs.length;
            }
          } else if (r < 0.5) {
            const t = now + Math.floor(rand() * 30);
            await lockstep(
              sim,
              post("/advance", { time: t }),
              (s) => s.advanceTo(t),
              `advance ${t}`,
            );
          } else if (r < 0.6) {
            // Sometimes at the clock or before it: refused by both.
            const t = now + Math.floor(rand() * 30) - 3;
            await lockstep(
              sim,
              post("/run_until", { time: t }),
              (s) => s.runUntilExclusive(t),
              "until",
            );
          } else if (r < 0.82 && running.size > 0) {
            const job = [...running][Math.floor(rand() * running.size)];
            const t = now + Math.floor(rand() * 20);
            const outcome = (["completed", "failed", "killed"] as const)[Math.floor(rand() * 3)];
            if (
              await lockstep(
                sim,
                post(`/jobs/${job}/end`, { time: t, outcome }),
                (s) => s.endJob(job, t, { outcome }),
                `end ${job}`,
              )
            ) running.delete(job);
          } else if (appended > 0) {
            const job = Math.floor(rand() * appended);
            const t = now + Math.floor(rand() * 10);
            await lockstep(
              sim,
              post(`/jobs/${job}/cancel`, { time: t }),
              (s) => s.cancelJob(job, t),
              `cancel ${job}`,
            );
          }
          await checkMonitors(api, id, sim, `step ${i}`);
        }
        // External mode: end whatever still runs, then finish.
        await lockstep(
          sim,
          post("/advance", { time: sim.currentTime }),
          (s) => s.advanceTo(s.currentTime),
          "a",
        );
        for (const job of running) {
          const t = sim.currentTime + 1;
          await lockstep(
            sim,
            post(`/jobs/${job}/end`, { time: t }),
            (s) => s.endJob(job, t),
            "end",
          );
        }
        const out = await api.ok("POST", `/sessions/${id}/finish`, {});
        const lib = json(sim.finish());
        assert(lib.jobs.length > 15, `only ${lib.jobs.length} jobs`);
        assert(lib.jobs.some((j: { outcome?: string }) => j.outcome === "cancelled"), "a cancel");
        assert(lib.jobs.some((j: { outcome?: string }) => j.outcome === "failed"), "an end");
        for (const k of ["jobs", "resources", "decisions", "notices", "statistics"]) {
          assertEquals(out[k], lib[k], k);
        }
        assertEquals(out.recording.file, created.recording.file);
        await verifyRecording(out.recording.file);
      })
    );
  });
}

Deno.test("serve: a random gRPC session (DR_EVT's client protocol) ≡ the library ≡ its re-simulation", async () => {
  const rand = seeded(42);
  await withRecordDir((dir) =>
    withServer({ recordDir: dir }, async (server, api) => {
      const grpc = new GrpcSession(server.grpcPort!);
      try {
        const init = await grpc.ok({
          init: {
            total_nodes: 16,
            backfill_policy: "easy",
            run_time_mode: "limit",
            session_name: "g",
          },
        });
        assertEquals(init.ok, true);
        const id: string = init.session_id;
        const sim = new Simulation({ totalNodes: 16, runTimeMode: "limit" });
        const grpcCall = (body: Record<string, unknown>) => async () =>
          (await grpc.request(body)).response !== "error";
        const httpCall = (path: string, body: unknown) => async () =>
          (await api.send("POST", `/sessions/${id}${path}`, body)).status === 200;
        let appended = 0;
        for (let i = 0; i < 60; i++) {
          const r = rand();
          const now = sim.currentTime;
          if (r < 0.3) {
            const jobs = randomJobs(rand, now, 16).map(({ actualRunTime: _, ...j }) => j);
            const reply = await grpc.ok({
              append_jobs: {
                requests: jobs.map((j) => ({
                  submit_time: j.submitTime,
                  num_nodes: j.numNodes,
                  limit_time: j.timeLimit,
                  queue: "",
                })),
              },
            });
            const ids = sim.appendJobs(jobs, { submit: false });
            assertEquals(reply.job_idx, ids);
            for (const [k, job] of jobs.entries()) {
              await lockstep(
                sim,
                grpcCall({ submit_job: { job_idx: ids[k], submit_time: job.submitTime } }),
                (s) => s.submitJob(ids[k], job.submitTime),
                "submit",
              );
            }
            appended += jobs.length;
          } else if (r < 0.55) {
            const t = now + Math.floor(rand() * 30);
            await lockstep(sim, grpcCall({ advance_to: { target_time: t } }), (s) =>
              s.advanceTo(t), "adv");
          } else if (r < 0.7) {
            const t = now + Math.floor(rand() * 30) - 3;
            await lockstep(
              sim,
              grpcCall({ run_until_exclusive: { target_time: t } }),
              (s) =>
                s.runUntilExclusive(t),
              "until",
            );
          } else if (appended > 0) {
            const job = Math.floor(rand() * appended);
            const t = now + Math.floor(rand() * 10);
            if (r < 0.85) {
              await lockstep(sim, httpCall(`/jobs/${job}/end`, { time: t }), (s) =>
                s.endJob(job, t), "end");
            } else {
              await lockstep(sim, httpCall(`/jobs/${job}/cancel`, { time: t }), (s) =>
                s.cancelJob(job, t), "c");
            }
          }
          const m = await grpc.ok({ get_statistics: {} });
          assertEquals(
            [m.current_time, m.nodes_in_use, m.nodes_available, Number(m.jobs_waiting)],
            [sim.currentTime, sim.nodesInUse, sim.availableNodes, sim.statistics().jobsWaiting],
          );
          assertEquals(
            (await grpc.ok({ get_fcfs_head_shadow_time: {} })).shadow_time,
            sim.headShadowTime(),
          );
        }
        const recording = await api.ok("GET", `/sessions/${id}/recording`);
        const fin = await grpc.ok({ finish_simulation: {} });
        assertEquals(fin.session_id, id);
        const lib = sim.finish();
        const st = lib.statistics;
        const f = fin.statistics;
        assertEquals(
          [f.jobs_submitted, f.jobs_completed, f.current_time, f.avg_wait_time, f.makespan],
          [
            String(st.jobsStarted),
            String(st.jobsCompleted),
            st.currentTime,
            st.averageWait,
            st.makespan,
          ],
        );
        assert(
          lib.jobs.length > 20 && lib.jobs.some((j) =>
            j.outcome !== undefined
          ),
          "mixed",
        );
        // The schedule: every start the session made (its recording) is the library's.
        const recorded = (await Deno.readTextFile(recording.file)).trimEnd().split("\n")
          .map((l) =>
            JSON.parse(l)
          )
          .filter((m) =>
            m.type === "session"
          )
          .flatMap((m) =>
            m.decisions.filter((d: unknown[]) =>
              d[0] === "DISPATCH"
            )
              .map((d: unknown[]) =>
                `${m.time}:${d[1]}:${d[2]}`
              )
          );
        const begins = lib.jobs.filter((j) => j.outcome !== "cancelled")
          .map((j) => `${j.beginTime}:${j.jobId}:${j.numNodes}`);
        assertEquals([...recorded].sort(), [...begins].sort());
        await verifyRecording(recording.file);
        // The stream's session is gone now: DR_EVT's error reply, the stream goes on.
        const after = await grpc.request({ get_current_time: {} }, "18446744073709551615");
        assertEquals([after.response, after.request_id], ["error", "18446744073709551615"]);
      } finally {
        await grpc.close();
      }
    })
  );
});
