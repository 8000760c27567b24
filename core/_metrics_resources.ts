// Utilization per resource (and per partition) of a run on a resource
// model: Σ units held × seconds, over the units the machine has × the
// measured span — the span of the metric set's `utilization` (first submit
// to last end of the measured jobs, core/metrics.ts). What each job held
// comes from its DISPATCH row (replicas per node × units per replica); when
// it held them from its job row. A node's partitions are its `partition`
// label and those a machine file gave it (a node may be in several: pools
// overlap); nodes without one are left out of the per-partition figures.
// A machine file's bookkeeping units (`node`, `partition/P`) are not shown,
// and a whole-node job holds all of its nodes' resources. Node equivalents
// (a job's dominant share of each node it held, summed) give the machine's
// one `utilization` figure, the share fairshare charges by.

import type { DecisionRow } from "./decisions.ts";
import type { MetricsOptions } from "./metrics.ts";
import { selectMeasured } from "./_metrics_breakdowns.ts";
import type { ModelNode } from "./resource_model.ts";
import { NODE_RESOURCE, PARTITION_RESOURCE, WHOLE_NODE } from "./machine.ts";

/**
 * Whether a resource name is a machine file's bookkeeping (`node`, which
 * makes whole-node jobs exclusive, and `partition/P`, which keeps jobs on
 * their partition's nodes) rather than a resource a user counts.
 *
 * @example
 * ```ts
 * import { isBookkeepingResource } from "./_metrics_resources.ts";
 * console.assert(isBookkeepingResource("node") && isBookkeepingResource("partition/gpu"));
 * console.assert(!isBookkeepingResource("gpus"));
 * ```
 */
export function isBookkeepingResource(name: string): boolean {
  return name === NODE_RESOURCE || name.startsWith(PARTITION_RESOURCE);
}

/** The resources users count on these nodes, sorted. */
export function countedResources(nodes: readonly ModelNode[]): string[] {
  const names = new Set<string>();
  for (const n of nodes) {
    for (const r of Object.keys(n.capacity)) if (!isBookkeepingResource(r)) names.add(r);
  }
  return [...names].sort();
}

/**
 * A node's partitions: its `partition` label, and the partitions a machine
 * file gave it (its `partition/P` units).
 */
export function partitionsOf(n: ModelNode): string[] {
  const out: string[] = [];
  const label = n.labels?.partition;
  if (label !== undefined) out.push(label);
  for (const r of Object.keys(n.capacity)) {
    if (r.startsWith(PARTITION_RESOURCE) && (n.capacity[r] ?? 0) > 0) {
      const p = r.slice(PARTITION_RESOURCE.length);
      if (!out.includes(p)) out.push(p);
    }
  }
  return out;
}

/**
 * Units of `resource` that `replicas` replicas of `perReplica` hold on a
 * node of `capacity`: a whole-node replica (a machine file's `node` units
 * all taken) holds the whole node.
 */
export function heldOn(
  capacity: Readonly<Record<string, number>> | undefined,
  perReplica: Readonly<Record<string, number>> | undefined,
  replicas: number,
  resource: string,
): number {
  if (capacity !== undefined && (perReplica?.[NODE_RESOURCE] ?? 0) >= WHOLE_NODE) {
    return (capacity[resource] ?? 0) * replicas;
  }
  return (perReplica?.[resource] ?? 0) * replicas;
}

/**
 * The share of a node of `capacity` that one replica of `perReplica` takes:
 * its dominant share, the largest fraction of any resource it needs (Slurm's
 * TRES billing with PriorityFlags=MAX_TRES, weights one node = 1); 1 for a
 * whole-node replica; Infinity when the node lacks a resource it needs. A
 * machine file's `partition/P` units are left out (they only keep jobs on
 * their partition's nodes).
 *
 * @example
 * ```ts
 * import { replicaShare } from "./_metrics_resources.ts";
 * // 8 of 64 cores but 2 of 4 GPUs: half a node.
 * console.assert(replicaShare({ cores: 64, gpus: 4 }, { cores: 8, gpus: 2 }) === 0.5);
 * console.assert(replicaShare({ cores: 64, node: 1_000_000 }, { node: 1_000_000 }) === 1);
 * ```
 */
export function replicaShare(
  capacity: Readonly<Record<string, number>>,
  perReplica: Readonly<Record<string, number>>,
): number {
  if ((perReplica[NODE_RESOURCE] ?? 0) >= WHOLE_NODE) return 1;
  let share = 0;
  for (const r in perReplica) {
    const v = perReplica[r];
    if (!(v > 0) || r.startsWith(PARTITION_RESOURCE)) continue;
    const c = capacity[r] ?? 0;
    const s = c > 0 ? v / c : Infinity;
    if (s > share) share = s;
  }
  return share;
}

/**
 * The node equivalents `replicas` replicas of `perReplica` hold on one node
 * of `capacity` (at most 1): their dominant share of it. A node whose
 * capacity or the replica's demand is not known counts whole.
 */
function nodeShare(
  capacity: Readonly<Record<string, number>> | undefined,
  perReplica: Readonly<Record<string, number>> | undefined,
  replicas: number,
): number {
  if (capacity === undefined || perReplica === undefined) return 1;
  return Math.min(1, replicas * replicaShare(capacity, perReplica));
}

/** One resource's (or one partition's resource's) utilization. */
export interface ResourceFigures {
  /** Units the machine (or partition) has. */
  readonly capacity: number;
  /** Units × seconds held by jobs within the measured span. */
  readonly used_unit_s: number;
  /** used_unit_s / (capacity × span length); null without a span or capacity. */
  readonly utilization: number | null;
}

/** Per-resource utilization, and per partition when nodes carry a `partition` label. */
export interface ResourceMetrics {
  /**
   * Node equivalents: on each node a job held, the largest fraction of any
   * resource of the node it held (a whole-node job: 1), × seconds, over the
   * machine's node count (capacity) × the span: the machine's `utilization`.
   */
  readonly node_equivalents: ResourceFigures;
  /** By resource name. */
  readonly by_resource: Readonly<Record<string, ResourceFigures>>;
  /** By partition label, then resource name (absent when no node has a partition). */
  readonly by_partition?: Readonly<Record<string, Readonly<Record<string, ResourceFigures>>>>;
}

/** The row fields the collector reads (a `JobRow` has them all). */
export interface EndedJob {
  /** The job's id (its DISPATCH row's). */
  readonly jobId: number;
  /** Submit time (seconds). */
  readonly submitTime: number;
  /** Start time (seconds). */
  readonly beginTime: number;
  /** End time (seconds). */
  readonly endTime: number;
  /** Set for a job that did not run to its end (not measured). */
  readonly outcome?: string;
}

/**
 * Collects what each job held (from DISPATCH rows) and when (from job rows),
 * then gives the per-resource utilization over the measured span.
 *
 * @example
 * ```ts
 * import { ResourceUseCollector } from "@evtsim/evtsim";
 * const c = new ResourceUseCollector([
 *   { name: "a", capacity: { cpu: 8, gpu: 2 }, labels: { partition: "gpu" } },
 *   { name: "b", capacity: { cpu: 8 }, labels: { partition: "cpu" } },
 * ]);
 * c.decisions([{
 *   type: "DISPATCH", time: 0, round: 1, jobId: 0, numNodes: 1, backfill: false,
 *   allocation: [{ nodeName: "a", replicas: 2 }], perReplica: { cpu: 2, gpu: 1 },
 * }]);
 * c.add({ jobId: 0, submitTime: 0, beginTime: 0, endTime: 100 });
 * const m = c.metrics();
 * // 4 of 16 cpus and both gpus for the whole span.
 * console.assert(m.by_resource.cpu.utilization === 0.25 && m.by_resource.gpu.utilization === 1);
 * console.assert(m.by_partition?.cpu.cpu.utilization === 0);
 * ```
 */
export class ResourceUseCollector {
  readonly #resources: readonly string[];
  readonly #partitions: readonly string[];
  /** Node name → its partitions' indices (a node may be in several). */
  readonly #partitionsOf = new Map<string, number[]>();
  /** Node name → its capacity (a whole-node job holds all of it). */
  readonly #capacityOf = new Map<string, Readonly<Record<string, number>>>();
  /** Capacity, group-major: group 0 the machine, group 1 + p partition p. */
  readonly #capacity: Float64Array;
  /** Units a started job holds, by group and resource (as #capacity). */
  readonly #held = new Map<number, Float64Array>();
  /** Node equivalents a started job holds. */
  readonly #heldNodes = new Map<number, number>();
  /** The machine's nodes. */
  readonly #nodeCount: number;
  /** Ended jobs: begin, end, units, node equivalents. */
  readonly #ended: { begin: number; end: number; units: Float64Array; nodes: number }[] = [];
  /** Measured jobs' first submit, last end (the metric set's span), per window. */
  readonly #measured: { submitTime: number; end: number }[] = [];

  /** A collector over these nodes (a resource model's `nodes`). */
  constructor(nodes: readonly ModelNode[]) {
    const partitions = new Set<string>();
    for (const n of nodes) for (const p of partitionsOf(n)) partitions.add(p);
    this.#resources = countedResources(nodes);
    this.#partitions = [...partitions].sort();
    const R = this.#resources.length;
    this.#capacity = new Float64Array((1 + this.#partitions.length) * R);
    this.#nodeCount = nodes.length;
    for (const n of nodes) {
      const pis = partitionsOf(n).map((p) => this.#partitions.indexOf(p));
      this.#partitionsOf.set(n.name, pis);
      this.#capacityOf.set(n.name, n.capacity);
      this.#resources.forEach((r, k) => {
        const v = n.capacity[r] ?? 0;
        this.#capacity[k] += v;
        for (const pi of pis) this.#capacity[(1 + pi) * R + k] += v;
      });
    }
  }

  /** Takes the units of every DISPATCH row that carries an allocation. */
  decisions(rows: readonly DecisionRow[]): void {
    const R = this.#resources.length;
    for (const d of rows) {
      if (d.type !== "DISPATCH" || d.allocation === undefined) continue;
      const units = new Float64Array(this.#capacity.length);
      let held = 0;
      for (const share of d.allocation) {
        const pis = this.#partitionsOf.get(share.nodeName) ?? [];
        const capacity = this.#capacityOf.get(share.nodeName);
        this.#resources.forEach((r, k) => {
          const v = heldOn(capacity, d.perReplica, share.replicas, r);
          units[k] += v;
          for (const pi of pis) units[(1 + pi) * R + k] += v;
        });
        held += nodeShare(capacity, d.perReplica, share.replicas);
      }
      this.#held.set(d.jobId, units);
      this.#heldNodes.set(d.jobId, held);
    }
  }

  /** Adds one job row (a job no DISPATCH row placed holds nothing here). */
  add(j: EndedJob): void {
    const units = this.#held.get(j.jobId);
    if (units !== undefined) {
      const nodes = this.#heldNodes.get(j.jobId) ?? 0;
      this.#held.delete(j.jobId);
      this.#heldNodes.delete(j.jobId);
      if (j.endTime > j.beginTime) {
        this.#ended.push({ begin: j.beginTime, end: j.endTime, units, nodes });
      }
    }
    if (j.outcome === undefined) this.#measured.push({ submitTime: j.submitTime, end: j.endTime });
  }

  /**
   * The utilization over the measured span (the metric set's, with the same
   * window or trim). `alsoEnded`: jobs that have ended but whose rows are not
   * written yet (a figure in the middle of a run), counted after the rows
   * added, in the order given, without being kept.
   */
  metrics(options: MetricsOptions = {}, alsoEnded: readonly EndedJob[] = []): ResourceMetrics {
    let ended = this.#ended, measured = this.#measured;
    if (alsoEnded.length > 0) {
      ended = [...ended];
      measured = [...measured];
      for (const j of alsoEnded) {
        const units = this.#held.get(j.jobId);
        if (units !== undefined && j.endTime > j.beginTime) {
          const nodes = this.#heldNodes.get(j.jobId) ?? 0;
          ended.push({ begin: j.beginTime, end: j.endTime, units, nodes });
        }
        if (j.outcome === undefined) measured.push({ submitTime: j.submitTime, end: j.endTime });
      }
    }
    let first = Infinity, last = -Infinity;
    // The metric set's measured jobs (its window or trim), so both spans agree.
    for (const m of selectMeasured(measured, options)) {
      if (m.submitTime < first) first = m.submitTime;
      if (m.end > last) last = m.end;
    }
    const used = new Float64Array(this.#capacity.length);
    let usedNodes = 0;
    for (const e of ended) {
      const seconds = Math.min(e.end, last) - Math.max(e.begin, first);
      if (seconds > 0) {
        for (let i = 0; i < used.length; i++) used[i] += e.units[i] * seconds;
        usedNodes += e.nodes * seconds;
      }
    }
    const span = last > first ? last - first : 0;
    const nodes = this.#nodeCount;
    const R = this.#resources.length;
    const group = (g: number): Record<string, ResourceFigures> =>
      Object.fromEntries(this.#resources.map((r, k) => {
        const capacity = this.#capacity[g * R + k];
        const u = used[g * R + k];
        return [r, {
          capacity,
          used_unit_s: u,
          utilization: capacity > 0 && span > 0 ? u / (capacity * span) : null,
        }];
      }));
    const out: ResourceMetrics = {
      node_equivalents: {
        capacity: nodes,
        used_unit_s: usedNodes,
        utilization: nodes > 0 && span > 0 ? usedNodes / (nodes * span) : null,
      },
      by_resource: group(0),
    };
    if (this.#partitions.length === 0) return out;
    return {
      ...out,
      by_partition: Object.fromEntries(this.#partitions.map((p, i) => [p, group(1 + i)])),
    };
  }
}
