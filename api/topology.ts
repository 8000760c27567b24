// TopoQueue's `schedule` and `simulate` on evtsim's engine: the jobs become
// JobSpecs with a demand, a topology cluster is the state's resource model,
// `strict-fifo` or `backfill` is the admission policy, and `step` runs them.
// The results are read back from the rows the engine emits (DISPATCH and
// PEND decisions, job rows) and shaped as TopoQueue shapes its results.

import type { PendReason } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import { MAX_EXACT } from "../core/_input_check.ts";
import type { NodeShare, ResourceDemand } from "../core/resource_model.ts";
import { step } from "../core/step.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { JobRecord, JobSpec } from "../core/types.ts";
import { greedyBackfillAdmission, strictFifoAdmission } from "../schedulers/topology_admission.ts";
import { topologyCluster } from "../schedulers/topology_cluster.ts";
import { headOfLineBlocked } from "../schedulers/topology_reasons.ts";
import { initialState } from "./initial_state.ts";
import type { SimState } from "../core/state.ts";

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
 * Runs one admission cycle of `policy` over `jobs`, in order, on the empty
 * cluster: evtsim's engine with a topology cluster as its resource model,
 * the jobs all arriving at 0. Inputs are taken as valid (see
 * `io/topo_inputs.ts` for TopoQueue's checks).
 *
 * @example
 * ```ts
 * import { scheduleTopology } from "@evtsim/evtsim";
 * const node = (name: string, rack: string) => ({ name, topology: { rack }, capacity: { cpu: 32, gpu: 4 } });
 * const cluster = { nodes: [node("a1", "rack-a"), node("a2", "rack-a"), node("b1", "rack-b")] };
 * const job = (name: string, replicas: number) => ({ name, replicas, resourcesPerReplica: { cpu: 4, gpu: 1 }, requiredTopology: "rack" });
 * const r = scheduleTopology(cluster, [job("big", 10), job("small", 2)], "strict-fifo");
 * if (r.jobs[1].reason?.message !== "head_of_line_blocked_by=big") throw new Error("blocked");
 * ```
 */
export function scheduleTopology(
  cluster: TopoCluster,
  jobs: readonly TopoJob[],
  policy: TopoPolicy,
): TopoPolicyResult {
  let s = topoState(cluster, policy);
  const specs: JobSpec[] = jobs.map((j) => ({
    submitTime: 0,
    numNodes: 0,
    timeLimit: 1,
    demand: demandOf(j),
  }));
  s = step(s, { kind: "appendJobs", jobs: specs }).state;
  const decided = new Map<number, DecisionRow>();
  for (const d of step(s, { kind: "advanceTo", time: 0 }).rows.decisions) decided.set(d.jobId, d);
  const results: TopoJobResult[] = [];
  let admitted = 0;
  let blocked = 0;
  const used = { cpu: 0, gpu: 0 };
  jobs.forEach((j, id) => {
    const d = decided.get(id);
    const requested = requestedOf(j);
    if (d === undefined) {
      throw new EvtsimError("state", `no decision for job ${JSON.stringify(j.name)}`);
    }
    if (d.type === "DISPATCH") {
      admitted++;
      used.cpu += requested.cpu;
      used.gpu += requested.gpu;
      results.push(jobResult(j.name, "admitted", d.domain, d.allocation, undefined, requested));
    } else {
      if (d.reason.code === "head_of_line_blocked") blocked++;
      results.push(jobResult(j.name, "pending", undefined, [], topoReason(d.reason), requested));
    }
  });
  return {
    policy,
    jobs: results,
    admittedJobCount: admitted,
    pendingJobCount: jobs.length - admitted,
    headOfLineBlockedJobCount: blocked,
    usedResources: used,
    totalResources: totalOf(cluster),
  };
}

/** The first state of a TopoQueue run: the cluster as resource model, the policy, decisions on. */
export function topoState(cluster: TopoCluster, policy: TopoPolicy): SimState {
  return initialState({
    totalNodes: Math.max(1, cluster.nodes.length),
    resourceModel: topologyCluster(cluster.nodes.map((n) => ({
      name: n.name,
      topology: n.topology,
      capacity: { cpu: n.capacity.cpu, gpu: n.capacity.gpu },
    }))),
    admission: policy === "strict-fifo" ? strictFifoAdmission : greedyBackfillAdmission,
    decisions: true,
    runTimeMode: "limit",
  });
}

/** A TopoQueue job's demand on the topology cluster. */
export function demandOf(j: TopoJob): ResourceDemand {
  const topologyKey = j.requiredTopology === undefined || j.requiredTopology === ""
    ? undefined
    : j.requiredTopology;
  const perReplica = { cpu: j.resourcesPerReplica.cpu, gpu: j.resourcesPerReplica.gpu };
  return topologyKey === undefined
    ? { name: j.name, replicas: j.replicas, perReplica }
    : { name: j.name, replicas: j.replicas, perReplica, topologyKey };
}

/** What `j` asks for in all: replicas × units per replica. */
export function requestedOf(j: TopoJob): TopoResources {
  return {
    cpu: j.resourcesPerReplica.cpu * j.replicas,
    gpu: j.resourcesPerReplica.gpu * j.replicas,
  };
}

function totalOf(cluster: TopoCluster): TopoResources {
  let cpu = 0;
  let gpu = 0;
  for (const n of cluster.nodes) {
    cpu += n.capacity.cpu;
    gpu += n.capacity.gpu;
  }
  return { cpu, gpu };
}

function jobResult(
  jobName: string,
  status: "admitted" | "pending",
  domain: string | undefined,
  allocation: readonly NodeShare[] | undefined,
  reason: TopoReason | undefined,
  requested: TopoResources,
): TopoJobResult {
  const r: Record<string, unknown> = { jobName, status };
  if (domain !== undefined && domain !== "") r.selectedTopologyDomain = domain;
  r.allocation = (allocation ?? []).map((a) => ({ nodeName: a.nodeName, replicas: a.replicas }));
  if (reason !== undefined) r.reason = reason;
  r.requestedResources = requested;
  r.allocatedResources = status === "admitted" ? { ...requested } : { cpu: 0, gpu: 0 };
  return r as unknown as TopoJobResult;
}

/** A pend reason with TopoQueue's fields, in its order, the empty ones left out. */
export function topoReason(p: PendReason): TopoReason {
  const r: Record<string, unknown> = { code: p.code, message: p.message };
  if (p.requestedReplicas !== undefined && p.requestedReplicas !== 0) {
    r.requestedReplicas = p.requestedReplicas;
  }
  if (p.availableClusterWideReplicaSlots !== undefined) {
    r.availableClusterWideReplicaSlots = p.availableClusterWideReplicaSlots;
  }
  if (p.topologyKey !== undefined && p.topologyKey !== "") r.topologyKey = p.topologyKey;
  if (p.totalAvailableReplicaSlots !== undefined) {
    r.totalAvailableReplicaSlots = p.totalAvailableReplicaSlots;
  }
  if (p.largestTopologyDomain !== undefined && p.largestTopologyDomain !== "") {
    r.largestTopologyDomain = p.largestTopologyDomain;
  }
  if (p.largestTopologyDomainReplicaSlots !== undefined) {
    r.largestTopologyDomainReplicaSlots = p.largestTopologyDomainReplicaSlots;
  }
  if (p.blockingJob !== undefined && p.blockingJob !== "") r.blockingJob = p.blockingJob;
  return r as unknown as TopoReason;
}

/** A record for asking the model about a job that never ran (the end-of-run reasons). */
export function waitingRecord(id: number, j: TopoTimedJob): JobRecord {
  return {
    id,
    submitTime: j.arrivalTick,
    numNodes: 0,
    timeLimit: j.durationTicks,
    runTime: j.durationTicks,
    queue: undefined,
    priority: 0,
    beginTime: -1,
    endTime: -1,
    rejected: false,
    hidden: false,
    demand: demandOf(j),
  };
}

/** The strict-FIFO reason of a job behind `head` (for the end-of-run reasons). */
export function blockedBehind(id: number, head: TopoTimedJob): TopoReason {
  return topoReason(headOfLineBlocked(waitingRecord(id, head)));
}

/** The largest tick evtsim holds exactly. */
export const MAX_TICK = MAX_EXACT;
