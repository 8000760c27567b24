// The sweep spec: a YAML file naming traces and lists of policies, machine
// sizes, run-time modes, seeds and other simulate options, whose product is
// the sweep's cells. Everything a cell will be given is checked here, against
// simulate's own option table and the policy registry, so a typo is one line
// (`SPEC:LINE: field: what was expected`) before any cell runs or any file
// is written. Paths in the spec are taken from the spec's folder, so a sweep
// means the same from any working directory; rows keep the spec's spelling.

import { type Document, isMap, isSeq, type LineCounter, type Node } from "yaml";
import { EvtsimError } from "../core/errors.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { describeFsError } from "../io/fs_errors.ts";
import { parseYamlDocument, yamlValue } from "../io/_yaml.ts";
import { sha256Hex } from "../io/_sha256.ts";
import {
  absolutePath,
  axesSha256,
  type Axis,
  type CellValue,
  PATH_OPTIONS,
  type Sweep,
} from "./_sweep_model.ts";
import { defaultRegistry } from "../schedulers/registry.ts";
import { parsePolicies } from "./_compare_policies.ts";
import { type OptionSpec, SIMULATE_OPTIONS } from "./option_table.ts";
import { didYouMean } from "./_suggest.ts";
import { enumValueProblem, rangeProblem } from "./option_values.ts";

/** Top-level keys and the cell option each one sets. */
const AXES = {
  traces: "trace",
  policies: "policy",
  total_nodes: "total_nodes",
  run_time_modes: "run_time_mode",
  seeds: "seed",
} as const;

// The spec's fields and the check of each list item, written out rather than
// as zod schemas: the sweep's parent reads the spec before it can hand a
// worker the first cell, and loading zod there costs tens of milliseconds.
// tests/compare/sweep_spec_checks_test.ts holds them to the zod schemas they replace.

/** The spec's top-level fields (only traces is required). */
export const TOP_FIELDS = [
  "traces",
  "policies",
  "total_nodes",
  "run_time_modes",
  "seeds",
  "options",
] as const;

/**
 * The first problem with the spec's top-level fields, as zod's strictObject
 * of {@link TOP_FIELDS} reports it first: traces missing (`in`, as zod asks),
 * else the first unknown key in `for...in` order.
 */
export function topFieldProblem(
  raw: object,
): { readonly key: string; readonly problem: "required" | "unknown" } | undefined {
  if (!("traces" in raw)) return { key: "traces", problem: "required" };
  const known: ReadonlySet<string> = new Set(TOP_FIELDS);
  for (const key in raw) if (!known.has(key)) return { key, problem: "unknown" };
  return undefined;
}

const RUN_TIME_MODES: ReadonlySet<unknown> = new Set(["actual", "limit", "distribution"]);

/** What each axis's items must be, and how that is said. */
export const ITEM: Record<keyof typeof AXES, { ok: (v: unknown) => boolean; what: string }> = {
  traces: { ok: nonEmptyString, what: "a trace file (CSV or SWF)" },
  policies: { ok: nonEmptyString, what: "a policy name (ADMISSION or PICKER+ADMISSION)" },
  total_nodes: {
    ok: (v) => Number.isSafeInteger(v) && (v as number) > 0,
    what: "a positive integer",
  },
  run_time_modes: {
    ok: (v) => RUN_TIME_MODES.has(v),
    what: "one of actual, limit, distribution",
  },
  seeds: { ok: (v) => Number.isSafeInteger(v), what: "an integer" },
};

function nonEmptyString(v: unknown): boolean {
  return typeof v === "string" && v.length >= 1;
}

/** Why simulate options may not appear under `options:`. */
const NOT_OPTIONS: Record<string, string> = {
  total_nodes: "give it as the top-level total_nodes list",
  run_time_mode: "give it as the top-level run_time_modes list",
  duration_mode: "give it as the top-level run_time_modes list",
  seed: "give it as the top-level seeds list",
  backfill_policy: "give it in the top-level policies list",
  admission: "give it in the top-level policies list",
  picker: "give it in the top-level policies list (PICKER+ADMISSION)",
  infile: "give it in the top-level traces list",
  infile_list: "give the traces in the top-level traces list",
};
for (
  const o of [
    "outfile",
    "resource_trace",
    "stats_json",
    "report",
    "record",
    "snapshot_interval",
    "record_decisions",
    "decisions",
    "decisions_detail",
    "submission_stats",
    "extended_output",
    "msec_output",
    "verbose",
  ]
) NOT_OPTIONS[o] = "sweep sets each cell's outputs itself";

const OPTIONS = new Map(SIMULATE_OPTIONS.map((o) => [o.name, o]));

/** The most cells a sweep may have unless --max_cells says otherwise. */
export const DEFAULT_MAX_CELLS = 100_000;

/**
 * Reads and checks the spec at `path` (relative to the working directory);
 * a grid of more than `maxCells` cells is refused before it is planned.
 */
export async function readSweepSpec(
  path: string,
  maxCells: number = DEFAULT_MAX_CELLS,
): Promise<Sweep> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read the sweep spec: ${describeFsError(e)}`, {
      file: path,
    });
  }
  return await parseSweepSpec(text, path, absolutePath(path, Deno.cwd()), maxCells);
}

/**
 * Checks spec `text`; `file` names it in errors and `absolute` is where it
 * is (its folder is where relative paths start).
 */
export async function parseSweepSpec(
  text: string,
  file: string,
  absolute: string,
  maxCells: number = DEFAULT_MAX_CELLS,
): Promise<Sweep> {
  const fail = (line: number | undefined, field: string | undefined, detail: string): never => {
    throw new EvtsimError("input", detail, { file, line: line ?? 1, field });
  };
  const yamlFail = (line: number | undefined, detail: string) => fail(line, undefined, detail);
  const { doc, lines } = parseYamlDocument(text, yamlFail, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    fail(
      lines.linePos(doc.errors[0].pos[0]).line,
      undefined,
      `not valid YAML: ${
        doc.errors[0].message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "")
      }`,
    );
  }
  const lineOf = lineFinder(doc, lines);
  const ctx: SpecContext = { fail, lineOf };
  const raw = yamlValue(doc, lines, yamlFail);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    fail(
      1,
      undefined,
      "expected a mapping with traces: and lists to sweep (see 'evtsim help sweep')",
    );
  }
  const top = topFieldProblem(raw as object);
  if (top !== undefined) {
    if (top.problem === "unknown") {
      fail(
        lineOf([top.key]),
        top.key,
        `unknown field (expected traces, policies, total_nodes, run_time_modes, seeds, options)${
          didYouMean(top.key, TOP_FIELDS)
        }`,
      );
    }
    fail(lineOf([top.key]), top.key, "required");
  }
  const spec = raw as Record<string, unknown>;
  const folder = absolute.slice(0, absolute.lastIndexOf("/")) || "/";

  const extra = optionsOf(spec, ctx);
  const { axes, count } = axesOf(spec, extra, maxCells, file, ctx);
  await checkFiles(spec, axes, extra, folder, ctx);
  await checkPolicies(spec, axes, extra, folder, ctx);

  // Nothing per cell here: a cell is computed from its index when it is
  // needed (cellAt), so planning 100,000 cells costs no more than 6.
  const lists: Axis[] = axes;
  return {
    specPath: absolute,
    folder,
    specSha256: sha256Hex(text),
    cellsSha256: axesSha256(lists),
    optionKeys: [...extra.keys()].sort(),
    axes: lists,
    count: Number(count),
  };
}

/** Where a spec's errors go: `fail` throws the one line, `lineOf` finds a key's line. */
interface SpecContext {
  readonly fail: (line: number | undefined, field: string | undefined, detail: string) => never;
  readonly lineOf: (path: readonly (string | number)[]) => number | undefined;
}

// A spec list (or one value, as a list of one): each item checked, none twice.
function listOf<T>(
  { fail, lineOf }: SpecContext,
  key: string,
  value: unknown,
  ok: (v: unknown) => boolean,
  what: string,
): T[] {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) fail(lineOf([key]), key, `expected a non-empty list (of ${what})`);
  const seen = new Set<string>();
  return items.map((item, i) => {
    const at = Array.isArray(value) ? [key, i] : [key];
    const field = Array.isArray(value) ? `${key}[${i}]` : key;
    if (!ok(item)) {
      fail(lineOf(at), field, `expected ${what}, got ${show(item)}`);
    }
    if (seen.has(JSON.stringify(item))) fail(lineOf(at), field, `${show(item)} is listed twice`);
    seen.add(JSON.stringify(item));
    return item as T;
  });
}

// The lists the grid is made of, in AXES order then the options', and the
// number of cells (refused over maxCells before any cell is planned).
function axesOf(
  spec: Record<string, unknown>,
  extra: ReadonlyMap<string, CellValue[]>,
  maxCells: number,
  file: string,
  ctx: SpecContext,
) {
  const axes: [string, CellValue[]][] = [];
  for (const [key, option] of Object.entries(AXES) as [keyof typeof AXES, string][]) {
    const defaults: Record<string, unknown> = {
      policies: ["easy"],
      run_time_modes: ["actual"],
      seeds: [0],
    };
    // A key given with no value (`traces:`) is an error, not the default.
    const value = key in spec ? spec[key] : defaults[key];
    if (value === undefined) continue;
    axes.push([option, listOf<CellValue>(ctx, key, value, ITEM[key].ok, ITEM[key].what)]);
  }
  for (const [name, values] of extra) axes.push([name, values]);
  // The size of the grid is known from the lists alone: refused before any
  // cell is planned (900,000 cells took 18 s and 1.4 GB; one more list,
  // the whole heap).
  const count = axes.reduce((n, [, values]) => n * BigInt(values.length), 1n);
  if (count > BigInt(maxCells)) {
    throw new EvtsimError(
      "input",
      `the sweep has ${count} cells (${
        axes.map(([name, values]) => `${values.length} ${name}`).join(" x ")
      }), more than --max_cells ${maxCells}: split the spec, or raise --max_cells`,
      { file },
    );
  }
  return { axes, count };
}

// The line of the key at `path` in the spec (or of the nearest enclosing one).
function lineFinder(doc: Document.Parsed, lines: LineCounter): SpecContext["lineOf"] {
  return (path) => {
    let node: unknown = doc.contents;
    let line: number | undefined;
    for (const key of path) {
      if (!isMap(node) && !isSeq(node)) break;
      const range = (node as Node).range;
      if (range) line = lines.linePos(range[0]).line;
      const pair = isMap(node)
        ? node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key)
        : undefined;
      if (pair !== undefined) line = lines.linePos((pair.key as Node).range![0]).line;
      node = (node as { get(k: unknown, keep: true): unknown }).get(key, true);
    }
    const range = (node as Node | undefined)?.range;
    return range ? lines.linePos(range[0]).line : line;
  };
}

// options: simulate's own checks, value by value.
function optionsOf(spec: Record<string, unknown>, { fail, lineOf }: SpecContext) {
  const extra = new Map<string, CellValue[]>();
  const given = spec.options;
  if (
    given !== undefined && (given === null || typeof given !== "object" || Array.isArray(given))
  ) {
    fail(lineOf(["options"]), "options", "expected a mapping of simulate options");
  }
  for (const [name, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
    const field = `options.${name}`;
    const o = OPTIONS.get(name);
    if (NOT_OPTIONS[name] !== undefined) fail(lineOf(["options", name]), field, NOT_OPTIONS[name]);
    if (o === undefined || o.commandLineOnly === true) {
      const alias = SIMULATE_OPTIONS.find((x) => x.aliases?.includes(name) || x.short === name);
      const kebab = OPTIONS.get(name.replaceAll("-", "_"));
      fail(
        lineOf(["options", name]),
        field,
        o !== undefined
          ? "a command-line option of simulate, not accepted in a sweep"
          : alias !== undefined || kebab !== undefined
          ? `write it as ${(alias ?? kebab)!.name}`
          : `unknown simulate option${
            didYouMean(
              name,
              SIMULATE_OPTIONS.filter((x) => x.commandLineOnly !== true).map((x) => x.name),
            )
          } (see 'evtsim help simulate')`,
      );
    }
    if (name === "policy_module" && Array.isArray(value)) {
      fail(
        lineOf(["options", name]),
        field,
        "expected one file (the policies are checked against it)",
      );
    }
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0) fail(lineOf(["options", name]), field, "expected a non-empty list");
    const seen = new Set<string>();
    extra.set(
      name,
      values.map((v, i) => {
        const at = Array.isArray(value) ? ["options", name, i] : ["options", name];
        const where = Array.isArray(value) ? `${field}[${i}]` : field;
        const problem = optionProblem(o!, v);
        if (problem !== undefined) fail(lineOf(at), where, problem);
        if (seen.has(JSON.stringify(v))) fail(lineOf(at), where, `${show(v)} is listed twice`);
        seen.add(JSON.stringify(v));
        return (o!.kind === "string" ? String(v) : v) as CellValue;
      }),
    );
  }
  return extra;
}

// Files must exist now, not when their cells run.
async function checkFiles(
  spec: Record<string, unknown>,
  axes: readonly [string, CellValue[]][],
  extra: ReadonlyMap<string, CellValue[]>,
  folder: string,
  { fail, lineOf }: SpecContext,
): Promise<void> {
  const checkFile = async (path: string, at: (string | number)[], field: string) => {
    try {
      const info = await Deno.stat(absolutePath(path, folder));
      if (!info.isFile) fail(lineOf(at), field, `not a file: ${path}`);
    } catch (e) {
      if (e instanceof EvtsimError) throw e;
      fail(lineOf(at), field, `cannot read ${path}: ${describeFsError(e)}`);
    }
  };
  const traces = axes.find(([k]) => k === "trace")![1] as string[];
  for (const [i, t] of traces.entries()) {
    const listed = Array.isArray(spec.traces);
    await checkFile(t, listed ? ["traces", i] : ["traces"], listed ? `traces[${i}]` : "traces");
  }
  for (const [name, values] of extra) {
    if (!PATH_OPTIONS.has(name)) continue;
    for (const [i, v] of values.entries()) {
      const listed = Array.isArray((spec.options as Record<string, unknown>)[name]);
      await checkFile(
        String(v),
        listed ? ["options", name, i] : ["options", name],
        listed ? `options.${name}[${i}]` : `options.${name}`,
      );
    }
  }
}

// Policies against the registry they will run with.
async function checkPolicies(
  spec: Record<string, unknown>,
  axes: readonly [string, CellValue[]][],
  extra: ReadonlyMap<string, CellValue[]>,
  folder: string,
  { fail, lineOf }: SpecContext,
): Promise<void> {
  let registry: PolicyRegistry = defaultRegistry();
  const module = extra.get("policy_module")?.[0];
  if (module !== undefined) {
    const { policyRegistry } = await import("./policy_module.ts");
    try {
      registry = (await policyRegistry(absolutePath(String(module), folder))).registry;
    } catch (e) {
      if (!(e instanceof EvtsimError)) throw e;
      fail(lineOf(["options", "policy_module"]), "options.policy_module", e.message);
    }
  }
  const policies = axes.find(([k]) => k === "policy")![1] as string[];
  for (const [i, p] of policies.entries()) {
    try {
      parsePolicies(p, registry);
    } catch (e) {
      if (!(e instanceof EvtsimError)) throw e;
      const listed = Array.isArray(spec.policies);
      fail(
        lineOf(listed ? ["policies", i] : ["policies"]),
        listed ? `policies[${i}]` : "policies",
        e.message.replace(/^--policies: /, ""),
      );
    }
  }
}

function optionProblem(o: OptionSpec, v: unknown): string | undefined {
  switch (o.kind) {
    case "flag":
      return typeof v === "boolean" ? undefined : `expected true or false, got ${show(v)}`;
    case "string":
      return typeof v === "string" && v !== "" || typeof v === "number"
        ? undefined
        : `expected a string, got ${show(v)}`;
    case "enum":
      return typeof v === "string"
        ? enumValueProblem(o, v)
        : `expected one of ${o.values!.join(", ")}, got ${show(v)}`;
    case "int":
    case "number":
      return typeof v === "number"
        ? rangeProblem(o, v)
        : `expected ${o.kind === "int" ? "an integer" : "a number"}, got ${show(v)}`;
  }
}

function show(v: unknown): string {
  if (v === null || v === undefined) return "nothing";
  return JSON.stringify(v) ?? String(v);
}
