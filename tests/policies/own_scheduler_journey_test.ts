// Issue 27's acceptance for a researcher's own scheduler: a picker and an
// admission policy written in a folder outside the repository (importing
// only types from the package, as the `--policy_module` example of docs/own-policies.md
// does) go through every command: simulate → simulate --record → replay
// --verify → replay -i (step, break, back, through a real process's stdin)
// → compare → sweep → the library's re-simulation, and every one agrees
// with `simulate`'s schedule and statistics. (The serve step is in the
// serve tests.)

import { ROOT, runCli, runCliProcess } from "../_cli.ts";
import { transcript } from "../_repl_helpers.ts";
import { assert, assertEquals } from "../_assert.ts";
import { type Admission, type Picker, resimulate, statistics, withPolicies } from "../../mod.ts";

/** The user's module: largest job first, and first fit (no reservations). */
const MODULE = `import type { Admission, JobRecord, Picker, PickerSession } from "@evtsim/evtsim";

const order = (a: JobRecord, b: JobRecord) => b.numNodes - a.numNodes || a.id - b.id;

// Largest job first: the candidates in a frozen, sorted array.
export const pickers: Picker<readonly JobRecord[]>[] = [{
  name: "largest_first",
  init: () => [],
  onQueueUpdate: (jobs) => jobs,
  onJobPush: (jobs, job) => [...jobs, job].sort(order),
  onJobStateChange: (jobs, job) => jobs.filter((j) => j.id !== job.id),
  onJobUpdate: (jobs, _old, job) => jobs.map((j) => (j.id === job.id ? job : j)).sort(order),
  size: (jobs) => jobs.length,
  pending: (jobs) => jobs,
  beginSession(jobs): PickerSession<readonly JobRecord[]> {
    let i = 0;
    const started = new Set<number>();
    return {
      nextJob: () => jobs[i++],
      onDispatch: (job) => void started.add(job.id),
      onPend: () => {},
      endSession: () => jobs.filter((j) => !started.has(j.id)),
    };
  },
}];

// First fit: start every offered job that fits now, in the picker's order.
export const admissions: Admission[] = [{
  name: "first_fit",
  runSession(s) {
    for (let job = s.next(); job !== undefined; job = s.next()) {
      if (job.numNodes <= s.free) s.dispatch(job, false);
      else s.pend(job, { code: "insufficient_nodes", message: \`needs \${job.numNodes}\` });
    }
  },
}];
`;

/** The first `n` jobs of the demo trace. */
async function smallTrace(path: string, n: number): Promise<void> {
  const lines = (await Deno.readTextFile(`${ROOT}examples/demo_trace.csv`)).split("\n");
  await Deno.writeTextFile(path, lines.slice(0, n + 1).join("\n") + "\n");
}

/** Runs `evtsim ARGS` as a process with `input` on its stdin; stderr as one text. */
async function withStdin(args: string[], input: string, cwd: string) {
  const r = await runCliProcess(args, { input, cwd });
  return { ...r, err: r.err.join("\n") };
}

/** Begin time of each job of a schedule CSV, by row. */
function beginTimes(csv: string): number[] {
  const [head, ...rows] = csv.trim().split("\n");
  const at = head.split(",").indexOf("begin_time");
  return rows.map((r) => Number(r.split(",")[at]));
}

Deno.test("own scheduler: a picker and an admission policy from a module outside the repository agree with simulate in every command", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-own-scheduler-" });
  try {
    assert(!dir.startsWith(ROOT), `${dir} is inside the repository`);
    const module = `${dir}/my_policies.ts`;
    await Deno.writeTextFile(module, MODULE);
    const trace = `${dir}/jobs.csv`;
    await smallTrace(trace, 300);
    const own = [
      "--policy_module",
      module,
      "--picker",
      "largest_first",
      "--admission",
      "first_fit",
    ];

    // simulate: the reference.
    const sim = await runCli([
      "simulate",
      trace,
      "-n",
      "128",
      ...own,
      "-o",
      `${dir}/ref.csv`,
      "--stats_json",
      `${dir}/ref.json`,
      "--no_progress",
    ]);
    assertEquals(sim.code, 0, sim.err.join("\n"));
    const schedule = await Deno.readTextFile(`${dir}/ref.csv`);
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/ref.json`)).statistics;
    assertEquals(stats.jobsCompleted, 300);

    // simulate --record, as a real process run from the user's folder.
    const rec = await runCliProcess([
      "simulate",
      "jobs.csv",
      "-n",
      "128",
      "--policy_module",
      "my_policies.ts",
      "--picker",
      "largest_first",
      "--admission",
      "first_fit",
      "-o",
      "rec.csv",
      "--record",
      "run.replay",
      "--no_progress",
    ], { cwd: dir });
    assertEquals(rec.code, 0, rec.err.join("\n"));
    assertEquals(await Deno.readTextFile(`${dir}/rec.csv`), schedule);
    const log = `${dir}/run.replay`;
    const header = JSON.parse((await Deno.readTextFile(log)).split("\n")[0]);
    const hash = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(module))),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    assertEquals(header.policyModules, [{ path: module, sha256: hash }]);
    const dump = await runCli(["dump", log]);
    assertEquals(dump.out.join("\n").split("\n")[1], `policy_module ${module} sha256=${hash}`);

    // replay --verify: the recorded module is loaded from its path; zero mismatches.
    const verify = await runCliProcess(["replay", log, "--verify"]);
    assertEquals(verify.code, 0, verify.err.join("\n"));
    assertEquals(verify.out.at(-1), "verify: every decision matches the recording");
    const ref = `${dir}/ref.replay`;
    const batch = await runCliProcess(["replay", log, "--output", ref]);
    assertEquals(batch.code, 0, batch.err.join("\n"));

    // --alt_events (here the log itself) re-simulates with the recorded module too.
    const alt = await runCli(["replay", log, "--alt_events", log, "--verify"]);
    assertEquals(alt.code, 0, alt.err.join("\n"));
    // A what-if from a run of evtsim's own policies to the module's: the run of simulate.
    const base = await runCli([
      "simulate",
      trace,
      "-n",
      "128",
      "-o",
      `${dir}/easy.csv`,
      "--record",
      `${dir}/easy.replay`,
      "--no_progress",
    ]);
    assertEquals(base.code, 0, base.err.join("\n"));
    const whatIf = await runCli([
      "replay",
      `${dir}/easy.replay`,
      ...own.map((a) => a === "--admission" ? "--backfill_policy" : a),
      "--output",
      `${dir}/what_if.replay`,
    ]);
    assertEquals(whatIf.code, 0, whatIf.err.join("\n"));
    const decisions = async (file: string) =>
      (await runCli(["dump", file])).out.join("\n").split("\n").filter((l) => l.startsWith("  t="));
    const recorded = await decisions(ref);
    assert(recorded.length >= 300, `${recorded.length} decisions`);
    assertEquals(await decisions(`${dir}/what_if.replay`), recorded);
    const help = await runCli(["help", "replay"]);
    assert(
      help.out.join("\n").includes("--policy_module FILE"),
      "help replay lists --policy_module",
    );

    // replay -i through stdin: step, break, back; then to the end, writing what replay --output writes.
    const begins = beginTimes(schedule);
    const job = begins.findIndex((b, i) => b > Number(schedule.split("\n")[i + 1].split(",")[0]));
    assert(job > 0, "some job waits");
    const out = `${dir}/interactive.replay`;
    const repl = await withStdin(
      ["replay", "run.replay", "-i", "--output", out],
      [
        "step",
        `break DECISION type=DISPATCH job=${job}`,
        "continue",
        `info job ${job}`,
        "step",
        `info job ${job}`,
        "back 1",
        `info job ${job}`,
        "delete all",
        "continue",
        "",
      ].join("\n"),
      dir,
    );
    assertEquals(repl.code, 0, repl.err);
    const t = transcript(repl.code, repl.out, []);
    assert(t.of("continue")[0].includes("breakpoint 1 hit"), t.of("continue").join("\n"));
    const waiting = t.of(`info job ${job}`, 0);
    assert(waiting[0].startsWith(`job ${job}: waiting since`), waiting[0]);
    const running = t.of(`info job ${job}`, 1)[0];
    assert(running.startsWith(`job ${job}: running since ${begins[job]}`), running);
    assertEquals(t.of(`info job ${job}`, 2), waiting);
    assert(t.of("continue", 1)[0].startsWith("[sim] end of the log"), t.of("continue", 1)[0]);
    assertEquals(await Deno.readFile(out), await Deno.readFile(ref));

    // compare, with the module's policies by name.
    const cmp = await runCli([
      "compare",
      trace,
      "-n",
      "128",
      "--policy_module",
      module,
      "--picker",
      "largest_first",
      "--policies",
      "first_fit,builtin_fcfs+first_fit",
      "--json",
    ]);
    assertEquals(cmp.code, 0, cmp.err.join("\n"));
    const rows = JSON.parse(cmp.out.join("\n"));
    assertEquals(rows[0].policy, "first_fit");
    assertEquals(rows[0].jobs, stats.jobsCompleted);
    assertEquals(rows[0].wait_max_s, stats.maxWait);
    assert(Math.abs(rows[0].wait_mean_s - stats.averageWait) <= 1e-9 * stats.averageWait);

    // sweep, with the module as the spec's option (a path from the spec's folder).
    await Deno.writeTextFile(
      `${dir}/sweep.yaml`,
      [
        "traces: [jobs.csv]",
        "policies: [largest_first+first_fit]",
        "total_nodes: 128",
        "options:",
        "  policy_module: my_policies.ts",
        "",
      ].join("\n"),
    );
    const sweep = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/sweep`]);
    assertEquals(sweep.code, 0, sweep.err.join("\n"));
    const [cell] = JSON.parse(await Deno.readTextFile(`${dir}/sweep/results.json`));
    assertEquals(cell.wait_mean_s, rows[0].wait_mean_s);
    assertEquals(cell.wait_max_s, stats.maxWait);
    assertEquals(cell.makespan_s, rows[0].makespan_s);

    // The library: the same policies (imported from the user's module) re-simulate the log.
    const mod = await import(`file://${module}`) as {
      pickers: Picker<unknown>[];
      admissions: Admission[];
    };
    const r = resimulate(await Deno.readTextFile(log), {
      file: log,
      registry: withPolicies(mod),
      verify: true,
    });
    assertEquals(r.mismatches.length, 0);
    assertEquals(r.policyModules, [{ path: module, sha256: hash }]);
    const lib = statistics(r.state);
    assertEquals(lib.jobsCompleted, stats.jobsCompleted);
    assertEquals(lib.averageWait, stats.averageWait);
    assertEquals(lib.maxWait, stats.maxWait);
    assertEquals(lib.makespan, stats.makespan);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
