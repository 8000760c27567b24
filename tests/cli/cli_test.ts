// The command line as a user meets it: exit codes, one-line errors, no
// output left behind on failure, option spellings, progressive input.

import { defaultOutfile, defaultResourceFile } from "../../cli/simulate.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli, runCliProcess } from "../_cli.ts";

const run = runCli;

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-cli-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const TRACE = "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n" +
  "0,70,pbatch,200,200\n10,45,pbatch,300,300\n20,20,pbatch,50,50\n";

function listDir(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

Deno.test("simulate writes the schedule, the resources and the statistics block", async () => {
  await withDir(async (dir) => {
    // The default outputs go to the folder the command runs in, not beside the input.
    Deno.mkdirSync(`${dir}/data`);
    Deno.writeTextFileSync(`${dir}/data/jobs.csv`, TRACE);
    const r = await runCliProcess(["simulate", "data/jobs.csv", "-n", "100"], { cwd: dir });
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(listDir(dir), ["data", "jobs_sim.csv", "jobs_sim_resources.csv"]);
    assertEquals(listDir(`${dir}/data`), ["jobs.csv"]);
    assertEquals(Deno.readTextFileSync(`${dir}/jobs_sim.csv`).trim().split("\n"), [
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,queue,time_limit",
      "0,0,200,70,0,pbatch,200",
      "10,200,500,45,0,pbatch,300",
      "20,20,70,20,0,pbatch,50",
    ]);
    assert(r.out.includes("=== Simulation Statistics ==="));
    assert(r.out.includes("Average wait time: 63.3333 sec"));
    assert(r.out.includes("Jobs completed: 3"));
    assert(r.out.some((l) => l.startsWith("[evtsim] Utilization: ")));
  });
});

Deno.test("kebab-case, short and DR_EVT legacy spellings are the same options", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/jobs.csv`, TRACE);
    const a = await run([
      "simulate",
      `${dir}/jobs.csv`,
      "--total-nodes",
      "100",
      "-o",
      `${dir}/a.csv`,
    ]);
    const b = await run([
      "simulate",
      `${dir}/jobs.csv`,
      "-n",
      "100",
      "--duration_mode",
      "exact",
      "--outfile=" + `${dir}/b.csv`,
    ]);
    assertEquals(a.code, 0);
    assertEquals(b.code, 0);
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), Deno.readTextFileSync(`${dir}/b.csv`));
  });
});

Deno.test("bad input: one line naming file, line and field; exit 1; no output files", async () => {
  await withDir(async (dir) => {
    const cases: [string, string][] = [
      ["job_submit_time,num_nodes,time_limit\n0,abc,10\n", "num_nodes"],
      ["job_submit_time,num_nodes\n0,1\n", "time_limit"],
      ["job_submit_time,num_nodes,time_limit\n0,1\n", ":2:"],
      ["job_submit_time,num_nodes,time_limit,begin_time\n0,1,5,0\n", "end_time"],
      ["job_submit_time,num_nodes,time_limit\n0,-3,10\n", "num_nodes"],
      ["job_submit_time,num_nodes,time_limit\nyesterday,1,10\n", "job_submit_time"],
    ];
    for (const [text, mention] of cases) {
      Deno.writeTextFileSync(`${dir}/bad.csv`, text);
      const r = await run(["simulate", `${dir}/bad.csv`, "-n", "10", "-r", "limit"]);
      assertEquals(r.code, 1, text);
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith("evtsim: "), r.err[0]);
      assert(r.err[0].includes(`${dir}/bad.csv`), r.err[0]);
      assert(r.err[0].includes(mention), `${r.err[0]} should mention ${mention}`);
      assertEquals(listDir(dir), ["bad.csv"]);
    }
  });
});

Deno.test("usage errors: unknown option, bad enum, missing trace", async () => {
  const unknown = await run(["simulate", "x.csv", "--bogus"]);
  assertEquals(unknown.code, 1);
  assert(unknown.err[0].includes("--bogus"));
  const badEnum = await run(["simulate", "x.csv", "-b", "greedy"]);
  assertEquals(badEnum.code, 1);
  assert(badEnum.err[0].includes("easy, conservative, none"), badEnum.err[0]);
  const none = await run(["simulate"]);
  assertEquals(none.code, 1);
  const help = await run(["simulate", "--help"]);
  assertEquals(help.code, 0);
  assert(help.out[0].startsWith("usage: evtsim simulate"));
});

Deno.test("actual_run_time above time_limit runs in full with one counting warning", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(
      `${dir}/over.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n0,1,10,30\n0,1,10,5\n1,1,10,40\n",
    );
    const r = await run(["simulate", `${dir}/over.csv`, "-n", "10", "-o", `${dir}/over_sim.csv`]);
    assertEquals(r.code, 0);
    assertEquals(r.err.length, 1);
    assert(r.err[0].includes("2 job(s)"), r.err[0]);
    const rows = Deno.readTextFileSync(`${dir}/over_sim.csv`).trim().split("\n");
    assertEquals(rows[1], "0,0,30,1,0,10");
    const killed = await run([
      "simulate",
      `${dir}/over.csv`,
      "-n",
      "10",
      "--overrun",
      "kill",
      "-o",
      `${dir}/k.csv`,
    ]);
    assertEquals(killed.code, 0);
    assertEquals(Deno.readTextFileSync(`${dir}/k.csv`).trim().split("\n")[1], "0,0,10,1,0,10");
  });
});

Deno.test("rejected job is reported on stderr and left out of the schedule", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(
      `${dir}/r.csv`,
      "job_submit_time,num_nodes,time_limit\n0,5,10\n1,50,10\n2,5,10\n",
    );
    const o = ["-o", `${dir}/r_sim.csv`];
    const r = await run(["simulate", `${dir}/r.csv`, "-n", "10", "-r", "limit", ...o]);
    assertEquals(r.code, 0);
    assertEquals(r.err, [
      "1 job rejected: it requests more nodes than total_nodes (10) and can never be scheduled (job 1; --verbose lists each)",
    ]);
    // --verbose: DR_EVT's line for each rejected job, no summary.
    const v = await run(["simulate", `${dir}/r.csv`, "-n", "10", "-r", "limit", "-v", ...o]);
    assertEquals(v.code, 0);
    assertEquals(v.err, [
      "Job 1 rejected: requests 50 nodes, exceeds total_nodes (10); this job can never be scheduled.",
    ]);
    assertEquals(Deno.readTextFileSync(`${dir}/r_sim.csv`).trim().split("\n").length, 3);
  });
});

Deno.test("an empty trace (header only) gives empty outputs", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/e.csv`, "job_submit_time,num_nodes,time_limit\n");
    const r = await run([
      "simulate",
      `${dir}/e.csv`,
      "-n",
      "10",
      "-r",
      "limit",
      "-o",
      `${dir}/e_sim.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(
      Deno.readTextFileSync(`${dir}/e_sim.csv`).trim(),
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit",
    );
    assertEquals(Deno.readTextFileSync(`${dir}/e_sim_resources.csv`).trim().split("\n"), [
      "time,free_nodes,allocated_nodes",
      "0,10,0",
    ]);
  });
});

Deno.test("--infile_list gives the same outputs as the whole trace; out-of-order files are refused", async () => {
  await withDir(async (dir) => {
    const header = "job_submit_time,num_nodes,time_limit,actual_run_time";
    const rows: string[] = [];
    for (let i = 0; i < 60; i++) {
      rows.push(`${i * 7},${1 + (i * 13) % 9},${50 + (i * 31) % 200},${20 + (i * 17) % 30}`);
    }
    Deno.writeTextFileSync(`${dir}/all.csv`, [header, ...rows].join("\n") + "\n");
    Deno.writeTextFileSync(`${dir}/p1.csv`, [header, ...rows.slice(0, 25)].join("\n") + "\n");
    Deno.writeTextFileSync(`${dir}/p2.csv`, [header, ...rows.slice(25)].join("\n") + "\n");
    Deno.writeTextFileSync(`${dir}/parts.list`, "p1.csv\np2.csv\n");
    const whole = await run(["simulate", `${dir}/all.csv`, "-n", "12", "-o", `${dir}/w.csv`]);
    const parts = await run([
      "simulate",
      "-L",
      `${dir}/parts.list`,
      "-n",
      "12",
      "-o",
      `${dir}/p.csv`,
      "-K",
      "4",
    ]);
    assertEquals(whole.code, 0);
    assertEquals(parts.code, 0, parts.err.join("\n"));
    assertEquals(Deno.readTextFileSync(`${dir}/p.csv`), Deno.readTextFileSync(`${dir}/w.csv`));
    assertEquals(
      Deno.readTextFileSync(`${dir}/p_resources.csv`),
      Deno.readTextFileSync(`${dir}/w_resources.csv`),
    );

    Deno.writeTextFileSync(`${dir}/bad.list`, "p2.csv\np1.csv\n");
    const bad = await run(["simulate", "-L", `${dir}/bad.list`, "-n", "12", "-o", `${dir}/b.csv`]);
    assertEquals(bad.code, 1);
    const last = bad.err[bad.err.length - 1];
    assert(last.startsWith("evtsim: ") && last.includes("p1.csv"), last);
    assert(!listDir(dir).includes("b.csv"));
  });
});

Deno.test("default output names follow DR_EVT, in the current folder", () => {
  assertEquals(defaultOutfile("dir/jobs.csv"), "jobs_sim.csv");
  assertEquals(defaultOutfile("/data/logs/kth.swf"), "kth_sim.csv");
  assertEquals(defaultOutfile("log.swf.gz"), "log_sim.csv");
  assertEquals(defaultResourceFile("dir/jobs_sim.csv"), "dir/jobs_sim_resources.csv");
  assertEquals(defaultResourceFile("out"), "out_resources.csv");
});

Deno.test("--max_time processes events at T and leaves unfinished jobs out", async () => {
  await withDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/jobs.csv`, TRACE);
    const r = await run([
      "simulate",
      `${dir}/jobs.csv`,
      "-n",
      "100",
      "-t",
      "200",
      "-o",
      `${dir}/jobs_sim.csv`,
    ]);
    assertEquals(r.code, 0);
    const rows = Deno.readTextFileSync(`${dir}/jobs_sim.csv`).trim().split("\n").slice(1);
    assertEquals(rows, ["0,0,200,70,0,pbatch,200", "20,20,70,20,0,pbatch,50"]);
    const res = Deno.readTextFileSync(`${dir}/jobs_sim_resources.csv`).trim().split("\n");
    assertEquals(res[res.length - 1], "200,55,45");
    assert(r.out.includes("Current time: 200"));
  });
});
