// `evtsim serve --machine FILE` (issue 28 item 6): a real server process
// runs every session on the machine; jobs appended over HTTP carry their
// demands by the CSV trace's rules; the schedule and the per-resource
// utilization equal `evtsim simulate TRACE --machine FILE`'s; bad demands
// and jobs the machine can never hold are one-line 400s naming the job and
// field; a session giving totalNodes is refused; a session's recording
// replays on the machine.

import { simulateGpu } from "../_gpu_example.ts";
import { cliCommand, recordProcessRun, ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { HttpClient, withServer } from "../_service_helpers.ts";
import { httpJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

/** Runs `evtsim serve --machine MACHINE` as a process; gives `f` its HTTP client. */
async function withMachineServer(
  f: (api: HttpClient) => Promise<void>,
  extra: readonly string[] = [],
): Promise<void> {
  const argv = cliCommand([
    "serve",
    "--port",
    "0",
    "--grpc_port",
    "off",
    "--machine",
    MACHINE,
    ...extra,
  ]);
  argv.splice(1, 0, "--allow-net");
  const child = new Deno.Command(Deno.execPath(), {
    args: argv,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/^HTTP: .*\n/m.test(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    reader.releaseLock();
    const http = /^HTTP: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(seen)?.[1];
    assert(http !== undefined, seen);
    await f(new HttpClient(http));
  } finally {
    child.kill("SIGTERM");
    await child.status;
    const err = new TextDecoder().decode(
      new Uint8Array(await new Response(child.stderr).arrayBuffer()),
    );
    await child.stdout.cancel().catch(() => {});
    recordProcessRun(["serve"], err);
  }
}

Deno.test("serve --machine: appended demand jobs are scheduled as simulate --machine schedules them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-machine-" });
  try {
    await simulateGpu(["-o", `${dir}/s.csv`, "--stats_json", `${dir}/stats.json`]);
    const expected = (await Deno.readTextFile(`${dir}/s.csv`)).trim().split("\n").slice(1)
      .map((l) => l.split(",").slice(0, 3).map(Number));
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/stats.json`));
    const jobs = httpJobs(await Deno.readTextFile(TRACE));
    await withMachineServer(async (api) => {
      const { sessionId } = await api.ok("POST", "/sessions", { backfillPolicy: "easy" });
      // Half one call, half job by job: both paths read demands.
      await api.ok("POST", `/sessions/${sessionId}/jobs`, { jobs: jobs.slice(0, 5) });
      for (const job of jobs.slice(5)) await api.ok("POST", `/sessions/${sessionId}/job`, { job });
      const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
      const got = out.jobs.map((r: Record<string, number>) => [
        r.submitTime,
        r.beginTime,
        r.endTime,
      ]).sort((a: number[], b: number[]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
      assertEquals(jobs.length, 10);
      assertEquals(got, [...expected].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]));
      // Some job waited, so the schedule says something about placement.
      assert(expected.some(([s, b]) => b > s), JSON.stringify(expected));
      assertEquals(out.resourceMetrics, stats.resources);
      assert(out.decisions.some((d: { allocation?: unknown }) => d.allocation !== undefined));
      // The session was recorded on the machine, and its recording re-simulates.
      const replay = await runCli(["replay", out.recording.file, "--verify"]);
      assertEquals(replay.code, 0, replay.err.join("\n"));
      assert(replay.out.join("\n").includes("every decision matches"), replay.out.join("\n"));
    }, ["--record_dir", `${dir}/rec`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --machine: bad demands, jobs the machine cannot hold and totalNodes are one-line 400s", async () => {
  await withMachineServer(async (api) => {
    const given = await api.send("POST", "/sessions", { totalNodes: 4 });
    assertEquals(given.status, 400, JSON.stringify(given.body));
    assert(/^totalNodes: leave it out/.test(given.body.error), JSON.stringify(given.body));
    const { sessionId } = await api.ok("POST", "/sessions", {});
    const ok = { submitTime: 0, numNodes: 1, timeLimit: 60 };
    for (
      const [job, message] of [
        [{ numCores: -1 }, /^job 1: numCores: expected a non-negative integer, got '-1'$/],
        [{ numCores: 1.5 }, /^job 1: numCores: /],
        [{ memory: "lots" }, /^job 1: memory: expected a non-negative integer of MiB or a size/],
        [{ partition: "nope" }, /^job 1: partition: /],
        [{ topology: "nope" }, /^job 1: topology: /],
        // No node has 8 GPUs, or 4 TiB: the machine can never hold it.
        [{ gpus: 8, partition: "gpu" }, /^job 1: gpus: /],
        [{ memory: "4T" }, /^job 1: memory: /],
      ] as const
    ) {
      const r = await api.send("POST", `/sessions/${sessionId}/jobs`, {
        jobs: [ok, { ...ok, ...job }],
      });
      assertEquals(r.status, 400, JSON.stringify(job));
      assert(message.test(r.body.error), `${JSON.stringify(job)}: ${r.body.error}`);
      assert(!r.body.error.includes("\n"), r.body.error);
    }
    // All or nothing: the good job of each refused batch was not appended.
    assertEquals((await api.ok("GET", `/sessions/${sessionId}`)).totalJobs, 0);
    // More whole nodes than the machine has is a demand it can never run: held, not refused.
    const held = await api.send("POST", `/sessions/${sessionId}/jobs`, {
      jobs: [{ ...ok, numNodes: 20 }],
    });
    assertEquals(held.status, 200, JSON.stringify(held.body));
  });
});

Deno.test("serve without --machine: demand fields and a missing totalNodes are one-line 400s", async () => {
  await withServer({ grpcPort: undefined }, async (_server, api) => {
    const none = await api.send("POST", "/sessions", {});
    assertEquals(none.status, 400);
    assertEquals(none.body.error, "totalNodes: required (the server has no --machine)");
    const { sessionId } = await api.ok("POST", "/sessions", { totalNodes: 4 });
    const r = await api.send("POST", `/sessions/${sessionId}/jobs`, {
      jobs: [{ submitTime: 0, numNodes: 1, timeLimit: 60, gpus: 1 }],
    });
    assertEquals(r.status, 400);
    assert(/^job 0: gpus: needs a server started with --machine/.test(r.body.error), r.body.error);
  });
});
