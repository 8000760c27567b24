// The `fairshare` picker on the command line: `-p fairshare` with a queues
// file's `fairshare:` block, a strict block (one error line naming file, line
// and field), `compare`, every admission policy, and a recorded run that
// `replay --verify` reproduces (the settings travel in the log's header).

import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";

const TRACE = [
  "job_submit_time,num_nodes,time_limit,actual_run_time,user",
  "0,4,3600,3600,alice",
  "60,4,600,600,alice",
  "120,4,600,600,bob",
  "130,2,300,200,alice",
  "140,2,300,250,bob",
].join("\n") + "\n";

async function files(queues: string): Promise<{ dir: string; trace: string; queues: string }> {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  await Deno.writeTextFile(`${dir}/q.yaml`, queues);
  return { dir, trace: `${dir}/t.csv`, queues: `${dir}/q.yaml` };
}

const BLOCK =
  "fairshare:\n  half_life: 3600\n  max_age: 3600\n  weights: { fairshare: 1000, age: 100 }\n";

Deno.test("cli: -p fairshare with a fairshare: block runs bob's later job before alice's", async () => {
  const f = await files(BLOCK);
  const r = await runCli([
    "simulate",
    f.trace,
    "-n",
    "4",
    "-p",
    "fairshare",
    "-b",
    "none",
    "--queues",
    f.queues,
    "-o",
    `${f.dir}/out.csv`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const rows = (await Deno.readTextFile(`${f.dir}/out.csv`)).trim().split("\n").slice(1);
  // submit,begin: when alice's first hour ends at 3600, bob's jobs 2 and 4 go
  // first (his usage stays below hers), then alice's jobs 1 and 3 in age order.
  assertEquals(rows.map((l) => l.split(",").slice(0, 2).join(",")), [
    "0,0",
    "60,4450",
    "120,3600",
    "130,5050",
    "140,4200",
  ]);
  await Deno.remove(f.dir, { recursive: true });
});

Deno.test("cli: a bad fairshare: block is one error line naming the file, line and field", async () => {
  for (
    const [text, message] of [
      ["fairshare:\n  half_life: 0\n", "q.yaml:2: fairshare.half_life: expected a positive number"],
      ["fairshare:\n  by: group\n", "q.yaml:2: fairshare.by: expected user or account"],
      ["fairshare:\n  weigths: {}\n", "q.yaml:2: fairshare.weigths: unknown field"],
      [
        "fairshare:\n  shares: { a: x }\n",
        "q.yaml:2: fairshare.shares.a: expected a positive number",
      ],
    ]
  ) {
    const f = await files(text);
    const r = await runCli([
      "simulate",
      f.trace,
      "-n",
      "4",
      "-p",
      "fairshare",
      "--queues",
      f.queues,
    ]);
    assertEquals(r.code, 1);
    assertEquals(r.err.map((l) => l.replace(`${f.dir}/`, "")), [`evtsim: ${message}`]);
    await Deno.remove(f.dir, { recursive: true });
  }
});

Deno.test("cli: fairshare combines with every admission policy and in compare", async () => {
  const f = await files(BLOCK);
  for (const a of ["none", "easy", "conservative", "easy_extra", "conservative_profile"]) {
    const r = await runCli([
      "simulate",
      f.trace,
      "-n",
      "4",
      "--picker",
      "fairshare",
      "--admission",
      a,
      "--queues",
      f.queues,
      "-o",
      `${f.dir}/${a}.csv`,
    ]);
    assertEquals(r.code, 0, `${a}: ${r.err.join("\n")}`);
  }
  const c = await runCli([
    "compare",
    f.trace,
    "-n",
    "4",
    "--policies",
    "fairshare+easy,easy",
    "--queues",
    f.queues,
  ]);
  assertEquals(c.code, 0, c.err.join("\n"));
  assert(c.out.some((l) => l.includes("fairshare+easy")), c.out.join("\n"));
  await Deno.remove(f.dir, { recursive: true });
});

Deno.test("cli: a recorded fairshare run passes replay --verify (the settings are in the header)", async () => {
  // Age only: FCFS order, unlike the defaults' fair-share order, so a
  // re-simulation without the recorded settings would decide otherwise.
  const f = await files("fairshare:\n  half_life: 3600\n  weights: { fairshare: 0 }\n");
  const log = `${f.dir}/run.replay`;
  const r = await runCli([
    "simulate",
    f.trace,
    "-n",
    "4",
    "-p",
    "fairshare",
    "--queues",
    f.queues,
    "-o",
    `${f.dir}/out.csv`,
    "--record",
    log,
    "--snapshot_interval",
    "2",
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  const header = JSON.parse((await Deno.readTextFile(log)).split("\n")[0]);
  assertEquals(header.config.pickerSettings.fairshare.halfLife, 3600);
  const begins = (await Deno.readTextFile(`${f.dir}/out.csv`)).trim().split("\n").slice(1);
  assertEquals(begins[1].split(",").slice(0, 2), ["60", "3600"]);
  const v = await runCli(["replay", log, "--verify"]);
  assertEquals(v.code, 0, v.err.join("\n"));
  assert(v.out.concat(v.err).some((l) => l.includes("every decision matches")));
  await Deno.remove(f.dir, { recursive: true });
});
