// `evtsim serve`: no session's work holds up another session or /health
// (issue 32 item 5). Each session runs in a worker of its own; a running
// call can be abandoned with DELETE; a call over the session's time budget
// is answered 503 and ends the session, its recording ended cleanly.

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { type HttpClient, seeded, withServer } from "../_service_helpers.ts";

/** `n` seeded jobs, submit times non-decreasing, as the 920 KB repro appends them. */
function heavyJobs(n: number, seed: number) {
  const rnd = seeded(seed);
  let t = 0;
  return Array.from({ length: n }, () => {
    t += Math.floor(rnd() * 20);
    const timeLimit = 60 + Math.floor(rnd() * 20_000);
    return {
      submitTime: t,
      numNodes: 1 + Math.floor(rnd() * 64),
      timeLimit,
      actualRunTime: Math.floor(rnd() * timeLimit),
    };
  });
}

/** Appends `jobs` in batches under the 1 MiB body limit. */
async function appendAll(api: HttpClient, id: string, jobs: readonly unknown[]): Promise<void> {
  for (let i = 0; i < jobs.length; i += 5000) {
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs: jobs.slice(i, i + 5000) });
  }
}

/** Milliseconds one request takes, and its status. */
async function timed(api: HttpClient, method: string, path: string, body?: unknown) {
  const t0 = performance.now();
  const r = await api.send(method, path, body);
  return { ms: performance.now() - t0, status: r.status, body: r.body };
}

/** Waits until session `id` has a call running (GET /sessions). */
async function untilBusy(api: HttpClient, id: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const list = (await api.ok("GET", "/sessions")).sessions as {
      sessionId: string;
      calls: number;
    }[];
    if ((list.find((s) => s.sessionId === id)?.calls ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`session ${id} never got busy`);
}

Deno.test("serve: a 20k-job conservative finish holds up neither /health nor another session; DELETE abandons it", async () => {
  await withServer({ grpcPort: undefined }, async (_server, api) => {
    const heavy = (await api.ok("POST", "/sessions", {
      totalNodes: 64,
      backfillPolicy: "conservative",
      decisions: true,
    })).sessionId;
    await appendAll(api, heavy, heavyJobs(20_000, 32));
    const light = (await api.ok("POST", "/sessions", { totalNodes: 4 })).sessionId;
    await api.ok("POST", `/sessions/${light}/jobs`, {
      jobs: [{ submitTime: 0, numNodes: 2, timeLimit: 10 }],
    });
    const finishing = api.send("POST", `/sessions/${heavy}/finish`, {});
    await untilBusy(api, heavy);
    const waits: number[] = [];
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const h = await timed(api, "GET", "/health");
      assertEquals(h.status, 200);
      const s = await timed(api, "POST", `/sessions/${light}/advance`, { time: i });
      assertEquals(s.status, 200, JSON.stringify(s.body));
      waits.push(h.ms, s.ms);
    }
    // Still running: the figures above were taken while the heavy call ran.
    const list = (await api.ok("GET", "/sessions")).sessions as {
      sessionId: string;
      calls: number;
    }[];
    assertEquals(list.find((s) => s.sessionId === heavy)?.calls, 1);
    const worst = Math.max(...waits);
    console.log(
      `  /health and a small call during the 20k-job finish: worst ${worst.toFixed(1)} ms`,
    );
    assert(worst < 1000, `a reply took ${worst} ms while another session worked`);
    // DELETE abandons the running call at once; the finish is answered 404.
    const del = await timed(api, "DELETE", `/sessions/${heavy}`);
    assertEquals(del.status, 200);
    assert(del.ms < 1000, `DELETE took ${del.ms} ms`);
    const f = await finishing;
    assertEquals([f.status, f.body.kind], [404, "not_found"], JSON.stringify(f.body));
    assertEquals((await api.send("GET", `/sessions/${heavy}`)).status, 404);
    assertEquals((await api.ok("POST", `/sessions/${light}/finish`, {})).jobs.length, 1);
  });
});

Deno.test("serve: a call over --call_time_limit is 503, ends its session and its recording cleanly", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-budget-" });
  try {
    await withServer(
      { grpcPort: undefined, recordDir: dir, callTimeLimit: 0.5 },
      async (_s, api) => {
        const created = await api.ok("POST", "/sessions", {
          name: "heavy",
          totalNodes: 64,
          backfillPolicy: "conservative",
          decisions: true,
        });
        const id = created.sessionId;
        const jobs = heavyJobs(20_000, 7);
        await appendAll(api, id, jobs);
        await api.ok("POST", `/sessions/${id}/advance`, { time: 0 });
        // Calls waiting behind a running one are bounded: the excess is 429.
        const over = api.send("POST", `/sessions/${id}/finish`, {});
        await untilBusy(api, id);
        const queued = await Promise.all(
          Array.from({ length: 70 }, () => api.send("GET", `/sessions/${id}`)),
        );
        const busy = queued.filter((r) => r.status === 429);
        assert(busy.length > 0 && busy[0].body.kind === "busy", JSON.stringify(queued[0].body));
        const r = await over;
        assertEquals([r.status, r.body.kind], [503, "budget"]);
        assert(/--call_time_limit 0\.5 s/.test(r.body.error), r.body.error);
        assertEquals((await api.send("GET", `/sessions/${id}`)).status, 404);
        // The recording ends at the last answered call and re-simulates.
        const lines = (await Deno.readTextFile(created.recording.file)).trimEnd().split("\n");
        assertEquals(JSON.parse(lines.at(-1)!).type, "end");
        const v = await runCli(["replay", created.recording.file, "--verify"]);
        assertEquals(v.code, 0, v.err.join("\n"));
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
