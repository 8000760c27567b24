// `compare`, `report` and ECharts are loaded on demand: the modules
// `evtsim simulate` loads at start-up (cli/main.ts, the command worker and
// cli/simulate.ts with everything they import statically, `import type`
// aside) include none of them.

import { assert } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!file.endsWith(".ts")) return;
    const text = Deno.readTextFileSync(file);
    // Static value imports and re-exports; `import(...)` is dynamic and skipped.
    const re = /^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms;
    for (const m of text.matchAll(re)) {
      const spec = m[1];
      if (spec.startsWith(".")) visit(new URL(spec, `file://${file}`).pathname);
      else seen.add(spec);
    }
  };
  visit(entry);
  return seen;
}

Deno.test("simulate's start-up graph holds neither compare, report nor echarts", () => {
  // main.ts loads a command on demand, beside the watchdog that stops it on a
  // signal: the start-up graph is main's, the watchdog's and simulate's own.
  const graph = new Set(
    ["cli/main.ts", "cli/_watchdog.ts", "cli/simulate.ts"]
      .flatMap((f) => [...staticGraph(`${ROOT}${f}`)]),
  );
  assert(graph.has(`${ROOT}cli/outputs.ts`), "the walk follows imports");
  for (const f of graph) {
    assert(!/compare_command|report_command|_run_files|echarts/.test(f), `loads ${f}`);
  }
  // The walk does see them from the report module itself.
  assert(staticGraph(`${ROOT}cli/report_command.ts`).has("echarts"));
});
