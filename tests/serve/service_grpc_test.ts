// `evtsim serve`, gRPC front: DR_EVT's Session stream with a client built
// from the checked-in proto: request ids echoed, every request answered,
// errors as DR_EVT's ErrorResponse (the stream goes on), the token, the
// message size limit, undecodable messages, and a stream that ends without
// finishing.

import * as grpc from "@grpc/grpc-js";
import { loadProto } from "../../api/service/grpc.ts";
import { Simulation } from "../../api/simulation.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";

Deno.test("serve gRPC: DR_EVT's requests, in DR_EVT's two steps, with request ids echoed", async () => {
  await withServer({}, async (server, api) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      const before = await g.request({ advance_to: { target_time: 1 } }, "7");
      assertEquals([before.request_id, before.response], ["7", "error"]);
      assertEquals(before.error.message, "send init first");
      const noName = await g.request({ init: { total_nodes: 8 } });
      assertEquals(noName.error.message, "session_name is required");
      const infile = await g.request({
        init: { total_nodes: 8, session_name: "a", infile: "/etc/passwd" },
      });
      assert(/infile is not supported/.test(infile.error.message));
      const init = await g.request(
        { init: { total_nodes: 8, session_name: "a" } },
        "18446744073709551615",
      );
      assertEquals(init.request_id, "18446744073709551615");
      assertEquals(init.init.ok, true);
      assert(/^[0-9a-f]{32}$/.test(init.init.session_id));
      const again = await g.request({ init: { total_nodes: 8, session_name: "b" } });
      assert(/already initialized/.test(again.error.message));
      assertEquals((await g.ok({ initialize_trace: { max_jobs: 0 } })).num_jobs_loaded, "0");
      // AppendJob only stores the job; SubmitJob submits it (DR_EVT's protocol).
      const one = await g.ok({
        append_job: { submit_time: 0, num_nodes: 6, queue: "pbatch", limit_time: 100 },
      });
      assertEquals(one.job_idx, 0);
      assertEquals((await g.ok({ get_trace_size: {} })).trace_size, "1");
      const two = await g.ok({
        append_jobs: {
          requests: [
            { submit_time: 5, num_nodes: 4, limit_time: 10 },
            { submit_time: 6, num_nodes: 2, limit_time: 50 },
          ],
        },
      });
      assertEquals(two.job_idx, [1, 2]);
      for (const [id, t] of [[0, 0], [1, 5], [2, 6]]) {
        await g.ok({ submit_job: { job_idx: id, submit_time: t } });
      }
      const resubmit = await g.request({ submit_job: { job_idx: 0, submit_time: 7 } });
      assertEquals(resubmit.response, "error");
      await g.ok({ run_until_exclusive: { target_time: 6 } });
      assertEquals((await g.ok({ get_current_time: {} })).current_time, 5);
      await g.ok({ advance_to: { target_time: 6 } });
      const back = await g.request({ advance_to: { target_time: 2 } });
      assert(/backwards/.test(back.error.message), back.error.message);
      assertEquals((await g.ok({ get_nodes_in_use: {} })).nodes_in_use, 8);
      assertEquals((await g.ok({ get_available_nodes: {} })).available_nodes, 0);
      assertEquals((await g.ok({ get_active_job_count: {} })).active_job_count, "1");
      assertEquals((await g.ok({ get_fcfs_head_shadow_time: {} })).shadow_time, 100);
      // The same session on the HTTP front: what DR_EVT's protocol has no message for.
      const why = await api.ok("GET", `/sessions/${init.init.session_id}/jobs/1/pending_reason`);
      assertEquals(why.code, "insufficient_nodes");
      const empty = await g.request({});
      assert(/empty request/.test(empty.error.message));
      const fin = await g.ok({ finish_simulation: {} });
      const sim = new Simulation({ totalNodes: 8 });
      sim.appendJobs([
        { submitTime: 0, numNodes: 6, queue: "pbatch", timeLimit: 100 },
        { submitTime: 5, numNodes: 4, timeLimit: 10 },
        { submitTime: 6, numNodes: 2, timeLimit: 50 },
      ]);
      const st = sim.finish().statistics;
      assertEquals(fin.statistics.avg_wait_time, st.averageWait);
      assertEquals(fin.statistics.makespan, st.makespan);
      assertEquals(fin.statistics.jobs_completed, "3");
      assertEquals(server.sessions.size, 0);
      // The stream may init again after finishing.
      assertEquals((await g.ok({ init: { total_nodes: 2, session_name: "c" } })).ok, true);
      assertEquals(server.sessions.size, 1);
      assertEquals((await g.close()).code, grpc.status.OK);
      // Ending the stream without finish_simulation drops its session.
      assertEquals(server.sessions.size, 0);
    } finally {
      await g.close();
    }
  });
});

Deno.test("serve gRPC: token, message size, undecodable bytes; the server serves on", async () => {
  const token = "grpc-token-123";
  await withServer({ token }, async (server) => {
    for (const t of [undefined, "wrong-token-xyz"]) {
      const g = new GrpcSession(server.grpcPort!, t);
      const status = await g.ended;
      await g.close();
      assertEquals(status.code, grpc.status.UNAUTHENTICATED);
    }
    const big = new GrpcSession(server.grpcPort!, token);
    big.request({ init: { total_nodes: 1, session_name: "x".repeat(1_100_000) } });
    assertEquals((await big.ended).code, grpc.status.RESOURCE_EXHAUSTED);
    await big.close();
    // Bytes that are not a ClientMessage.
    const proto = loadProto();
    const Service = proto.SimulationService as grpc.ServiceClientConstructor;
    const client = new Service(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${token}`);
    const raw = client.makeBidiStreamRequest(
      "/dr_evt_grpc.SimulationService/Session",
      (b: Uint8Array) => b as Buffer,
      (b: Buffer) => b,
      md,
    );
    const code = await new Promise<number>((resolve) => {
      raw.on("status", (s: grpc.StatusObject) => resolve(s.code));
      raw.on("error", () => {});
      raw.on("data", () => {});
      raw.write(new Uint8Array([0x12, 0x05, 0x08, 0xff, 0xff, 0xff]));
      raw.end();
    });
    client.close();
    assert(code !== grpc.status.OK, `status ${code}`);
    const ok = new GrpcSession(server.grpcPort!, token);
    assertEquals((await ok.ok({ init: { total_nodes: 4, session_name: "after" } })).ok, true);
    assertEquals((await ok.close()).code, grpc.status.OK);
  });
});

Deno.test("serve gRPC: evtsim's own init and job fields give a fairshare session the library's schedule", async () => {
  const settings = { fairshare: { halfLife: 3600, maxAge: 3600, weights: { age: 0 } } };
  const jobs = [
    { submitTime: 0, numNodes: 10, timeLimit: 3600, user: "alice" },
    { submitTime: 100, numNodes: 10, timeLimit: 600, user: "alice" },
    { submitTime: 200, numNodes: 10, timeLimit: 600, user: "bob", account: "physics" },
  ];
  await withServer({}, async (server, api) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      for (
        const [init, message] of [
          [{ picker: "nope" }, "unknown picker 'nope'"],
          [{ picker: "fairshare", picker_settings_json: "{" }, "not valid JSON"],
          [{ picker: "fairshare", picker_settings_json: "[1]" }, "must be a JSON object"],
          [
            { picker: "fairshare", picker_settings_json: '{"fairshare": {"half_life": 1}}' },
            "half_life",
          ],
        ] as const
      ) {
        const r = await g.request({ init: { total_nodes: 10, session_name: "fs", ...init } });
        assertEquals(r.response, "error", JSON.stringify(r));
        assert(r.error.message.includes(message), r.error.message);
      }
      const init = await g.ok({
        init: {
          total_nodes: 10,
          session_name: "fs",
          picker: "fairshare",
          picker_settings_json: JSON.stringify(settings),
        },
      });
      await g.ok({
        append_jobs: {
          requests: jobs.map((j) => ({
            submit_time: j.submitTime,
            num_nodes: j.numNodes,
            limit_time: j.timeLimit,
            user: j.user,
            account: j.account ?? "",
          })),
        },
      });
      for (const [id, j] of jobs.entries()) {
        await g.ok({ submit_job: { job_idx: id, submit_time: j.submitTime } });
      }
      // The schedule, through the HTTP front's finish of the same session.
      const out = await api.ok("POST", `/sessions/${init.session_id}/finish`, {});
      const sim = new Simulation({ totalNodes: 10, picker: "fairshare", pickerSettings: settings });
      sim.appendJobs(jobs);
      const lib = JSON.parse(JSON.stringify(sim.finish().jobs));
      assertEquals(out.jobs, lib);
      // Bob has no usage when alice's first job ends, so his later job goes first.
      assertEquals(out.jobs.map((r: { beginTime: number }) => r.beginTime), [0, 4200, 3600]);
    } finally {
      await g.close();
    }
  });
});
