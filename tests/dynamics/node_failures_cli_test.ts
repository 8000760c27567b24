// Node failures through the fronts (issue 30 item 1): `simulate --machine
// --node_failures FILE` (kill and requeue: the schedule, the JOB_STATE_CHANGE
// rows of --decisions, the requeues column, the statistics), no failure =
// the same files byte for byte, `--failure_model` drawn from a seed and
// written by `--failures_out` (read back: the same run), a recording that
// replays with --verify and shows the requeue in the REPL, a live failure
// on `evtsim serve --machine`.

import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { repl } from "../_repl_helpers.ts";
import { withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { httpJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;
const FAILURES = "time,node,state\n600,gpu001,down\n1500,gpu002,down\n2400,gpu001,up\n" +
  "4000,gpu002,up\n";

async function inDir(f: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-failures-cli-" });
  try {
    await f(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// simulate the GPU example into dir/NAME.* with `extra`.
async function simulate(dir: string, name: string, extra: string[]) {
  const r = await runCli([
    "simulate",
    TRACE,
    "--machine",
    MACHINE,
    "--admission",
    "easy",
    "-o",
    `${dir}/${name}.csv`,
    "--decisions",
    `${dir}/${name}.jsonl`,
    "--stats_json",
    `${dir}/${name}.json`,
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const read = (ext: string) => Deno.readTextFileSync(`${dir}/${name}${ext}`);
  return {
    out: r.out,
    schedule: read(".csv"),
    resources: read("_resources.csv"),
    decisions: read(".jsonl"),
    stats: JSON.parse(read(".json")),
  };
}

Deno.test("simulate --node_failures: kill ends job 1 on gpu001 at 600 (137); requeue runs it again later, same id, one row, requeues 1", async () => {
  await inDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f.csv`, FAILURES);
    const kill = await simulate(dir, "kill", ["--node_failures", `${dir}/f.csv`]);
    assert(kill.schedule.includes("\n0,0,600,0,137,7200\n"), kill.schedule);
    assertEquals(kill.stats.statistics.lostWork, 600);
    assertEquals(kill.stats.statistics.requeues, 0);
    assert(!kill.decisions.includes("JOB_STATE_CHANGE"));
    assert(
      kill.out.includes(
        "[evtsim] Lost work to node failures (node-seconds run by the jobs a failure killed or requeued): 600",
      ),
      kill.out.join("\n"),
    );
    const requeue = await simulate(dir, "requeue", [
      "--node_failures",
      `${dir}/f.csv`,
      "--on_node_failure",
      "requeue",
      "--extended_output",
    ]);
    const lines = requeue.schedule.trim().split("\n");
    assert(lines[0].endsWith(",trace_user,nodes,requeues"), lines[0]);
    assertEquals(lines.length, 11);
    assertEquals(lines[2], "0,3800,6800,0,0,7200,1,3800,2.266667,,bob,gpu004,1");
    assertEquals(requeue.stats.statistics.requeues, 1);
    assertEquals(requeue.stats.statistics.maxRequeues, 1);
    assertEquals(requeue.stats.statistics.lostWork, 600);
    assert(
      requeue.out.includes("[evtsim] Requeues after node failures: 1 (at most 1 of one job)"),
      requeue.out.join("\n"),
    );
    // The requeue is a row of the decisions, before the round at its instant.
    const rows = requeue.decisions.trim().split("\n").map((l) => JSON.parse(l));
    const i = rows.findIndex((d) => d.type === "JOB_STATE_CHANGE");
    assertEquals(rows[i], {
      type: "JOB_STATE_CHANGE",
      time: 600,
      jobId: 1,
      oldState: "running",
      newState: "pending",
      cause: "node_failure",
      nodes: ["gpu001"],
      requeues: 1,
    });
    assert(rows.slice(0, i).every((d) => d.time <= 600));
    assert(rows.slice(i + 1).every((d) => d.time >= 600));
    assertEquals(rows.filter((d) => d.type === "DISPATCH" && d.jobId === 1).length, 2);
  });
});

Deno.test("simulate: a failure trace without failures (header only) writes the same files as no failure option, byte for byte", async () => {
  await inDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/none_f.csv`, "time,node,state\n");
    const plain = await simulate(dir, "plain", ["--extended_output"]);
    const none = await simulate(dir, "none", [
      "--extended_output",
      "--node_failures",
      `${dir}/none_f.csv`,
      "--on_node_failure",
      "requeue",
    ]);
    assertEquals(none.schedule, plain.schedule);
    assertEquals(none.resources, plain.resources);
    assertEquals(none.decisions, plain.decisions);
    assertEquals(none.stats.statistics, plain.stats.statistics);
    assertEquals(none.stats.metrics, plain.stats.metrics);
    const timeless = (lines: string[]) =>
      lines.filter((l) =>
        !l.includes(" written to") && !/^\[evtsim\] Time reading|^Wall clock/.test(l)
      );
    assertEquals(timeless(none.out), timeless(plain.out));
  });
});

Deno.test("simulate --failure_model: the same seed draws the same failures; --failures_out read back with --node_failures gives the same run", async () => {
  await inDir(async (dir) => {
    const model = ["--failure_model", "mtbf=3000,repair=600,until=6000,seed=7"];
    const common = ["--on_node_failure", "requeue", "--extended_output"];
    const a = await simulate(dir, "a", [...model, ...common, "--failures_out", `${dir}/a_f.csv`]);
    const b = await simulate(dir, "b", [...model, ...common, "--failures_out", `${dir}/b_f.csv`]);
    const drawn = await Deno.readTextFile(`${dir}/a_f.csv`);
    assertEquals(drawn, await Deno.readTextFile(`${dir}/b_f.csv`));
    assert(drawn.startsWith("time,node,state\n") && drawn.split("\n").length > 5, drawn);
    assertEquals(a.schedule, b.schedule);
    const c = await simulate(dir, "c", [...common, "--node_failures", `${dir}/a_f.csv`]);
    assertEquals(c.schedule, a.schedule);
    assertEquals(c.decisions, a.decisions);
    assertEquals(c.stats.statistics, a.stats.statistics);
    // Another seed, other failures.
    await simulate(dir, "d", [
      "--failure_model",
      "mtbf=3000,repair=600,until=6000,seed=8",
      "--failures_out",
      `${dir}/d_f.csv`,
    ]);
    assert(drawn !== await Deno.readTextFile(`${dir}/d_f.csv`));
  });
});

Deno.test("simulate --record with node failures: replay --verify passes; the REPL shows the requeue and info job says so", async () => {
  await inDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f.csv`, FAILURES);
    await simulate(dir, "rec", [
      "--node_failures",
      `${dir}/f.csv`,
      "--on_node_failure",
      "requeue",
      "--record",
      `${dir}/rec.replay`,
      "--snapshot_interval",
      "3",
    ]);
    const verify = await runCli(["replay", `${dir}/rec.replay`, "--verify"]);
    assertEquals(verify.code, 0, verify.err.join("\n"));
    assert(verify.out.join("\n").includes("verify: every decision matches the recording"));
    // What if the failures had killed: job 1 does not complete.
    const whatIf = await runCli(["replay", `${dir}/rec.replay`, "--on_node_failure", "kill"]);
    assertEquals(whatIf.code, 0, whatIf.err.join("\n"));
    assert(
      /^jobs completed +10 +9$/m.test(whatIf.out.join("\n")),
      whatIf.out.join("\n"),
    );
    const r = await repl(`${dir}/rec.replay`, [
      "break JOB_STATE_CHANGE state=PEND",
      "continue",
      "step",
      "info job 1",
      "quit",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(
      r.of("continue")[0].endsWith(
        "JOB_STATE_CHANGE job=1 state=PEND oldState=RUN requeues=1 time=600",
      ),
      r.of("continue").join("\n"),
    );
    const stepped = r.of("step");
    assert(stepped.includes("  NODE_CHANGE node=gpu001 state=DOWN source=failure time=600"));
    const info = r.of("info job 1");
    assertEquals(info[0], "job 1: waiting since 600 (0 s)");
    assert(
      info.includes(
        "  requeued 1 time(s) by node failures (first submitted at 0; back in the queue at 600)",
      ),
      info.join("\n"),
    );
  });
});

Deno.test("serve --machine: POST /capacity {failed} requeues the job on the node (onNodeFailure at POST /sessions); the finish rows say so", async () => {
  const machine = await readMachine(MACHINE);
  await withServer({ machine }, async (_server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", {
      backfillPolicy: "easy",
      onNodeFailure: "requeue",
      requeueLimit: 2,
    });
    await api.ok("POST", `/sessions/${sessionId}/jobs`, {
      jobs: httpJobs(await Deno.readTextFile(TRACE)),
    });
    await api.ok("POST", `/sessions/${sessionId}/advance`, { time: 500 });
    await api.ok("POST", `/sessions/${sessionId}/capacity`, { time: 600, failed: ["gpu001"] });
    // The failure applies when the clock reaches it.
    const moved = await api.ok("POST", `/sessions/${sessionId}/advance`, { time: 700 });
    assert(
      moved.notices.some((n: { kind: string; jobId: number; oldState: string }) =>
        n.kind === "jobStateChange" && n.jobId === 1 && n.oldState === "running"
      ),
      JSON.stringify(moved),
    );
    await api.ok("POST", `/sessions/${sessionId}/capacity`, { time: 2400, up: ["gpu001"] });
    const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
    const row = out.jobs.find((r: { jobId: number }) => r.jobId === 1);
    assertEquals(row.requeues, 1);
    assert(row.beginTime > 600, JSON.stringify(row));
    assertEquals(out.statistics.lostWork, 600);
  });
});

Deno.test("simulate --failure_model until=T,seed=N with a machine whose gpu group has failures: only its nodes fail", async () => {
  await inDir(async (dir) => {
    const text = await Deno.readTextFile(MACHINE);
    const machine = text.replace(
      "    labels: { rack: gpu-rack }\n",
      "    labels: { rack: gpu-rack }\n    failures: { mtbf: 2000, repair: 300 }\n",
    );
    assert(machine !== text);
    await Deno.writeTextFile(`${dir}/m.yaml`, machine);
    const r = await runCli([
      "simulate",
      TRACE,
      "--machine",
      `${dir}/m.yaml`,
      "--failure_model",
      "until=6000,seed=1",
      "--failures_out",
      `${dir}/f.csv`,
      "-o",
      `${dir}/s.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = (await Deno.readTextFile(`${dir}/f.csv`)).trim().split("\n").slice(1);
    assert(rows.length >= 4, rows.join("\n"));
    assert(rows.every((l) => /^\d+,gpu00[1-4],(down|up)$/.test(l)), rows.join("\n"));
  });
});
