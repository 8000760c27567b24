// Preemption through the fronts: simulate --queues (a queue's
// preempt_mode), its --decisions rows and statistics lines, --record +
// replay --verify, compare with the same queues file, and serve's HTTP
// session queues. A queues file without preempt_mode changes nothing.

import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { withServer } from "../_service_helpers.ts";
import { repl } from "../_repl_helpers.ts";

const TRACE = `${ROOT}examples/demo_queues_trace.csv`;
const PREEMPTING = "queues:\n  - name: pbatch\n    preempt_mode: requeue\n" +
  "  - name: pdebug\n    priority: 10\n    max_running: 16\n";

async function withDir<T>(f: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-preempt-" });
  try {
    return await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("simulate --queues with preempt_mode: PREEMPT rows, state changes, statistics; --record replays with --verify", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/q.yaml`, PREEMPTING);
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
    assert(text.includes("[evtsim] Preemptions: 98 (at most 8 of one job)"), text);
    assert(text.includes("[evtsim] Preempted work (node-seconds"), text);
    const rows = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const preempts = rows.filter((d) => d.type === "PREEMPT");
    assertEquals(preempts.length, 98);
    assertEquals(preempts[0], {
      type: "PREEMPT",
      time: 16580,
      round: 206,
      jobId: 116,
      victims: [115],
      mode: ["requeue"],
      reason: { code: "insufficient_nodes", message: "needs 4 nodes, 0 free", needed: 4, free: 0 },
      queue: "pdebug",
    });
    const change = rows.find((d) => d.type === "JOB_STATE_CHANGE" && d.jobId === 115);
    assertEquals([change.cause, change.oldState, change.preemptedBy], [
      "preemption",
      "running",
      116,
    ]);
    // The preemptor's DISPATCH comes right after its PREEMPT row.
    const i = rows.indexOf(preempts[0]);
    assertEquals([rows[i + 1].type, rows[i + 1].jobId], ["DISPATCH", 116]);
    const v = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
    assertEquals(v.code, 0, v.err.join("\n"));
    assert(v.out.join("\n").includes("every decision matches"), v.out.join("\n"));
    // The REPL shows the PREEMPT decision and the victim's requeue.
    const run = await repl(`${dir}/r.replay`, [
      "break DECISION type=PREEMPT",
      "break JOB_STATE_CHANGE state=PEND",
      "continue",
      "quit",
    ]);
    assertEquals(run.of("continue"), [
      "[sim] breakpoint 1 hit before event #451 (t=16580): DECISION type=PREEMPT job=116 victims=115 mode=requeue queue=pdebug round=206 time=16580",
      "[sim] breakpoint 2 hit before event #451 (t=16580): JOB_STATE_CHANGE job=115 state=PEND oldState=RUN queue=pbatch requeues=1 time=16580",
    ]);
  });
});

Deno.test("queues without preempt_mode (or off): the same files as without the field", async () => {
  await withDir(async (dir) => {
    const plain =
      "queues:\n  - name: pbatch\n  - name: pdebug\n    priority: 10\n    max_running: 16\n";
    await Deno.writeTextFile(`${dir}/a.yaml`, plain);
    await Deno.writeTextFile(
      `${dir}/b.yaml`,
      plain.replace("  - name: pbatch\n", "  - name: pbatch\n    preempt_mode: off\n"),
    );
    for (const q of ["a", "b"]) {
      const r = await runCli([
        "simulate",
        TRACE,
        "-n",
        "128",
        "--queues",
        `${dir}/${q}.yaml`,
        "--admission",
        "easy",
        "-o",
        `${dir}/${q}.csv`,
        "--decisions",
        `${dir}/${q}.jsonl`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      assert(!r.out.join("\n").includes("Preempt"));
    }
    for (const f of [".csv", "_resources.csv", ".jsonl"]) {
      assertEquals(
        await Deno.readTextFile(`${dir}/a${f}`),
        await Deno.readTextFile(`${dir}/b${f}`),
      );
    }
  });
});

Deno.test("compare resolves queues the same way: its preempting run has simulate's average wait", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/q.yaml`, PREEMPTING);
    const waits: number[] = [];
    for (const q of [PREEMPTING, PREEMPTING.replace("    preempt_mode: requeue\n", "")]) {
      await Deno.writeTextFile(`${dir}/q.yaml`, q);
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
      waits.push(JSON.parse(r.out.join("\n"))[0].wait_mean_s);
    }
    // simulate's "Average wait time: 13215 sec" with preemption; 12790.13 without.
    assertEquals(waits, [13215.019, 12790.1295]);
  });
});

Deno.test("serve: a session's queues take preemptMode; its finish has simulate's preemptions", async () => {
  await withServer({}, async (_server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", {
      totalNodes: 4,
      backfillPolicy: "easy",
      queues: [{ name: "batch", preemptMode: "cancel" }, { name: "urgent", priority: 10 }],
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
    assertEquals(rows, [[0, 10, 143], [10, 30, undefined]]);
  });
});
