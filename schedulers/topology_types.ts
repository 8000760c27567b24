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
 * import { scheduleTopology, type TopoResources } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 16, gpu: 4 } });
 * const cluster = { nodes: [node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")] };
 * const job = { name: "train", replicas: 8, resourcesPerReplica: { cpu: 4, gpu: 1 } };
 * const r = scheduleTopology(cluster, [job], "backfill");
 * const used: TopoResources = r.usedResources;
 * console.assert(used.cpu === 32 && used.gpu === 8 && r.totalResources.gpu === 12);
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
 * import { scheduleTopology, type TopoCluster } from "@evtsim/evtsim";
 * const c: TopoCluster = {
 *   nodes: [
 *     { name: "n1", topology: { rack: "r1" }, capacity: { cpu: 8, gpu: 1 } },
 *     { name: "n2", topology: { rack: "r2" }, capacity: { cpu: 8, gpu: 1 } },
 *   ],
 * };
 * // Two GPUs in all, but one per rack: a job needing both in one rack waits.
 * const job = { name: "pair", replicas: 2, resourcesPerReplica: { cpu: 1, gpu: 1 }, requiredTopology: "rack" };
 * const r = scheduleTopology(c, [job], "backfill");
 * console.assert(r.totalResources.gpu === 2 && r.jobs[0].reason?.code === "topology_fragmented");
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
 * import { scheduleTopology, type TopoJob } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 16, gpu: 4 } });
 * const cluster = { nodes: [node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")] };
 * const j: TopoJob = { name: "train", replicas: 8, resourcesPerReplica: { cpu: 4, gpu: 1 }, requiredTopology: "rack" };
 * // 8 GPUs in one rack: only rack-a (two nodes of 4) has them.
 * const [result] = scheduleTopology(cluster, [j], "backfill").jobs;
 * const where = result.allocation.map((a) => `${a.nodeName}=${a.replicas}`).join();
 * console.assert(result.selectedTopologyDomain === "rack-a" && where === "a1=4,a2=4", where);
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
 * import { simulateTopology, type TopoTimedJob } from "@evtsim/evtsim";
 * const cluster = { nodes: [{ name: "n1", capacity: { cpu: 8, gpu: 0 } }] };
 * const a: TopoTimedJob = { name: "a", replicas: 2, resourcesPerReplica: { cpu: 4, gpu: 0 }, arrivalTick: 0, durationTicks: 5 };
 * const b: TopoTimedJob = { ...a, name: "b", arrivalTick: 1 };
 * const [, run] = simulateTopology(cluster, [a, b], "strict-fifo").jobs;
 * // b arrives at 1 and waits for a's node: it starts at 5 and completes at 10.
 * console.assert(run.startTick === 5 && run.completionTick === 10 && run.queueDelayTicks === 4);
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
 * import { scheduleTopology, type TopoPolicy } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 16, gpu: 4 } });
 * const cluster = { nodes: [node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")] };
 * const jobs = [
 *   { name: "train", replicas: 8, resourcesPerReplica: { cpu: 4, gpu: 1 }, requiredTopology: "rack" },
 *   { name: "big", replicas: 20, resourcesPerReplica: { cpu: 1, gpu: 1 } },
 *   { name: "small", replicas: 2, resourcesPerReplica: { cpu: 4, gpu: 1 } },
 * ];
 * const admitted = (policy: TopoPolicy) =>
 *   scheduleTopology(cluster, jobs, policy).jobs.filter((j) => j.status === "admitted").map((j) => j.jobName).join();
 * // "big" can never fit: strict FIFO holds "small" behind it, backfill admits it.
 * console.assert(admitted("strict-fifo") === "train" && admitted("backfill") === "train,small");
 * ```
 */
export type TopoPolicy = "strict-fifo" | "backfill";

/**
 * A reason, with TopoQueue's field names (fields that do not apply are left out).
 *
 * @example
 * ```ts
 * import { scheduleTopology, type TopoReason } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 16, gpu: 4 } });
 * const cluster = { nodes: [node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")] };
 * const jobs = [
 *   { name: "train", replicas: 8, resourcesPerReplica: { cpu: 4, gpu: 1 }, requiredTopology: "rack" },
 *   { name: "big", replicas: 20, resourcesPerReplica: { cpu: 1, gpu: 1 } },
 *   { name: "small", replicas: 2, resourcesPerReplica: { cpu: 4, gpu: 1 } },
 * ];
 * const [, big, small] = scheduleTopology(cluster, jobs, "strict-fifo").jobs;
 * const why: TopoReason | undefined = small.reason;
 * console.assert(why?.code === "head_of_line_blocked" && why.blockingJob === "big");
 * // 4 GPUs are left after "train": 4 replica slots of 1 GPU, "big" asks for 20.
 * console.assert(big.reason?.availableClusterWideReplicaSlots === 4 && big.reason.requestedReplicas === 20);
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
 * import { scheduleTopology, type TopoJobResult } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 16, gpu: 4 } });
 * const cluster = { nodes: [node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")] };
 * const jobs = [
 *   { name: "train", replicas: 8, resourcesPerReplica: { cpu: 4, gpu: 1 }, requiredTopology: "rack" },
 *   { name: "big", replicas: 20, resourcesPerReplica: { cpu: 1, gpu: 1 } },
 *   { name: "small", replicas: 2, resourcesPerReplica: { cpu: 4, gpu: 1 } },
 * ];
 * const results: readonly TopoJobResult[] = scheduleTopology(cluster, jobs, "backfill").jobs;
 * const text = results.map((j) => `${j.jobName} ${j.status} ${j.allocatedResources.gpu}/${j.requestedResources.gpu}`);
 * // A job is given all it asked for, or nothing.
 * console.assert(text.join("; ") === "train admitted 8/8; big pending 0/20; small admitted 2/2", text.join("; "));
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
 * import { simulateTopology, type TopoEvent } from "@evtsim/evtsim";
 * const cluster = { nodes: [{ name: "n1", capacity: { cpu: 8, gpu: 0 } }] };
 * const job = (name: string, replicas: number, arrivalTick: number) =>
 *   ({ name, replicas, resourcesPerReplica: { cpu: 4, gpu: 0 }, arrivalTick, durationTicks: 5 });
 * const events: readonly TopoEvent[] = simulateTopology(cluster, [job("a", 2, 0), job("b", 2, 1)], "backfill").events;
 * const text = events.map((e) => `${e.tick} ${e.type} ${e.jobName}`).join("; ");
 * console.assert(text === "0 arrived a; 0 admitted a; 1 arrived b; 5 completed a; 5 admitted b; 10 completed b", text);
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
 * import { simulateTopology, type TopoJobLifecycle } from "@evtsim/evtsim";
 * const cluster = { nodes: [{ name: "n1", capacity: { cpu: 8, gpu: 0 } }] };
 * const job = (name: string, replicas: number, arrivalTick: number) =>
 *   ({ name, replicas, resourcesPerReplica: { cpu: 4, gpu: 0 }, arrivalTick, durationTicks: 5 });
 * const jobs = [job("a", 2, 0), job("b", 2, 1), job("c", 4, 1)];
 * const [a, , c]: readonly TopoJobLifecycle[] = simulateTopology(cluster, jobs, "backfill").jobs;
 * console.assert(a.status === "completed" && a.startTick === 0 && a.completionTick === 5);
 * // c needs 16 cpu on an 8-cpu machine: unscheduled, with its final reason.
 * console.assert(c.status === "unscheduled" && c.reason?.code === "insufficient_capacity");
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
