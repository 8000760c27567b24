// Slurm accounting exports through the commands that take a trace: simulate
// (recognised by .psv/.sacct or --trace_format sacct), compare and sweep; bad
// lines are one line with exit 1 and no output files.

import { ROOT, runCli, runCliProcess } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { readSacct } from "../../io/sacct.ts";

const EXAMPLE = `${ROOT}examples/slurm_sacct.psv`;

Deno.test("simulate reads a .psv export: load report, partitions as the queue column, under the fairshare picker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sacct-" });
  try {
    const r = await runCli([
      "simulate",
      EXAMPLE,
      "-n",
      "16",
      "-p",
      "fairshare",
      "-o",
      `${dir}/s.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.err.slice(0, 4), [
      `${EXAMPLE}: read 135 jobs, accepted 130, skipped 5 (4 never started, 1 not ended at export)`,
      `${EXAMPLE}: 5 job(s) with Timelimit UNLIMITED or Partition_Limit: their run time is their limit`,
      `${EXAMPLE}: 8 job(s) ran past their Timelimit; --overrun kill: they end at their time limit`,
      `${EXAMPLE}: time 0 is the first submit, 2026-03-02T16:01:00Z (epoch 1772467260)`,
    ]);
    const rows = Deno.readTextFileSync(`${dir}/s.csv`).trim().split("\n");
    assertEquals(
      rows[0],
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,queue,time_limit",
    );
    assertEquals(rows.length, 131);
    const queues = new Set(rows.slice(1).map((l) => l.split(",")[5]));
    assertEquals([...queues].sort(), ["cpu", "gpu"]);
    // The same jobs as the library reads, in the CLI's default zone.
    const lib = await readSacct(EXAMPLE, { timezone: "America/Los_Angeles" });
    assertEquals(
      rows.slice(1).map((l) => Number(l.split(",")[0])),
      lib.jobs.map((j) => j.submitTime),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--trace_format sacct, a .sacct name or a sacct header make a file an export", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sacct-" });
  try {
    await Deno.copyFile(EXAMPLE, `${dir}/jobs.txt`);
    await Deno.copyFile(EXAMPLE, `${dir}/jobs.sacct`);
    const a = await runCli([
      "simulate",
      `${dir}/jobs.txt`,
      "-f",
      "sacct",
      "-n",
      "16",
      "-o",
      `${dir}/a.csv`,
    ]);
    assertEquals(a.code, 0, a.err.join("\n"));
    const b = await runCli(["simulate", `${dir}/jobs.sacct`, "-n", "16", "-o", `${dir}/b.csv`]);
    assertEquals(b.code, 0, b.err.join("\n"));
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), Deno.readTextFileSync(`${dir}/b.csv`));
    // Without the option the header gives it away (a `|`-separated line naming JobID) …
    const c = await runCli(["simulate", `${dir}/jobs.txt`, "-n", "16", "-o", `${dir}/c.csv`]);
    assertEquals(c.code, 0, c.err.join("\n"));
    assertEquals(Deno.readTextFileSync(`${dir}/c.csv`), Deno.readTextFileSync(`${dir}/a.csv`));
    // … but an explicit format is never second-guessed: as DR_EVT's CSV the header is refused.
    const d = await runCli([
      "simulate",
      `${dir}/jobs.txt`,
      "-f",
      "simple",
      "-n",
      "16",
      "-o",
      `${dir}/d.csv`,
    ]);
    assertEquals(d.code, 1);
    assert(d.err[0].includes("jobs.txt:"), d.err.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with --queues, partitions are the queues: a partition that is not one is an error at its line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sacct-" });
  try {
    await Deno.writeTextFile(
      `${dir}/q.yaml`,
      "queues:\n  - name: gpu\n    priority: 10\n  - name: cpu\n    priority: 0\n",
    );
    const ok = await runCli([
      "simulate",
      EXAMPLE,
      "-n",
      "16",
      "--queues",
      `${dir}/q.yaml`,
      "-o",
      `${dir}/s.csv`,
    ]);
    assertEquals(ok.code, 0, ok.err.join("\n"));
    await Deno.writeTextFile(`${dir}/q1.yaml`, "queues:\n  - name: gpu\n");
    const bad = await runCli([
      "simulate",
      EXAMPLE,
      "-n",
      "16",
      "--queues",
      `${dir}/q1.yaml`,
      "-o",
      `${dir}/t.csv`,
    ]);
    assertEquals(bad.code, 1);
    assertEquals(bad.err, [`evtsim: ${EXAMPLE}:3: Partition: unknown queue 'cpu' (defined: gpu)`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare and sweep take an export", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sacct-" });
  try {
    const r = await runCli(["compare", EXAMPLE, "-n", "16", "--policies", "none,easy", "--json"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = JSON.parse(r.out.join("\n"));
    assertEquals(rows.map((x: { policy: string; jobs: number }) => [x.policy, x.jobs]), [
      ["none", 130],
      ["easy", 130],
    ]);
    await Deno.copyFile(EXAMPLE, `${dir}/slurm_sacct.psv`);
    await Deno.writeTextFile(
      `${dir}/sweep.yaml`,
      "traces: [slurm_sacct.psv]\npolicies: [none, easy]\ntotal_nodes: [16]\n",
    );
    const s = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/out`, "-j", "1"]);
    assertEquals(s.code, 0, s.err.join("\n"));
    assertEquals(s.out[0], "sweep: 2 cells: 2 run, 0 already done; 2 ok, 0 failed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a bad export line is one line, exit 1, no output files (as a real process)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sacct-" });
  try {
    const lines = Deno.readTextFileSync(EXAMPLE).split("\n");
    lines[7] = lines[7].replace(/\|1\|32\|/, "|0|32|");
    assert(lines[7].includes("|0|32|"), lines[7]);
    await Deno.writeTextFile(`${dir}/bad.psv`, lines.join("\n"));
    const r = await runCliProcess(["simulate", `${dir}/bad.psv`, "-n", "16", "-o", `${dir}/s.csv`]);
    assertEquals(r.code, 1);
    assertEquals(r.err, [
      `evtsim: ${dir}/bad.psv:8: NNodes: expected a whole number of nodes ≥ 1, got '0'`,
    ]);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["bad.psv"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
