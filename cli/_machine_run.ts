// What `evtsim simulate --machine FILE` adds to a run, kept out of
// cli/simulate.ts so that file only calls in: the machine file read and
// checked (with the partitions --queues binds queues to), the resource model
// built from its nodes, the stats JSON's view of the configuration, and the
// options and policies a machine run refuses for now.

import { EvtsimError } from "../core/errors.ts";
import type { SimulationConfig } from "../core/types.ts";
import type { QueueEntry } from "../io/queues_file.ts";
import type { MachineInput } from "../io/_machine_demands.ts";
import type { ParsedOptions } from "./options.ts";
import type { SimulateOptionName } from "./option_table.ts";

const str = (o: ParsedOptions, name: SimulateOptionName): string | undefined => {
  const v = o.get(name);
  return typeof v === "string" ? v : undefined;
};

// --machine: the machine file read and checked, with its nodes. Options a
// machine run refuses are refused here, before anything is read or written.
// (A recording or snapshot stores the machine's nodes, so --record and
// --from_snapshot work; cli/record_hooks.ts checks the snapshot's nodes are
// those of the machine file.)
export async function machineOf(
  o: ParsedOptions,
  queuesFile: { readonly path: string; readonly entries: readonly QueueEntry[] } | undefined,
): Promise<MachineInput | undefined> {
  const path = str(o, "machine");
  const bound = (queuesFile?.entries ?? []).map((e, i) => ({ ...e, i }))
    .filter((e) => e.partition !== undefined);
  if (path === undefined) {
    const e = bound[0];
    if (e === undefined) return undefined;
    throw new EvtsimError(
      "input",
      `queue ${e.i} (${e.queue.name}): partition: binds a queue to a partition of --machine, which is not given`,
      { file: queuesFile!.path, line: e.fieldLines.partition },
    );
  }
  const refused: [string, string][] = [
    ["total_nodes", "-n/--total_nodes (the machine file gives the nodes)"],
  ];
  const changes = o.has("capacity_schedule") || o.has("node_failures") || o.has("failure_model");
  if (o.get("capacity_semantics") === "drevt" && changes) {
    throw new EvtsimError(
      "usage",
      "--machine cannot be used with --capacity_semantics drevt (DR_EVT's rules count whole nodes)",
    );
  }
  for (const [name, why] of refused) {
    if (o.has(name)) throw new EvtsimError("usage", `--machine cannot be used with ${why}`);
  }
  const { readMachine } = await import("../io/machine_file.ts");
  const { machineInput } = await import("../io/_machine_demands.ts");
  const { machinePartitions } = await import("../core/machine.ts");
  const machine = await readMachine(path);
  const known = machinePartitions(machine);
  const queuePartitions = new Map<string, string>();
  for (const e of bound) {
    if (!known.includes(e.partition!)) {
      throw new EvtsimError(
        "input",
        `queue ${e.i} (${e.queue.name}): partition: expected a partition of the machine (${
          known.join(", ") || "none"
        }), got '${e.partition}'`,
        { file: queuesFile!.path, line: e.fieldLines.partition },
      );
    }
    queuePartitions.set(e.queue.name, e.partition!);
  }
  return machineInput(machine, queuePartitions);
}

// The machine's nodes as a topology cluster (see core/machine.ts for the
// `node` and `partition/P` units that make whole nodes and partitions).
export async function machineModel(m: MachineInput) {
  const { topologyCluster } = await import("../schedulers/topology_cluster.ts");
  return topologyCluster(
    m.nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
  );
}

// The configuration as the stats JSON shows it: a machine run shows the
// machine description instead of its resource model (an object of state).
export function jsonConfig(
  config: SimulationConfig,
  machine: MachineInput | undefined,
): Record<string, unknown> {
  if (machine === undefined) return { ...config };
  const { resourceModel: _, ...rest } = config;
  return { ...rest, machine: machine.machine };
}
