// `POST /sessions/{id}/capacity` with `down`/`up` (issue 28 item 5): on a
// --machine server, nodes and groups go offline and back live, and the
// session's schedule and per-resource utilization equal `simulate --machine
// --capacity_schedule`'s with the same changes (drain and kill); its
// recording replays with --verify. The names form on whole nodes, both forms
// at once, and an unknown name are one-line 400s.

import { GPU_NODE_CHANGES, gpuRunWithNodeChanges } from "../_gpu_example.ts";
import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { byTimes, httpJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

for (const cut of ["drain", "kill"] as const) {
  Deno.test(`serve --machine: live down/up by node and group give simulate --capacity_schedule's rows (${cut}); the recording replays with --verify`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-serve-live-nodes-" });
    try {
      const { rows: expected, stats } = await gpuRunWithNodeChanges(dir, cut);
      const machine = await readMachine(MACHINE);
      await withServer({ machine, recordDir: `${dir}/rec` }, async (_server, api) => {
        const { sessionId } = await api.ok("POST", "/sessions", {
          backfillPolicy: "easy",
          onCapacityCut: cut,
        });
        await api.ok("POST", `/sessions/${sessionId}/jobs`, {
          jobs: httpJobs(await Deno.readTextFile(TRACE)),
        });
        for (const change of GPU_NODE_CHANGES) {
          await api.ok("POST", `/sessions/${sessionId}/capacity`, change);
        }
        const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
        const got = out.jobs.map((r: Record<string, number>) => [
          r.submitTime,
          r.beginTime,
          r.endTime,
        ]).sort(byTimes);
        assertEquals(got, expected);
        assertEquals(out.resourceMetrics, stats.resources);
        assertEquals(out.metrics.utilization, stats.metrics.utilization);
        assertEquals(
          out.jobs.some((r: { outcome?: string }) => r.outcome === "killed"),
          cut === "kill",
        );
        const replay = await runCli(["replay", out.recording.file, "--verify"]);
        assertEquals(replay.code, 0, replay.err.join("\n"));
        assert(replay.out.join("\n").includes("every decision matches"), replay.out.join("\n"));
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("serve: the names form on whole nodes, both forms, neither, and an unknown node or group are one-line 400s", async () => {
  const machine = await readMachine(MACHINE);
  await withServer({ machine }, async (_server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", {});
    for (
      const [body, message] of [
        [
          { down: ["gpu9"] },
          /^down: expected a node or group of the machine \(groups: cpu, gpu, bigmem\), got 'gpu9'$/,
        ],
        [{ up: ["gpu001", "nope"] }, /^up: expected a node or group of the machine .*got 'nope'$/],
        [{ capacity: 2, down: ["gpu"] }, /^give either capacity \(a node count\) or down\/up/],
        [{ time: 5 }, /^give either capacity \(a node count\) or down\/up/],
        [{ down: [] }, /^changeNodes: name at least one node in down or up$/],
      ] as const
    ) {
      const r = await api.send("POST", `/sessions/${sessionId}/capacity`, body);
      assertEquals(r.status, 400, JSON.stringify(r.body));
      assert(message.test(r.body.error), `${JSON.stringify(body)}: ${r.body.error}`);
      assert(!r.body.error.includes("\n"), r.body.error);
    }
  });
  await withServer({}, async (_server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", { totalNodes: 4 });
    const r = await api.send("POST", `/sessions/${sessionId}/capacity`, { down: ["n1"] });
    assertEquals(r.status, 400, JSON.stringify(r.body));
    assert(/^down, up: name nodes of a machine .*give capacity/.test(r.body.error), r.body.error);
  });
});
