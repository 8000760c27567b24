// The `--machine` file: a machine description in YAML or JSON (JSON is read
// as YAML, which it is a subset of), checked strictly with a schema so that
// a typo is an error naming the file, the line and the field rather than a
// silently ignored key. The description itself (types, checks, node names,
// demands) is core/machine.ts.

import { z } from "zod";
import { EvtsimError } from "../core/errors.ts";
import { checkMachine, type Machine, type NodeGroup, parseMemory } from "../core/machine.ts";
import { failAt, singleYamlDocument, yamlLineOf, yamlValue } from "./_yaml.ts";

const expected = (what: string) => ({ error: `expected ${what}` });
const unknownField = {
  error: (issue: { code?: string }) =>
    issue.code === "unrecognized_keys" ? "unknown field" : undefined,
};
const name = z.string(expected("a non-empty string")).min(1, expected("a non-empty string"));

const GROUP = z.strictObject({
  name: name.optional(),
  count: z.int(expected("a positive integer")).positive(expected("a positive integer")),
  prefix: name.optional(),
  resources: z.record(
    z.string(),
    z.union(
      [z.number(), z.string()],
      expected("a non-negative integer (memory: a size like 256G)"),
    ),
    expected("a map of resource name to units per node"),
  ),
  partitions: z.array(name, expected("a list of partition names")).optional(),
  labels: z.record(z.string(), z.string(expected("a string")), expected("a map of level to domain"))
    .optional(),
  failures: z.strictObject({
    mtbf: z.number(expected("a positive number of seconds")),
    repair: z.number(expected("a positive number of seconds")),
    distribution: z.literal("exponential", expected("exponential")).optional(),
  }, unknownField).optional(),
  idle_watts: z.number(expected("a non-negative number of watts"))
    .min(0, expected("a non-negative number of watts")).optional(),
  busy_watts: z.number(expected("a non-negative number of watts"))
    .min(0, expected("a non-negative number of watts")).optional(),
}, unknownField);

const FILE = z.strictObject({
  default_partition: name.optional(),
  groups: z.array(GROUP, expected("a list of node groups")),
}, unknownField);

/**
 * Parses the text of a machine file:
 *
 * ```yaml
 * default_partition: cpu      # a job naming no partition runs here (default: every node)
 * groups:
 *   - name: cpu               # node names cpu001, cpu002, … (or give prefix:)
 *     count: 16
 *     resources: { cores: 64, memory: 256G }   # memory: MiB, or a size with K/M/G/T
 *     partitions: [cpu]
 *     labels: { rack: "r{i/8}" }               # {i/8}: ⌊(node index − 1) / 8⌋
 *     failures: { mtbf: 86400, repair: 3600 }  # drawn with --failure_model (optional)
 *     idle_watts: 90                           # the power model (optional, docs/power.md)
 *     busy_watts: 350
 * ```
 *
 * Throws an `EvtsimError` `file:line: field: what was expected`.
 *
 * @example
 * ```ts
 * import { parseMachine } from "@evtsim/evtsim/io";
 * const m = parseMachine("groups:\n  - name: gpu\n    count: 2\n    resources: { gpus: 4, memory: 1G }\n", "m.yaml");
 * if (m.groups[0].resources.memory !== 1024) throw new Error("memory");
 * try {
 *   parseMachine("groups:\n  - name: gpu\n    count: 0\n    resources: { gpus: 4 }\n", "m.yaml");
 *   throw new Error("a zero count must be refused");
 * } catch (e) {
 *   if ((e as Error).message !== "m.yaml:3: groups.0.count: expected a positive integer") throw e;
 * }
 * ```
 */
export function parseMachine(text: string, file: string): Machine {
  const fail = failAt(file);
  const { doc, lines } = singleYamlDocument(text, file);
  const lineOf = (path: readonly (string | number)[]) => yamlLineOf(doc, lines, path);
  const at = (path: readonly (string | number)[], message: string): EvtsimError =>
    new EvtsimError("input", message, {
      file,
      line: lineOf(path) ?? 1,
      ...(path.length > 0 ? { field: path.join(".") } : {}),
    });
  const raw = yamlValue(doc, lines, fail);
  const parsed = FILE.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keys = issue.code === "unrecognized_keys" ? [issue.keys[0]] : [];
    const path = [...issue.path, ...keys].map((k) => (typeof k === "number" ? k : String(k)));
    // A key left out is "required", whatever its schema expects.
    let given: unknown = raw;
    for (const k of path) given = (given as Record<string | number, unknown> | undefined)?.[k];
    const message = given === undefined && issue.code === "invalid_type"
      ? "required"
      : issue.message;
    throw at(path, message);
  }
  const groups: NodeGroup[] = parsed.data.groups.map((g, i) => {
    const resources: Record<string, number> = {};
    for (const [r, v] of Object.entries(g.resources)) {
      const path = ["groups", i, "resources", r];
      if (r === "memory") {
        const mib = parseMemory(v);
        if (mib === undefined || !Number.isSafeInteger(mib)) {
          throw at(path, `expected MiB or a size like 256G (a whole number of MiB), got '${v}'`);
        }
        resources[r] = mib;
      } else if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
        throw at(path, `expected a non-negative integer, got '${v}'`);
      } else resources[r] = v;
    }
    return {
      name: g.name ?? `group${i}`,
      count: g.count,
      ...(g.prefix !== undefined ? { prefix: g.prefix } : {}),
      resources,
      ...(g.partitions !== undefined ? { partitions: g.partitions } : {}),
      ...(g.labels !== undefined ? { labels: g.labels } : {}),
      ...(g.failures !== undefined ? { failures: g.failures } : {}),
      ...(g.idle_watts !== undefined ? { idleWatts: g.idle_watts } : {}),
      ...(g.busy_watts !== undefined ? { busyWatts: g.busy_watts } : {}),
    };
  });
  const machine: Machine = {
    groups,
    ...(parsed.data.default_partition !== undefined
      ? { defaultPartition: parsed.data.default_partition }
      : {}),
  };
  const problem = checkMachine(machine);
  if (problem !== undefined) throw at(problem.path, problem.message);
  return machine;
}

/**
 * Reads a machine file (see {@link parseMachine}).
 *
 * @example
 * ```ts
 * import { readMachine } from "@evtsim/evtsim/io";
 * const path = await Deno.makeTempFile({ suffix: ".json" });
 * await Deno.writeTextFile(path, '{"groups": [{"name": "n", "count": 4, "resources": {"cores": 8}}]}');
 * if ((await readMachine(path)).groups[0].count !== 4) throw new Error("read");
 * await Deno.remove(path);
 * ```
 */
export async function readMachine(path: string): Promise<Machine> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parseMachine(text, path);
}
