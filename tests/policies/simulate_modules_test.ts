// What a plain `simulate` of a CSV trace loads before it runs (issue 34 item
// 4, start-up time): the SWF and Slurm readers are imported only when the
// trace is in their format, so they are not reachable from the command over
// static imports.

import { assert } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url);

interface Info {
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
}

// The modules reachable from `entry` over static imports only.
async function staticGraph(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert(out.success, "deno info failed");
  const info: Info = JSON.parse(new TextDecoder().decode(out.stdout));
  const edges = new Map<string, string[]>();
  for (const m of info.modules) {
    edges.set(
      m.specifier,
      (m.dependencies ?? []).filter((d) => d.isDynamic !== true && d.code !== undefined)
        .map((d) => d.code!.specifier),
    );
  }
  const seen = new Set<string>();
  const todo = [new URL(entry, ROOT).href];
  while (todo.length > 0) {
    const m = todo.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    todo.push(...(edges.get(m) ?? []));
  }
  return seen;
}

Deno.test("simulate reaches the SWF and Slurm readers only through dynamic imports", async () => {
  const graph = await staticGraph("cli/simulate.ts");
  const has = (path: string) => graph.has(new URL(path, ROOT).href);
  assert(has("cli/load.ts") && has("io/trace_csv.ts"), "the graph should hold the CSV reader");
  for (const lazy of ["io/swf.ts", "io/_swf_parser.ts", "io/sacct.ts", "io/_sacct_parser.ts"]) {
    assert(!has(lazy), `${lazy} is loaded by every simulate`);
  }
});
