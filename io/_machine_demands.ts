// Job demands on a machine (`--machine`), per trace format. The rules (the
// "Machines and job demands" section of docs/machines.md says the same):
//
// - CSV: replicas = num_nodes; `num_cores`, `memory` (MiB or a size like
//   4G), `gpus` and a column named after any other resource of the machine
//   are units per replica (per node asked for). A row with none of them (or
//   all empty) asks for num_nodes whole nodes. `partition` (empty: none);
//   `topology`: a label key (rack) whose one domain must hold every replica.
// - SWF: replicas = requested processors (field 8; field 5 when it is -1),
//   each 1 core and the requested memory per processor (field 10, KB, rounded
//   up to MiB) when given. SWF partitions are numbers: jobs get the default.
// - sacct: replicas = NNodes; per replica ⌈NCPUS / NNodes⌉ cores,
//   ⌈gres/gpu / NNodes⌉ GPUs (ReqTRES, else AllocTRES) and memory (ReqMem:
//   per node, `c` per CPU; a bare ReqMem is per node), Partition.
//
// A job naming no partition runs in its queue's partition when `--queues`
// binds the queue to one (`partition:`; for sacct the Partition is the queue,
// and a bound queue runs on the partition it is bound to), else in the
// machine's default_partition, else on every node. Problems are one line naming the file, line and column.

import { EvtsimError } from "../core/errors.ts";
import {
  type DemandRequest,
  type Machine,
  machineDemand,
  type MachineNode,
  machineNodes,
  parseMemory,
} from "../core/machine.ts";
import type { ResourceDemand } from "../core/resource_model.ts";
import type { TraceDemandReader } from "./trace_csv.ts";
import type { SacctJob } from "./sacct.ts";
import { tresGpus } from "./_sacct_fields.ts";

/** A machine with its nodes listed once (demands are checked against them). */
export interface MachineInput {
  /** The description. */
  readonly machine: Machine;
  /** Its nodes (`machineNodes(machine)`). */
  readonly nodes: readonly MachineNode[];
  /** The partition each queue of `--queues` is bound to (its `partition:`), by queue name. */
  readonly queuePartitions?: ReadonlyMap<string, string>;
}

/**
 * A machine and its nodes (and the queues' partitions, when a queues file binds them).
 *
 * @example
 * ```ts
 * import { machineInput, parseMachine } from "@evtsim/evtsim/io";
 * const m = machineInput(parseMachine("groups:\n  - name: n\n    count: 2\n    resources: { cores: 8, gpus: 2 }\n", "m.yaml"));
 * if (m.nodes.length !== 2 || m.nodes[0].name !== "n001") throw new Error("nodes");
 * ```
 */
export function machineInput(
  machine: Machine,
  queuePartitions?: ReadonlyMap<string, string>,
): MachineInput {
  return {
    machine,
    nodes: machineNodes(machine),
    ...(queuePartitions !== undefined && queuePartitions.size > 0 ? { queuePartitions } : {}),
  };
}

/**
 * The partition of a job that names `named` (or none) in `queue` (or none):
 * its queue's bound partition when it names none; naming another is an error.
 */
function partitionOf(
  m: MachineInput,
  named: string | undefined,
  queue: string | undefined,
  fail: (detail: string) => EvtsimError,
): string | undefined {
  const bound = queue === undefined ? undefined : m.queuePartitions?.get(queue);
  if (named !== undefined && bound !== undefined && named !== bound) {
    throw fail(`expected partition ${bound} (queue ${queue}'s, --queues) or none, got '${named}'`);
  }
  return named ?? bound;
}

/** CSV column of each resource the columns name differently. */
const CSV_COLUMN: Readonly<Record<string, string>> = { cores: "num_cores" };

/**
 * The demand reader of a CSV trace on `m` (see the module comment): give it
 * to `readTrace`'s `demand` option.
 *
 * @example
 * ```ts
 * import { csvDemands, machineInput, parseMachine, parseTrace } from "@evtsim/evtsim/io";
 * const m = machineInput(parseMachine("groups:\n  - name: n\n    count: 2\n    resources: { cores: 8, gpus: 2 }\n", "m.yaml"));
 * const csv = "job_submit_time,num_nodes,time_limit,num_cores,gpus\n0,2,60,4,1\n";
 * const { jobs } = parseTrace(csv, { file: "t.csv", demand: csvDemands(m) });
 * if (jobs[0].demand?.replicas !== 2 || jobs[0].demand.perReplica.gpus !== 1) throw new Error("demand");
 * ```
 */
export function csvDemands(m: MachineInput): TraceDemandReader {
  const resources = [...new Set(m.nodes.flatMap((n) => Object.keys(n.capacity)))].filter((r) =>
    r !== "node" && !r.startsWith("partition/")
  );
  for (const r of ["cores", "memory", "gpus"]) if (!resources.includes(r)) resources.push(r);
  const columnOf = (r: string) => CSV_COLUMN[r] ?? r;
  return (value, numNodes, fail) => {
    if (numNodes < 1) throw fail("expected at least 1 node on a --machine run, got 0", "num_nodes");
    let per: Record<string, number> | undefined;
    for (const r of resources) {
      const column = columnOf(r);
      const text = value(column)?.trim();
      if (text === undefined || text === "") continue;
      let v: number | undefined;
      if (r === "memory") {
        const mib = parseMemory(text);
        v = mib === undefined ? undefined : Math.ceil(mib);
      } else v = /^\d+$/.test(text) ? Number(text) : undefined;
      if (v === undefined || !Number.isSafeInteger(v)) {
        throw fail(
          `expected a non-negative integer${
            r === "memory" ? " of MiB or a size like 4G" : ""
          }, got '${text}'`,
          column,
        );
      }
      (per ??= {})[r] = v;
    }
    const queue = value("queue") ?? value("q_id");
    const partition = partitionOf(
      m,
      value("partition")?.trim() || undefined,
      queue === "" ? undefined : queue,
      (d) => fail(d, "partition"),
    );
    const topologyKey = value("topology")?.trim();
    return checked(
      m,
      {
        replicas: numNodes,
        ...(per !== undefined ? { perReplica: per } : {}),
        ...(partition ? { partition } : {}),
        ...(topologyKey ? { topologyKey } : {}),
      },
      (detail, part) => fail(detail, part === "replicas" ? "num_nodes" : columnOf(part)),
    );
  };
}

/**
 * The demand of an SWF job on `m` from its 18 fields `f` (field k at
 * `f[k - 1]`): requested processors as replicas of one core, requested
 * memory per processor; `fail` names the line.
 *
 * @example
 * ```ts
 * import { machineInput, parseMachine, swfDemand } from "@evtsim/evtsim/io";
 * import { EvtsimError } from "@evtsim/evtsim";
 * const m = machineInput(parseMachine("groups:\n  - name: n\n    count: 2\n    resources: { cores: 8, gpus: 2 }\n", "m.yaml"));
 * const f = [1, 0, 0, 60, 4, -1, -1, 4, 60, -1, 1, 1, 1, 1, 1, 1, -1, -1];
 * const d = swfDemand(m, f, undefined, (detail) => new EvtsimError("input", detail));
 * if (d.replicas !== 4 || d.perReplica.cores !== 1) throw new Error("demand");
 * ```
 */
export function swfDemand(
  m: MachineInput,
  f: ArrayLike<number>,
  queue: string | undefined,
  fail: (detail: string, field: string) => EvtsimError,
): ResourceDemand {
  const partition = queue === undefined ? undefined : m.queuePartitions?.get(queue);
  const procs = f[7] > 0 ? f[7] : f[4];
  const memoryKb = f[9];
  const per: Record<string, number> = { cores: 1 };
  if (memoryKb > 0) per.memory = Math.ceil(memoryKb / 1024);
  const req = { replicas: procs, perReplica: per, ...(partition ? { partition } : {}) };
  return checked(m, req, (detail, part) =>
    fail(
      detail,
      part === "memory"
        ? "field 10 (requested memory)"
        : part === "replicas" || part === "cores"
        ? "field 8 (requested processors)"
        : part === "partition"
        ? "field 15 (queue)"
        : part,
    ));
}

/**
 * The demand of a sacct job on `m` (a job of `readSacct`/`parseSacct`);
 * `file` names it in messages.
 *
 * @example
 * ```ts
 * import { machineInput, parseMachine, parseSacct, sacctDemand } from "@evtsim/evtsim/io";
 * const m = machineInput(parseMachine("groups:\n  - name: n\n    count: 2\n    resources: { cores: 8, gpus: 2 }\n", "m.yaml"));
 * const psv = "JobID|Submit|Start|End|Timelimit|NNodes|NCPUS|ReqMem|AllocTRES|Partition|State\n" +
 *   "1|2026-03-02T08:00:00|2026-03-02T08:00:00|2026-03-02T09:00:00|02:00:00|1|4||cpu=4,gres/gpu=2,node=1||COMPLETED\n";
 * const { records } = parseSacct(psv, "jobs.psv");
 * const d = sacctDemand(m, records[0], "jobs.psv");
 * if (d.perReplica.gpus !== 2) throw new Error(JSON.stringify(d));
 * ```
 */
export function sacctDemand(m: MachineInput, r: SacctJob, file: string): ResourceDemand {
  const fail = (detail: string, field: string) =>
    new EvtsimError("input", detail, { file, line: r.line, field });
  const nodes = r.nodes;
  if (nodes < 1) throw fail("expected at least 1 node on a --machine run, got 0", "NNodes");
  const per: Record<string, number> = {};
  if (r.cpus !== undefined && r.cpus > 0) per.cores = Math.ceil(r.cpus / nodes);
  const tresMem = r.reqTres?.mem;
  if (r.memory !== undefined && r.memory > 0) {
    const perNode = r.memoryPer === "cpu" ? r.memory * (per.cores ?? 1) : r.memory;
    per.memory = Math.ceil(perNode);
  } else if (tresMem !== undefined && tresMem > 0) per.memory = Math.ceil(tresMem / nodes);
  if (r.gpus !== undefined && r.gpus > 0) per.gpus = Math.ceil(r.gpus / nodes);
  // The Partition is the job's queue too: a queue of --queues may bind it to another partition.
  const partition = r.partition === undefined
    ? undefined
    : m.queuePartitions?.get(r.partition) ?? r.partition;
  return checked(
    m,
    {
      replicas: nodes,
      ...(Object.keys(per).length > 0 ? { perReplica: per } : {}),
      ...(partition !== undefined ? { partition } : {}),
    },
    (detail, part) =>
      fail(
        detail,
        part === "replicas"
          ? "NNodes"
          : part === "partition"
          ? "Partition"
          : part === "cores"
          ? "NCPUS"
          : part === "memory"
          ? "ReqMem"
          : part === "gpus"
          ? (r.allocTres !== undefined && tresGpus(r.allocTres) !== undefined
            ? "AllocTRES"
            : "ReqTRES")
          : part,
      ),
  );
}

function checked(
  m: MachineInput,
  req: DemandRequest,
  fail: (detail: string, part: string) => EvtsimError,
): ResourceDemand {
  const r = machineDemand(m.machine, req, m.nodes);
  if (r.problem !== undefined) throw fail(r.problem.message, r.problem.part);
  return r.demand;
}
