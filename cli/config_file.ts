// `-c/--config FILE`: DR_EVT's Simulation_Params fields (total_nodes,
// backfill_policy, infile ...) in YAML or JSON, at the top level or inside a
// `simulation_params:` or `sim_setup:` block, as DR_EVT's documents show
// both. Every other `simulate` option may appear too, under its underscore
// name. The file is validated with a zod schema built from the option table,
// so a field is checked exactly as the same option on the command line, and
// the first problem is reported in one line naming the file and the field.

import { EvtsimError } from "../core/errors.ts";
import { describeFsError } from "../io/fs_errors.ts";
import { failAt, parseYamlDocument, yamlValue } from "../io/_yaml.ts";
import { type OptionSpec, SIMULATE_OPTIONS } from "./option_table.ts";
import { enumValueProblem, rangeProblem } from "./option_values.ts";
import { didYouMean } from "./_suggest.ts";

/** Wrapper blocks DR_EVT's documents put the fields in. */
const WRAPPERS = ["simulation_params", "sim_setup"];

type Value = string | number | boolean;

function expected(spec: OptionSpec): string {
  switch (spec.kind) {
    case "flag":
      return "true or false";
    case "int":
      return "an integer";
    case "number":
      return "a number";
    case "string":
      return "a string";
    case "enum":
      return `one of ${spec.values!.join(", ")}`;
  }
}

// A field's value as the option takes it, or why it cannot be: written out
// rather than as zod schemas so that `--config` does not load zod (tens of
// milliseconds of start-up); tests/engine/config_fields_test.ts holds it to the
// zod schemas it replaces. `expected` is a value of the wrong type.
type FieldResult = { readonly value: Value } | { readonly problem: string } | "expected";

function isNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

function fieldValue(spec: OptionSpec, v: unknown): FieldResult {
  switch (spec.kind) {
    case "flag":
      return typeof v === "boolean" ? { value: v } : "expected";
    case "string":
      // Numbers are taken as their text (sim_start_time: 1700000000).
      return typeof v === "string" || isNumber(v) || typeof v === "bigint"
        ? { value: String(v) }
        : "expected";
    case "enum": {
      if (typeof v !== "string") return "expected";
      const problem = enumValueProblem(spec, v);
      return problem === undefined ? { value: v } : { problem };
    }
    case "int":
    case "number": {
      // Integers arrive as bigint so that values beyond 2^53 are not rounded
      // silently before they are checked.
      if (!isNumber(v) && typeof v !== "bigint") return "expected";
      const n = Number(v);
      const exact = typeof v === "number" || BigInt(n) === v;
      const problem = exact ? rangeProblem(spec, n) : rangeProblem(spec, Infinity, String(v));
      return problem === undefined ? { value: n } : { problem };
    }
  }
}

const FIELDS = new Map<string, OptionSpec>();
for (const o of SIMULATE_OPTIONS) {
  if (o.commandLineOnly === true) continue;
  for (const n of [o.name, ...(o.aliases ?? [])]) FIELDS.set(n, o);
}

/**
 * A config file's fields checked as zod's strictObject of every field did:
 * the first problem in the fields' own order (option table order), then the
 * first unknown key; else every field's value.
 */
export function checkConfigFields(
  fields: Record<string, unknown>,
):
  | { readonly values: ReadonlyMap<string, Value> }
  | { readonly field: string; readonly problem: string | "expected" | "unknown" } {
  const values = new Map<string, Value>();
  for (const [name, spec] of FIELDS) {
    if (!(name in fields) || fields[name] === undefined) continue;
    const r = fieldValue(spec, fields[name]);
    if (r === "expected") return { field: name, problem: "expected" };
    if ("problem" in r) return { field: name, problem: r.problem };
    values.set(name, r.value);
  }
  for (const key in fields) if (!FIELDS.has(key)) return { field: key, problem: "unknown" };
  return { values };
}

/**
 * Parses config text into option assignments (canonical name, value) in the
 * file's order. `file` is used in error messages.
 *
 * @example
 * ```ts
 * import { parseConfigText } from "./config_file.ts";
 * const a = parseConfigText("total_nodes: 128\nbackfill_policy: none\n", "run.yaml");
 * console.assert(JSON.stringify(a) === '[["total_nodes",128],["backfill_policy","none"]]');
 * ```
 */
export function parseConfigText(text: string, file: string): [string, Value][] {
  const fail = failAt(file);
  const parsed = parseYamlDocument(text, fail, { intAsBigInt: true, uniqueKeys: true });
  const err = parsed.doc.errors[0];
  if (err !== undefined) {
    const what = err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw new EvtsimError("input", `not valid YAML or JSON: ${what}`, {
      file,
      line: parsed.lines.linePos(err.pos[0]).line,
    });
  }
  const doc = yamlValue(parsed.doc, parsed.lines, fail);
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== "object" || Array.isArray(doc)) {
    throw new EvtsimError(
      "input",
      "expected a mapping of Simulation_Params fields (total_nodes: 128 ...)",
      { file },
    );
  }
  let fields = doc as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length === 1 && WRAPPERS.includes(keys[0])) {
    const inner = fields[keys[0]];
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) {
      throw new EvtsimError("input", "expected a mapping of fields", { file, field: keys[0] });
    }
    fields = inner as Record<string, unknown>;
  }
  const r = checkConfigFields(fields);
  if (!("values" in r)) {
    const field = r.field;
    if (r.problem === "unknown") {
      throw new EvtsimError(
        "input",
        "unknown field (expected a Simulation_Params field such as total_nodes; see " +
          `'evtsim simulate --help')${didYouMean(field, [...FIELDS.keys()])}`,
        { file, field },
      );
    }
    const spec = FIELDS.get(field)!;
    const detail = r.problem !== "expected"
      ? r.problem
      : `expected ${expected(spec)}, got ${show(fields[field])}`;
    throw new EvtsimError("input", detail, { file, field });
  }
  const out: [string, Value][] = [];
  for (const key of Object.keys(fields)) {
    const value = r.values.get(key);
    if (value !== undefined) out.push([FIELDS.get(key)!.name, value]);
  }
  return out;
}

function show(v: unknown): string {
  if (typeof v === "bigint") return String(v);
  if (v === null) return "nothing";
  return JSON.stringify(v) ?? String(v);
}

/** Reads and parses a config file; one-line errors name the file. */
export function readConfigFile(path: string): [string, Value][] {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${describeFsError(e)}`, { file: path });
  }
  return parseConfigText(text, path);
}
