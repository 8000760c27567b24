// A session of a server started with `evtsim serve --machine FILE`. The
// machine description crosses to the session's worker as plain data (a
// resource model is an object of state and cannot be posted); here, where
// the session runs, it becomes the same topology cluster `simulate
// --machine` builds (cli/_machine_run.ts `machineModel`), and appended jobs'
// demand fields become their demands by the CSV trace's rules
// (io/_machine_demands.ts `csvDemands`), so both fronts read a demand alike.

import { EvtsimError } from "../../core/errors.ts";
import type { JobSpec, SimulationConfig } from "../../core/types.ts";
import type { ModelNode } from "../../core/resource_model.ts";
import { csvDemands, type MachineInput, machineInput } from "../../io/_machine_demands.ts";
import { nodeNamesOf } from "../../io/machine_capacity.ts";
import type { QueueDef } from "../../core/queues.ts";
import { machinePartitions, NODE_RESOURCE, PARTITION_RESOURCE } from "../../core/machine.ts";
import { topologyCluster } from "../../schedulers/topology_cluster.ts";
import { ServiceError } from "./service_error.ts";

/** The demand fields an appended job may carry (HTTP), as the CSV trace's columns. */
export interface JobDemandFields {
  /** Cores per replica (CSV `num_cores`). */
  readonly numCores?: number;
  /** Memory per replica: MiB, or a size like "64G" (CSV `memory`). */
  readonly memory?: number | string;
  /** GPUs per replica (CSV `gpus`). */
  readonly gpus?: number;
  /** The partition it runs in (CSV `partition`). */
  readonly partition?: string;
  /** A label key (e.g. rack) whose one domain must hold every replica (CSV `topology`). */
  readonly topology?: string;
  /**
   * Units per replica of the machine's other named resources (e.g. `fpga`),
   * by name: the CSV column of that name.
   */
  readonly resources?: Readonly<Record<string, number>>;
}

/** The request field of each CSV column the demand reader asks for. */
const FIELD_OF: Readonly<Record<string, keyof JobDemandFields | "queue">> = {
  num_cores: "numCores",
  memory: "memory",
  gpus: "gpus",
  partition: "partition",
  topology: "topology",
  queue: "queue",
};

const DEMAND_FIELDS = [
  "numCores",
  "memory",
  "gpus",
  "partition",
  "topology",
  "resources",
] as const;

/** Resources with a field of their own (or bookkeeping), not given under `resources`. */
const OWN_FIELD: Readonly<Record<string, string>> = {
  cores: "numCores",
  memory: "memory",
  gpus: "gpus",
};

type JobWithDemand = JobSpec & JobDemandFields;

/** A job without its demand fields (what the engine takes). */
function strip(job: JobWithDemand): JobSpec {
  const {
    numCores: _c,
    memory: _m,
    gpus: _g,
    partition: _p,
    topology: _t,
    resources: _r,
    ...spec
  } = job;
  return spec;
}

/**
 * The jobs of a session without a machine: a demand field is refused (one
 * line naming the job and field), since whole nodes are all it has.
 */
export function withoutDemands(jobs: readonly JobSpec[]): readonly JobSpec[] {
  jobs.forEach((j, i) => {
    const f = DEMAND_FIELDS.find((k) => (j as JobWithDemand)[k] !== undefined);
    if (f !== undefined) {
      throw new EvtsimError(
        "input",
        `job ${i}: ${f}: needs a server started with --machine (this one has whole nodes only)`,
      );
    }
  });
  return jobs;
}

/** What a session on a machine needs: its configuration, its jobs' demands, its utilization. */
export interface MachineSession {
  /** The session's configuration on the machine (refuses `totalNodes`). */
  config(given: Omit<SimulationConfig, "totalNodes"> & { totalNodes?: number }): SimulationConfig;
  /** The jobs with their demands (the replicas; numNodes 0, as simulate); throws one line per bad job. */
  jobs(jobs: readonly JobSpec[]): JobSpec[];
  /** The machine's nodes (for the per-resource columns of the resource rows). */
  readonly nodes: readonly ModelNode[];
  /**
   * The node names a live change gives: a node's name, or a group's (its
   * nodes), as the capacity schedule reads them; one line for any other.
   */
  nodeNames(who: string): readonly string[];
}

/** The session side of a server's machine. */
export function machineSession(m: MachineInput): MachineSession {
  // The same nodes simulate's machineModel gives the topology cluster.
  const model = topologyCluster(
    m.nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
  );
  const reader = csvDemands(m);
  const namesOf = nodeNamesOf(m.machine, m.nodes);
  // The machine's resources a job may name under `resources` (as CSV columns).
  const named = new Set(
    m.nodes.flatMap((n) => Object.keys(n.capacity)).filter((r) =>
      r !== NODE_RESOURCE && !r.startsWith(PARTITION_RESOURCE)
    ),
  );
  return {
    config(given) {
      if (given.totalNodes !== undefined) {
        throw new ServiceError(
          400,
          "usage",
          `totalNodes: leave it out: this server runs every session on its --machine (${m.nodes.length} nodes)`,
        );
      }
      return {
        ...given,
        totalNodes: m.nodes.length,
        resourceModel: model,
        // A machine file's watts per group: the power model (docs/power.md).
        ...(m.machine.groups.some((g) => g.idleWatts !== undefined || g.busyWatts !== undefined)
          ? {
            nodeWatts: m.machine.groups.map((g) => ({
              nodes: g.count,
              idleWatts: g.idleWatts ?? 0,
              busyWatts: g.busyWatts ?? 0,
            })),
          }
          : {}),
        // The utilization reads the allocations from DISPATCH rows (as simulate).
        decisions: given.decisions === true ? true : "heads",
      };
    },
    jobs(jobs) {
      return jobs.map((job, i) => {
        const j = job as JobWithDemand;
        for (const r of Object.keys(j.resources ?? {})) {
          const why = OWN_FIELD[r] !== undefined
            ? `give it as ${OWN_FIELD[r]}`
            : !named.has(r)
            ? `the machine has no resource ${r} (it has ${[...named].sort().join(", ")})`
            : undefined;
          if (why !== undefined) {
            throw new EvtsimError("input", `job ${i}: resources.${r}: ${why}`);
          }
        }
        const value = (column: string): string | undefined => {
          const field = FIELD_OF[column];
          const v = field === undefined
            ? Object.hasOwn(j.resources ?? {}, column) ? j.resources![column] : undefined
            : j[field];
          return v === undefined ? undefined : String(v);
        };
        const demand = reader(
          value,
          j.numNodes,
          (detail, column) =>
            new EvtsimError(
              "input",
              `job ${i}: ${
                FIELD_OF[column] ??
                  (column === "num_nodes"
                    ? "numNodes"
                    : named.has(column)
                    ? `resources.${column}`
                    : column)
              }: ${detail}`,
            ),
        );
        // As the CSV reader (io/trace_csv.ts): the demand holds the replicas,
        // the job no share of the node count (numNodes 0), so rows and
        // statistics are simulate --machine's.
        return { ...strip(j), numNodes: 0, demand };
      });
    },
    nodes: model.nodes ?? [],
    nodeNames: (who) => namesOf(who),
  };
}

/**
 * The server's machine with the partitions the session's queues bind (as
 * simulate's `--queues` file with `partition:`), and the queues without
 * that field (the engine's queue definitions have none).
 */
export function queuePartitions(
  m: MachineInput | undefined,
  queues: readonly (QueueDef & { readonly partition?: string })[] | undefined,
): { machine: MachineInput | undefined; queues: QueueDef[] | undefined } {
  if (queues === undefined) return { machine: m, queues: undefined };
  const bound = new Map<string, string>();
  const known = m === undefined ? [] : machinePartitions(m.machine);
  const plain = queues.map(({ partition, ...q }, i) => {
    if (partition === undefined) return q;
    if (m === undefined) {
      throw new ServiceError(
        400,
        "usage",
        `queues[${i}] (${q.name}): partition: binds a queue to a partition of --machine, which this server has not`,
      );
    }
    if (!known.includes(partition)) {
      throw new ServiceError(
        400,
        "usage",
        `queues[${i}] (${q.name}): partition: expected a partition of the machine (${
          known.join(", ") || "none"
        }), got '${partition}'`,
      );
    }
    bound.set(q.name, partition);
    return q;
  });
  return {
    machine: m === undefined || bound.size === 0 ? m : machineInput(m.machine, bound),
    queues: plain,
  };
}
