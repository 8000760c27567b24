// `evtsim serve`: sessions expire and can be listed (issue 32 item 6), a
// finish reply is sent before its session is dropped (item 7), and a gRPC
// stream whose session is gone hosts a new one (item 13).

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { Simulation } from "../../api/simulation.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";

/** Sends a create and drops the connection without reading the reply. */
async function droppedCreate(port: number, token: string): Promise<void> {
  const body = JSON.stringify({ totalNodes: 2, name: "dropped" });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      `POST /sessions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    ),
  );
  conn.close();
}

Deno.test("serve: dropped creates free their slots after --session_idle_timeout; GET /sessions lists them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-idle-" });
  const token = "sessions-token";
  try {
    await withServer(
      { grpcPort: undefined, token, maxSessions: 4, sessionIdleTimeout: 3, recordDir: dir },
      async (server, api) => {
        for (let i = 0; i < 5; i++) await droppedCreate(server.httpPort, token);
        // (Each create starts a worker: seconds on a loaded machine.)
        for (let i = 0; i < 6000 && server.sessions.size < 4; i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        const full = await api.send("POST", "/sessions", { totalNodes: 2 });
        assertEquals([full.status, full.body.kind], [429, "capacity"]);
        // Listed (token-protected): ids, names, age and idle time.
        assertEquals(
          await fetch(`${api.base}/sessions`).then(async (r) => {
            await r.body?.cancel();
            return r.status;
          }),
          401,
        );
        const list = (await api.ok("GET", "/sessions")).sessions;
        assertEquals(list.length, 4);
        for (const s of list) {
          assert(/^[0-9a-f]{32}$/.test(s.sessionId), s.sessionId);
          assertEquals(s.name, "dropped");
          assert(s.ageSeconds >= 0 && s.idleSeconds >= 0 && s.idleSeconds <= s.ageSeconds + 0.01);
        }
        // A session in use is kept; the dropped ones expire.
        const kept = await api.ok("POST", "/sessions", { totalNodes: 2 }).catch(() => undefined);
        assertEquals(kept, undefined);
        const deadline = performance.now() + 10_000;
        while (server.sessions.size > 0 && performance.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
        }
        assertEquals(server.sessions.size, 0);
        const fresh = await api.ok("POST", "/sessions", { totalNodes: 2, name: "fresh" });
        for (let i = 0; i < 16; i++) {
          await new Promise((r) => setTimeout(r, 250));
          await api.ok("GET", `/sessions/${fresh.sessionId}`);
        }
        assertEquals(
          (await api.ok("GET", "/sessions")).sessions.map((s: { name: string }) => s.name),
          [
            "fresh",
          ],
        );
        // Every expired session's recording was ended cleanly and re-simulates.
        const files = [...Deno.readDirSync(dir)].map((e) => `${dir}/${e.name}`)
          .filter((f) => f.includes("dropped-"));
        assertEquals(files.length, 4);
        for (const f of files) {
          const lines = Deno.readTextFileSync(f).trimEnd().split("\n");
          assertEquals(JSON.parse(lines.at(-1)!).type, "end", f);
          const v = await runCli(["replay", f, "--verify"]);
          assertEquals(v.code, 0, v.err.join("\n"));
        }
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: a finish reply is streamed whole, and a session whose reply was cut stays to finish again", async () => {
  await withServer({ grpcPort: undefined }, async (_server, api) => {
    const id = (await api.ok("POST", "/sessions", { totalNodes: 8, decisions: "heads" }))
      .sessionId;
    const jobs = Array.from({ length: 6000 }, (_, i) => ({
      submitTime: i,
      numNodes: 1 + (i % 8),
      timeLimit: 50 + (i % 7) * 10,
    }));
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs });
    // A client that goes away after the first bytes: the session is still there.
    const res = await fetch(`${api.base}/sessions/${id}/finish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 100));
    assertEquals((await api.send("GET", `/sessions/${id}`)).status, 200);
    // Finishing again sends the whole output (pages of rows), then drops the session.
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    assertEquals(out.jobs.length, 6000);
    assertEquals(out.jobs.map((j: { jobId: number }) => j.jobId), jobs.map((_, i) => i));
    assert(out.decisions.length > 5000, `${out.decisions.length} decisions`);
    assertEquals(out.sessionId, id);
    assertEquals(out.statistics.jobsCompleted, 6000);
    // The same as the library's run of the same jobs.
    const sim = new Simulation({ totalNodes: 8, decisions: "heads" });
    sim.appendJobs(jobs);
    const lib = JSON.parse(JSON.stringify(sim.finish()));
    assertEquals(out.jobs, lib.jobs);
    assertEquals(out.resources, lib.resources);
    assertEquals(out.decisions, lib.decisions);
    assertEquals((await api.send("GET", `/sessions/${id}`)).status, 404);
  });
});

Deno.test("serve gRPC: a stream whose session was deleted over HTTP accepts a new init", async () => {
  await withServer({}, async (server, api) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      const first = (await g.ok({ init: { total_nodes: 4, session_name: "a" } })).session_id;
      await api.ok("DELETE", `/sessions/${first}`);
      const gone = await g.request({ advance_to: { target_time: 1 } });
      assert(/is gone .*send init/.test(gone.error.message), gone.error.message);
      const second = (await g.ok({ init: { total_nodes: 4, session_name: "b" } })).session_id;
      assert(second !== first);
      await g.ok({ append_job: { submit_time: 0, num_nodes: 4, limit_time: 10 } });
      await g.ok({ submit_job: { job_idx: 0, submit_time: 0 } });
      // Deleted again, this time init comes straight away.
      await api.ok("DELETE", `/sessions/${second}`);
      const third = (await g.ok({ init: { total_nodes: 4, session_name: "c" } })).session_id;
      await g.ok({ append_job: { submit_time: 0, num_nodes: 4, limit_time: 10 } });
      await g.ok({ submit_job: { job_idx: 0, submit_time: 0 } });
      const done = await g.ok({ finish_simulation: {} });
      assertEquals([done.session_id, done.statistics.jobs_completed], [third, "1"]);
      assertEquals(server.sessions.size, 0);
      await g.ok({ init: { total_nodes: 4, session_name: "d" } });
    } finally {
      assertEquals((await g.close()).code, 0);
    }
  });
});
