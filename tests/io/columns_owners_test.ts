// simulate reads a CSV trace as columns (io/_job_columns.ts), so the job
// objects the stats JSON's per-user and per-account breakdowns used to number
// are not there: the owners must come from the columns.

import { assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time,user,account\n" +
  "0,2,100,50,alice,a1\n5,1,100,80,bob,a2\n7,4,100,10,alice,a2\n9,1,50,40,carol,\n";

Deno.test("simulate on a CSV trace read as columns: the stats JSON breaks down by the trace's users and accounts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-columns-owners-" });
  try {
    await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "-n",
      "4",
      "-b",
      "easy",
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/stats.json`,
      "--no_progress",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/stats.json`));
    const jobs = (rows: { key: string; jobs: number }[]) => rows.map((g) => [g.key, g.jobs]);
    assertEquals(jobs(stats.breakdowns.user), [["alice", 2], ["bob", 1], ["carol", 1]]);
    assertEquals(jobs(stats.breakdowns.account), [["a1", 1], ["a2", 2], [null, 1]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
