// A machine description: groups of identical nodes, each node with integer
// units of named resources (cores, memory in MiB, gpus, …), the partitions
// (node pools) it belongs to and its topology labels (rack, switch, …). Pure
// types and checks, no I/O: io/machine_file.ts reads the file, and the
// readers turn a job's columns into a demand with `machineDemand`.
//
// How a machine becomes a resource model (a topology cluster of its nodes):
// besides its own resources every node has `node` = WHOLE_NODE units and,
// for each partition P it is in, `partition/P` = WHOLE_NODE units. A job
// asks for `node: 1` per replica (or `node: WHOLE_NODE` for a whole-node
// replica, which therefore needs an empty node and leaves nothing to others)
// and for `partition/P: 1` when it runs in partition P (so it is placed only
// on P's nodes; pools may overlap). Both are ordinary resources to the model,
// so any policy that reasons over resources keeps them too.

import type { ResourceDemand } from "./resource_model.ts";

/** Units of the `node` resource every node has; a whole-node replica takes them all. */
export const WHOLE_NODE = 1_000_000;
/** The resource that makes a whole-node job exclusive (a reserved name). */
export const NODE_RESOURCE = "node";
/** Prefix of the resource that restricts a job to a partition's nodes. */
export const PARTITION_RESOURCE = "partition/";

/**
 * A group of identical nodes.
 *
 * @example
 * ```ts
 * import { machineNodes, type NodeGroup } from "@evtsim/evtsim";
 * const gpu: NodeGroup = {
 *   name: "gpu", count: 4, resources: { cores: 32, memory: 262144, gpus: 4 }, partitions: ["gpu"],
 *   labels: { rack: "r{i/2}" },
 * };
 * // Four nodes named from the group, two to a rack.
 * const nodes = machineNodes({ groups: [gpu] });
 * const text = nodes.map((n) => `${n.name}@${n.topology.rack}`).join();
 * console.assert(text === "gpu001@r0,gpu002@r0,gpu003@r1,gpu004@r1", text);
 * ```
 */
export interface NodeGroup {
  /** The group's name (messages; the node-name prefix when `prefix` is absent). */
  readonly name: string;
  /** How many nodes (a positive integer). */
  readonly count: number;
  /** Node names are the prefix and the 1-based index, zero-padded to at least 3 digits (`gpu001`). */
  readonly prefix?: string;
  /** Units per node of each resource (non-negative integers; memory in MiB). */
  readonly resources: Readonly<Record<string, number>>;
  /** The partitions (node pools) its nodes are in. */
  readonly partitions?: readonly string[];
  /** Topology labels, level → domain (rack → r1); a `{i/K}` in a value becomes ⌊(index−1)/K⌋ per node. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * How its nodes fail, when failures are drawn (`--failure_model`): mean
   * time between failures and mean repair time of each node, seconds
   * (exponential distributions).
   */
  readonly failures?: {
    readonly mtbf: number;
    readonly repair: number;
    readonly distribution?: "exponential";
  };
  /** Watts each of its nodes draws while it holds no job (the power model, docs/power.md). */
  readonly idleWatts?: number;
  /** Watts each of its nodes draws while it holds a job. */
  readonly busyWatts?: number;
}

/**
 * A machine: its node groups, and the partition a job naming none runs in.
 *
 * @example
 * ```ts
 * import { type Machine, machineNodes } from "@evtsim/evtsim";
 * const m: Machine = { groups: [{ name: "cpu", count: 2, resources: { cores: 64 } }] };
 * if (machineNodes(m).map((n) => n.name).join() !== "cpu001,cpu002") throw new Error("names");
 * ```
 */
export interface Machine {
  /** The node groups, in file order. */
  readonly groups: readonly NodeGroup[];
  /** A job naming no partition runs here; absent: on every node of the machine. */
  readonly defaultPartition?: string;
}

/**
 * One node of a machine, as a resource model takes it.
 *
 * @example
 * ```ts
 * import { machineNodes } from "@evtsim/evtsim";
 * const [n] = machineNodes({ groups: [{ name: "g", count: 1, resources: { gpus: 4 }, partitions: ["gpu"] }] });
 * if (n.capacity["partition/gpu"] !== 1_000_000 || n.capacity.gpus !== 4) throw new Error("node");
 * ```
 */
export interface MachineNode {
  /** Unique name. */
  readonly name: string;
  /** Index of its group in `Machine.groups`. */
  readonly group: number;
  /** Its resources with the `node` and `partition/P` units (see the module comment). */
  readonly capacity: Readonly<Record<string, number>>;
  /** Topology labels. */
  readonly topology: Readonly<Record<string, string>>;
  /** Partitions it is in. */
  readonly partitions: readonly string[];
}

/** A problem with a machine description: where (a path of keys) and what was expected. */
export interface MachineProblem {
  /** Keys from the top, e.g. `["groups", 1, "resources", "gpus"]`. */
  readonly path: readonly (string | number)[];
  /** What was expected. */
  readonly message: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const LABEL_INDEX = /\{i\/(\d+)\}/g;

/**
 * The first problem of a machine description, or undefined when it is
 * sound: resource names are identifiers other than `node`; counts positive
 * integers; units non-negative integers; node names unique; the default
 * partition is a partition of some group.
 *
 * @example
 * ```ts
 * import { checkMachine } from "@evtsim/evtsim";
 * const p = checkMachine({ groups: [{ name: "a", count: 1, resources: { node: 1 } }] });
 * if (p?.message !== "node is a reserved resource name") throw new Error(String(p?.message));
 * ```
 */
export function checkMachine(m: Machine): MachineProblem | undefined {
  if (m.groups.length === 0) return { path: ["groups"], message: "expected at least one group" };
  const prefixes = new Map<string, number>();
  const partitions = new Set<string>();
  for (let g = 0; g < m.groups.length; g++) {
    const group = m.groups[g];
    const at = (...rest: (string | number)[]) => ["groups", g, ...rest];
    if (!Number.isSafeInteger(group.count) || group.count <= 0) {
      return { path: at("count"), message: "expected a positive integer" };
    }
    const prefix = group.prefix ?? group.name;
    if (!NAME.test(prefix)) {
      return {
        path: at(group.prefix === undefined ? "name" : "prefix"),
        message: "expected a name (letters, digits, _ . -)",
      };
    }
    const earlier = prefixes.get(prefix);
    if (earlier !== undefined) {
      return {
        path: at(group.prefix === undefined ? "name" : "prefix"),
        message: `node names ${prefix}NNN are already those of group ${earlier}`,
      };
    }
    prefixes.set(prefix, g);
    for (const key of ["mtbf", "repair"] as const) {
      const v = group.failures?.[key];
      if (group.failures !== undefined && !(typeof v === "number" && v > 0 && Number.isFinite(v))) {
        return { path: at("failures", key), message: "expected a positive number of seconds" };
      }
    }
    const names = Object.keys(group.resources);
    if (names.length === 0) {
      return { path: at("resources"), message: "expected at least one resource" };
    }
    for (const r of names) {
      if (r === NODE_RESOURCE) {
        return { path: at("resources", r), message: "node is a reserved resource name" };
      }
      if (!NAME.test(r)) {
        return {
          path: at("resources", r),
          message: "expected a resource name (letters, digits, _ . -)",
        };
      }
      const v = group.resources[r];
      if (!Number.isSafeInteger(v) || v < 0) {
        return { path: at("resources", r), message: "expected a non-negative integer" };
      }
    }
    for (const [i, p] of (group.partitions ?? []).entries()) {
      if (!NAME.test(p)) {
        return {
          path: at("partitions", i),
          message: "expected a partition name (letters, digits, _ . -)",
        };
      }
      partitions.add(p);
    }
  }
  const d = m.defaultPartition;
  if (d !== undefined && !partitions.has(d)) {
    return {
      path: ["default_partition"],
      message: `expected one of the groups' partitions (${
        [...partitions].join(", ") || "none"
      }), got '${d}'`,
    };
  }
  return undefined;
}

/**
 * The nodes of a machine, group by group, with the capacities a resource
 * model places on (see the module comment).
 *
 * @example
 * ```ts
 * import { machineNodes } from "@evtsim/evtsim";
 * const nodes = machineNodes({ groups: [{ name: "c", prefix: "n", count: 20, resources: { cores: 8 }, labels: { rack: "r{i/16}" } }] });
 * if (nodes[0].topology.rack !== "r0" || nodes[19].topology.rack !== "r1" || nodes[19].name !== "n020") {
 *   throw new Error("labels");
 * }
 * ```
 */
export function machineNodes(m: Machine): MachineNode[] {
  const nodes: MachineNode[] = [];
  m.groups.forEach((group, g) => {
    const prefix = group.prefix ?? group.name;
    const width = Math.max(3, String(group.count).length);
    const partitions = [...new Set(group.partitions ?? [])];
    const capacity: Record<string, number> = { ...group.resources, [NODE_RESOURCE]: WHOLE_NODE };
    for (const p of partitions) capacity[PARTITION_RESOURCE + p] = WHOLE_NODE;
    Object.freeze(capacity);
    for (let i = 1; i <= group.count; i++) {
      const topology: Record<string, string> = {};
      for (const [k, v] of Object.entries(group.labels ?? {})) {
        topology[k] = v.replace(LABEL_INDEX, (_, n) => String(Math.floor((i - 1) / Number(n))));
      }
      nodes.push({
        name: prefix + String(i).padStart(width, "0"),
        group: g,
        capacity,
        topology,
        partitions,
      });
    }
  });
  return nodes;
}

/** The partitions of a machine, in the order the groups first name them. */
export function machinePartitions(m: Machine): string[] {
  return [...new Set(m.groups.flatMap((g) => g.partitions ?? []))];
}

/**
 * What a job asks of a machine, before it is checked: `replicas` replicas
 * each needing `perReplica` (undefined: a whole node each), in `partition`
 * (undefined: the machine's default).
 */
export interface DemandRequest {
  /** Replicas (num_nodes, tasks, processors). */
  readonly replicas: number;
  /** Units per replica of the machine's resources; undefined: a whole node each. */
  readonly perReplica?: Readonly<Record<string, number>>;
  /** The partition it names, if any. */
  readonly partition?: string;
  /** Every replica in one domain of this topology level (a label key, e.g. rack), if any. */
  readonly topologyKey?: string;
}

/** Why a request can never run: the part it is about (`replicas`, `partition` or a resource) and what. */
export interface DemandProblem {
  /** `replicas`, `partition` or a resource name. */
  readonly part: string;
  /** What was expected. */
  readonly message: string;
}

/**
 * A job's demand on a machine, or why it is not one: a partition the
 * machine does not have, a topology level its nodes are not labelled with, a
 * resource no node of the partition has enough of (one replica fits no
 * node). More replicas than the empty partition (or one domain of the
 * topology level) holds at once is a demand: the engine holds such a job,
 * which can never start (pend reason `exceeds_capacity`).
 *
 * @example
 * ```ts
 * import { machineDemand } from "@evtsim/evtsim";
 * const m = { groups: [{ name: "g", count: 2, resources: { cores: 32, gpus: 4 }, partitions: ["gpu"] }] };
 * const ok = machineDemand(m, { replicas: 2, perReplica: { gpus: 2 }, partition: "gpu" });
 * if (ok.demand?.perReplica["partition/gpu"] !== 1) throw new Error("partition");
 * const bad = machineDemand(m, { replicas: 1, perReplica: { gpus: 8 } });
 * if (bad.problem?.part !== "gpus") throw new Error("gpus");
 * ```
 */
export function machineDemand(
  m: Machine,
  req: DemandRequest,
  nodes: readonly MachineNode[] = machineNodes(m),
):
  | { readonly demand: ResourceDemand; readonly problem?: undefined }
  | { readonly demand?: undefined; readonly problem: DemandProblem } {
  const partition = req.partition ?? m.defaultPartition;
  let pool = nodes;
  if (partition !== undefined) {
    pool = nodes.filter((n) => n.partitions.includes(partition));
    if (pool.length === 0) {
      const known = machinePartitions(m);
      return problem(
        "partition",
        `expected a partition of the machine (${known.join(", ") || "none"}), got '${partition}'`,
      );
    }
  }
  const where = partition === undefined ? "the machine" : `partition ${partition}`;
  const per: Record<string, number> = {};
  if (req.perReplica === undefined) per[NODE_RESOURCE] = WHOLE_NODE;
  else {
    per[NODE_RESOURCE] = 1;
    for (const [r, v] of Object.entries(req.perReplica)) {
      if (!Number.isSafeInteger(v) || v < 0) {
        return problem(r, `expected a non-negative integer, got ${v}`);
      }
      if (v === 0) continue;
      let most = 0;
      for (const n of pool) most = Math.max(most, n.capacity[r] ?? 0);
      if (most < v) {
        return problem(
          r,
          `${v} per node, but no node of ${where} has more than ${most}`,
        );
      }
      per[r] = v;
    }
  }
  if (partition !== undefined) per[PARTITION_RESOURCE + partition] = 1;
  const key = req.topologyKey;
  if (key !== undefined && !nodes.some((n) => Object.hasOwn(n.topology, key))) {
    const levels = [...new Set(nodes.flatMap((n) => Object.keys(n.topology)))];
    return problem(
      "topology",
      `expected a topology level of the machine's labels (${
        levels.join(", ") || "none"
      }), got '${key}'`,
    );
  }
  // One replica must fit some node of the pool. More replicas than the empty
  // pool (or one domain of the key) holds at once is a well-formed request the
  // machine can never run: the engine holds such a job (pend reason
  // exceeds_capacity) rather than refusing its line.
  let fits = 0;
  for (const n of pool) {
    let s = Infinity;
    for (const [r, v] of Object.entries(per)) s = Math.min(s, Math.floor((n.capacity[r] ?? 0) / v));
    if (s > 0) fits++;
  }
  if (fits === 0) {
    return problem(
      Object.keys(req.perReplica ?? {})[0] ?? "replicas",
      `no node of ${where} has all of ${describe(req.perReplica)} at once`,
    );
  }
  if (!Number.isSafeInteger(req.replicas) || req.replicas < 1) {
    return problem("replicas", `expected a positive integer, got ${req.replicas}`);
  }
  return {
    demand: Object.freeze({
      replicas: req.replicas,
      perReplica: Object.freeze(per),
      ...(key !== undefined ? { topologyKey: key } : {}),
    }),
  };
}

function describe(per: Readonly<Record<string, number>> | undefined): string {
  if (per === undefined) return "a whole node";
  return Object.entries(per).filter(([, v]) => v > 0).map(([r, v]) => `${r}=${v}`).join(", ");
}

function problem(part: string, message: string): { readonly problem: DemandProblem } {
  return { problem: { part, message } };
}

/**
 * A size in MiB: a plain number is MiB; a number with K, M, G, T or P (and
 * optionally `B` or `iB`; binary multiples) is converted. Undefined when the
 * text is not a size; fractions of a MiB are kept (the caller rounds).
 *
 * @example
 * ```ts
 * import { parseMemory } from "@evtsim/evtsim";
 * if (parseMemory("256G") !== 262144 || parseMemory("512") !== 512 || parseMemory("1.5TiB") !== 1572864) {
 *   throw new Error("sizes");
 * }
 * if (parseMemory("-1") !== undefined || parseMemory("lots") !== undefined) throw new Error("refused");
 * ```
 */
export function parseMemory(text: string | number): number | undefined {
  if (typeof text === "number") return Number.isFinite(text) && text >= 0 ? text : undefined;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:([KMGTP])(?:i?B)?)?\s*$/i.exec(text);
  if (m === null) return undefined;
  const unit = (m[2] ?? "M").toUpperCase();
  const factor = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024, P: 1024 * 1024 * 1024 }[unit]!;
  const v = Number(m[1]) * factor;
  return Number.isFinite(v) ? v : undefined;
}
