// Small first-day surprises from issue 27's review, each pinned: a CSV given
// to `replay`, a --record_dir that does not exist yet, pending_reason on a
// job that does not exist, the SWF load report under -n, and rejected jobs
// as one summary line.

import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";
import { withServer } from "../_service_helpers.ts";
import { EvtsimError, Simulation } from "../../mod.ts";

async function inTemp(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-first-day-" });
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("replay and dump on a CSV: not a .replay log (no header)", async () => {
  const csv = `${ROOT}examples/demo_trace.csv`;
  for (const command of ["replay", "dump"]) {
    const r = await runCli([command, csv]);
    assertEquals([r.code, r.err], [1, [`evtsim: ${csv}:1: not a .replay log (no header)`]]);
  }
});

Deno.test("serve --record_dir makes a missing folder; a file there is refused", async () => {
  await inTemp(async (dir) => {
    const folder = `${dir}/recordings/today`;
    await withServer({ recordDir: folder, grpcPort: undefined }, async () => {
      assert((await Deno.stat(folder)).isDirectory);
    });
    await Deno.writeTextFile(`${dir}/file`, "");
    const r = await runCli([
      "serve",
      "--record_dir",
      `${dir}/file`,
      "--port",
      "0",
      "--grpc_port",
      "off",
    ]);
    assertEquals([r.code, r.err], [1, [`evtsim: --record_dir ${dir}/file is not a folder`]]);
  });
});

Deno.test("pendingReason: a job that does not exist is an error, a running one is undefined", async () => {
  const sim = new Simulation({ totalNodes: 10 });
  sim.appendJobs([
    { submitTime: 0, numNodes: 8, timeLimit: 100 },
    { submitTime: 0, numNodes: 6, timeLimit: 50 },
  ]);
  sim.advanceTo(0);
  assertEquals(sim.pendingReason(0), undefined); // running
  assertEquals(sim.pendingReason(1)?.code, "insufficient_nodes");
  for (const id of [2, -1, 0.5]) {
    let e: unknown;
    try {
      sim.pendingReason(id);
    } catch (x) {
      e = x;
    }
    assert(e instanceof EvtsimError && e.kind === "state", String(e));
    assertEquals((e as Error).message, `no job ${id}: the jobs so far are 0..1`);
  }
  // The HTTP front: 404 either way, each saying which.
  await withServer({ grpcPort: undefined }, async (_server, api) => {
    const { sessionId: id } = await api.ok("POST", "/sessions", { totalNodes: 10 });
    await api.ok("POST", `/sessions/${id}/jobs`, {
      jobs: [{ submitTime: 0, numNodes: 8, timeLimit: 100 }],
    });
    await api.ok("POST", `/sessions/${id}/advance`, { time: 0 });
    const running = await api.send("GET", `/sessions/${id}/jobs/0/pending_reason`);
    const unknown = await api.send("GET", `/sessions/${id}/jobs/5/pending_reason`);
    assertEquals([running.status, (running.body as { error: string }).error], [
      404,
      "job 0 is not waiting",
    ]);
    assertEquals([unknown.status, (unknown.body as { error: string }).error], [
      404,
      "no job 5: the jobs so far are 0..0",
    ]);
  });
});

Deno.test("SWF under -n: the report names -n, not the header's size; rejected jobs are one line", async () => {
  const swf = `${ROOT}tests/fixtures/swf/sdsc_blue_300.swf`;
  await inTemp(async (dir) => {
    const given = await runCli(["simulate", swf, "-n", "50", "-o", `${dir}/s.csv`]);
    assertEquals(given.code, 0, given.err.join("\n"));
    assertEquals(given.err.slice(3), [
      `${swf}: machine size: 50 (--total_nodes; the header's 1152 procs is not used)`,
      "85 jobs rejected: they request more nodes than total_nodes (50) and can never be scheduled (jobs 0, 1, 2, 3, 12 and 80 more; --verbose lists each)",
    ]);
    const header = await runCli(["simulate", swf, "-o", `${dir}/s.csv`]);
    assertEquals(header.err.slice(3), [`${swf}: machine size from the header: 1152 procs`]);
    const all = await runCli(["simulate", swf, "-n", "50", "-o", `${dir}/s.csv`, "--verbose"]);
    assertEquals(all.err.filter((l) => / rejected: requests /.test(l)).length, 85);
    assert(!all.err.some((l) => l.includes("--verbose lists each")));
  });
});
