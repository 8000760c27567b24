// Bounds on oversized inputs (issue 32): free-form JSON is bounded in depth
// and size, YAML aliases in expansion, report's files row by row, while every
// ordinary input (settings at the bound, a file that reuses an anchor a few
// times, each schedule layout simulate writes) still reads. The
// faults themselves are rows of the fault catalogue (INPUT_ROWS).

import { assert, assertEquals } from "../_assert.ts";
import { EvtsimError } from "../../core/errors.ts";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "../../core/_json_bounds.ts";
import { Simulation } from "../../mod.ts";
import { parseQueuesFile } from "../../io/queues_file.ts";
import { deepJson } from "../_input_faults.ts";
import { runCli } from "../_cli.ts";
import { readResourceCsv, readScheduleCsv } from "../../cli/_run_files.ts";

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof EvtsimError) return e.message;
    throw e;
  }
  throw new Error("accepted");
}

Deno.test("picker settings: nesting up to the bound is kept, one level more is one usage error", () => {
  // The settings object is one level and `x` holds MAX_JSON_DEPTH - 1 more.
  const ok = new Simulation({ totalNodes: 8, pickerSettings: { x: deepJson(MAX_JSON_DEPTH - 1) } });
  let v: unknown = ok.state.config.pickerSettings?.x;
  for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) v = (v as { a: unknown }).a;
  assertEquals(v, 1);
  const m = refusal(() =>
    new Simulation({ totalNodes: 8, pickerSettings: { x: deepJson(MAX_JSON_DEPTH) } })
  );
  assert(/^picker settings: x\.a\.a.*: nested more than 64 levels deep$/.test(m), m);
});

Deno.test("picker settings: more values than the bound is one usage error", () => {
  const wide = { x: new Array(MAX_JSON_VALUES).fill(0) };
  const m = refusal(() => new Simulation({ totalNodes: 8, pickerSettings: wide }));
  assertEquals(m, `picker settings: more than ${MAX_JSON_VALUES} values`);
});

Deno.test("queues file: an anchor reused a few times still reads", () => {
  const f = parseQueuesFile(
    "fairshare:\n  shares: { alice: &one 1, bob: *one, carol: *one }\nqueues:\n  - name: a\n",
    "q.yaml",
  );
  assertEquals(f.fairshare?.shares, { alice: 1, bob: 1, carol: 1 });
});

Deno.test("report's readers: every layout simulate writes reads, a quoted queue with a comma is one field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-bounds-" });
  try {
    const trace = `${dir}/t.csv`;
    await Deno.writeTextFile(
      trace,
      'job_submit_time,num_nodes,queue,time_limit,actual_run_time\n0,2,"a,b",100,50\n5,1,c,10,10\n',
    );
    const plain = `${dir}/plain.csv`;
    await Deno.writeTextFile(plain, "job_submit_time,num_nodes,time_limit\n0,2,100\n5,1,10\n");
    for (
      const [input, flags] of [
        [trace, []],
        [trace, ["--extended_output", "-M"]],
        [plain, []],
        [plain, ["--extended_output"]],
      ] as const
    ) {
      const r = await runCli(["simulate", input, "-n", "4", "-o", `${dir}/run.csv`, ...flags]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const s = await readScheduleCsv(`${dir}/run.csv`);
      assertEquals([...s.submit], [0, 5], flags.join(" "));
      assertEquals([...s.nodes], [2, 1]);
      const res = await readResourceCsv(`${dir}/run_resources.csv`);
      assertEquals(res.totalNodes, 4);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
