// `evtsim simulate`'s node failures: `--node_failures FILE` (a failure
// trace) and `--failure_model SPEC` (failures drawn from a seed) become
// capacity changes with `failed` nodes, merged into the machine's capacity
// schedule (core/failure_model.ts); `--failures_out FILE` writes the
// failures of the run as a failure trace, so a drawn run can be repeated
// from the file. Failures name nodes: a whole-node run (no --machine) has
// none, and is refused.

import { EvtsimError } from "../core/errors.ts";
import {
  drawNodeFailures,
  type FailureModel,
  type NodeFailureEvent,
  withNodeFailures,
} from "../core/failure_model.ts";
import type { CapacityChange } from "../core/types.ts";
import type { MachineInput } from "../io/_machine_demands.ts";
import type { ParsedOptions } from "./options.ts";
import type { SimulateOptionName } from "./option_table.ts";

const str = (o: ParsedOptions, name: SimulateOptionName): string | undefined => {
  const v = o.get(name);
  return typeof v === "string" ? v : undefined;
};

/**
 * The capacity schedule with the run's node failures merged in (unchanged
 * without failure options); `write` gets the `--failures_out` text.
 */
export async function withFailures(
  o: ParsedOptions,
  machine: MachineInput | undefined,
  startTime: number,
  timezone: string,
  write: (text: string) => void,
  schedule: CapacityChange[] | undefined,
): Promise<CapacityChange[] | undefined> {
  const file = str(o, "node_failures");
  const spec = str(o, "failure_model");
  if (file === undefined && spec === undefined) {
    for (const name of ["on_node_failure", "requeue_limit", "failures_out"]) {
      if (o.has(name)) {
        throw new EvtsimError(
          "usage",
          `--${name} needs --node_failures FILE or --failure_model SPEC`,
        );
      }
    }
    return schedule;
  }
  if (machine === undefined) {
    throw new EvtsimError(
      "usage",
      `--${file !== undefined ? "node_failures" : "failure_model"} needs --machine FILE ` +
        "(failures name nodes; a whole-node run with -n has none: cut its capacity with --capacity_schedule)",
    );
  }
  const events: NodeFailureEvent[] = [];
  if (file !== undefined) {
    const { readNodeFailures } = await import("../io/node_failures.ts");
    events.push(...await readNodeFailures(file, timezone, machine.machine, machine.nodes));
  }
  if (spec !== undefined) {
    const { model, until, seed } = parseFailureModel(spec);
    // A group's own `failures:` (machine file) first, else the spec's mtbf and repair.
    const nodes = machine.nodes.map((n) => {
      const own = machine.machine.groups[n.group].failures ?? model;
      return own === undefined ? { name: n.name } : { name: n.name, model: own };
    });
    if (!nodes.some((n) => n.model !== undefined)) {
      throw new EvtsimError(
        "usage",
        "--failure_model: mtbf and repair are missing, and no group of --machine has failures: " +
          "(expected mtbf=S,repair=S,until=T[,seed=N])",
      );
    }
    events.push(...drawNodeFailures(nodes, seed, startTime, until));
    // Both given: one trace in time order (a stable sort keeps each one's order).
    events.sort((a, b) => a.time - b.time);
  }
  if (o.has("failures_out")) {
    const { nodeFailuresCsv } = await import("../io/node_failures.ts");
    write(nodeFailuresCsv(events));
  }
  return withNodeFailures(schedule ?? [], events, machine.nodes.length);
}

/**
 * `mtbf=S,repair=S,until=T[,seed=N][,distribution=exponential]`, checked
 * field by field (one line naming the field); mtbf and repair come together
 * or not at all (then the machine file's groups give them).
 *
 * @example
 * ```ts
 * import { parseFailureModel } from "./_failure_options.ts";
 * const { model, until, seed } = parseFailureModel("mtbf=86400,repair=3600,until=604800,seed=7");
 * console.assert(model?.mtbf === 86400 && seed === 7 && until === 604800);
 * console.assert(parseFailureModel("until=100").model === undefined);
 * ```
 */
export function parseFailureModel(
  spec: string,
): { model: FailureModel | undefined; until: number; seed: number } {
  const fail = (what: string): never => {
    throw new EvtsimError(
      "usage",
      `--failure_model: ${what} (expected mtbf=S,repair=S,until=T[,seed=N])`,
    );
  };
  const values = new Map<string, string>();
  for (const part of spec.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) fail(`expected key=value, got '${part}'`);
    const key = part.slice(0, eq).trim();
    if (!["mtbf", "repair", "until", "seed", "distribution"].includes(key)) {
      fail(`unknown key '${key}'`);
    }
    if (values.has(key)) fail(`'${key}' is given twice`);
    values.set(key, part.slice(eq + 1).trim());
  }
  const number = (key: string, positive: boolean): number | undefined => {
    const v = values.get(key);
    if (v === undefined) return undefined;
    const x = Number(v);
    if (v === "" || !Number.isFinite(x) || (positive ? !(x > 0) : x < 0)) {
      fail(`${key} must be a ${positive ? "positive" : "non-negative"} number, got '${v}'`);
    }
    return x;
  };
  const mtbf = number("mtbf", true);
  const repair = number("repair", true);
  if ((mtbf === undefined) !== (repair === undefined)) {
    fail(`${mtbf === undefined ? "mtbf" : "repair"} is missing`);
  }
  const until = number("until", false) ?? fail("until is missing");
  const seed = number("seed", false);
  if (seed !== undefined && !Number.isSafeInteger(seed)) {
    fail(`seed must be an integer, got ${seed}`);
  }
  const distribution = values.get("distribution");
  if (distribution !== undefined && distribution !== "exponential") {
    fail(`unknown distribution '${distribution}'`);
  }
  return {
    model: mtbf === undefined ? undefined : { mtbf, repair: repair! },
    until,
    seed: seed ?? 0,
  };
}
