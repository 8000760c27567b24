// Issue 29: one run's breakdowns and fairness figures are the same in every
// output: `simulate --stats_json` (`breakdowns`, `fairness`), `compare --json`
// and sweep rows (the fairness columns, and total_nodes the size the run
// used), the report's tables and `serve`'s finish reply; --trim is counted.

import { FAIRNESS_NAMES } from "../../core/metrics.ts";
import { formatG } from "../../cli/report.ts";
import { BREAKDOWN_COLUMNS } from "../../cli/_report_breakdowns.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { withServer } from "../_service_helpers.ts";

const NODES = 16;
const USERS = ["ann", "bob", "12", "7"];

// 50 jobs with whole-second times (a fixed LCG), users, accounts and queues.
function jobs() {
  let x = 2929;
  const next = (n: number) => (x = (x * 1103515245 + 12345) % 2147483648) % n;
  let t = 0;
  return Array.from({ length: 50 }, (_, i) => {
    t += next(100);
    const limit = 60 + next(900);
    return {
      submit: t,
      nodes: 1 + next(NODES),
      limit,
      run: 1 + next(limit),
      queue: i % 3 === 0 ? "debug" : "batch",
      user: USERS[(i + (i >> 2) + next(7)) % USERS.length],
      account: i % 2 === 0 ? "g1" : "g2",
    };
  });
}

const TRACE = "job_submit_time,num_nodes,queue,time_limit,actual_run_time,user,account\n" +
  jobs().map((j) =>
    `${j.submit},${j.nodes},${j.queue},${j.limit},${j.run},${j.user},${j.account}\n`
  )
    .join("");

async function ok(args: string[]): Promise<string[]> {
  const r = await runCli(args);
  assertEquals(r.code, 0, r.err.join("\n"));
  return r.out;
}

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

// The rows of the report's table `id` as text cells (run label first).
function tableRows(html: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}">.*?<tbody>(.*?)</tbody>`, "s").exec(html);
  if (table === null) return [];
  return [...table[1].matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((m) =>
    [...m[1].matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((c) => c[1])
  );
}

Deno.test("breakdowns: stats JSON, compare, sweep, report and serve give one run the same figures", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-breakdowns-" });
  try {
    await Deno.writeTextFile(`${dir}/trace.csv`, TRACE);
    const common = [`${dir}/trace.csv`, "-n", String(NODES), "--trim", "3,0.1"];
    await ok([
      "simulate",
      ...common,
      "-o",
      `${dir}/s.csv`,
      "--extended_output",
      "--stats_json",
      `${dir}/s.json`,
      "--report",
      `${dir}/r.html`,
    ]);
    const doc: Doc = JSON.parse(await Deno.readTextFile(`${dir}/s.json`));
    const { breakdowns, fairness, metrics } = doc;
    // --trim: 3 jobs and floor(0.1 × 50) = 5 jobs left out, counted.
    assertEquals([metrics.jobs, metrics.jobs_excluded], [42, 8]);
    assertEquals(Object.keys(breakdowns), ["user", "account", "queue", "size"]);
    assertEquals(breakdowns.user.map((g: Doc) => g.key), ["7", "12", "ann", "bob"]);
    assertEquals(breakdowns.account.map((g: Doc) => g.key), ["g1", "g2"]);
    for (const b of Object.values(breakdowns) as Doc[][]) {
      assertEquals(b.reduce((s, g) => s + g.jobs, 0), metrics.jobs);
    }
    assertEquals(Object.keys(fairness), [...FAIRNESS_NAMES]);
    assert(fairness.users === 4 && fairness.jain_bsld > 0 && fairness.jain_bsld <= 1);

    // compare --json: the fairness columns and the machine size.
    const [row] = JSON.parse(
      (await ok(["compare", ...common, "--policies", "easy", "--json"])).join("\n"),
    );
    assertEquals(Object.fromEntries(FAIRNESS_NAMES.map((k) => [k, row[k]])), fairness);
    assertEquals(row.total_nodes, NODES);

    // sweep: the same columns, total_nodes from the trace when the spec gives none.
    await Deno.writeTextFile(
      `${dir}/sweep.yaml`,
      `traces: [trace.csv]\npolicies: [easy]\ntotal_nodes: [${NODES}]\n` +
        `options:\n  trim: "3,0.1"\n`,
    );
    await ok(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/sweep`]);
    const [cell] = JSON.parse(await Deno.readTextFile(`${dir}/sweep/results.json`));
    assertEquals(Object.fromEntries(FAIRNESS_NAMES.map((k) => [k, cell[k]])), fairness);
    assertEquals([cell.jobs, cell.total_nodes], [metrics.jobs, NODES]);

    // The report of the run: the fairness table and a table per breakdown.
    const html = await Deno.readTextFile(`${dir}/r.html`);
    const shown = (v: string | number | null) =>
      v === null ? "-" : typeof v === "number" ? formatG(v) : v;
    assertEquals(tableRows(html, "fairness"), [[
      "s",
      ...FAIRNESS_NAMES.map((k) => shown(fairness[k])),
    ]]);
    // The schedule CSV has no account column: that table is left out.
    assertEquals(tableRows(html, "breakdown-account"), []);
    for (const kind of ["user", "queue", "size"]) {
      assertEquals(
        tableRows(html, `breakdown-${kind}`),
        breakdowns[kind].map((g: Doc) => [
          "s",
          g.key,
          ...BREAKDOWN_COLUMNS.map((k) => k === "jobs" ? String(g.jobs) : shown(g[k])),
        ]),
        kind,
      );
    }

    // serve (no trim: the session measures every job) against simulate without it.
    await ok([
      "simulate",
      `${dir}/trace.csv`,
      "-n",
      String(NODES),
      "-o",
      `${dir}/all.csv`,
      "--stats_json",
      `${dir}/all.json`,
    ]);
    const all: Doc = JSON.parse(await Deno.readTextFile(`${dir}/all.json`));
    const served = await withServer({}, async (_server, api) => {
      const { sessionId: id } = await api.ok("POST", "/sessions", { totalNodes: NODES });
      await api.ok("POST", `/sessions/${id}/jobs`, {
        jobs: jobs().map((j) => ({
          submitTime: j.submit,
          numNodes: j.nodes,
          timeLimit: j.limit,
          actualRunTime: j.run,
          queue: j.queue,
          user: j.user,
          account: j.account,
        })),
      });
      return await api.ok("POST", `/sessions/${id}/finish`, {});
    });
    assertEquals(served.metrics, all.metrics);
    assertEquals(served.breakdowns, all.breakdowns);
    assertEquals(served.fairness, all.fairness);
    assertEquals(all.metrics.jobs_excluded, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("trim: a bad --trim, or --trim with --measure_window, is one line, exit 1, nothing written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-breakdowns-" });
  try {
    await Deno.writeTextFile(`${dir}/trace.csv`, TRACE);
    for (
      const [args, line] of [
        [
          ["--trim", "1.5,0"],
          "evtsim: --trim: expected WARMUP,COOLDOWN, each a fraction in [0, 1) or a whole number of jobs, got '1.5,0'",
        ],
        [
          ["--trim", "0.1,0", "--measure_window", "0:100"],
          "evtsim: --trim and --measure_window: give one of them, not both",
        ],
      ] as const
    ) {
      for (const command of [["simulate"], ["compare", "--policies", "easy"]]) {
        const r = await runCli([
          ...command,
          `${dir}/trace.csv`,
          "-n",
          "16",
          ...(command[0] === "simulate"
            ? ["-o", `${dir}/s.csv`, "--stats_json", `${dir}/s.json`]
            : []),
          ...args,
        ]);
        assertEquals([r.code, r.err], [1, [line]], command[0]);
        assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["trace.csv"]);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
