// `--node_failures FILE` with `--machine`: CSV `time,node,state`, one row
// per failure (`down`) or repair (`up`) of a node, or of every node of a
// group; times as in the capacity schedule (seconds or a timestamp),
// non-decreasing. `--failures_out FILE` writes the same format, one node a
// row, so a drawn failure trace (`--failure_model`) can be read back.

import { EvtsimError } from "../core/errors.ts";
import type { NodeFailureEvent } from "../core/failure_model.ts";
import type { Machine, MachineNode } from "../core/machine.ts";
import { nodeNamesOf, nodeStateRow } from "./machine_capacity.ts";

const HEADER = "time,node,state";

/**
 * Parses a failure trace of a machine: one event per node (a group's row
 * gives one per node of the group, in order).
 *
 * @example
 * ```ts
 * import { machineNodes } from "@evtsim/evtsim";
 * import { parseNodeFailures } from "./node_failures.ts";
 * const machine = { groups: [{ name: "gpu", count: 2, resources: { gpus: 4 } }] };
 * const e = parseNodeFailures("time,node,state\n10,gpu,down\n20,gpu002,up\n", "f.csv", "UTC", machine, machineNodes(machine));
 * console.assert(e.length === 3 && e[1].node === "gpu002" && e[2].state === "up");
 * ```
 */
export function parseNodeFailures(
  text: string,
  file: string,
  timezone: string,
  machine: Machine,
  nodes: readonly MachineNode[],
): NodeFailureEvent[] {
  const lines = text.split("\n");
  const header = lines[0]?.trim().split(",").map((h) => h.trim()).join(",");
  if (header !== HEADER && header !== "time,nodes,state") {
    throw new EvtsimError(
      "input",
      `expected the header '${HEADER}' (nodes failing and repaired)`,
      { file, line: 1 },
    );
  }
  const namesOf = nodeNamesOf(machine, nodes);
  const out: NodeFailureEvent[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const prev = out.length > 0 ? out[out.length - 1].time : undefined;
    const { time, list, state } = nodeStateRow(line, i + 1, file, timezone, prev, "node", namesOf);
    for (const node of list) out.push({ time, node, state });
  }
  return out;
}

/** Reads and parses a failure trace file. */
export async function readNodeFailures(
  path: string,
  timezone: string,
  machine: Machine,
  nodes: readonly MachineNode[],
): Promise<NodeFailureEvent[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  return parseNodeFailures(text, path, timezone, machine, nodes);
}

/**
 * A failure trace as `--node_failures` reads it.
 *
 * @example
 * ```ts
 * import { nodeFailuresCsv } from "./node_failures.ts";
 * const text = nodeFailuresCsv([{ time: 5, node: "n001", state: "down" }]);
 * console.assert(text === "time,node,state\n5,n001,down\n");
 * ```
 */
export function nodeFailuresCsv(events: readonly NodeFailureEvent[]): string {
  return `${HEADER}\n${events.map((e) => `${e.time},${e.node},${e.state}\n`).join("")}`;
}
