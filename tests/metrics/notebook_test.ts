// examples/notebooks/policies.ipynb runs: its code cells, in order, as one
// module under `deno run --check` (no Jupyter), with Deno.jupyter stood in
// for; what it prints are the command line's metrics for the same runs, and
// what it displays is well-formed SVG that the PNG renderer draws and HTML.
// The committed notebook is nbformat 4.5 for the Deno kernel, no outputs.

import { assert, assertEquals } from "../_assert.ts";
import { recordProcessRun, ROOT, runCli, STACK_FRAME } from "../_cli.ts";
import {
  jupyterStub,
  markupProblems,
  moduleOf,
  type Notebook,
  notebookProblems,
} from "../_notebook.ts";
import { svgsToPng } from "../../cli/_figure_png.ts";
import { METRIC_NAMES } from "../../mod.ts";

const NOTEBOOK_DIR = `${ROOT}examples/notebooks/`;
const NOTEBOOK = `${NOTEBOOK_DIR}policies.ipynb`;

/** The columns of the notebook's printed table and the decimals it prints them with. */
const COLUMNS = [
  ["jobs", 0],
  ["wait_mean_s", 1],
  ["wait_p90_s", 1],
  ["bsld_mean", 2],
  ["bsld_p90", 2],
  ["utilization", 3],
  ["makespan_s", 0],
] as const;
const POLICIES = ["none", "easy", "conservative"];

Deno.test("the notebook is nbformat 4.5 for the Deno kernel, committed without outputs", async () => {
  const text = await Deno.readTextFile(NOTEBOOK);
  assertEquals(notebookProblems(text), []);
  // The checker finds what it is for.
  const nb = JSON.parse(text);
  nb.cells[1].outputs = [{ output_type: "stream", name: "stdout", text: ["stale\n"] }];
  nb.cells[2].id = nb.cells[0].id;
  assertEquals(notebookProblems(JSON.stringify(nb)), [
    "cell 1: saved with outputs (clear them before committing)",
    "cell 2: id cell-00 used twice",
  ]);
  const broken = notebookProblems("{");
  assert(broken.length === 1 && broken[0].startsWith("not JSON: "), broken.join());
});

Deno.test("the notebook's code cells run without Jupyter and print the command line's metrics", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-notebook-" });
  try {
    const nb: Notebook = JSON.parse(await Deno.readTextFile(NOTEBOOK));
    const shownFile = `${dir}/shown.json`;
    const main = `${dir}/notebook.ts`;
    await Deno.writeTextFile(
      main,
      jupyterStub(shownFile) + moduleOf(nb, new URL(`file://${NOTEBOOK_DIR}`)),
    );
    // The kernel runs in the notebook's folder: so does this run.
    const r = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--check",
        "--config",
        `${ROOT}deno.json`,
        "--allow-read",
        `--allow-write=${dir}`,
        main,
      ],
      cwd: NOTEBOOK_DIR,
      stdin: "null",
    }).output();
    const out = new TextDecoder().decode(r.stdout);
    const err = new TextDecoder().decode(r.stderr);
    recordProcessRun(["(notebook)"], err);
    assertEquals(r.code, 0, err);
    assert(!STACK_FRAME.test(err), err);

    // The printed table against `evtsim simulate --stats_json` of the same trace and policies.
    const lines = out.split("\n");
    for (const policy of POLICIES) {
      const stats = `${dir}/${policy}.json`;
      const cli = await runCli([
        "simulate",
        `${ROOT}examples/demo_trace.csv`,
        "-n",
        "128",
        "-b",
        policy,
        "-o",
        `${dir}/${policy}.csv`,
        "--stats_json",
        stats,
      ]);
      assertEquals(cli.code, 0, cli.err.join("\n"));
      const metrics = JSON.parse(await Deno.readTextFile(stats)).metrics;
      const row = lines.find((l) => l.split(/\s+/)[0] === policy);
      assert(row !== undefined, `no line for ${policy} in:\n${out}`);
      const printed = row.trim().split(/\s+/).slice(1);
      assertEquals(printed.length, COLUMNS.length, row);
      COLUMNS.forEach(([name, digits], i) => {
        assertEquals(printed[i], metrics[name].toFixed(digits), `${policy} ${name}`);
      });
    }

    // What it displayed: two charts and the metric table.
    const shown: Record<string, string>[] = JSON.parse(await Deno.readTextFile(shownFile));
    assertEquals(shown.map((b) => Object.keys(b).join()), [
      "image/svg+xml",
      "image/svg+xml",
      "text/html",
    ]);
    const [waitChart, busyChart] = shown.slice(0, 2).map((b) => b["image/svg+xml"]);
    for (const svg of [waitChart, busyChart]) {
      assertEquals(markupProblems(svg), []);
      assert(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'), svg.slice(0, 80));
      for (const p of POLICIES) assert(svg.includes(`>${p}</text>`), `${p} named in the chart`);
    }
    assertEquals(busyChart.match(/<polyline /g)?.length, 3, "one line per policy");
    // Two bars (mean, p90) per policy, besides the background and two legend swatches.
    assertEquals(waitChart.match(/<rect /g)?.length, 1 + 2 + 2 * 3);
    // The renderer the report's PNG export uses draws both.
    for (const png of await svgsToPng([waitChart, busyChart], ["wait", "busy"])) {
      assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    }
    const table = shown[2]["text/html"];
    assertEquals(markupProblems(table), []);
    assertEquals(table.match(/<tr>/g)?.length, 1 + METRIC_NAMES.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
