// Many runs in one process give the same results as one run each (issue 34
// item 1): a sweep's long-lived workers (several cells each, traces parsed
// once per worker), compare's policies over one parse of the trace, and the
// library's runMany, each against one plain `simulate` (or Simulation) per
// cell, over random small specs and traces.

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { arbGapJobs } from "../_arbitraries.ts";
import { readSweepSpec } from "../../cli/_sweep_spec.ts";
import { cellAt } from "../../cli/_sweep_model.ts";
import { rowOf } from "../../cli/_sweep_results.ts";
import { FAIRNESS_NAMES } from "../../core/metrics.ts";
import { runMany } from "../../api/run_many.ts";
import { Simulation } from "../../api/simulation.ts";
import type { JobSpec } from "../../core/types.ts";

// Each sweep starts worker processes: few runs keep the file fast.
const PARAMS = { seed: 3434, numRuns: 4 };

const POLICIES = ["none", "easy", "sjf+easy", "conservative", "easy_extra"];

const arbJobs = (nodes: number) =>
  arbGapJobs({
    maxGap: 40,
    maxNodes: nodes,
    maxLimit: 200,
    minRun: 1,
    maxRun: 250,
    maxLength: 25,
    owners: true,
  });

const csvOf = (jobs: readonly JobSpec[]) =>
  "job_submit_time,num_nodes,time_limit,actual_run_time\n" +
  jobs.map((j) => `${j.submitTime},${j.numNodes},${j.timeLimit},${j.actualRunTime}\n`).join("");

// With the users and accounts (the rows' fairness figures then have users).
const ownedCsvOf = (jobs: readonly JobSpec[]) =>
  "job_submit_time,num_nodes,time_limit,actual_run_time,user,account\n" +
  jobs.map((j) =>
    `${j.submitTime},${j.numNodes},${j.timeLimit},${j.actualRunTime},${j.user ?? ""},${
      j.account ?? ""
    }\n`
  ).join("");

const arbSpec = fc.record({
  traces: fc.array(arbJobs(12), { minLength: 1, maxLength: 2 }),
  policies: fc.subarray(POLICIES, { minLength: 1, maxLength: 3 }),
  nodes: fc.subarray([8, 12], { minLength: 1 }),
  modes: fc.subarray(["actual", "limit"], { minLength: 1 }),
  jobs: fc.integer({ min: 1, max: 2 }),
  // How the metric set measures (the stats JSON's options a row depends on).
  measure: fc.constantFrom(
    "",
    "options:\n  bsld_tau: [1, 60]\n",
    "options:\n  trim: ['1,1']\n",
    "options:\n  measure_window: ['5:200']\n",
  ),
});

async function statsOf(args: string[], dir: string): Promise<Record<string, unknown>> {
  const stats = `${dir}/one.json`;
  const r = await runCli([
    "simulate",
    ...args,
    `--outfile=${dir}/one.csv`,
    `--resource_trace=${dir}/one_res.csv`,
    `--stats_json=${stats}`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return JSON.parse(await Deno.readTextFile(stats));
}

Deno.test("sweep with warm workers: every row is the bytes of one simulate of its cell", async () => {
  await fc.assert(
    fc.asyncProperty(arbSpec, async (s) => {
      const dir = await Deno.makeTempDir({ prefix: "evtsim-warm-test-" });
      try {
        s.traces.forEach((jobs, i) => Deno.writeTextFileSync(`${dir}/t${i}.csv`, ownedCsvOf(jobs)));
        Deno.writeTextFileSync(
          `${dir}/spec.yaml`,
          `traces: [${s.traces.map((_, i) => `t${i}.csv`).join(", ")}]\n` +
            `policies: [${s.policies.join(", ")}]\ntotal_nodes: [${s.nodes.join(", ")}]\n` +
            `run_time_modes: [${s.modes.join(", ")}]\n` + s.measure,
        );
        const r = await runCli(
          ["sweep", `${dir}/spec.yaml`, "--results", `${dir}/res`, "--jobs", String(s.jobs)],
        );
        assertEquals(r.code, 0, r.err.join("\n"));
        const sweep = await readSweepSpec(`${dir}/spec.yaml`, undefined);
        const rows = JSON.parse(await Deno.readTextFile(`${dir}/res/results.json`));
        const got = rows.map((x: unknown) => JSON.stringify(x));
        const want: string[] = [];
        for (let i = 0; i < sweep.count; i++) {
          const cell = cellAt(sweep, i);
          // deno-lint-ignore no-explicit-any
          const stats = await statsOf([...cell.args], dir) as any;
          want.push(JSON.stringify(rowOf(cell, sweep.optionKeys, stats)));
        }
        assertEquals(got, want);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
    PARAMS,
  );
});

Deno.test("compare on workers (--jobs 1 or 2): every row is one simulate of its policy", async () => {
  await fc.assert(
    fc.asyncProperty(arbSpec, async (s) => {
      const dir = await Deno.makeTempDir({ prefix: "evtsim-warm-test-" });
      try {
        const trace = `${dir}/t.csv`;
        Deno.writeTextFileSync(trace, ownedCsvOf(s.traces[0]));
        const common = [trace, "-n", String(s.nodes[0]), "--run_time_mode", s.modes[0]];
        const r = await runCli([
          "compare",
          ...common,
          "--policies",
          s.policies.join(","),
          "--json",
          "--jobs",
          String(s.jobs),
        ]);
        assertEquals(r.code, 0, r.err.join("\n"));
        const got = JSON.parse(r.out.join("\n")).map((row: Record<string, unknown>) => {
          delete row.sim_s;
          return JSON.stringify(row);
        });
        const want: string[] = [];
        for (const p of s.policies) {
          const [picker, admission] = p.includes("+") ? p.split("+") : [undefined, p];
          // deno-lint-ignore no-explicit-any
          const stats: any = await statsOf([
            ...common,
            "--admission",
            admission,
            ...(picker === undefined ? [] : ["--picker", picker]),
          ], dir);
          const fairness = Object.fromEntries(FAIRNESS_NAMES.map((k) => [k, stats.fairness[k]]));
          want.push(
            JSON.stringify({
              policy: p,
              total_nodes: stats.statistics.totalNodes,
              ...stats.metrics,
              ...fairness,
            }),
          );
        }
        assertEquals(got, want);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
    PARAMS,
  );
});

Deno.test("runMany equals one Simulation per configuration", () => {
  fc.assert(
    fc.property(arbJobs(12), fc.subarray(POLICIES), fc.constantFrom(8, 12), (jobs, policies, n) => {
      const configs = policies.map((p) => {
        const [picker, admission] = p.includes("+") ? p.split("+") : [undefined, p];
        return {
          totalNodes: n,
          backfillPolicy: admission,
          ...(picker === undefined ? {} : { picker }),
        };
      });
      const alone = configs.map((c) => {
        const sim = new Simulation(c);
        sim.appendJobs(jobs);
        return sim.finish();
      });
      assertEquals(runMany(jobs, configs), alone);
      const handed: number[] = [];
      assertEquals(runMany(jobs, configs, (_, i) => handed.push(i)), []);
      assertEquals(handed, configs.map((_, i) => i));
    }),
    { seed: 3434, numRuns: 100 },
  );
});

Deno.test("sweep: a worker that crashes fails the cell it ran, and a new worker runs the rest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-warm-test-" });
  try {
    Deno.writeTextFileSync(
      `${dir}/t.csv`,
      csvOf([{ submitTime: 0, numNodes: 1, timeLimit: 9, actualRunTime: 5 }]),
    );
    // An exception thrown from a timer is no policy fault: it ends the process.
    Deno.writeTextFileSync(
      `${dir}/crash.ts`,
      'export const admissions = [{ name: "crashes", runSession(s) {\n' +
        '  setTimeout(() => { throw new Error("boom"); }, 0);\n' +
        "  for (let j = s.next(); j !== undefined && j.numNodes <= s.free; j = s.next()) " +
        "s.dispatch(j, false);\n} }];\n",
    );
    Deno.writeTextFileSync(
      `${dir}/spec.yaml`,
      "traces: [t.csv]\npolicies: [crashes, easy]\ntotal_nodes: [8, 4]\nrun_time_modes: [limit]\n" +
        "options:\n  policy_module: crash.ts\n",
    );
    const r = await runCli(["sweep", `${dir}/spec.yaml`, "--results", `${dir}/res`, "-j", "1"]);
    assertEquals(r.code, 1);
    assertEquals(r.out[0], "sweep: 4 cells: 4 run, 0 already done; 2 ok, 2 failed (2 in this run)");
    const failed = r.err.filter((l) => l.includes(" failed: "));
    assertEquals(failed.length, 2, r.err.join("\n"));
    for (const [i, line] of failed.entries()) {
      assert(
        line.startsWith(`evtsim: sweep: cell ${i} (`) && line.includes("process exited"),
        line,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweep: a policy that prints on stdout does not confuse its worker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-warm-test-" });
  try {
    Deno.writeTextFileSync(
      `${dir}/t.csv`,
      csvOf([{ submitTime: 0, numNodes: 1, timeLimit: 9, actualRunTime: 5 }]),
    );
    Deno.writeTextFileSync(
      `${dir}/chatty.ts`,
      'export const admissions = [{ name: "chatty", runSession(s) {\n' +
        '  console.log("ok 1");\n  console.log("failed 0");\n' +
        "  for (let j = s.next(); j !== undefined && j.numNodes <= s.free; j = s.next()) " +
        "s.dispatch(j, false);\n} }];\n",
    );
    Deno.writeTextFileSync(
      `${dir}/spec.yaml`,
      "traces: [t.csv]\npolicies: [chatty]\ntotal_nodes: [8, 4, 2]\n" +
        "options:\n  policy_module: chatty.ts\n",
    );
    const r = await runCli(["sweep", `${dir}/spec.yaml`, "--results", `${dir}/res`, "-j", "1"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.out[0], "sweep: 3 cells: 3 run, 0 already done; 3 ok, 0 failed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
