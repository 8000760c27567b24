// grace_time through the fronts: simulate --queues (the PREEMPT row's grace
// and stopAt, the victim's stop, the preemptor's start), --record + replay
// --verify, and serve's HTTP session queues (graceTime).

import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { withServer } from "../_service_helpers.ts";

const TRACE = `${ROOT}examples/demo_queues_trace.csv`;
const GRACE = "queues:\n  - name: pbatch\n    preempt_mode: requeue\n    grace_time: 60\n" +
  "  - name: pdebug\n    priority: 10\n    max_running: 16\n";

Deno.test("simulate --queues with grace_time: the victim stops 60 s after the PREEMPT row, the preemptor starts then; --record replays with --verify", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-grace-" });
  try {
    await Deno.writeTextFile(`${dir}/q.yaml`, GRACE);
    const r = await runCli([
      "simulate",
      TRACE,
      "-n",
      "128",
      "--queues",
      `${dir}/q.yaml`,
      "--admission",
      "easy",
      "-o",
      `${dir}/s.csv`,
      "--decisions",
      `${dir}/d.jsonl`,
      "--record",
      `${dir}/r.replay`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const text = [...r.out, ...r.err].join("\n");
    assert(text.includes("[evtsim] Preemptions: 85 (at most 5 of one job)"), text);
    const rows = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const i = rows.findIndex((d) => d.type === "PREEMPT");
    assertEquals([rows[i].time, rows[i].jobId, rows[i].victims, rows[i].grace, rows[i].stopAt], [
      16580,
      116,
      [115],
      [60],
      16640,
    ]);
    // Nothing starts between the PREEMPT row and the preemptor's DISPATCH at the stop.
    const next = rows.slice(i + 1).find((d) => d.type === "DISPATCH");
    assertEquals([next.jobId, next.time], [116, 16640]);
    const stop = rows.find((d) => d.type === "JOB_STATE_CHANGE" && d.jobId === 115);
    assertEquals([stop.time, stop.newState, stop.preemptedBy], [16640, "pending", 116]);
    const v = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
    assertEquals(v.code, 0, v.err.join("\n"));
    assert(v.out.join("\n").includes("every decision matches"), v.out.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: a session's queues take graceTime; the victim runs on until the grace ends", async () => {
  await withServer({}, async (_server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", {
      totalNodes: 4,
      backfillPolicy: "easy",
      queues: [
        { name: "batch", preemptMode: "cancel", graceTime: 15 },
        { name: "urgent", priority: 10 },
      ],
    });
    await api.ok("POST", `/sessions/${sessionId}/jobs`, {
      jobs: [
        { submitTime: 0, numNodes: 4, timeLimit: 100, queue: "batch" },
        { submitTime: 10, numNodes: 2, timeLimit: 20, queue: "urgent" },
      ],
    });
    const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
    const rows = out.jobs.map((
      r: Record<string, unknown>,
    ) => [r.beginTime, r.endTime, r.exitStatus]);
    // Cancelled at 10 + 15 = 25 (exit status 143); the urgent job runs 25..45.
    assertEquals(rows, [[0, 25, 143], [25, 45, undefined]]);
  });
});
