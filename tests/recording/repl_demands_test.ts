// The REPL's views on a machine (issue 28): a job that asks for cores, GPUs
// or memory per replica holds no share of the node count (its numNodes is
// 0), so `info resource`, `info pending` and `info job` show its demand —
// replicas × per-replica units, partition, topology level — not "0 nodes".
// Whole-node jobs on a machine are "N whole nodes"; without a machine the
// lines are unchanged ("N nodes").

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { recordMachineRun, repl } from "../_repl_helpers.ts";

// All four GPU nodes busy until 1000; job 1 (GPUs in one rack) waits at the
// head; job 2 (whole nodes) runs on the cpu partition.
const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,memory,gpus," +
  "partition,topology\n" +
  "0,4,1000,1000,,,4,gpu,\n" +
  "10,2,500,500,8,16G,2,gpu,rack\n" +
  "20,2,500,500,,,,cpu,\n";

Deno.test("REPL on a machine: info resource, pending and job show a demand job's replicas × units, partition and topology level (not 0 nodes)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-demands-" });
  try {
    await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
    const log = await recordMachineRun(dir, `${dir}/t.csv`);
    const r = await repl(log, [
      "next 3",
      "step",
      "info resource",
      "info pending",
      "info job 1",
      "info job 2",
      "info job 0",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const want = "2 replicas × cores=8 memory=16384 gpus=2 in partition gpu, in one rack";
    const head = r.of("info resource").find((l) => l.startsWith("head:"));
    assert(head?.startsWith(`head: job 1 needs ${want}; reservation`), String(head));
    const pending = r.of("info pending");
    assert(pending.some((l) => l.startsWith(`  job 1 (${want}, since 10): `)), pending.join("\n"));
    assertEquals(r.of("info job 1")[1], `  priority 0, ${want}, limit 500 s, submitted at 10`);
    assert(
      r.of("info job 2")[0].startsWith("job 2: running since 20 on 2 whole nodes in partition cpu"),
      r.of("info job 2").join("\n"),
    );
    assert(
      r.of("info job 0")[0].startsWith(
        "job 0: running since 0 on 4 replicas × gpus=4 in partition gpu",
      ),
      r.of("info job 0").join("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("REPL on whole nodes: the jobs' lines still say N nodes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-demands-" });
  try {
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n0,4,100,100\n10,3,50,50\n",
    );
    const sim = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "-n",
      "4",
      "-o",
      `${dir}/s.csv`,
      "--record",
      `${dir}/w.replay`,
      "--no_progress",
    ]);
    assertEquals(sim.code, 0, sim.err.join("\n"));
    const r = await repl(`${dir}/w.replay`, ["next 2", "info resource", "info job 0"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(
      r.of("info resource").includes("head: job 1 needs 3 nodes; reservation (shadow time) at 100"),
      r.of("info resource").join("\n"),
    );
    assert(r.of("info job 0")[0].startsWith("job 0: running since 0 on 4 nodes"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
