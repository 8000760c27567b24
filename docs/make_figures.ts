// `deno task figures [DIR]`: the figures of docs/comparing.md, one of each kind, from the
// demo trace under EASY and CONSERVATIVE on 128 nodes, written as SVG into
// DIR (default docs/figures/). Run in a fresh process, the output is the same
// bytes every time (tests/metrics/report_figures_test.ts checks the committed files).

import { main } from "../cli/main.ts";

const root = new URL("../", import.meta.url).pathname;
const out = Deno.args[0] ?? `${root}docs/figures`;
const con = { out: () => {}, err: (l: string) => console.error(l), isTerminal: false };
const tmp = await Deno.makeTempDir({ prefix: "evtsim-figures-" });
try {
  const runs: string[] = [];
  for (const p of ["easy", "conservative"]) {
    const code = await main([
      "simulate",
      `${root}examples/demo_trace.csv`,
      "-n",
      "128",
      "-b",
      p,
      "-o",
      `${tmp}/${p}.csv`,
      "--no_progress",
    ], con);
    if (code !== 0) Deno.exit(code);
    runs.push(`${p}=${tmp}/${p}.csv`);
  }
  const code = await main(
    ["report", ...runs, "--figures", `${tmp}/figures`, "--out", `${tmp}/report.html`],
    con,
  );
  if (code !== 0) Deno.exit(code);
  Deno.mkdirSync(out, { recursive: true });
  for (const name of ["utilization", "queue_length", "wait_cdf", "slowdown_cdf", "wait_by_size"]) {
    Deno.copyFileSync(`${tmp}/figures/${name}.svg`, `${out}/${name}.svg`);
  }
  Deno.copyFileSync(`${tmp}/figures/gantt_1_easy.svg`, `${out}/gantt_easy.svg`);
  console.log(`figures written to ${out}`);
} finally {
  await Deno.remove(tmp, { recursive: true });
}
