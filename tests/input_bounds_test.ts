// Bounds on oversized inputs (issue 32): free-form JSON is bounded in depth
// and size, YAML aliases in expansion, while every ordinary input (settings
// at the bound, a file that reuses an anchor a few times) still reads. The
// faults themselves are rows of the fault catalogue (INPUT_ROWS).

import { assert, assertEquals } from "./_assert.ts";
import { EvtsimError } from "../core/errors.ts";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "../core/_json_bounds.ts";
import { Simulation } from "../mod.ts";
import { parseQueuesFile } from "../io/queues_file.ts";
import { deepJson } from "./_input_faults.ts";

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
