// `evtsim serve`, HTTP front: the session operations against the library,
// malformed requests mid-session, the OpenAPI document against the routes,
// recording control, and the security rules.

import { httpApp } from "../../api/service/http.ts";
import { checkServerOptions } from "../../api/service/server.ts";
import { SessionHost } from "../../api/service/session_host.ts";
import { Simulation } from "../../api/simulation.ts";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { withServer } from "../_service_helpers.ts";

const JOBS = [
  { submitTime: 0, numNodes: 8, timeLimit: 100, actualRunTime: 60 },
  { submitTime: 5, numNodes: 6, timeLimit: 50 },
  { submitTime: 7, numNodes: 2, timeLimit: 20, actualRunTime: 15 },
];

/** The library run of the same calls. */
function libraryRun() {
  const sim = new Simulation({ totalNodes: 10, decisions: true });
  sim.appendJobs(JOBS);
  sim.advanceTo(7);
  sim.appendJob({ submitTime: 30, numNodes: 4, timeLimit: 10 });
  sim.runUntilExclusive(30);
  return JSON.parse(JSON.stringify(sim.finish()));
}

Deno.test("serve HTTP: a session's calls give the library's answers and schedule", async () => {
  await withServer({}, async (_server, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", {
      totalNodes: 10,
      decisions: true,
    });
    assert(/^[0-9a-f]{32}$/.test(id), id);
    assertEquals((await api.ok("POST", `/sessions/${id}/jobs`, { jobs: JOBS })).ids, [0, 1, 2]);
    const step = await api.ok("POST", `/sessions/${id}/advance`, { time: 7 });
    // Job 0 runs; job 1 waits for it (a PEND with its reason); job 2 backfills at 7.
    assertEquals(step.decisions.map((d: { type: string; jobId: number }) => d.type + d.jobId), [
      "DISPATCH0",
      "PEND1",
      "DISPATCH2",
    ]);
    assertEquals(step.decisions[1].reason.code, "insufficient_nodes");
    assertEquals(step.monitors.nodesInUse, 10);
    assertEquals(step.monitors.headShadowTime, 100);
    assertEquals(
      (await api.ok("GET", `/sessions/${id}/jobs/1/pending_reason`)).code,
      "insufficient_nodes",
    );
    const window = await api.ok("GET", `/sessions/${id}/backfill_window`);
    assertEquals([window.availableNodes, window.shadowTime], [0, 100]);
    assertEquals(
      (await api.ok("POST", `/sessions/${id}/job`, {
        job: { submitTime: 30, numNodes: 4, timeLimit: 10 },
      })).ids,
      [3],
    );
    const until = await api.ok("POST", `/sessions/${id}/run_until`, { time: 30 });
    assertEquals(until.monitors.currentTime, 22); // job 2's end, the last event before 30
    const stats = await api.ok("GET", `/sessions/${id}/statistics`);
    assertEquals([stats.jobsStarted, stats.jobsCompleted], [2, 1]);
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    const lib = libraryRun();
    assertEquals(out.jobs, lib.jobs);
    assertEquals(out.resources, lib.resources);
    assertEquals(out.decisions, lib.decisions);
    assertEquals(out.statistics, lib.statistics);
    // A finished session is gone.
    assertEquals((await api.send("GET", `/sessions/${id}`)).status, 404);
  });
});

Deno.test("serve HTTP: malformed requests mid-session are 4xx JSON errors and change nothing", async () => {
  await withServer({}, async (_server, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", {
      totalNodes: 10,
      decisions: true,
    });
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs: JOBS });
    const bad: [string, string, unknown, number, string][] = [
      ["POST", `/sessions/${id}/advance`, "{not json", 400, "validation"],
      ["POST", `/sessions/${id}/advance`, { time: "7" }, 400, "validation"],
      ["POST", `/sessions/${id}/advance`, { time: 7, extra: 1 }, 400, "validation"],
      ["POST", `/sessions/${id}/advance`, {}, 400, "validation"],
      [
        "POST",
        `/sessions/${id}/jobs`,
        { jobs: [{ submitTime: 1, numNodes: 0, timeLimit: 1 }] },
        400,
        "validation",
      ],
      // Not sorted: the whole batch is refused, nothing appended.
      [
        "POST",
        `/sessions/${id}/jobs`,
        {
          jobs: [{ submitTime: 9, numNodes: 1, timeLimit: 1 }, {
            submitTime: 8,
            numNodes: 1,
            timeLimit: 1,
          }],
        },
        400,
        "input",
      ],
      ["POST", "/sessions/0123456789abcdef0123456789abcdef/advance", { time: 1 }, 404, "not_found"],
      ["POST", "/sessions/nope/advance", { time: 1 }, 404, "not_found"],
      ["POST", `/sessions/${id}/jobs/99/cancel`, {}, 409, "state"],
      ["GET", `/sessions/${id}/jobs/0/pending_reason`, undefined, 404, "not_found"],
      ["POST", `/sessions/${id}/recording`, undefined, 409, "state"],
      ["POST", `/sessions/${id}/advance`, "x".repeat(1_100_000), 413, "too_large"],
    ];
    await api.ok("POST", `/sessions/${id}/advance`, { time: 7 });
    // Time going back, and a job submitted before the clock.
    bad.push(["POST", `/sessions/${id}/advance`, { time: 3 }, 409, "time"]);
    bad.push(["POST", `/sessions/${id}/run_until`, { time: 6 }, 409, "time"]);
    bad.push([
      "POST",
      `/sessions/${id}/job`,
      { job: { submitTime: 1, numNodes: 1, timeLimit: 1 } },
      409,
      "time",
    ]);
    for (const [method, path, body, status, kind] of bad) {
      const r = await api.send(method, path, body);
      assertEquals(
        [r.status, r.body.kind],
        [status, kind],
        `${method} ${path} ${String(body).slice(0, 40)}`,
      );
      assert(typeof r.body.error === "string" && r.body.error.length > 0);
    }
    await api.ok("POST", `/sessions/${id}/job`, {
      job: { submitTime: 30, numNodes: 4, timeLimit: 10 },
    });
    await api.ok("POST", `/sessions/${id}/run_until`, { time: 30 });
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    const lib = libraryRun();
    assertEquals(out.jobs, lib.jobs);
    assertEquals(out.decisions, lib.decisions);
  });
});

Deno.test("serve HTTP: /openapi.json describes every route, and only the routes", async () => {
  const app = httpApp(new SessionHost(), { version: "test" });
  const served = new Set(
    app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
  );
  const doc = await (await app.request("/openapi.json")).json();
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, object>)) {
    for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  assertEquals([...documented].sort(), [...served].sort());
  assert(documented.size >= 20, `${documented.size} routes`);
  // Each documented operation is answered by its route (not the fallback), and
  // its documented request body is the schema that checks it.
  const sid = "0123456789abcdef0123456789abcdef";
  for (const key of documented) {
    const [method, path] = key.split(" ");
    const op = doc.paths[path][method.toLowerCase()];
    const url = path.replace("{id}", sid).replace("{job}", "1");
    const res = await app.request(url, {
      method,
      headers: { "content-type": "application/json" },
      body: method === "GET" ? undefined : JSON.stringify({ surely_not_a_field: 1 }),
    });
    const body = await res.json();
    assert(!String(body.error ?? "").startsWith("no route"), `${key} is not routed`);
    if (op.requestBody !== undefined && method !== "GET") {
      // A strict schema: an unknown field is refused before the session is looked up.
      assertEquals([res.status, body.kind], [400, "validation"], key);
      assert(op.requestBody.content["application/json"].schema !== undefined, key);
    }
    assert(op.responses["400"] !== undefined && op.summary !== undefined, key);
  }
});

Deno.test("serve HTTP: recording control, and --record_dir records every session from its start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-rec-" });
  try {
    await withServer({ recordDir: dir }, async (_server, api) => {
      const created = await api.ok("POST", "/sessions", { totalNodes: 4, name: "demo" });
      const id = created.sessionId;
      assertEquals(created.recording.recording, true);
      assertEquals(created.recording.file, `${dir}/demo-${id}.replay`);
      await api.ok("POST", `/sessions/${id}/jobs`, {
        jobs: [{ submitTime: 0, numNodes: 4, timeLimit: 10 }],
      });
      await api.ok("POST", `/sessions/${id}/advance`, { time: 5 });
      const twice = await api.send("POST", `/sessions/${id}/recording`);
      assertEquals([twice.status, twice.body.error], [409, "already recording"]);
      assertEquals(await api.ok("DELETE", `/sessions/${id}/recording`), { events: 2 });
      const again = await api.send("DELETE", `/sessions/${id}/recording`);
      assertEquals([again.status, again.body.error], [409, "not recording"]);
      assertEquals((await api.ok("GET", `/sessions/${id}/recording`)).recording, false);
      const second = await api.ok("POST", `/sessions/${id}/recording`);
      assertEquals(second.file, `${dir}/demo-${id}-2.replay`);
      await api.ok("POST", `/sessions/${id}/jobs`, {
        jobs: [{ submitTime: 6, numNodes: 2, timeLimit: 3 }],
      });
      const status = await api.ok("GET", `/sessions/${id}/recording`);
      assertEquals([status.recording, status.events, status.startedAt], [true, 1, 5]);
      const out = await api.ok("POST", `/sessions/${id}/finish`, {});
      assertEquals(out.recording.recording, false);
      for (const file of [created.recording.file, second.file]) {
        const r = await runCli(["replay", file, "--verify"]);
        assertEquals(r.code, 0, r.err.join("\n"));
        assert(
          /verify: every decision matches the recording$/.test(r.out.join("\n")),
          r.out.join(),
        );
      }
    });
    await withServer({}, async (_server, api) => {
      const { sessionId } = await api.ok("POST", "/sessions", { totalNodes: 4 });
      const r = await api.send("POST", `/sessions/${sessionId}/recording`);
      assertEquals([r.status, r.body.kind], [409, "state"]);
      assert(/--record_dir/.test(r.body.error));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve HTTP: a recording whose writes fail stops, and the session goes on", async () => {
  let writes = 0;
  const host = new SessionHost({
    isolation: "inline",
    recordDir: "/nowhere",
    openSink: () => ({
      write: () => {
        if (++writes > 2) throw new Error("disk full");
      },
    }),
  });
  const app = httpApp(host, { version: "test" });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const { body: { sessionId: id } } = await call("POST", "/sessions", { totalNodes: 4 });
  await call("POST", `/sessions/${id}/jobs`, { jobs: JOBS.map((j) => ({ ...j, numNodes: 2 })) });
  const adv = await call("POST", `/sessions/${id}/advance`, { time: 7 });
  assertEquals(adv.status, 200);
  const status = (await call("GET", `/sessions/${id}/recording`)).body;
  assertEquals([status.recording, status.events, status.error], [false, 1, "disk full"]);
  const out = (await call("POST", `/sessions/${id}/finish`, {})).body;
  const sim = new Simulation({ totalNodes: 4 });
  sim.appendJobs(JOBS.map((j) => ({ ...j, numNodes: 2 })));
  sim.advanceTo(7);
  assertEquals(out.jobs, JSON.parse(JSON.stringify(sim.finish().jobs)));
});

Deno.test("serve HTTP: the token, loopback rule, body limit, random ids and --max_sessions", async () => {
  const token = "s3cret-token";
  await withServer({ token, maxSessions: 3 }, async (server, api) => {
    for (const path of ["/health", "/openapi.json", "/sessions/0123456789abcdef0123456789abcdef"]) {
      for (const auth of [undefined, "Bearer wrong-token!", `Basic ${token}`, token]) {
        const res = await fetch(`${api.base}${path}`, {
          headers: auth === undefined ? {} : { authorization: auth },
        });
        assertEquals(
          [res.status, (await res.json()).kind],
          [401, "unauthorized"],
          `${path} ${auth}`,
        );
      }
    }
    assertEquals((await api.ok("GET", "/health")).ok, true);
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      ids.add((await api.ok("POST", "/sessions", { totalNodes: 1 })).sessionId);
    }
    assertEquals(ids.size, 3);
    const full = await api.send("POST", "/sessions", { totalNodes: 1 });
    assertEquals([full.status, full.body.kind], [429, "capacity"]);
    // Over 1 MiB, with a length and streamed without one: refused either way.
    const big = JSON.stringify({ totalNodes: 1, name: "x".repeat(1 << 20) });
    assertEquals((await api.send("POST", "/sessions", big)).status, 413);
    const stream = new Blob([big]).stream();
    const res = await fetch(`${api.base}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: stream,
    });
    assertEquals([res.status, (await res.json()).kind], [413, "too_large"]);
    assertEquals(server.sessions.size, 3);
  });
  checkServerOptions({ host: "0.0.0.0", port: 0, token, version: "t" });
  for (const host of ["0.0.0.0", "192.168.1.4", "::"]) {
    let refused = "";
    try {
      checkServerOptions({ host, port: 0, version: "t" });
    } catch (e) {
      refused = (e as Error).message;
    }
    assert(/needs --token/.test(refused), `${host}: ${refused}`);
  }
  checkServerOptions({ host: "127.0.0.1", port: 0, version: "t" });
  checkServerOptions({ host: "::1", port: 0, version: "t" });
});

Deno.test("serve HTTP: a session that did not ask for decisions makes none (and holds none)", async () => {
  await withServer({}, async (_server, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", { totalNodes: 10 });
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs: JOBS });
    assertEquals((await api.ok("POST", `/sessions/${id}/advance`, { time: 7 })).decisions, []);
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    assertEquals(out.decisions, []);
    const sim = new Simulation({ totalNodes: 10 });
    sim.appendJobs(JOBS);
    sim.advanceTo(7);
    assertEquals(out.jobs, JSON.parse(JSON.stringify(sim.finish().jobs)));
  });
});

Deno.test("serve HTTP: stored jobs, job and queue updates, capacity and dropping a session", async () => {
  const queues = [{ name: "low", priority: 1 }, { name: "high", priority: 10 }];
  await withServer({}, async (server, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", { totalNodes: 8, queues });
    const sim = new Simulation({ totalNodes: 8, queues });
    const jobs = [
      { submitTime: 0, numNodes: 8, timeLimit: 50, queue: "low" },
      { submitTime: 1, numNodes: 8, timeLimit: 20, queue: "low" },
      { submitTime: 2, numNodes: 8, timeLimit: 10, queue: "low" },
    ];
    assertEquals((await api.ok("POST", `/sessions/${id}/jobs`, { jobs, submit: false })).ids, [
      0,
      1,
      2,
    ]);
    sim.appendJobs(jobs, { submit: false });
    for (const [job, t] of [[0, 0], [1, 1], [2, 2]]) {
      await api.ok("POST", `/sessions/${id}/jobs/${job}/submit`, { time: t });
      sim.submitJob(job, t);
    }
    await api.ok("POST", `/sessions/${id}/advance`, { time: 3 });
    sim.advanceTo(3);
    // Job 2 moves to the high queue and overtakes job 1; the machine shrinks to 6 nodes
    // until 60, so job 2 (8 nodes) starts only then; a new queue appears.
    await api.ok("POST", `/sessions/${id}/jobs/2/update`, { queue: "high", time: 4 });
    sim.updateJob(2, { queue: "high" }, 4);
    await api.ok("POST", `/sessions/${id}/capacity`, { capacity: 6, time: 5 });
    sim.changeCapacity(6, 5);
    await api.ok("POST", `/sessions/${id}/capacity`, { capacity: 8, time: 60 });
    sim.changeCapacity(8, 60);
    await api.ok("POST", `/sessions/${id}/queues`, {
      queue: { name: "new", priority: 5 },
      time: 6,
    });
    sim.updateQueue({ name: "new", priority: 5 }, 6);
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    const lib = JSON.parse(JSON.stringify(sim.finish()));
    assertEquals(out.jobs, lib.jobs);
    assertEquals(out.jobs.map((r: { beginTime: number }) => r.beginTime), [0, 70, 60]);
    // A dropped session is gone, and its slot is free.
    const other = (await api.ok("POST", "/sessions", { totalNodes: 1 })).sessionId;
    assertEquals(await api.ok("DELETE", `/sessions/${other}`), { ok: true });
    assertEquals((await api.send("DELETE", `/sessions/${other}`)).status, 404);
    assertEquals(server.sessions.size, 0);
  });
});

Deno.test("serve HTTP: a fairshare session takes pickerSettings and jobs with users, as the library does", async () => {
  const settings = { fairshare: { halfLife: 3600, maxAge: 3600, weights: { age: 0 } } };
  const jobs = [
    { submitTime: 0, numNodes: 10, timeLimit: 3600, user: "alice" },
    { submitTime: 100, numNodes: 10, timeLimit: 600, user: "alice" },
    { submitTime: 200, numNodes: 10, timeLimit: 600, user: "bob" },
  ];
  await withServer({}, async (_server, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", {
      totalNodes: 10,
      picker: "fairshare",
      pickerSettings: settings,
    });
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs });
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    const sim = new Simulation({ totalNodes: 10, picker: "fairshare", pickerSettings: settings });
    sim.appendJobs(jobs);
    const lib = JSON.parse(JSON.stringify(sim.finish().jobs));
    assertEquals(out.jobs, lib);
    // Bob has no usage when alice's first job ends, so his later job goes first.
    assertEquals(out.jobs.map((r: { beginTime: number }) => r.beginTime), [0, 4200, 3600]);
    const bad = await api.send("POST", "/sessions", {
      totalNodes: 10,
      picker: "fairshare",
      pickerSettings: { fairshare: { half_life: 3600 } },
    });
    assertEquals(bad.status, 400);
    assert(JSON.stringify(bad.body).includes("half_life"), JSON.stringify(bad.body));
  });
});
