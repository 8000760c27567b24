// The sweep spec's field and item checks are written out (cli/_sweep_spec.ts)
// so that the sweep's parent does not load zod before its first cell; they
// must accept and refuse exactly what the zod schemas they replace did, and
// name the same first problem.

import fc from "fast-check";
import { z } from "zod";
import { ITEM, TOP_FIELDS, topFieldProblem } from "../../cli/_sweep_spec.ts";
import { assertEquals } from "../_assert.ts";

const ZOD_ITEM: Record<keyof typeof ITEM, z.ZodType> = {
  traces: z.string().min(1),
  policies: z.string().min(1),
  total_nodes: z.int().positive(),
  run_time_modes: z.enum(["actual", "limit", "distribution"]),
  seeds: z.int(),
};

const ZOD_TOP = z.strictObject({
  traces: z.unknown(),
  policies: z.unknown().optional(),
  total_nodes: z.unknown().optional(),
  run_time_modes: z.unknown().optional(),
  seeds: z.unknown().optional(),
  options: z.unknown().optional(),
});

// What the reader made of zod's first issue.
function zodTopProblem(raw: object): ReturnType<typeof topFieldProblem> {
  const r = ZOD_TOP.safeParse(raw);
  if (r.success) return undefined;
  const issue = r.error.issues[0];
  if (issue.code === "unrecognized_keys") return { key: String(issue.keys[0]), problem: "unknown" };
  return { key: String(issue.path[0]), problem: "required" };
}

const item = fc.oneof(
  fc.anything(),
  fc.constantFrom(
    "",
    "actual",
    "limit",
    "distribution",
    "Actual",
    0,
    -0,
    1,
    -1,
    1.5,
    2 ** 53 - 1,
    2 ** 53,
    -(2 ** 53),
    NaN,
    Infinity,
    -Infinity,
    1n,
    null,
    true,
    [],
    {},
  ),
  fc.integer(),
  fc.double(),
  fc.string(),
);

Deno.test("sweep spec item checks accept exactly what the zod schemas accepted", () => {
  fc.assert(
    fc.property(item, (v) => {
      for (const key of Object.keys(ITEM) as (keyof typeof ITEM)[]) {
        assertEquals(ITEM[key].ok(v), ZOD_ITEM[key].safeParse(v).success, `${key}: ${String(v)}`);
      }
    }),
    { seed: 20261205, numRuns: 2000 },
  );
});

Deno.test("sweep spec top-level fields: the same first problem as zod's strictObject", () => {
  const key = fc.constantFrom(
    ...TOP_FIELDS,
    "trace",
    "__proto__",
    "constructor",
    "toString",
    "2",
    "10",
    "x",
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(key, fc.anything()), { maxLength: 8 }), (pairs) => {
      const raw: Record<string, unknown> = {};
      // own properties, as the yaml package's toJS makes them (__proto__ too)
      for (const [k, v] of pairs) {
        Object.defineProperty(raw, k, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      assertEquals(topFieldProblem(raw), zodTopProblem(raw), JSON.stringify(Object.keys(raw)));
    }),
    { seed: 20261205, numRuns: 2000 },
  );
  // `in`, as zod asks: an inherited traces counts, an inherited unknown key is reported
  const inherited = Object.create({ traces: 1, q: 2 });
  assertEquals(topFieldProblem(inherited), zodTopProblem(inherited));
  assertEquals(topFieldProblem({ traces: undefined }), undefined);
});
