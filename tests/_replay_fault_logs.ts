// Small .replay logs for the fault catalogue's replay and what-if rows.

import { runCli } from "./_cli.ts";

/** Records a 3-job run into `dir/tiny.replay`; returns its path. */
export async function tinyLog(dir: string): Promise<string> {
  const trace = `${dir}/tiny.csv`;
  await Deno.writeTextFile(
    trace,
    "job_submit_time,num_nodes,time_limit,actual_run_time\n0,2,10,5\n1,4,10,5\n2,1,10,5\n",
  );
  const log = `${dir}/tiny.replay`;
  const r = await runCli([
    "simulate",
    trace,
    "-n",
    "4",
    "-o",
    `${dir}/tiny_sim.csv`,
    "--record",
    log,
  ]);
  if (r.code !== 0) throw new Error(r.err.join("\n"));
  return log;
}

/** `dir/alt.replay`: the tiny log with `input` as one more event after its first. */
export async function altEvents(
  dir: string,
  input: unknown,
): Promise<{ log: string; alt: string }> {
  const log = await tinyLog(dir);
  const lines = (await Deno.readTextFile(log)).trimEnd().split("\n");
  const event = { type: "event", version: 1, seq: 1, time: 0, input };
  lines.splice(3, 0, JSON.stringify(event));
  const alt = `${dir}/alt.replay`;
  await Deno.writeTextFile(alt, lines.join("\n") + "\n");
  return { log, alt };
}
