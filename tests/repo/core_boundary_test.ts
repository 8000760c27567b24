// What may import what (ARCHITECTURE.md, "What may import what"): the
// layers of the product, from core/ (the contracts and the
// reducer, knowing none of their implementations) up to the fronts (cli/,
// api/service/). A module may import its own folder and the folders listed
// for it, nothing else. Type-only imports count here: core/ naming a type of
// io/ would tie the contracts to a format all the same.

import { assert, assertEquals } from "../_assert.ts";
import { type Edge, importGraph, importsOf } from "../_imports.ts";
import { ROOT } from "../_cli.ts";

/** The layer of a module: its folder (api/service/ is a layer of its own), or the file at the root. */
export function layerOf(path: string): string {
  if (path.startsWith("api/service/")) return "api/service/";
  return path.includes("/") ? path.slice(0, path.indexOf("/") + 1) : path;
}

/**
 * Each product layer and the layers it may import besides itself. The tools
 * (bench/, fuzz/, docs/) and tests/ may import anything; nothing in the
 * product imports them.
 */
export const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  "core/": [],
  "schedulers/": ["core/"],
  // io/ reads and writes formats for every front; the topology types live
  // beside the topology cluster; deno.json gives a log's program version.
  "io/": ["core/", "schedulers/", "deno.json"],
  "api/": ["core/", "schedulers/", "io/"],
  "testing/": ["core/", "schedulers/", "io/", "api/"],
  "mod.ts": ["core/", "schedulers/", "io/", "api/"],
  "api/service/": ["core/", "schedulers/", "io/", "api/"],
  "cli/": ["core/", "schedulers/", "io/", "api/", "api/service/", "testing/", "deno.json"],
};

/**
 * Imports outside the table, each with its reason. A session worker thread
 * loads `--policy_module` as `evtsim serve` does: the one resolver lives in
 * the serve command.
 */
export const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["api/service/_session_worker.ts -> cli/serve_command.ts", "serve's --policy_module resolver"],
]);

/** The imports of `graph` that break the table, as `from -> to` lines. */
export function violations(graph: ReadonlyMap<string, readonly Edge[]>): string[] {
  const out: string[] = [];
  for (const [from, edges] of graph) {
    const allowed = MAY_IMPORT[layerOf(from)];
    if (allowed === undefined) continue; // a tool or a test
    for (const { to } of edges) {
      const layer = layerOf(to);
      if (layer === layerOf(from) || allowed.includes(layer)) continue;
      if (EXCEPTIONS.has(`${from} -> ${to}`)) continue;
      out.push(`${from} -> ${to}`);
    }
  }
  return out.sort();
}

Deno.test("every import of the product follows the layer table", async () => {
  const graph = await importGraph();
  const layers = new Set([...graph.keys()].map(layerOf));
  for (const l of Object.keys(MAY_IMPORT)) assert(layers.has(l), `no module in ${l}`);
  assert(graph.size > 300, `only ${graph.size} modules found`);
  assertEquals(violations(graph), []);
});

Deno.test("the layer table catches an upward import, a tool import and a type-only one", () => {
  const graph = new Map<string, Edge[]>([
    ["core/step.ts", [{ to: "io/trace_csv.ts", typeOnly: true }, {
      to: "core/state.ts",
      typeOnly: false,
    }]],
    ["schedulers/easy.ts", [{ to: "core/state.ts", typeOnly: false }]],
    ["io/swf.ts", [{ to: "cli/main.ts", typeOnly: false }]],
    ["api/simulation.ts", [{ to: "tests/_cli.ts", typeOnly: false }]],
    ["cli/main.ts", [{ to: "api/service/server.ts", typeOnly: false }]],
    ["bench/traces.ts", [{ to: "cli/main.ts", typeOnly: false }]],
    ["api/service/_session_worker.ts", [{ to: "cli/serve_command.ts", typeOnly: false }]],
  ]);
  assertEquals(violations(graph), [
    "api/simulation.ts -> tests/_cli.ts",
    "core/step.ts -> io/trace_csv.ts",
    "io/swf.ts -> cli/main.ts",
  ]);
});

Deno.test("the import scan reads static, type-only, re-exported and dynamic imports, not examples", () => {
  const sample = [
    'import { x } from "../schedulers/registry.ts";',
    ' * import { y } from "../mod.ts";',
    '// import { z } from "../cli/main.ts";',
    'import type { A } from "./a.ts";',
    "import {",
    "  type B,",
    "  type C,",
    '} from "./b.ts";',
    'import { type D, e } from "./d.ts";',
    'export { f } from "./f.ts";',
    'export type { G } from "./g.ts";',
    'const m = await import("./m.ts");',
    'import "./side.ts";',
  ].join("\n");
  assertEquals(importsOf(sample), [
    { spec: "../schedulers/registry.ts", typeOnly: false },
    { spec: "./a.ts", typeOnly: true },
    { spec: "./b.ts", typeOnly: true },
    { spec: "./d.ts", typeOnly: false },
    { spec: "./f.ts", typeOnly: false },
    { spec: "./g.ts", typeOnly: true },
    { spec: "./m.ts", typeOnly: false },
    { spec: "./side.ts", typeOnly: false },
  ]);
});

Deno.test("the graph is read from the repository's files", async () => {
  const graph = await importGraph(ROOT);
  const edges = graph.get("cli/main.ts") ?? [];
  assert(edges.some((e) => e.to === "cli/simulate.ts"), "cli/main.ts -> cli/simulate.ts missing");
});
