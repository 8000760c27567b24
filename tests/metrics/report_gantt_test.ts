// The report's Gantt chart on the nodes a run allocated (issue 29 item 2):
// with the schedule's `nodes` column every started job in the window is drawn
// exactly on the nodes its hostlist names (one rectangle per run of adjacent
// rows), no two jobs on one node at once, for a whole-node run and a
// --machine run; a malformed hostlist is one line naming file, line, field.

import fc from "fast-check";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { allocatedLayout, type GanttRect } from "../../cli/_report_figures.ts";
import { readScheduleCsv, type ScheduleColumns } from "../../cli/_run_files.ts";
import { expandHostlist } from "../../io/hostlist.ts";

const example = (name: string) => new URL(`../../examples/${name}`, import.meta.url).pathname;
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
// The Gantt chart's rectangles in an SVG: one path per data item of a custom series.
const svgRects = (svg: string) =>
  [
    ...svg.matchAll(
      /<path d="M[^"]*Z"[^>]*ecmeta_series_index="(\d+)" ecmeta_data_index="(\d+)" ecmeta_ssr_type="chart"/g,
    ),
  ].length;

// Every started job in [lo, hi) has rectangles exactly on its nodes, over its
// time in the window; no two rectangles share a node at the same time.
function checkOnTheirNodes(
  s: Pick<ScheduleColumns, "count" | "begin" | "end"> & { hostlists: readonly string[] },
  lo: number,
  hi: number,
  layout: { rects: GanttRect[]; rows: string[] },
): void {
  const { rects, rows } = layout;
  assertEquals(new Set(rows).size, rows.length, "one row per node");
  for (let j = 0; j < s.count; j++) {
    const mine = rects.filter((r) => r.job === j);
    const started = s.begin[j] < hi && s.end[j] > lo && s.end[j] > s.begin[j] &&
      s.hostlists[j] !== "";
    if (!started) {
      assertEquals(mine.length, 0, `job ${j} is not in the window`);
      continue;
    }
    const drawn = mine.flatMap((r) => rows.slice(r.fromNode, r.toNode)).sort();
    assertEquals(drawn, [...new Set(expandHostlist(s.hostlists[j]))].sort(), `job ${j}'s nodes`);
    // Runs of adjacent rows are one rectangle each: none touches another of the job's.
    for (const a of mine) {
      assertEquals([a.start, a.end], [Math.max(lo, s.begin[j]), Math.min(hi, s.end[j])]);
      for (const b of mine) assert(a === b || (a.toNode < b.fromNode || b.toNode < a.fromNode));
    }
  }
  for (const a of rects) {
    assert(a.fromNode >= 0 && a.toNode <= rows.length && a.fromNode < a.toNode);
    for (const b of rects) {
      if (a === b) continue;
      const nodes = a.fromNode < b.toNode && b.fromNode < a.toNode;
      const time = a.start < b.end && b.start < a.end;
      assert(!(nodes && time), `overlap: ${JSON.stringify([a, b])}`);
    }
  }
}

// Simulates with --extended_output, reports with --figures over the whole
// run, and checks the Gantt figure against the schedule's hostlists.
async function reportOnNodes(simulateArgs: string[], expectRows: (rows: string[]) => void) {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-gantt-" });
  try {
    const out = `${dir}/run.csv`;
    const s = await runCli(["simulate", ...simulateArgs, "--extended_output", "-o", out]);
    assertEquals(s.code, 0, s.err.join("\n"));
    const schedule = await readScheduleCsv(out);
    const hostlists = schedule.hostlists!;
    assert(hostlists !== undefined && hostlists.some((h) => h !== ""));
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < schedule.count; i++) {
      lo = Math.min(lo, schedule.begin[i]);
      hi = Math.max(hi, schedule.end[i]);
    }
    const r = await runCli([
      "report",
      out,
      "--window",
      `${lo}:${hi}`,
      "--figures",
      `${dir}/figs`,
      "--out",
      `${dir}/report.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const layout = allocatedLayout({ ...schedule, hostlists }, lo, hi, 4000);
    checkOnTheirNodes({ ...schedule, hostlists }, lo, hi, layout);
    expectRows(layout.rows);
    const svg = Deno.readTextFileSync(`${dir}/figs/gantt_1_run.svg`);
    assertEquals(svgRects(svg), layout.rects.length);
    assert(layout.rects.length >= layout.jobs && layout.jobs > 0);
    const t = texts(svg);
    assert(t.some((x) => x.includes("nodes as allocated")), t.join("|"));
    // The node axis names the nodes.
    assert(t.includes(layout.rows[0]), `first row ${layout.rows[0]} labelled`);
    assert(Deno.readTextFileSync(`${dir}/report.html`).includes("nodes as allocated"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("report: a whole-node run's Gantt chart puts each job on its nodes column's nodes", async () => {
  await reportOnNodes(
    [example("demo_trace.csv"), "-n", "128", "--no_progress"],
    (rows) => {
      // n001 .. n128 in number order (every node runs some job).
      assertEquals(
        rows,
        Array.from({ length: 128 }, (_, i) => `n${String(i + 1).padStart(3, "0")}`),
      );
    },
  );
});

Deno.test("report: a --machine run's Gantt chart puts each job on the machine nodes it was given", async () => {
  await reportOnNodes(
    [example("gpu_trace.csv"), "--machine", example("gpu_machine.yaml"), "--no_progress"],
    (rows) => {
      // Hostlist order: groups in order of first appearance, numbers ascending.
      for (const g of ["cpu", "gpu", "bigmem"]) {
        const mine = rows.filter((n) => n.startsWith(g));
        assertEquals(mine, [...mine].sort(), g);
        const at = rows.indexOf(mine[0]);
        assertEquals(rows.slice(at, at + mine.length), mine, `${g} rows together`);
      }
    },
  );
});

Deno.test("report without a nodes column keeps the drawing layout's caption", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-gantt-" });
  try {
    const s = await runCli([
      "simulate",
      example("gpu_trace.csv"),
      "-n",
      "8",
      "-o",
      `${dir}/run.csv`,
      "--no_progress",
    ]);
    assertEquals(s.code, 0, s.err.join("\n"));
    assertEquals((await readScheduleCsv(`${dir}/run.csv`)).hostlists, undefined);
    const r = await runCli(["report", `${dir}/run.csv`, "--out", `${dir}/r.html`]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const page = Deno.readTextFileSync(`${dir}/r.html`);
    assert(page.includes("Node occupancy: run (") && !page.includes("nodes as allocated"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Random allocations on named nodes: jobs placed on free nodes of a random
// machine (names of two prefixes, in a random order), hostlists written as
// lists of single names in a random order.
const allocations = fc.record({
  names: fc.shuffledSubarray(
    ["a1", "a2", "a3", "a10", "b01", "b02", "b03", "login", "a4", "b04"],
    { minLength: 1 },
  ),
  jobs: fc.array(
    fc.record({
      begin: fc.integer({ min: 0, max: 100 }),
      run: fc.integer({ min: 0, max: 40 }),
      want: fc.integer({ min: 0, max: 4 }),
      pick: fc.integer({ min: 0, max: 1000 }),
    }),
    { maxLength: 25 },
  ),
}).map(({ names, jobs }) => {
  const placed: { begin: number; end: number; nodes: string[] }[] = [];
  for (const j of jobs) {
    const end = j.begin + j.run;
    const busy = new Set(
      placed.filter((p) => p.begin < end && j.begin < p.end).flatMap((p) => p.nodes),
    );
    const free = names.filter((n) => !busy.has(n));
    const nodes: string[] = [];
    for (let k = 0; k < j.want && free.length > 0; k++) {
      nodes.push(...free.splice((j.pick + k * 7) % free.length, 1));
    }
    placed.push({ begin: j.begin, end, nodes });
  }
  return placed;
});

Deno.test("allocatedLayout: every started job in the window exactly on its nodes, none overlapping (property)", () => {
  fc.assert(
    fc.property(
      allocations,
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 1, max: 100 }),
      (jobs, lo, len) => {
        const s = {
          count: jobs.length,
          begin: Float64Array.from(jobs, (j) => j.begin),
          end: Float64Array.from(jobs, (j) => j.end),
          hostlists: jobs.map((j) => j.nodes.join(",")),
        };
        checkOnTheirNodes(s, lo, lo + len, allocatedLayout(s, lo, lo + len, 1000));
      },
    ),
    { seed: 29, numRuns: 300 },
  );
});

Deno.test("report: a malformed hostlist in the nodes column is one line naming file, line and field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-gantt-" });
  try {
    const run = `${dir}/run.csv`;
    Deno.writeTextFileSync(
      run,
      "job_submit_time,begin_time,end_time,num_nodes,exit_status,nodes\n" +
        "0,0,10,2,0,n[001-002]\n0,0,10,1,0,n[003\n",
    );
    Deno.writeTextFileSync(`${dir}/run_resources.csv`, "time,free_nodes,allocated_nodes\n0,1,3\n");
    const r = await runCli(["report", run, "--out", `${dir}/r.html`]);
    assertEquals(r.code, 1);
    assertEquals(r.err, [
      `evtsim: ${run}:3: nodes: expected a Slurm hostlist: hostlist "n[003": a '[' without ']'`,
    ]);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "run.csv",
      "run_resources.csv",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare --report: the Gantt charts draw the nodes each policy's run allocated; the options shown are the user's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-gantt-" });
  try {
    const r = await runCli([
      "compare",
      example("gpu_trace.csv"),
      "--machine",
      example("gpu_machine.yaml"),
      "--policies",
      "easy,conservative",
      "--report",
      `${dir}/report.html`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const html = Deno.readTextFileSync(`${dir}/report.html`);
    assertEquals(html.match(/Node occupancy: [^<]*nodes as allocated\)/g)?.length, 2);
    assert(texts(html).includes("gpu001") && texts(html).includes("bigmem001"));
    assert(html.includes("--admission easy") && !html.includes("extended_output"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
