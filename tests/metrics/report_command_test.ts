// `evtsim report`: the HTML of real runs holds one SVG per chart and each
// run's summary numbers as `simulate` computed them, opens in headless
// Chromium without console messages, and bad input is one line with no file
// written.

import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { formatG } from "../../cli/report.ts";
import { CHART_TITLES, SUMMARY_METRICS } from "../../cli/report_command.ts";

const KTH_FULL = "/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz";
const KTH_500 = new URL("../fixtures/swf/kth_500.swf.gz", import.meta.url).pathname;
const DEMO = new URL("../../examples/demo_trace.csv", import.meta.url).pathname;
const exists = (p: string) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
};
// The real KTH log when it is here, else its bundled 500-job prefix.
const KTH = exists(KTH_FULL) ? KTH_FULL : KTH_500;

async function simulate(dir: string, name: string, trace: string, args: string[]) {
  const r = await runCli([
    "simulate",
    trace,
    ...args,
    "-o",
    `${dir}/${name}_sim.csv`,
    "--stats_json",
    `${dir}/${name}.json`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return JSON.parse(Deno.readTextFileSync(`${dir}/${name}.json`));
}

const svgCount = (html: string) => html.match(/<svg[\s>]/g)?.length ?? 0;

// The report of two policies on the KTH log; its path and the runs' stats.
async function kthReport(dir: string) {
  const easy = await simulate(dir, "easy", KTH, ["-n", "100", "-b", "easy"]);
  const cons = await simulate(dir, "cons", KTH, ["-n", "100", "-b", "conservative"]);
  const r = await runCli([
    "report",
    `${dir}/easy_sim.csv`,
    `cons=${dir}/cons_sim.csv,${dir}/cons_sim_resources.csv`,
    "--out",
    `${dir}/report.html`,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  assert(r.out[0].startsWith(`Report written to: ${dir}/report.html (2 runs, `), r.out[0]);
  return { html: Deno.readTextFileSync(`${dir}/report.html`), stats: [easy, cons] };
}

Deno.test("report of the KTH log: one SVG per chart, each run's summary numbers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-" });
  try {
    const { html, stats } = await kthReport(dir);
    // Five shared charts and one occupancy chart per run.
    assertEquals(svgCount(html), CHART_TITLES.length + 2);
    for (const t of CHART_TITLES) assert(html.includes(t), t);
    assert(!/<script|<link|src=|url\(http/i.test(html), "self-contained, no script");
    const rows = [...html.matchAll(/<tr><td class="l">([^<]*)<\/td>(.*?)<\/tr>/g)];
    assertEquals(rows.map((m) => m[1]), ["easy_sim", "cons"]);
    for (const [i, m] of rows.entries()) {
      const cells = [...m[2].matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1]);
      const s = stats[i].statistics;
      const metrics = stats[i].metrics;
      assertEquals(cells[0], String(s.jobsCompleted));
      // The metric set of the run's stats JSON, under the same names.
      for (const [c, k] of SUMMARY_METRICS.entries()) {
        assertEquals(cells[c], k.startsWith("jobs") ? String(metrics[k]) : formatG(metrics[k]), k);
      }
      assertEquals(cells[2], formatG(s.averageWait));
      assertEquals(cells[3], formatG(stats[i].waitTime.p50));
      assertEquals(cells[5], formatG(s.maxWait));
      assertEquals(cells[SUMMARY_METRICS.length], "100");
    }
    assert(rows[0][2] !== rows[1][2], "the two policies' rows differ");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Headless Chromium: installed with apt when missing (5 minutes at most).
async function findChromium(): Promise<{ path?: string; why?: string }> {
  const which = async () => {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
      const r = await new Deno.Command("sh", { args: ["-c", `command -v ${name}`] }).output()
        .catch(() => undefined);
      if (r?.success) return new TextDecoder().decode(r.stdout).trim();
    }
    return undefined;
  };
  const found = await which();
  if (found !== undefined) return { path: found };
  try {
    const r = await new Deno.Command("timeout", {
      args: ["300", "apt-get", "install", "-y", "chromium"],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!r.success) {
      const tail = new TextDecoder().decode(r.stderr).trim().split("\n").pop();
      return { why: `apt-get install -y chromium failed (exit ${r.code}): ${tail}` };
    }
  } catch (e) {
    return { why: `cannot run apt-get: ${(e as Error).message}` };
  }
  const after = await which();
  return after !== undefined ? { path: after } : { why: "chromium not on PATH after apt-get" };
}

const chromium = await findChromium();
if (chromium.path === undefined) {
  console.log(`report_command_test: skipping the Chromium test: ${chromium.why}`);
}

async function openInChromium(file: string): Promise<{ dom: string; console: string[] }> {
  const r = await new Deno.Command("timeout", {
    args: [
      "60",
      chromium.path!,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--enable-logging=stderr",
      "--v=0",
      "--dump-dom",
      `file://${file}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(r.success, `chromium exit ${r.code}`);
  const err = new TextDecoder().decode(r.stderr);
  return {
    dom: new TextDecoder().decode(r.stdout),
    console: err.split("\n").filter((l) => /:CONSOLE[:(]/.test(l)),
  };
}

Deno.test({
  name: "the report of the KTH log opens in headless Chromium with no console messages",
  ignore: chromium.path === undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-report-" });
    try {
      await kthReport(dir);
      const page = await openInChromium(`${dir}/report.html`);
      assertEquals(page.console, []);
      assertEquals(svgCount(page.dom), CHART_TITLES.length + 2);
      // The check can fail: a page that logs an error is caught.
      Deno.writeTextFileSync(`${dir}/bad.html`, "<script>console.error('boom')</script>");
      assertEquals((await openInChromium(`${dir}/bad.html`)).console.length, 1);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("report bad input: one line naming the file, exit 1, no report written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-" });
  try {
    await simulate(dir, "demo", DEMO, ["-n", "128"]);
    await simulate(dir, "kth", KTH_500, ["-n", "100"]);
    Deno.writeTextFileSync(`${dir}/old.html`, "old");
    Deno.writeTextFileSync(
      `${dir}/bad_sim.csv`,
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit\n1,2,3,4,0,5\n1,x,3,4,0,5\n",
    );
    Deno.copyFileSync(`${dir}/demo_sim_resources.csv`, `${dir}/bad_sim_resources.csv`);
    const cases: [string[], string][] = [
      [[DEMO], `${DEMO}:1: not a schedule CSV (simulate --outfile): header lacks begin_time`],
      [[`${dir}/bad_sim.csv`], `${dir}/bad_sim.csv:3: begin_time: expected a number, got 'x'`],
      [[`${dir}/demo.json`], `${dir}/demo.json:1: not a schedule CSV`],
      [[`${dir}/none_sim.csv`], `${dir}/none_sim.csv: schedule CSV not found`],
      [
        [`${dir}/demo_sim.csv,${dir}/missing.csv`],
        `${dir}/missing.csv: resource CSV not found`,
      ],
      [
        [`${dir}/demo_sim.csv,${dir}/demo_sim.csv`],
        `${dir}/demo_sim.csv:1: not a resource CSV`,
      ],
      [
        [`${dir}/demo_sim.csv`, `${dir}/kth_sim.csv`],
        `${dir}/kth_sim.csv: holds other jobs than ${dir}/demo_sim.csv`,
      ],
    ];
    for (const [runs, message] of cases) {
      const r = await runCli(["report", ...runs, "--out", `${dir}/old.html`]);
      assertEquals(r.code, 1, runs.join(" "));
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(r.err[0].startsWith(`evtsim: ${message}`), r.err[0]);
      assertEquals(Deno.readTextFileSync(`${dir}/old.html`), "old");
    }
    assertEquals([...Deno.readDirSync(dir)].filter((e) => e.name.includes(".tmp-")), []);
    const mixed = await runCli([
      "report",
      `${dir}/demo_sim.csv`,
      `${dir}/kth_sim.csv`,
      "--allow_mixed",
      "--out",
      `${dir}/mixed.html`,
    ]);
    assertEquals(mixed.code, 0, mixed.err.join("\n"));
    assertEquals(svgCount(Deno.readTextFileSync(`${dir}/mixed.html`)), CHART_TITLES.length + 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("report --window START:END is checked", async () => {
  const r = await runCli(["report", DEMO, "--window", "5:1", "--out", "/tmp/x.html"]);
  assertEquals(r.code, 1);
  assertEquals(r.err, [
    "evtsim: --window: expected START:END in seconds with START < END, got '5:1'",
  ]);
});

Deno.test("compare --report writes one report of every policy; a bad policy writes none", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-" });
  try {
    const out = `${dir}/c.html`;
    const bad = await runCli([
      "compare",
      DEMO,
      "-n",
      "128",
      "--policies",
      "easy,x",
      "--report",
      out,
    ]);
    assertEquals(bad.code, 1);
    assert(!exists(out));
    const r = await runCli([
      "compare",
      DEMO,
      "-n",
      "128",
      "--policies",
      "easy,sjf+easy",
      "--report",
      out,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.out.at(-1), `Report written to: ${out}`);
    const html = Deno.readTextFileSync(out);
    assertEquals(svgCount(html), CHART_TITLES.length + 2);
    const labels = [...html.matchAll(/<tr><td class="l">([^<]*)<\/td>/g)].map((m) => m[1]);
    assertEquals(labels, ["easy", "sjf+easy"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("evtsim help report", async () => {
  const r = await runCli(["help", "report"]);
  assertEquals(r.code, 0);
  assert(r.out[0].startsWith("usage: evtsim report RUN..."));
});

Deno.test("simulate --report writes the report of that run (as 'report' would)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-report-" });
  try {
    const r = await runCli([
      "simulate",
      DEMO,
      "-n",
      "128",
      "-o",
      `${dir}/demo_sim.csv`,
      "--report",
      `${dir}/direct.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(r.out.at(-1), `Report written to: ${dir}/direct.html`);
    const again = await runCli(["report", `${dir}/demo_sim.csv`, "--out", `${dir}/again.html`]);
    assertEquals(again.code, 0, again.err.join("\n"));
    const direct = Deno.readTextFileSync(`${dir}/direct.html`);
    assertEquals(svgCount(direct), CHART_TITLES.length + 1);
    // The same charts, up to the renderer's per-process element ids (the
    // provenance differs: simulate knows the trace and the options).
    const charts = (html: string) => html.replace(/zr\d+-[\w-]*/g, "zr").split("<h2>Provenance")[0];
    assert(charts(direct) === charts(Deno.readTextFileSync(`${dir}/again.html`)), "same charts");
    assert(direct.includes("<dd>demo_trace.csv</dd>") && direct.includes("--total_nodes 128"));
    // An SWF schedule cannot be read back: refused before anything runs.
    const swf = await runCli([
      "simulate",
      DEMO,
      "-n",
      "128",
      "-o",
      `${dir}/s.swf`,
      "--report",
      `${dir}/swf.html`,
    ]);
    assertEquals(swf.code, 1);
    assertEquals(swf.err, [
      "evtsim: --report reads the schedule CSV: it needs a CSV --outfile",
    ]);
    assert(!exists(`${dir}/swf.html`) && !exists(`${dir}/s.swf`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
