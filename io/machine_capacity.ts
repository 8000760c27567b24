// `--capacity_schedule FILE` with `--machine`: CSV `time,nodes,state`, one
// row per change. `nodes` is a node's name (`gpu003`) or a group's name
// (`gpu`: every node of the group); `state` is `down` (the nodes go offline:
// they take no new job, and what runs on them drains or, with
// `--on_capacity_cut kill`, is killed) or `up` (back online). Times as in the
// whole-node schedule (seconds or a timestamp), non-decreasing; rows at the
// same time apply in file order.

import { type ErrorLocation, EvtsimError } from "../core/errors.ts";
import type { MachineNode } from "../core/machine.ts";
import type { Machine } from "../core/machine.ts";
import type { CapacityChange } from "../core/types.ts";
import { parseTimestamp } from "./timestamps.ts";

/**
 * The node names a capacity change gives, by name: a node's name stands for
 * itself, a group's for every node of the group (in order). Throws an
 * `EvtsimError` (kind `input`, one line) for a name that is neither; `at`
 * places it (a file's line and field).
 *
 * @example
 * ```ts
 * import { type Machine, machineNodes } from "@evtsim/evtsim";
 * import { nodeNamesOf } from "./machine_capacity.ts";
 * const machine: Machine = { groups: [{ name: "gpu", count: 2, resources: { gpus: 4 } }, { name: "cpu", count: 1, resources: { cores: 8 } }] };
 * const names = nodeNamesOf(machine, machineNodes(machine));
 * console.assert(names("gpu").join() === "gpu001,gpu002" && names("cpu001").join() === "cpu001");
 * ```
 */
export function nodeNamesOf(
  machine: Machine,
  nodes: readonly MachineNode[],
): (who: string, at?: ErrorLocation) => readonly string[] {
  const byGroup = new Map<string, string[]>();
  const names = new Set<string>();
  for (const n of nodes) {
    const g = machine.groups[n.group].name;
    byGroup.set(g, [...(byGroup.get(g) ?? []), n.name]);
    names.add(n.name);
  }
  return (who, at) => {
    const group = byGroup.get(who);
    if (group !== undefined) return group;
    if (names.has(who)) return [who];
    throw new EvtsimError(
      "input",
      `expected a node or group of the machine (groups: ${
        [...byGroup.keys()].join(", ")
      }), got '${who}'`,
      at,
    );
  };
}

/**
 * Parses a machine's capacity schedule into capacity changes that name
 * nodes (`down`, `up`; `capacity` = the nodes online after the change).
 *
 * @example
 * ```ts
 * import { machineNodes } from "@evtsim/evtsim";
 * import { parseMachineSchedule } from "./machine_capacity.ts";
 * const machine = { groups: [{ name: "gpu", count: 2, resources: { gpus: 4 } }] };
 * const s = parseMachineSchedule("time,nodes,state\n10,gpu,down\n20,gpu002,up\n", "c.csv", "UTC", machine, machineNodes(machine));
 * console.assert(s[0].capacity === 0 && s[1].up?.[0] === "gpu002" && s[1].capacity === 1);
 * ```
 */
export function parseMachineSchedule(
  text: string,
  file: string,
  timezone: string,
  machine: Machine,
  nodes: readonly MachineNode[],
): CapacityChange[] {
  const lines = text.split("\n");
  const header = lines[0]?.trim().split(",").map((h) => h.trim());
  if (header?.join(",") !== "time,nodes,state") {
    throw new EvtsimError(
      "input",
      "expected the header 'time,nodes,state' (a schedule of nodes going down and up, with --machine)",
      { file, line: 1 },
    );
  }
  const namesOf = nodeNamesOf(machine, nodes);
  const offline = new Set<string>();
  const out: CapacityChange[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const prev = out.length > 0 ? out[out.length - 1].time : undefined;
    const { time, list, state } = nodeStateRow(line, i + 1, file, timezone, prev, "nodes", namesOf);
    for (const n of list) {
      if (state === "down") offline.add(n);
      else offline.delete(n);
    }
    out.push({
      time,
      capacity: nodes.length - offline.size,
      ...(state === "down" ? { down: list } : { up: list }),
    });
  }
  return out;
}

/** Reads and parses a machine's capacity schedule file. */
export async function readMachineSchedule(
  path: string,
  timezone: string,
  machine: Machine,
  nodes: readonly MachineNode[],
): Promise<CapacityChange[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parseMachineSchedule(text, path, timezone, machine, nodes);
}

/**
 * One row `time,NODES,state` of a node schedule (`--capacity_schedule` with
 * `--machine`, `--node_failures`): its time (non-decreasing after `prev`),
 * the nodes its second field names, and `down` or `up`; a bad field is one
 * error naming the file, line and field (`nodeField` for the second).
 */
export function nodeStateRow(
  line: string,
  lineNo: number,
  file: string,
  timezone: string,
  prev: number | undefined,
  nodeField: string,
  namesOf: (name: string, at: { file: string; line: number; field: string }) => readonly string[],
): { time: number; list: readonly string[]; state: "down" | "up" } {
  const at = (field: string) => ({ file, line: lineNo, field });
  const fields = line.split(",").map((x) => x.trim());
  if (fields.length !== 3) {
    throw new EvtsimError(
      "input",
      `expected 3 fields (time,${nodeField},state), got ${fields.length}`,
      { file, line: lineNo },
    );
  }
  const [t, who, state] = fields;
  let time: number;
  try {
    if (t === "") throw new Error("expected a time, got an empty field");
    time = parseTimestamp(t, timezone);
  } catch (e) {
    throw new EvtsimError("input", (e as Error).message, at("time"));
  }
  if (prev !== undefined && time < prev) {
    throw new EvtsimError("input", "times must be non-decreasing", at("time"));
  }
  const list = namesOf(who, at(nodeField));
  if (state !== "down" && state !== "up") {
    throw new EvtsimError("input", `expected down or up, got '${state}'`, at("state"));
  }
  return { time, list, state };
}
