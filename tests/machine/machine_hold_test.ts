// A job whose demand is well-formed but that the machine can never hold —
// more whole nodes or replicas than its partition holds at once, or than any
// one domain of its topology level — is held for good (issue 28), not
// refused at its line: pend reason exceeds_capacity naming why, the jobs
// behind it go on under every admission policy, and the end-of-run warning
// counts it. A demand that is not one (an unknown partition or topology
// level, more of a resource per node than any node has) still fails at its
// line (tests/_fault_rows_m-machine.ts).

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

const MACHINE = [
  "default_partition: cpu",
  "groups:",
  "  - name: cpu",
  "    count: 2",
  "    resources: { cores: 8, memory: 16G }",
  "    partitions: [cpu]",
  "  - name: gpu",
  "    count: 2",
  "    resources: { cores: 8, memory: 16G, gpus: 4 }",
  "    partitions: [gpu]",
  '    labels: { rack: "r{i/1}" }',
  "",
].join("\n");

async function run(dir: string, trace: string, name: string, admission: string) {
  await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE);
  await Deno.writeTextFile(`${dir}/${name}`, trace);
  const r = await runCli([
    "simulate",
    `${dir}/${name}`,
    "--machine",
    `${dir}/m.yaml`,
    "--admission",
    admission,
    "--decisions",
    `${dir}/d.jsonl`,
    "-o",
    `${dir}/o.csv`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  // The statistics count every job held (never started, not in the averages).
  const held = r.out.find((l) => l.startsWith("[evtsim] Jobs held"));
  const decisions = (await Deno.readTextFile(`${dir}/d.jsonl`)).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  const rows = (await Deno.readTextFile(`${dir}/o.csv`)).trim().split("\n").slice(1);
  return { err: r.err, decisions, rows, held: held?.replace(/^.*: /, "") };
}

const WARNING = (job: number) =>
  `Warning: 1 job(s) (job ${job}) never started: they can never be placed on the machine, even empty (more replicas than its nodes, or than one domain of their topology level, hold at once; pend reason exceeds_capacity); they are left out of the schedule`;

Deno.test("CSV: 3 whole gpu nodes of 2, and 2 replicas in one rack of 1 node, are held; the jobs behind them run (none, easy, conservative_profile)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const trace = "job_submit_time,num_nodes,time_limit,num_cores,gpus,partition,topology\n" +
      "0,3,60,,,gpu,\n" + // job 0: 3 whole nodes, the gpu partition has 2
      "0,2,60,,4,gpu,rack\n" + // job 1: 2 replicas of 4 GPUs in one rack of one node
      "0,1,60,4,,cpu,\n"; // job 2: fits
    for (const admission of ["none", "easy", "conservative_profile"]) {
      const r = await run(dir, trace, "t.csv", admission);
      assertEquals(r.rows.length, 1, admission);
      assertEquals(r.held, "2", admission);
      const pends = r.decisions.filter((d) => d.type === "PEND");
      assertEquals(pends.map((d) => [d.jobId, d.reason.code]), [
        [0, "exceeds_capacity"],
        [1, "exceeds_capacity"],
      ], admission);
      assert(
        pends[1].reason.message.startsWith("can never be placed, even on the empty machine ("),
        pends[1].reason.message,
      );
      assertEquals(
        r.decisions.filter((d) => d.type === "DISPATCH").map((d) => [d.jobId, d.time]),
        [[2, 0]],
      );
      assertEquals(r.err.filter((l) => l.startsWith("Warning")), [
        "Warning: 2 job(s) (the first: job 0) never started: they can never be placed on the machine, even empty (more replicas than its nodes, or than one domain of their topology level, hold at once; pend reason exceeds_capacity); they are left out of the schedule",
      ]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sacct: NNodes beyond the partition is held, not refused at its line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const psv =
      "JobID|Submit|Start|End|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|AllocTRES|Partition|User|Account|State|ExitCode\n" +
      "1|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|02:00:00|4|16|1G|cpu=16,gres/gpu=16,node=4||gpu|ann|a|COMPLETED|0:0\n" +
      "2|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|02:00:00|1|4|1G|cpu=4,node=1||cpu|bob|b|COMPLETED|0:0\n";
    const r = await run(dir, psv, "t.psv", "easy");
    assertEquals(r.rows.length, 1);
    assertEquals(r.held, "1");
    assertEquals(r.err.filter((l) => l.startsWith("Warning")), [WARNING(0)]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
