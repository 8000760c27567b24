// `evtsim serve` under faults and load: clients killed mid-session, 1,000
// seeded malformed requests in the middle of a session, and concurrent
// sessions appending in batches, each equal to the batch run of its jobs.
// (bench/serve_load.ts is the full-size load run: 32 sessions × 5,000 jobs.)

import { Simulation } from "../../api/simulation.ts";
import type { JobSpec } from "../../core/types.ts";
import { ROOT } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, type HttpClient, seeded, withServer } from "../_service_helpers.ts";
import { driveLoadSession, loadJobs } from "../../bench/_serve_load.ts";

const json = (x: unknown) => JSON.parse(JSON.stringify(x));

/** A client in its own process: opens an HTTP session and a gRPC stream, then waits to be killed. */
const CLIENT = `
import { GrpcSession, HttpClient } from "${ROOT}tests/_service_helpers.ts";
const [httpPort, grpcPort] = Deno.args.map(Number);
const api = new HttpClient("http://127.0.0.1:" + httpPort);
const { sessionId } = await api.ok("POST", "/sessions", { totalNodes: 4 });
await api.ok("POST", "/sessions/" + sessionId + "/jobs", { jobs: [{ submitTime: 0, numNodes: 4, timeLimit: 9 }] });
const g = new GrpcSession(grpcPort);
await g.ok({ init: { total_nodes: 4, session_name: "doomed" } });
g.request({ append_job: { submit_time: 0, num_nodes: 1, limit_time: 1 } });
// A request whose body never finishes.
const conn = await Deno.connect({ hostname: "127.0.0.1", port: httpPort });
await conn.write(new TextEncoder().encode(
  "POST /sessions/" + sessionId + "/advance HTTP/1.1\\r\\nhost: x\\r\\ncontent-type: application/json\\r\\ncontent-length: 100\\r\\n\\r\\n{\\"time\\":"));
console.log("ready " + sessionId);
await new Promise(() => {});
`;

async function librarySession(api: HttpClient, jobs: JobSpec[]): Promise<void> {
  const { sessionId: id } = await api.ok("POST", "/sessions", { totalNodes: 16 });
  await api.ok("POST", `/sessions/${id}/jobs`, { jobs });
  await api.ok("POST", `/sessions/${id}/advance`, { time: 50 });
  const out = await api.ok("POST", `/sessions/${id}/finish`, {});
  const sim = new Simulation({ totalNodes: 16 });
  sim.appendJobs(jobs);
  sim.advanceTo(50);
  assertEquals(out.jobs, json(sim.finish().jobs));
}

Deno.test("serve: a client killed mid-session leaves the server serving the others", async () => {
  await withServer({}, async (server, api) => {
    const script = await Deno.makeTempFile({ suffix: ".ts" });
    await Deno.writeTextFile(script, CLIENT);
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        `${ROOT}deno.json`,
        script,
        `${server.httpPort}`,
        `${server.grpcPort}`,
      ],
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).spawn();
    try {
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      while (!seen.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      const orphan = /^ready ([0-9a-f]{32})/.exec(seen)?.[1];
      assert(orphan !== undefined, `the client did not start: ${seen}`);
      assertEquals(server.sessions.size, 2);
      child.kill("SIGKILL");
      await child.status;
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      await child.stderr.cancel();
      // The gRPC stream's session goes with its stream; the HTTP session stays, unchanged.
      for (let i = 0; i < 100 && server.sessions.size > 1; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assertEquals(server.sessions.size, 1);
      assertEquals((await api.ok("GET", `/sessions/${orphan}`)).currentTime, 0);
      await librarySession(api, [
        { submitTime: 0, numNodes: 10, timeLimit: 30 },
        { submitTime: 2, numNodes: 10, timeLimit: 5 },
        { submitTime: 3, numNodes: 6, timeLimit: 5 },
      ]);
      const g = new GrpcSession(server.grpcPort!);
      assertEquals((await g.ok({ init: { total_nodes: 2, session_name: "next" } })).ok, true);
      await g.close();
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
      await Deno.remove(script);
    }
  });
});

/** A request that is malformed by construction: [method, path, body, headers]. */
function malformed(
  rand: () => number,
  id: string,
  clock: number,
): [string, string, BodyInit | undefined, Record<string, string>] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const jsonType = { "content-type": "application/json" };
  const bytes = () => {
    const b = new Uint8Array(1 + Math.floor(rand() * 64));
    for (let i = 0; i < b.length; i++) b[i] = Math.floor(rand() * 256);
    return b;
  };
  const wrong = () =>
    pick([
      "1",
      "null",
      "[]",
      '"t"',
      '{"time":"5"}',
      '{"time":null}',
      '{"time":1e999}',
      '{"time":5,"x":1}',
      '{"jobs":[]}',
      '{"jobs":[{"submitTime":1}]}',
      '{"jobs":[{"submitTime":1,"numNodes":-1,"timeLimit":1}]}',
      '{"jobs":{"0":1}}',
      '{"job":{"submitTime":"a","numNodes":1,"timeLimit":1}}',
      '{"totalNodes":0}',
      '{"totalNodes":1.5}',
      '{"capacity":-1}',
      '{"queue":{"priority":1}}',
      '{"outcome":"exploded"}',
      "{" + "[".repeat(500),
      `{"time":${clock - 1 - Math.floor(rand() * 100)}}`,
    ]);
  const paths = [
    "/advance",
    "/run_until",
    "/jobs",
    "/job",
    "/jobs/0/cancel",
    "/jobs/1/end",
    "/jobs/2/update",
    "/queues",
    "/capacity",
    "/jobs/0/submit",
  ];
  const kind = Math.floor(rand() * 7);
  const session = kind === 5
    ? pick(["0".repeat(32), "zz", "../../etc", id.slice(1), id + "0"])
    : id;
  const path = `/sessions/${session}${pick(paths)}`;
  switch (kind) {
    case 0:
      return ["POST", path, bytes(), jsonType];
    case 1:
      return ["POST", path, wrong(), pick([jsonType, { "content-type": "text/plain" }, {}])];
    case 2:
      return [
        "POST",
        `/sessions/${id}/advance`,
        `{"time":${clock - 1 - Math.floor(rand() * 50)}}`,
        jsonType,
      ];
    case 3:
      return ["POST", path, `{"time":1,"pad":"${"y".repeat(1 << 20)}"}`, jsonType];
    case 4:
      return [
        pick(["PUT", "PATCH", "GET", "DELETE"]),
        `/sessions/${id}/${pick(["advance", "jobs", "nope"])}`,
        wrong(),
        jsonType,
      ];
    case 5:
      return ["POST", path, '{"time":1}', jsonType];
    default:
      return [
        "POST",
        `/sessions/${id}/jobs/${pick(["-1", "x", "1e3", "99999999", "0.5"])}/cancel`,
        "{}",
        jsonType,
      ];
  }
}

Deno.test("serve: 1,000 seeded malformed requests mid-session: 4xx JSON each, the session's output unchanged", async () => {
  await withServer({}, async (_server, api) => {
    const config = { totalNodes: 16, decisions: true };
    const { sessionId: id } = await api.ok("POST", "/sessions", config);
    const sim = new Simulation(config);
    const rand = seeded(20261204);
    const jobs = loadJobs(7, 200, 16);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      if (i % 100 === 0) {
        // The valid calls, interleaved: a batch of 20 jobs and an advance to the last submit.
        const batch = jobs.slice(i / 5, i / 5 + 20);
        await api.ok("POST", `/sessions/${id}/jobs`, { jobs: batch });
        sim.appendJobs(batch);
        const t = batch.at(-1)!.submitTime;
        await api.ok("POST", `/sessions/${id}/advance`, { time: t });
        sim.advanceTo(t);
      }
      const [method, path, body, headers] = malformed(rand, id, sim.currentTime);
      const res = await fetch(api.base + path, {
        method,
        body: method === "GET" ? undefined : body,
        headers,
      });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      assert(
        res.status >= 400 && res.status < 500,
        `${method} ${path}: ${res.status} ${text.slice(0, 200)}`,
      );
      const reply = JSON.parse(text);
      assert(typeof reply.error === "string" && typeof reply.kind === "string", text);
    }
    // Every kind of refusal was exercised.
    assertEquals([...statuses.keys()].sort(), [400, 404, 409, 413, 415]);
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    const lib = json(sim.finish());
    assertEquals(out.jobs, lib.jobs);
    assertEquals(out.decisions, lib.decisions);
    assertEquals((await api.ok("GET", "/health")).ok, true);
  });
});

Deno.test("serve: concurrent sessions appending in batches and advancing equal their batch runs", async () => {
  await withServer({}, async (_server, api) => {
    const sessions = 8;
    const results = await Promise.all(
      Array.from({ length: sessions }, (_, k) => driveLoadSession(api, k, 400, 50)),
    );
    for (const r of results) {
      assertEquals(r.live, r.batch, `session ${r.seed}`);
      assert(r.appendMs.length === 8 && r.advanceMs.length === 8);
    }
  });
});
