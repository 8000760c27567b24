// The REPL's utilization so far on a machine (issue 28: one machine model for
// every front): `info summary` gives, at any position, the per-resource,
// per-partition and node-equivalent utilization that `simulate --machine
// --max_time T --stats_json` gives (`resources`) for the run stopped at the
// position's time T, as the library, HTTP /statistics and gRPC do
// (tests/machine/machine_midrun_statistics_test.ts). Going back and forward again
// counts each job once. On the GPU example at t=1800 job 0's row is written
// and job 3 has ended while job 1 (a lower id) still runs: its row is not
// written yet, it counts.

import { simulateGpu } from "../_gpu_example.ts";
import { ROOT, runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { recordMachineRun, repl } from "../_repl_helpers.ts";
import { Resimulation } from "../../api/resimulation.ts";
import { Stepper } from "../../cli/_repl_stepper.ts";
import { parseLog } from "../../io/replay_reader.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** simulate --machine (EASY) on the GPU example stopped at `t`: its stats JSON's `resources`. */
async function resourcesAt(dir: string, t: number): Promise<Json> {
  await simulateGpu([
    "--max_time",
    String(t),
    "-o",
    `${dir}/m.csv`,
    "--stats_json",
    `${dir}/stats.json`,
  ]);
  return JSON.parse(await Deno.readTextFile(`${dir}/stats.json`)).resources;
}

/** The lines `info summary` should end with for these figures (written here, not by the REPL's code). */
function expectedLines(t: number, r: Json): string[] {
  const u = (f: Json) => f.utilization === null ? "none" : `${+f.utilization.toFixed(4)}`;
  const group = (g: Json) =>
    Object.keys(g).map((k) => `${k} ${u(g[k])} of ${g[k].capacity}`).join(", ");
  return [
    `utilization so far (jobs ended by t=${t}): ${
      u(r.node_equivalents)
    } in node equivalents of ${r.node_equivalents.capacity} nodes`,
    `  by resource: ${group(r.by_resource)}`,
    ...Object.keys(r.by_partition).map((p) => `  partition ${p}: ${group(r.by_partition[p])}`),
  ];
}

async function withLog(f: (dir: string, log: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-utilization-" });
  try {
    await f(
      dir,
      await recordMachineRun(dir, `${ROOT}examples/gpu_trace.csv`, [
        "-b",
        "easy",
        // Rows written as jobs end (job 0's at 1800), so that going back
        // before a written row counts it no more.
        "--job_flush_interval",
        "1",
      ]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("REPL info summary on a machine: the utilization so far per resource and partition equals simulate --max_time T --stats_json's, also after going back", async () => {
  await withLog(async (dir, log) => {
    const r = await repl(log, [
      "next 12",
      "info summary",
      "back 3",
      "info summary",
      "next 1",
      "info summary",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const times: number[] = [];
    for (let k = 0; k < 3; k++) {
      const lines = r.of("info summary", k);
      const t = Number(/^t=(\d+):/.exec(lines[0])![1]);
      times.push(t);
      const want = await resourcesAt(dir, t);
      assertEquals(lines.slice(3), expectedLines(t, want), `at t=${t}`);
    }
    // Mid-run instants with jobs ended (1800: jobs 7, 3 and 0), back to 660, forward to 1020.
    assertEquals(times, [1800, 660, 1020]);
  });
});

Deno.test("REPL stepper on a machine: resourceMetrics() at an instant is simulate --max_time's resources exactly, also after going back; none on whole nodes", async () => {
  await withLog(async (dir, log) => {
    const text = await Deno.readTextFile(log);
    const s = new Stepper(new Resimulation({ log: parseLog(text, "g.replay") }), 100);
    // To the last position at t (the instant done, the next piece later).
    const to = (t: number) => {
      while (!(s.at.state.time === t && s.candidate()!.result.state.time > t)) s.apply();
    };
    const want = await resourcesAt(dir, 1800);
    to(1800);
    assertEquals(s.resourceMetrics(), want);
    // Back over job 3's end (at 1020) and forward again: the same figures.
    s.back(4);
    assert(s.at.state.time < 1020, `back at ${s.at.state.time}`);
    assert(s.resourceMetrics()!.node_equivalents.used_unit_s < want.node_equivalents.used_unit_s);
    to(1800);
    assertEquals(s.resourceMetrics(), want);
    to(3000);
    assertEquals(s.resourceMetrics(), await resourcesAt(dir, 3000));
    // A whole-node log has no such figures (and info summary no such lines).
    await Deno.writeTextFile(
      `${dir}/w.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time\n0,2,100,50\n10,4,100,50\n",
    );
    const r = await runCli([
      "simulate",
      `${dir}/w.csv`,
      "-n",
      "4",
      "-o",
      `${dir}/w-s.csv`,
      "--record",
      `${dir}/w.replay`,
      "--no_progress",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const plain = await Deno.readTextFile(`${dir}/w.replay`);
    assertEquals(
      new Stepper(new Resimulation({ log: parseLog(plain, "w.replay") }), 0).resourceMetrics(),
      undefined,
    );
  });
});
