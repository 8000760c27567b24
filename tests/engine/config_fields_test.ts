// A config file's fields are checked without zod (cli/config_file.ts) so that
// `--config` does not load it; the checks must keep the zod schema's answer
// exactly: the same values, and the same first problem (field and wording).

import fc from "fast-check";
import { z } from "zod";
import { checkConfigFields } from "../../cli/config_file.ts";
import { type OptionSpec, SIMULATE_OPTIONS } from "../../cli/option_table.ts";
import { enumValueProblem, rangeProblem } from "../../cli/option_values.ts";
import { assertEquals } from "../_assert.ts";

// The schema cli/config_file.ts used before, verbatim.
function fieldSchema(spec: OptionSpec): z.ZodType<string | number | boolean> {
  switch (spec.kind) {
    case "flag":
      return z.boolean();
    case "string":
      return z.union([z.string(), z.number(), z.bigint()]).transform((v) => String(v));
    case "enum":
      return z.string().transform((v, ctx) => {
        const problem = enumValueProblem(spec, v);
        if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        return v;
      });
    case "int":
    case "number":
      return z.union([z.number(), z.bigint()]).transform((v, ctx) => {
        const n = Number(v);
        const exact = typeof v === "number" || BigInt(n) === v;
        const problem = exact ? rangeProblem(spec, n) : rangeProblem(spec, Infinity, String(v));
        if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        return n;
      });
  }
}
const FIELDS = new Map<string, OptionSpec>();
for (const o of SIMULATE_OPTIONS) {
  if (o.commandLineOnly === true) continue;
  for (const n of [o.name, ...(o.aliases ?? [])]) FIELDS.set(n, o);
}
const SCHEMA = z.strictObject(
  Object.fromEntries([...FIELDS].map(([name, spec]) => [name, fieldSchema(spec).optional()])),
);

function viaZod(fields: Record<string, unknown>): ReturnType<typeof checkConfigFields> {
  const r = SCHEMA.safeParse(fields);
  if (r.success) {
    const values = new Map<string, string | number | boolean>();
    for (const [k, v] of Object.entries(r.data)) {
      if (v !== undefined) values.set(k, v as string | number | boolean);
    }
    return { values };
  }
  const issue = r.error.issues[0];
  if (issue.code === "unrecognized_keys") return { field: issue.keys[0], problem: "unknown" };
  const field = String(issue.path[0]);
  return { field, problem: issue.code === "custom" ? issue.message : "expected" };
}

// The values' order is not part of the answer (the reader walks the file's keys).
function sorted(r: ReturnType<typeof checkConfigFields>): unknown {
  return "values" in r ? [...r.values].sort(([a], [b]) => (a < b ? -1 : 1)) : r;
}

const names = [...FIELDS.keys()];
const enumValues = [...FIELDS.values()].flatMap((s) => s.values ?? []);
const value = fc.oneof(
  fc.anything(),
  fc.boolean(),
  fc.integer({ min: -5, max: 300 }),
  fc.double(),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.constantFrom<unknown>(
    NaN,
    Infinity,
    -Infinity,
    2 ** 53,
    2n ** 53n + 1n,
    null,
    "",
    "1",
    "x",
    ...enumValues,
  ),
);
const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...names) },
  { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "totl_nodes", "7", "x") },
);

Deno.test("config fields: the same values and first problem as the zod schema", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(key, value), { maxLength: 6 }), (pairs) => {
      const fields: Record<string, unknown> = {};
      // own properties, as the yaml package's toJS makes them (__proto__ too)
      for (const [k, v] of pairs) {
        Object.defineProperty(fields, k, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      assertEquals(sorted(checkConfigFields(fields)), sorted(viaZod(fields)));
    }),
    { seed: 20261205, numRuns: 3000 },
  );
});
