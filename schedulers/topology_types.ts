// TopoQueue's data shapes (docs/machines.md, "Topology-aware admission"): its cluster, jobs, policies, reasons
// and results. They live here, beside the topology cluster, so that the
// readers and writers in io/ and the fronts in api/ and cli/ all take them
// from one place below api/ (api/ re-exports them for the public API).

import type { PendReason } from "../core/decisions.ts";
import type { NodeShare } from "../core/resource_model.ts";

/**
 * CPU and GPU units, as TopoQueue counts them.
 *
 * @example
 * ```ts
 * import type { TopoResources } from "@evtsim/evtsim";
 * const r: TopoResources = { cpu: 32, gpu: 4 };
 * if (r.cpu + r.gpu !== 36) throw new Error("units");
 * ```
 */
export interface TopoResources {
  /** CPU units. */
  readonly cpu: number;
  /** GPU units. */
  readonly gpu: number;
}

/**
 * A TopoQueue cluster: its nodes.
 *
 * @example
 * ```ts
 * import type { TopoCluster } from "@evtsim/evtsim";
 * const c: TopoCluster = { nodes: [{ name: "n1", topology: { rack: "r1" }, capacity: { cpu: 8, gpu: 1 } }] };
 * if (c.nodes.length !== 1) throw new Error("one node");
 * ```
 */
export interface TopoCluster {
  /** The nodes: name, topology labels, capacity. */
  readonly nodes: readonly {
    /** A unique name. */
    readonly name: string;
    /** Topology labels: key → domain (e.g. rack → rack-a). */
    readonly topology?: Readonly<Record<string, string>>;
    /** Units the node has. */
    readonly capacity: TopoResources;
  }[];
}

/**
 * A TopoQueue job: identical replicas, optionally all in one domain of a topology key.
 *
 * @example
 * ```ts
 * import type { TopoJob } from "@evtsim/evtsim";
 * const j: TopoJob = { name: "train", replicas: 8, resourcesPerReplica: { cpu: 4, gpu: 1 }, requiredTopology: "rack" };
 * if (j.replicas !== 8) throw new Error("replicas");
 * ```
 */
export interface TopoJob {
  /** A unique name. */
  readonly name: string;
  /** Identical replicas, each placed whole on one node. */
  readonly replicas: number;
  /** Units one replica needs. */
  readonly resourcesPerReplica: TopoResources;
  /** Topology key whose one domain must hold every replica ("" or absent: anywhere). */
  readonly requiredTopology?: string;
}

/**
 * A TopoQueue timed job: a job with an arrival tick and a fixed duration.
 *
 * @example
 * ```ts
 * import type { TopoTimedJob } from "@evtsim/evtsim";
 * const j: TopoTimedJob = { name: "batch", replicas: 4, resourcesPerReplica: { cpu: 4, gpu: 1 }, arrivalTick: 2, durationTicks: 2 };
 * if (j.arrivalTick + j.durationTicks !== 4) throw new Error("ticks");
 * ```
 */
export interface TopoTimedJob extends TopoJob {
  /** When the job arrives (a logical tick, at least 0). */
  readonly arrivalTick: number;
  /** How long it runs once admitted (ticks, more than 0). */
  readonly durationTicks: number;
}

/**
 * TopoQueue's admission policies.
 *
 * @example
 * ```ts
 * import type { TopoPolicy } from "@evtsim/evtsim";
 * const all: TopoPolicy[] = ["backfill", "strict-fifo"];
 * if (all.length !== 2) throw new Error("two");
 * ```
 */
export type TopoPolicy = "strict-fifo" | "backfill";

/**
 * A reason, with TopoQueue's field names (fields that do not apply are left out).
 *
 * @example
 * ```ts
 * import type { TopoReason } from "@evtsim/evtsim";
 * const r: TopoReason = { code: "head_of_line_blocked", message: "head_of_line_blocked_by=train", blockingJob: "train" };
 * if (r.blockingJob !== "train") throw new Error("blocker");
 * ```
 */
export interface TopoReason extends
  Pick<
    PendReason,
    | "requestedReplicas"
    | "availableClusterWideReplicaSlots"
    | "topologyKey"
    | "totalAvailableReplicaSlots"
    | "largestTopologyDomain"
    | "largestTopologyDomainReplicaSlots"
    | "blockingJob"
  > {
  /** The reason code. */
  readonly code: string;
  /** The message TopoQueue prints after the code. */
  readonly message: string;
}

/**
 * One job's admission decision (TopoQueue's `JobResult`).
 *
 * @example
 * ```ts
 * import type { TopoJobResult } from "@evtsim/evtsim";
 * const j: TopoJobResult = {
 *   jobName: "warmup", status: "admitted", selectedTopologyDomain: "rack-a",
 *   allocation: [{ nodeName: "node-a1", replicas: 4 }],
 *   requestedResources: { cpu: 16, gpu: 4 }, allocatedResources: { cpu: 16, gpu: 4 },
 * };
 * if (j.status !== "admitted") throw new Error("admitted");
 * ```
 */
export interface TopoJobResult {
  /** The job. */
  readonly jobName: string;
  /** admitted, or pending. */
  readonly status: "admitted" | "pending";
  /** The domain its replicas went to (left out when it has none). */
  readonly selectedTopologyDomain?: string;
  /** Replicas per node, by node name. */
  readonly allocation: readonly NodeShare[];
  /** Why it waits (left out when admitted or completed). */
  readonly reason?: TopoReason;
  /** Replicas × units per replica. */
  readonly requestedResources: TopoResources;
  /** What it was given: all it asked for, or nothing. */
  readonly allocatedResources: TopoResources;
}

/**
 * One policy's admission cycle over the whole queue (TopoQueue's `PolicyResult`).
 *
 * @example
 * ```ts
 * import { scheduleTopology, type TopoPolicyResult } from "@evtsim/evtsim";
 * const cluster = { nodes: [{ name: "n1", capacity: { cpu: 8, gpu: 0 } }] };
 * const job = (name: string, replicas: number) => ({ name, replicas, resourcesPerReplica: { cpu: 4, gpu: 0 } });
 * const r: TopoPolicyResult = scheduleTopology(cluster, [job("a", 3), job("b", 1)], "backfill");
 * if (r.admittedJobCount !== 1 || r.jobs[0].reason?.code !== "insufficient_capacity") throw new Error("b only");
 * ```
 */
export interface TopoPolicyResult {
  /** The policy. */
  readonly policy: TopoPolicy;
  /** One entry per job, in input order. */
  readonly jobs: readonly TopoJobResult[];
  /** Jobs admitted. */
  readonly admittedJobCount: number;
  /** Jobs left pending (head-of-line blocked ones included). */
  readonly pendingJobCount: number;
  /** Pending jobs blocked behind the head (strict FIFO). */
  readonly headOfLineBlockedJobCount: number;
  /** Units the admitted jobs hold. */
  readonly usedResources: TopoResources;
  /** Units the cluster has. */
  readonly totalResources: TopoResources;
}

/**
 * One entry of a simulation's timeline.
 *
 * @example
 * ```ts
 * import type { TopoEvent } from "@evtsim/evtsim";
 * const e: TopoEvent = { tick: 0, type: "admitted", jobName: "warmup", selectedTopologyDomain: "zone-a", allocation: [{ nodeName: "a1", replicas: 4 }] };
 * if (e.type !== "admitted") throw new Error("admitted");
 * ```
 */
export interface TopoEvent {
  /** When it happened. */
  readonly tick: number;
  /** What happened. */
  readonly type: "arrived" | "admitted" | "completed";
  /** The job. */
  readonly jobName: string;
  /** The domain (admitted only). */
  readonly selectedTopologyDomain?: string;
  /** Replicas per node (admitted only). */
  readonly allocation?: readonly NodeShare[];
}

/**
 * A timed job's lifecycle: completed, or unscheduled with its final reason.
 *
 * @example
 * ```ts
 * import type { TopoJobLifecycle } from "@evtsim/evtsim";
 * const j: TopoJobLifecycle = {
 *   jobName: "batch", status: "completed", arrivalTick: 2, durationTicks: 2, startTick: 2, completionTick: 4,
 *   queueDelayTicks: 0, selectedTopologyDomain: "rack-b", allocation: [{ nodeName: "b1", replicas: 4 }],
 *   requestedResources: { cpu: 16, gpu: 4 },
 * };
 * if (j.completionTick !== 4) throw new Error("completion");
 * ```
 */
export interface TopoJobLifecycle {
  /** The job. */
  readonly jobName: string;
  /** completed, or unscheduled (still waiting at the end). */
  readonly status: "completed" | "unscheduled";
  /** When the job arrives (a logical tick, at least 0). */
  readonly arrivalTick: number;
  /** How long it runs once admitted (ticks, more than 0). */
  readonly durationTicks: number;
  /** When it was admitted. */
  readonly startTick?: number;
  /** When it completed. */
  readonly completionTick?: number;
  /** Start − arrival. */
  readonly queueDelayTicks?: number;
  /** The domain its replicas went to (left out when it has none). */
  readonly selectedTopologyDomain?: string;
  /** Replicas per node, by node name. */
  readonly allocation: readonly NodeShare[];
  /** Replicas × units per replica. */
  readonly requestedResources: TopoResources;
  /** Why it was never admitted (unscheduled only). */
  readonly reason?: TopoReason;
}

/**
 * One policy's timed simulation (TopoQueue's `SimulationResult`).
 *
 * @example
 * ```ts
 * import { simulateTopology, type TopoSimulationResult } from "@evtsim/evtsim";
 * const cluster = { nodes: [{ name: "n1", capacity: { cpu: 8, gpu: 0 } }] };
 * const job = (name: string, arrivalTick: number) =>
 *   ({ name, replicas: 2, resourcesPerReplica: { cpu: 4, gpu: 0 }, arrivalTick, durationTicks: 5 });
 * const r: TopoSimulationResult = simulateTopology(cluster, [job("a", 0), job("b", 1)], "strict-fifo");
 * // b waits for a's node: it starts at 5 and ends at 10.
 * if (r.makespanTicks !== 10 || r.totalQueueDelayTicks !== 4) throw new Error(`${r.makespanTicks}`);
 * ```
 */
export interface TopoSimulationResult {
  /** The policy. */
  readonly policy: TopoPolicy;
  /** The timeline: at each tick completions, then arrivals, then admissions. */
  readonly events: readonly TopoEvent[];
  /** One entry per job, in input order. */
  readonly jobs: readonly TopoJobLifecycle[];
  /** Jobs that ran to completion. */
  readonly completedJobCount: number;
  /** Jobs still waiting when nothing else could happen. */
  readonly unscheduledJobCount: number;
  /** The first event's tick (0 without events). */
  readonly startTick: number;
  /** The last event's tick. */
  readonly endTick: number;
  /** endTick − startTick (0 without events). */
  readonly makespanTicks: number;
  /** Sum of the completed jobs' queue delays. */
  readonly totalQueueDelayTicks: number;
  /** totalQueueDelayTicks / completedJobCount (0 if none completed). */
  readonly averageQueueDelayTicks: number;
  /** The largest queue delay of a completed job. */
  readonly maximumQueueDelayTicks: number;
}
