// preempt_mode: suspend through the fronts: simulate --queues (its
// --decisions state changes and statistics lines), --record + replay
// --verify, the REPL's SUSP state change and `info job`, compare with the
// same queues file, and serve's HTTP session queues.

import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { withServer } from "../_service_helpers.ts";
import { repl } from "../_repl_helpers.ts";

const TRACE = `${ROOT}examples/demo_queues_trace.csv`;
const SUSPENDING = "queues:\n  - name: pbatch\n    preempt_mode: suspend\n" +
  "  - name: pdebug\n    priority: 10\n    max_running: 16\n";

async function withDir<T>(f: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-suspend-" });
  try {
    return await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("simulate --queues with preempt_mode suspend: state changes, statistics, the row; --record replays with --verify; the REPL shows SUSP", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/q.yaml`, SUSPENDING);
    const r = await runCli([
      "simulate",
      TRACE,
      "-n",
      "128",
      "--queues",
      `${dir}/q.yaml`,
      "--admission",
      "easy",
      "--extended_output",
      "-o",
      `${dir}/s.csv`,
      "--decisions",
      `${dir}/d.jsonl`,
      "--record",
      `${dir}/r.replay`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const text = [...r.out, ...r.err].join("\n");
    assert(text.includes("[evtsim] Preemptions: 77 (at most 4 of one job)"), text);
    assert(
      text.includes("[evtsim] Suspensions: 77 (1.99031e+06 s waited suspended; no work lost)"),
      text,
    );
    const rows = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    // Job 115 (16 nodes, runs 396 s) began at 16437, is suspended at 16580 after
    // 143 s, resumes at 16619 and runs the 253 s left: it ends at 16872.
    assertEquals(rows.filter((d) => d.jobId === 115 && d.type !== "PEND"), [
      {
        type: "DISPATCH",
        time: 16437,
        round: 205,
        jobId: 115,
        numNodes: 16,
        backfill: true,
        queue: "pbatch",
      },
      {
        type: "JOB_STATE_CHANGE",
        time: 16580,
        jobId: 115,
        oldState: "running",
        newState: "suspended",
        cause: "preemption",
        nodes: [],
        requeues: 0,
        suspensions: 1,
        preemptedBy: 116,
      },
      {
        type: "DISPATCH",
        time: 16619,
        round: 207,
        jobId: 115,
        numNodes: 16,
        backfill: true,
        queue: "pbatch",
      },
    ]);
    const csv = (await Deno.readTextFile(`${dir}/s.csv`)).split("\n");
    const row = csv.find((l) => l.split(",")[7] === "115")!.split(",").slice(0, 8);
    assertEquals(row, ["16406", "16437", "16872", "16", "0", "pbatch", "396", "115"]);
    const v = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
    assertEquals(v.code, 0, v.err.join("\n"));
    assert(v.out.join("\n").includes("every decision matches"), v.out.join("\n"));
    const run = await repl(`${dir}/r.replay`, [
      "break JOB_STATE_CHANGE state=SUSP",
      "continue",
      "next",
      "info job 115",
      "quit",
    ]);
    assertEquals(run.of("continue"), [
      "[sim] breakpoint 1 hit before event #451 (t=16580): JOB_STATE_CHANGE job=115 state=SUSP oldState=RUN queue=pbatch suspensions=1 time=16580",
    ]);
    assertEquals(run.of("info job 115").slice(0, 3), [
      "job 115: waiting since 16580 (0 s)",
      "  queue pbatch, priority 0, 16 nodes, limit 253 s, submitted at 16580",
      "  suspended 1 time(s) by preemption (first began at 16437; suspended since 16580; 253 s of run time and 253 s of its 396 s limit remain)",
    ]);
  });
});

Deno.test("compare resolves a suspend queue as simulate does: its run has simulate's average wait", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/q.yaml`, SUSPENDING);
    const r = await runCli([
      "compare",
      TRACE,
      "-n",
      "128",
      "--queues",
      `${dir}/q.yaml`,
      "--policies",
      "easy",
      "--json",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    // simulate's "Average wait time: 11414.2 sec" (the test above).
    assertEquals(Math.round(JSON.parse(r.out.join("\n"))[0].wait_mean_s * 10) / 10, 11414.2);
  });
});

Deno.test("sweep takes a suspend queues file from its spec's folder: its cell has simulate's average wait", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/q.yaml`, SUSPENDING);
    await Deno.copyFile(TRACE, `${dir}/t.csv`);
    await Deno.writeTextFile(
      `${dir}/spec.yaml`,
      "traces: [t.csv]\npolicies: [easy]\ntotal_nodes: [128]\noptions: {queues: q.yaml}\n",
    );
    const r = await runCli(["sweep", `${dir}/spec.yaml`, "--results", `${dir}/out`, "--jobs", "1"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const [head, row] = (await Deno.readTextFile(`${dir}/out/results.csv`)).split("\n");
    const wait = row.split(",")[head.split(",").indexOf("wait_mean_s")];
    // simulate's "Average wait time: 11414.2 sec" (the first test); its
    // utilization, 0.790314, counts no suspended time (the rows span it).
    assertEquals(wait, "11414.1935");
    const utilization = row.split(",")[head.split(",").indexOf("utilization")];
    assertEquals(Number(utilization).toPrecision(6), "0.790314");
  });
});

Deno.test("serve: a session's queues take preemptMode suspend; its finish has the suspended job's row and statistics", async () => {
  await withServer({}, async (_server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", {
      totalNodes: 4,
      backfillPolicy: "easy",
      queues: [{ name: "batch", preemptMode: "suspend" }, { name: "urgent", priority: 10 }],
    });
    await api.ok("POST", `/sessions/${sessionId}/jobs`, {
      jobs: [
        { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 50, queue: "batch" },
        { submitTime: 10, numNodes: 4, timeLimit: 20, actualRunTime: 20, queue: "urgent" },
      ],
    });
    const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
    const rows = out.jobs.map((r: Record<string, unknown>) => [r.jobId, r.beginTime, r.endTime]);
    assertEquals(rows, [[0, 0, 70], [1, 10, 30]]);
    assertEquals(
      [out.statistics.suspensions, out.statistics.suspendedSeconds, out.statistics.preemptedWork],
      [1, 20, 0],
    );
  });
});
