// `evtsim serve --spare_workers N`: workers started and warmed up ahead so a
// new session starts at once. A worker still serves one session only, so a
// session on a spare starts with nothing any earlier session (or its policy
// module) left behind; spares stay within --max_sessions and are ended on
// shutdown.

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";
import { type HttpClient, withServer } from "../_service_helpers.ts";

// An admission policy that keeps state in its module: it holds every job for
// its first three runs, then starts whatever fits. Run in a module instance
// that served a session before, it starts jobs at once.
const MODULE = `let runs = 0;
export const admissions = [{
  name: "late_starter",
  runSession(s) {
    runs++;
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (runs > 3 && job.numNodes <= s.free) s.dispatch(job, false);
      else s.pend(job, { code: "insufficient_nodes", message: "held" });
    }
  },
}];
`;

const LATE_JOBS = [0, 10, 20, 30, 40, 50].map((t) => ({
  submitTime: t,
  numNodes: 1,
  timeLimit: 100,
  actualRunTime: 5,
}));

const FAIRSHARE = {
  totalNodes: 10,
  picker: "fairshare",
  pickerSettings: { fairshare: { halfLife: 3600, maxAge: 3600, weights: { age: 0 } } },
};
const FAIRSHARE_JOBS = [
  { submitTime: 0, numNodes: 10, timeLimit: 3600, user: "alice" },
  { submitTime: 100, numNodes: 10, timeLimit: 600, user: "alice" },
  { submitTime: 200, numNodes: 10, timeLimit: 600, user: "bob" },
];

async function waitForSpares(api: HttpClient, n: number): Promise<void> {
  const t0 = performance.now();
  while ((await api.ok("GET", "/health")).spareWorkers < n) {
    assert(performance.now() - t0 < 60_000, `${n} spare workers not ready after 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function begins(api: HttpClient, params: unknown, jobs: unknown[]): Promise<number[]> {
  const { sessionId } = await api.ok("POST", "/sessions", params);
  await api.ok("POST", `/sessions/${sessionId}/jobs`, { jobs });
  const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
  return out.jobs.map((r: { beginTime: number }) => r.beginTime);
}

Deno.test("serve --spare_workers: a session on a spare worker keeps nothing from earlier sessions or their policy module", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-spares-" });
  try {
    const policyModule = `${dir}/late.ts`;
    await Deno.writeTextFile(policyModule, MODULE);
    const { loadPolicyModule } = await import("../../cli/policy_module.ts");
    const registry = await loadPolicyModule(policyModule);
    const late = { totalNodes: 10, admission: "late_starter" };
    // On a fresh module: held at 0, 10, 20; the run at 30 starts all four.
    const fresh = [30, 30, 30, 30, 40, 50];
    await withServer({ policyModule, registry, spareWorkers: 2 }, async (server, api) => {
      await waitForSpares(api, 2);
      // Fairshare usage first, then the stateful module twice, then fairshare again:
      // every session runs on a spare (warmed up, module loaded) and gives the
      // schedule of a fresh server.
      const fairshare = await begins(api, FAIRSHARE, FAIRSHARE_JOBS);
      assertEquals(fairshare, [0, 4200, 3600]);
      for (let i = 0; i < 3; i++) {
        await waitForSpares(api, 1);
        assertEquals(await begins(api, late, LATE_JOBS), fresh, `late_starter session ${i + 1}`);
      }
      await waitForSpares(api, 1);
      assertEquals(await begins(api, FAIRSHARE, FAIRSHARE_JOBS), fairshare);
      assertEquals(server.sessions.size, 0);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --spare_workers: spares and sessions stay within --max_sessions workers", async () => {
  await withServer(
    { maxSessions: 2, spareWorkers: 4, grpcPort: undefined },
    async (server, api) => {
      const host = server.sessions;
      await waitForSpares(api, 2);
      assertEquals(host.sparesStarted, 2);
      const a = (await api.ok("POST", "/sessions", { totalNodes: 4 })).sessionId;
      assertEquals(host.sparesStarted, 1, "spares running with 1 session of 2");
      await api.ok("POST", "/sessions", { totalNodes: 4 });
      assertEquals(host.sparesStarted, 0, "spares running with 2 sessions of 2");
      assertEquals((await api.send("POST", "/sessions", { totalNodes: 4 })).status, 429);
      await api.ok("DELETE", `/sessions/${a}`);
      // The freed slot gets a spare again.
      await waitForSpares(api, 1);
      assertEquals(host.sparesStarted, 1);
    },
  );
});

Deno.test("serve --spare_workers: shutdown ends the spares (the process exits with no worker left)", async () => {
  // A live worker keeps a Deno process running: the script below only ends by
  // itself if close() ended every spare, including one still starting.
  const script = `
    import { startServer } from "${ROOT}api/service/server.ts";
    const server = await startServer({ port: 0, version: "test", spareWorkers: 3 });
    const t0 = performance.now();
    while (server.sessions.spares < 3) {
      if (performance.now() - t0 > 60000) throw new Error("spares not ready");
      await new Promise((r) => setTimeout(r, 50));
    }
    // Taking one starts another: close while it starts.
    await server.sessions.create({ totalNodes: 4 });
    await server.close();
    console.log("closed, spares " + server.sessions.spares);
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", `${ROOT}deno.json`, "--ext=ts", script],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  try {
    const out = await child.output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, `the process did not end by itself: ${text}`);
    assert(text.includes("closed, spares 0"), text);
  } finally {
    clearTimeout(timer);
  }
});
