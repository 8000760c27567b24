// No import circle among the repository's modules (ARCHITECTURE.md, "No
// import circles"): a module that imports, through any chain, a module that
// imports it back is refused, whatever the folders.
//
// Type-only imports do not count here. They are erased when the module is
// compiled, so they give no load order and cannot make a module read a
// binding before it is initialised (the failure a value circle causes, at
// start-up or only on some entry point); a contract type named by both its
// user and its implementer (core/types.ts and core/picker.ts) is the
// contract, not a tangle. The layer table (tests/repo/core_boundary_test.ts) does
// count them, so a type-only import still cannot go up a layer.

import { assertEquals } from "../_assert.ts";
import { type Edge, importGraph } from "../_imports.ts";

/**
 * The circles of `graph` through value imports: each strongly connected set
 * of two or more modules (or one importing itself), as one sorted line.
 */
export function circles(graph: ReadonlyMap<string, readonly Edge[]>): string[] {
  const next = (m: string) =>
    (graph.get(m) ?? []).filter((e) => !e.typeOnly && graph.has(e.to)).map((e) => e.to);
  // Tarjan's algorithm, iterative (the graph is deep enough to matter).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[] = [];
  let counter = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; edges: string[]; i: number }[] = [];
    const open = (n: string) => {
      index.set(n, counter);
      low.set(n, counter++);
      stack.push(n);
      onStack.add(n);
      work.push({ node: n, edges: next(n), i: 0 });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      if (top.i < top.edges.length) {
        const w = top.edges[top.i++];
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) !== index.get(top.node)) continue;
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== top.node);
      if (set.length > 1 || next(top.node).includes(top.node)) out.push(set.sort().join(" <-> "));
    }
  }
  return out.sort();
}

Deno.test("no import circle among the repository's modules (value imports)", async () => {
  assertEquals(circles(await importGraph()), []);
});

Deno.test("the circle scan finds a circle of three and ignores a type-only way back", () => {
  const e = (to: string, typeOnly = false): Edge => ({ to, typeOnly });
  const graph = new Map<string, Edge[]>([
    ["cli/replay_command.ts", [e("cli/replay_repl.ts")]],
    ["cli/replay_repl.ts", [e("cli/_repl_commands.ts")]],
    ["cli/_repl_commands.ts", [e("cli/replay_command.ts"), e("core/types.ts")]],
    ["api/simulation.ts", [e("api/_delivery.ts")]],
    ["api/_delivery.ts", [e("api/simulation.ts", true)]],
    ["core/types.ts", []],
    ["core/self.ts", [e("core/self.ts")]],
  ]);
  assertEquals(circles(graph), [
    "cli/_repl_commands.ts <-> cli/replay_command.ts <-> cli/replay_repl.ts",
    "core/self.ts",
  ]);
});
