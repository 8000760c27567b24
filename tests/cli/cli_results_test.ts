// Machine-readable results (issue 8, item 2): --stats_json, --extended_output
// and an SWF schedule that SWF readers (ours included) read back.

import { readSwf } from "../../io/swf.ts";
import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-results-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const rows = (path: string) => Deno.readTextFileSync(path).trim().split("\n");

/** A 400-job trace with queueing on 64 nodes, submit times from 0. */
function writeTrace(path: string): void {
  Deno.writeTextFileSync(
    path,
    traceToCsv(generateTrace({ seed: 21, jobs: 400, nodes: 64, load: 1.3, ties: true })),
  );
}

function nearestRank(sorted: number[], p: number): number {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

Deno.test("--extended_output adds job_id,wait_time,bounded_slowdown,trace_job_id,trace_user,nodes; the default stays DR_EVT's", async () => {
  await withDir(async (d) => {
    writeTrace(`${d}/t.csv`);
    const plain = await runCli(["simulate", `${d}/t.csv`, "-n", "64", "-o", `${d}/p.csv`]);
    const ext = await runCli([
      "simulate",
      `${d}/t.csv`,
      "-n",
      "64",
      "-o",
      `${d}/e.csv`,
      "--extended_output",
    ]);
    assertEquals(plain.code, 0);
    assertEquals(ext.code, 0, ext.err.join("\n"));
    const p = rows(`${d}/p.csv`);
    const e = rows(`${d}/e.csv`);
    assertEquals(
      p[0],
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,queue,time_limit",
    );
    assertEquals(e[0], `${p[0]},job_id,wait_time,bounded_slowdown,trace_job_id,trace_user,nodes`);
    assertEquals(e.length, p.length);
    for (let i = 1; i < p.length; i++) {
      const f = e[i].split(",");
      assertEquals(f.slice(0, 7).join(","), p[i]);
      const [submit, begin, end] = f.slice(0, 3).map(Number);
      assertEquals(Number(f[7]), i - 1);
      assertEquals(Number(f[8]), begin - submit);
      const bsld = Math.max(1, (end - submit) / Math.max(end - begin, 10));
      assert(Math.abs(Number(f[9]) - bsld) <= 5e-7, `${e[i]}: ${bsld}`);
      // A CSV trace without job numbers or users leaves them empty.
      assertEquals(f.slice(10, 12), ["", ""]);
    }
    assertEquals(
      Deno.readTextFileSync(`${d}/p_resources.csv`),
      Deno.readTextFileSync(`${d}/e_resources.csv`),
    );
  });
});

Deno.test("--stats_json: statistics, percentiles from the job rows, options and version", async () => {
  await withDir(async (d) => {
    writeTrace(`${d}/t.csv`);
    const r = await runCli([
      "simulate",
      `${d}/t.csv`,
      "-n64",
      "-b",
      "conservative",
      "-p",
      "fcfs_conservative",
      "-o",
      `${d}/s.csv`,
      "--stats_json",
      `${d}/stats.json`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(r.out.includes(`Statistics JSON written to: ${d}/stats.json`));
    const doc = JSON.parse(Deno.readTextFileSync(`${d}/stats.json`));
    const version = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).version;
    assertEquals(doc.evtsimVersion, version);
    assertEquals(doc.inputs, [`${d}/t.csv`]);
    assertEquals(doc.options.total_nodes, 64);
    assertEquals(doc.options.backfill_policy, "conservative");
    assertEquals(doc.config.priorityPolicy, "fcfs_conservative");
    assertEquals(doc.statistics.jobsCompleted, 400);
    assert(r.out.includes(`Jobs completed: ${doc.statistics.jobsCompleted}`));
    const jobs = rows(`${d}/s.csv`).slice(1).map((l) => l.split(",").map(Number));
    const waits = jobs.map(([s, b]) => b - s).sort((a, b) => a - b);
    const slow = jobs.map(([s, b, e]) => Math.max(1, (e - s) / Math.max(e - b, 10)))
      .sort((a, b) => a - b);
    assert(waits[waits.length - 1] > 0, "the trace should make jobs wait");
    for (const [key, p] of [["p50", 50], ["p90", 90], ["p99", 99]] as const) {
      assertEquals(doc.waitTime[key], nearestRank(waits, p), key);
      assertEquals(doc.boundedSlowdown[key], nearestRank(slow, p), key);
    }
    assertEquals(doc.waitTime.max, waits[waits.length - 1]);
    assertEquals(doc.waitTime.max, doc.statistics.maxWait);
    assert(Math.abs(doc.waitTime.mean - doc.statistics.averageWait) < 1e-9);
    assert(
      Math.abs(doc.boundedSlowdown.mean - doc.statistics.averageBoundedSlowdown) < 1e-9,
    );
    assertEquals(doc.boundedSlowdown.tau, 10);
    assertEquals(doc.waitTime.count, 400);
  });
});

Deno.test("--stats_json of an empty trace has null percentiles", async () => {
  await withDir(async (d) => {
    Deno.writeTextFileSync(`${d}/e.csv`, "job_submit_time,num_nodes,time_limit\n");
    const r = await runCli([
      "simulate",
      `${d}/e.csv`,
      "-n",
      "4",
      "-r",
      "limit",
      "--stats_json",
      `${d}/s.json`,
      "-o",
      `${d}/e_sim.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const doc = JSON.parse(Deno.readTextFileSync(`${d}/s.json`));
    assertEquals(doc.waitTime, {
      count: 0,
      mean: null,
      p50: null,
      p90: null,
      p99: null,
      max: null,
    });
  });
});

Deno.test("--outfile x.swf writes an SWF log that the SWF reader reads back, waits and run times included", async () => {
  await withDir(async (d) => {
    writeTrace(`${d}/t.csv`);
    const csv = await runCli(["simulate", `${d}/t.csv`, "-n", "64", "-o", `${d}/s.csv`]);
    const swf = await runCli(["simulate", `${d}/t.csv`, "-n", "64", "-o", `${d}/s.swf`]);
    assertEquals(csv.code, 0);
    assertEquals(swf.code, 0, swf.err.join("\n"));
    assert(Deno.statSync(`${d}/s_resources.csv`).isFile);
    const text = Deno.readTextFileSync(`${d}/s.swf`);
    assert(text.startsWith("; Version: 2.2\n"), text.slice(0, 200));
    assert(text.includes("\n; MaxNodes: 64\n; MaxProcs: 64\n"));
    const back = await readSwf(`${d}/s.swf`, { replayRecordedWait: true });
    assertEquals(back.machineSize, 64);
    assertEquals(back.report.accepted, 400);
    const expected = rows(`${d}/s.csv`).slice(1).map((l) => l.split(",").map(Number));
    // SWF times count from the first job's submit time, which the header records.
    const base = expected[0][0];
    assert(base > 0 && text.includes(`\n; UnixStartTime: ${base}\n`));
    const recorded = [...back.recorded].sort((a, b) => a.submitTime - b.submitTime);
    for (let i = 0; i < expected.length; i++) {
      const [submit, begin, end, nodes, , , limit] = expected[i];
      const j = recorded[i];
      assertEquals(
        [j.submitTime, j.beginTime, j.endTime, j.numNodes, j.timeLimit],
        [submit - base, begin - base, end - base, nodes, limit],
        `job ${i}`,
      );
    }
    // Replaying our SWF with its recorded waits gives back the same schedule.
    const replay = await runCli([
      "simulate",
      `${d}/s.swf`,
      "--swf_replay_wait",
      "-o",
      `${d}/replay.csv`,
    ]);
    assertEquals(replay.code, 0, replay.err.join("\n"));
    const shifted = (l: string) =>
      l.split(",").filter((_, k) => k !== 5).map((v, k) => k < 3 ? String(Number(v) - base) : v)
        .join(",");
    assertEquals(rows(`${d}/replay.csv`).slice(1), rows(`${d}/s.csv`).slice(1).map(shifted));
  });
});

Deno.test("--extended_output with an SWF outfile is refused", async () => {
  const r = await runCli(["simulate", "t.csv", "-o", "s.swf", "--extended_output"]);
  assertEquals(r.code, 1);
  assertEquals(r.err, [
    "evtsim: --extended_output adds CSV columns; it cannot be used with an SWF --outfile",
  ]);
});
