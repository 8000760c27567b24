// Sweep grids are bounded (issue 32 item 17): a spec of more cells than
// --max_cells (default 100,000) is refused from its lists' lengths alone,
// with one line giving the count, before any cell is planned or any file
// written; under the limit the cell computed from index i is exactly the
// i-th of the plain product of the lists, in the spec's order (a property).

import fc from "fast-check";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCliProcess } from "../_cli.ts";
import { DEFAULT_MAX_CELLS, parseSweepSpec } from "../../cli/_sweep_spec.ts";
import { cellAt, cellId } from "../../cli/_sweep_model.ts";

const EXAMPLE = `${ROOT}examples/sweep.yaml`;
const list = (n: number, f: (i: number) => string) =>
  `[${Array.from({ length: n }, (_, i) => f(i)).join(", ")}]`;

Deno.test("sweep: 900,000 cells (and 10^12 with one more list) are refused at once with the count, nothing written", async () => {
  const d = await Deno.makeTempDir({ prefix: "evtsim-sweep-limit-" });
  try {
    Deno.copyFileSync(`${ROOT}examples/demo_trace.csv`, `${d}/t.csv`);
    const big = `traces: [t.csv]\npolicies: [none, easy, sjf+easy, conservative]\n` +
      `total_nodes: ${list(225, (i) => String(8 + i))}\nseeds: ${list(1000, String)}\n`;
    Deno.writeTextFileSync(`${d}/big.yaml`, big);
    Deno.writeTextFileSync(
      `${d}/huge.yaml`,
      big + `options:\n  run_time_scale: ${list(1000, (i) => String(1 + i / 1000))}\n` +
        `  procs_per_node: ${list(1000, (i) => String(1 + i))}\n`,
    );
    for (const [spec, count] of [["big", "900000"], ["huge", "900000000000"]]) {
      const r = await runCliProcess(["sweep", `${d}/${spec}.yaml`, "--results", `${d}/res`]);
      assertEquals(r.code, 1, r.err.join("\n"));
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(
        r.err[0].includes(`${spec}.yaml: the sweep has ${count} cells`) &&
          r.err[0].includes(`more than --max_cells ${DEFAULT_MAX_CELLS}`),
        r.err[0],
      );
      assert(![...Deno.readDirSync(d)].some((e) => e.name === "res"), "a results folder");
    }
    // The limit is the user's: 6 cells under --max_cells 5 are refused, as many as allowed run.
    const small = await runCliProcess([
      "sweep",
      EXAMPLE,
      "--results",
      `${d}/r6`,
      "--max_cells",
      "5",
    ]);
    assertEquals(small.code, 1);
    assert(small.err[0].includes("the sweep has 6 cells"), small.err.join("\n"));
    const bad = await runCliProcess(["sweep", EXAMPLE, "--max_cells", "0"]);
    assert(bad.code === 1 && bad.err[0].includes("--max_cells must be >= 1"), bad.err.join("\n"));
  } finally {
    await Deno.remove(d, { recursive: true });
  }
});

Deno.test("sweep: the cells computed from their index are the plain product of the lists, in its order (property)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.subarray(["none", "easy", "sjf+easy", "conservative"], { minLength: 1 }),
      fc.uniqueArray(fc.integer({ min: 1, max: 512 }), { minLength: 1, maxLength: 4 }),
      fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 4 }),
      fc.uniqueArray(fc.constantFrom(1, 1.5, 2), { minLength: 1, maxLength: 3 }),
      async (policies, sizes, seeds, scales) => {
        const text = `traces: demo_trace.csv\npolicies: [${policies.join(", ")}]\n` +
          `total_nodes: [${sizes.join(", ")}]\nseeds: [${seeds.join(", ")}]\n` +
          `options:\n  run_time_scale: [${scales.join(", ")}]\n`;
        const n = policies.length * sizes.length * seeds.length * scales.length;
        const sweep = await parseSweepSpec(text, "s.yaml", EXAMPLE, n);
        // The plain product, built the obvious way.
        let combos: Record<string, string | number>[] = [{}];
        for (
          const [name, values] of [
            ["trace", ["demo_trace.csv"]],
            ["policy", policies],
            ["total_nodes", sizes],
            ["run_time_mode", ["actual"]],
            ["seed", seeds],
            ["run_time_scale", scales],
          ] as const
        ) {
          combos = combos.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
        }
        const expected = combos.map((o) => ({ id: cellId(o), o }));
        const cells = Array.from({ length: sweep.count }, (_, i) => cellAt(sweep, i));
        assertEquals(sweep.count, n);
        assertEquals(cells.map((c) => c.id), expected.map((e) => e.id));
        assertEquals(cells.map((c) => c.options), expected.map((e) => e.o));
        assertEquals(cells.map((c) => c.index), expected.map((_, i) => i));
        // One cell more than the limit is refused.
        let refused = "";
        try {
          await parseSweepSpec(text, "s.yaml", EXAMPLE, n - 1);
        } catch (e) {
          refused = (e as Error).message;
        }
        assert(refused.includes(`the sweep has ${n} cells`), refused);
      },
    ),
    { seed: 3217, numRuns: 60 },
  );
});
