// The report's figures for a paper: provenance on the page (trace, SHA-256,
// options per run, version, date, no temporary files), log axes on the CDFs,
// calendar dates from an SWF log's UnixStartTime, rolling-mean series (one per
// run, against a plain reference), the Gantt chart's rectangles (one or more
// per started job in the window, none overlapping on a node), and every
// figure exported alone as SVG and as a valid PNG.

import fc from "fast-check";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ganttLayout, overtook, rollingMean } from "../../cli/_report_figures.ts";
import { readResourceCsv, readScheduleCsv } from "../../cli/_run_files.ts";
import { PNG_WIDTH } from "../../cli/_figure_png.ts";
import { VERSION } from "../../cli/version.ts";

const DEMO = new URL("../../examples/demo_trace.csv", import.meta.url).pathname;
const exists = (p: string) => {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
};

// 2003-07-01 00:00:00 UTC.
const UNIX_START = 1057017600;

// A small SWF log with a UnixStartTime header: 60 jobs over about 3 days on 16 nodes.
function swfLog(): string {
  const lines = ["; MaxNodes: 16", "; MaxProcs: 16", `; UnixStartTime: ${UNIX_START}`];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let t = 0;
  for (let j = 1; j <= 60; j++) {
    t += Math.floor(rnd() * 7200);
    const run = 60 + Math.floor(rnd() * 20000);
    const n = 1 + Math.floor(rnd() * 8);
    lines.push(`${j} ${t} -1 ${run} ${n} -1 -1 ${n} ${run + 600} -1 1 1 1 -1 1 -1 -1 -1`);
  }
  return lines.join("\n") + "\n";
}

const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

// The long polylines of a chart: its series (grid lines and legend icons are short).
const seriesPaths = (svg: string) =>
  [...svg.matchAll(/<path d="(M[^"]*)" fill="none"[^>]*stroke="([^"]+)"/g)]
    .filter((m) => (m[1].match(/L/g)?.length ?? 0) > 50);

async function sha256(path: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(path)));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

// PNG: the signature, then the IHDR chunk's width and height.
function pngSize(bytes: Uint8Array): [number, number] {
  assertEquals([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]);
  const v = new DataView(bytes.buffer, bytes.byteOffset);
  assertEquals(new TextDecoder().decode(bytes.subarray(12, 16)), "IHDR");
  return [v.getUint32(16), v.getUint32(20)];
}

Deno.test("compare --report on an SWF log with UnixStartTime: provenance, dates, log axes, rolling means, Gantt, SVG and PNG figures", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-figures-" });
  try {
    const trace = `${dir}/cluster.swf`;
    Deno.writeTextFileSync(trace, swfLog());
    const r = await runCli([
      "compare",
      trace,
      "-n",
      "16",
      "--policies",
      "easy,conservative",
      "--report",
      `${dir}/report.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const html = Deno.readTextFileSync(`${dir}/report.html`);
    // Provenance: the trace by name and SHA-256, each run's options, version, date.
    const prov = html.slice(html.indexOf("<h2>Provenance"));
    assert(prov.includes("<dd>cluster.swf</dd>"), prov);
    assert(prov.includes(`<code>${await sha256(trace)}</code>`));
    assert(prov.includes(`<dd>${VERSION}</dd>`));
    assert(/<dt>date<\/dt><dd>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/dd>/.test(prov));
    assert(prov.includes(`${UNIX_START} (2003-07-01 00:00 UTC)`));
    const runs = [
      ...prov.matchAll(/<tr class="run"><td class="l">([^<]*)<\/td><td class="l"><code>([^<]*)</g),
    ];
    assertEquals(runs.map((m) => m[1]), ["easy", "conservative"]);
    assert(runs[0][2].includes("--total_nodes 16") && runs[0][2].includes("--admission easy"));
    assert(runs[1][2].includes("--admission conservative"));
    // No temporary file of compare's is named anywhere.
    assert(!html.includes("evtsim-compare-") && !html.includes("_sim.csv"), "no temp files");
    // Readable numbers: no exponent notation in any chart label.
    for (const t of texts(html)) assert(!/\de[+-]\d/.test(t), t);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("report --trace --figures: every figure alone as SVG and PNG, with date and log axes, rolling means and the Gantt rectangles", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-figures-" });
  try {
    const trace = `${dir}/cluster.swf`;
    Deno.writeTextFileSync(trace, swfLog());
    for (const p of ["easy", "conservative"]) {
      const s = await runCli(["simulate", trace, "-n", "16", "-b", p, "-o", `${dir}/${p}.csv`]);
      assertEquals(s.code, 0, s.err.join("\n"));
    }
    const figs = `${dir}/figs`;
    const r = await runCli([
      "report",
      `${dir}/easy.csv`,
      `${dir}/conservative.csv`,
      "--trace",
      trace,
      "--mean_window",
      "3600",
      "--figures",
      figs,
      "--out",
      `${dir}/report.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const names = [...Deno.readDirSync(figs)].map((e) => e.name).sort();
    const stems = [
      "gantt_1_easy",
      "gantt_2_conservative",
      "queue_length",
      "slowdown_cdf",
      "utilization",
      "wait_by_size",
      "wait_cdf",
    ];
    assertEquals(names, stems.flatMap((s) => [`${s}.png`, `${s}.svg`]));
    const svg = (s: string) => Deno.readTextFileSync(`${figs}/${s}.svg`);
    for (const s of stems) {
      const text = svg(s);
      const m = /^<svg width="(\d+)" height="(\d+)" xmlns="http:\/\/www\.w3\.org\/2000\/svg"/.exec(
        text,
      );
      assert(m !== null && text.trimEnd().endsWith("</svg>"), `${s}.svg is one SVG document`);
      const [w, h] = pngSize(Deno.readFileSync(`${figs}/${s}.png`));
      assertEquals(w, PNG_WIDTH);
      assertEquals(h, Math.round((PNG_WIDTH * Number(m[2])) / Number(m[1])));
      // The page holds the same figure.
      assert(Deno.readTextFileSync(`${dir}/report.html`).includes(texts(text).at(-1)!));
    }
    // Date axes: every time-axis label is a UTC date of the log's days.
    for (const s of ["utilization", "queue_length", "gantt_1_easy"]) {
      const dates = texts(svg(s)).filter((t) => /^\d{4}-\d\d-\d\d/.test(t));
      assert(dates.length >= 3, `${s}: dates on the time axis`);
      for (const d of dates) assert(d >= "2003-07-01" && d < "2003-07-10", `${s}: ${d}`);
      assert(texts(svg(s)).includes("date (UTC)"));
    }
    // Log axes: the CDFs' x labels are successive powers of ten from 1.
    for (const s of ["wait_cdf", "slowdown_cdf"]) {
      const ticks = texts(svg(s)).filter((t) => /^[\d,]+$/.test(t));
      const decades = [...new Set(ticks.map((t) => Number(t.replaceAll(",", ""))))]
        .filter((x) => x > 0 && Number.isInteger(Math.log10(x)));
      assert(decades.length >= 2, `${s}: ${ticks}`);
      for (let i = 1; i < decades.length; i++) assertEquals(decades[i], decades[i - 1] * 10);
    }
    // Rolling means: one series line per run in utilization and queue length,
    // each run named in the legend.
    for (const s of ["utilization", "queue_length"]) {
      assertEquals(seriesPaths(svg(s)).length, 2, s);
      assert(texts(svg(s)).includes("easy") && texts(svg(s)).includes("conservative"));
      assert(texts(svg(s)).some((t) => t.includes("rolling mean over 1 h")));
    }
    // Gantt: one rectangle per block of the drawing layout, every started job in the window.
    const schedule = await readScheduleCsv(`${dir}/easy.csv`);
    const resources = await readResourceCsv(`${dir}/easy_resources.csv`);
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < schedule.count; i++) {
      lo = Math.min(lo, schedule.begin[i]);
      hi = Math.max(hi, schedule.end[i]);
    }
    const window: [number, number] = hi - lo <= 86400 ? [lo, hi] : (() => {
      const mid = schedule.begin.slice().sort()[Math.ceil(schedule.count / 2) - 1];
      const start = Math.min(mid, hi - 86400);
      return [start, start + 86400];
    })();
    const layout = ganttLayout(schedule, resources.totalNodes, window[0], window[1], 4000);
    const rects = [
      ...svg("gantt_1_easy").matchAll(
        /<path d="M[^"]*Z"[^>]*ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)" ecmeta_ssr_type="chart"/g,
      ),
    ];
    assertEquals(rects.length, layout.rects.length);
    assertEquals(new Set(rects.map((m) => `${m[1]}:${m[2]}`)).size, layout.rects.length);
    // Coloured by the policy's decision: as many in each series as jobs of that kind.
    const ahead = overtook(schedule);
    const inSeries = (k: number) => rects.filter((m) => m[1] === String(k)).length;
    assertEquals(inSeries(1), layout.rects.filter((g) => ahead[g.job] === 1).length);
    assertEquals(inSeries(0), layout.rects.filter((g) => ahead[g.job] === 0).length);
    assert(texts(svg("gantt_1_easy")).includes("overtook an earlier job"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Random schedules of whole-node jobs that fit the machine (each start finds its nodes).
const schedules = fc.integer({ min: 1, max: 12 }).chain((total) =>
  fc.array(
    fc.record({
      begin: fc.integer({ min: 0, max: 200 }),
      run: fc.integer({ min: 0, max: 80 }),
      nodes: fc.integer({ min: 1, max: total }),
    }),
    { maxLength: 40 },
  ).map((jobs) => {
    // Keep a job only when the machine has room for it over its whole run.
    const kept: typeof jobs = [];
    for (const j of jobs) {
      const used = (t: number) =>
        kept.filter((k) => k.begin <= t && t < k.begin + k.run).reduce((a, k) => a + k.nodes, 0);
      const points = [j.begin, ...kept.map((k) => k.begin)].filter((t) =>
        t >= j.begin && t < j.begin + j.run
      );
      if (points.every((t) => used(t) + j.nodes <= total)) kept.push(j);
    }
    return { total, jobs: kept };
  })
);

Deno.test("ganttLayout: every started job in the window on its node count, no two rectangles overlap on a node", () => {
  fc.assert(
    fc.property(
      schedules,
      fc.integer({ min: 0, max: 150 }),
      fc.integer({ min: 1, max: 150 }),
      ({ total, jobs }, lo, len) => {
        const hi = lo + len;
        const s = {
          count: jobs.length,
          begin: Float64Array.from(jobs, (j) => j.begin),
          end: Float64Array.from(jobs, (j) => j.begin + j.run),
          nodes: Float64Array.from(jobs, (j) => j.nodes),
        };
        const { rects } = ganttLayout(s, total, lo, hi, 1000);
        const inWindow = jobs.flatMap((j, i) =>
          j.run > 0 && j.begin < hi && j.begin + j.run > lo ? [i] : []
        );
        assertEquals([...new Set(rects.map((r) => r.job))].sort((a, b) => a - b), inWindow);
        for (const i of inWindow) {
          const mine = rects.filter((r) => r.job === i);
          assertEquals(mine.reduce((a, r) => a + r.toNode - r.fromNode, 0), jobs[i].nodes);
          for (const r of mine) {
            assertEquals([r.start, r.end], [Math.max(lo, jobs[i].begin), Math.min(hi, s.end[i])]);
          }
        }
        for (const a of rects) {
          assert(a.fromNode >= 0 && a.toNode <= total && a.fromNode < a.toNode);
          for (const b of rects) {
            if (a === b) continue;
            const nodes = a.fromNode < b.toNode && b.fromNode < a.toNode;
            const time = a.start < b.end && b.start < a.end;
            assert(!(nodes && time), `overlap: ${JSON.stringify([a, b])}`);
          }
        }
      },
    ),
    { seed: 29, numRuns: 300 },
  );
});

Deno.test("rollingMean is the trailing time-weighted mean of the step series (plain reference)", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 9 })), {
        minLength: 1,
        maxLength: 30,
      }),
      fc.integer({ min: 1, max: 60 }),
      (steps, window) => {
        steps.sort((a, b) => a[0] - b[0]);
        const t = Float64Array.from(steps, (s) => s[0]);
        const v = Float64Array.from(steps, (s) => s[1]);
        const got = rollingMean(t, v, 0, 100, window, 20);
        // Reference: the value in force at each of 1/8-second slices (the last of equal times).
        const valueAt = (x: number) => {
          let y = 0;
          for (let i = 0; i < t.length && t[i] <= x; i++) y = v[i];
          return y;
        };
        assertEquals(got.length, 20);
        for (const [x, mean] of got) {
          const from = Math.max(0, x - window);
          let sum = 0, n = 0;
          for (let q = from + 1 / 16; q < x; q += 1 / 8) {
            sum += valueAt(q);
            n++;
          }
          assert(Math.abs(sum / n - mean) < 1e-9, `at ${x}: ${mean} vs ${sum / n}`);
        }
      },
    ),
    { seed: 30, numRuns: 200 },
  );
});

Deno.test("report --mean_window and --trace: bad values are one line, nothing written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-figures-" });
  try {
    for (const bad of ["0", "1h", "", "0.0"]) {
      const r = await runCli([
        "report",
        `${dir}/x.csv`,
        "--mean_window",
        bad,
        "--figures",
        `${dir}/figs`,
        "--out",
        `${dir}/r.html`,
      ]);
      assertEquals(r.code, 1);
      assertEquals(r.err, [
        `evtsim: --mean_window: expected seconds greater than 0, got '${bad}'`,
      ]);
    }
    assertEquals([...Deno.readDirSync(dir)], []);
    // A trace that is not there: one line naming it, nothing written.
    const runs = await runCli(["simulate", DEMO, "-n", "128", "-o", `${dir}/d.csv`]);
    assertEquals(runs.code, 0, runs.err.join("\n"));
    for (
      const [trace, why] of [[`${dir}/none.swf`, "trace not found"], [dir, "cannot read the trace"]]
    ) {
      const r = await runCli([
        "report",
        `${dir}/d.csv`,
        "--trace",
        trace,
        "--figures",
        `${dir}/figs`,
        "--out",
        `${dir}/r.html`,
      ]);
      assertEquals(r.code, 1);
      assertEquals(r.err, [`evtsim: ${trace}: ${why} (--trace)`]);
    }
    assert(!exists(`${dir}/r.html`) && !exists(`${dir}/figs`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the docs' figures (docs/figures/*.svg) are what 'deno task figures' writes now", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-figures-" });
  try {
    const root = new URL("../../", import.meta.url).pathname;
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-sys",
        `${root}docs/make_figures.ts`,
        dir,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(r.code, 0, new TextDecoder().decode(r.stderr));
    const names = (d: string) => [...Deno.readDirSync(d)].map((e) => e.name).sort();
    assertEquals(names(dir), names(`${root}docs/figures`));
    for (const n of names(dir)) {
      assert(
        Deno.readTextFileSync(`${dir}/${n}`) === Deno.readTextFileSync(`${root}docs/figures/${n}`),
        `docs/figures/${n} is stale: run 'deno task figures' and commit it`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("overtook marks the jobs that started before an earlier-submitted job (plain reference)", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 40 })), {
        maxLength: 30,
      }),
      (jobs) => {
        const s = {
          count: jobs.length,
          submit: Float64Array.from(jobs, (j) => j[0]),
          begin: Float64Array.from(jobs, (j) => j[0] + j[1]),
        };
        const want = jobs.map((_, j) =>
          jobs.some((_, i) => s.submit[i] < s.submit[j] && s.begin[i] > s.begin[j]) ? 1 : 0
        );
        assertEquals([...overtook(s)], want);
      },
    ),
    { seed: 31, numRuns: 300 },
  );
});
