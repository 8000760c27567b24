// TopoQueue's `schedule` and `simulate` on evtsim's engine: the jobs become
// JobSpecs with a demand, a topology cluster is the state's resource model,
// `strict-fifo` or `backfill` is the admission policy, and `step` runs them.
// The results are read back from the rows the engine emits (DISPATCH and
// PEND decisions, job rows) and shaped as TopoQueue shapes its results.

import type { PendReason } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import { MAX_EXACT } from "../core/_input_check.ts";
import type { NodeShare, ResourceDemand } from "../core/resource_model.ts";
import type {
  TopoCluster,
  TopoJob,
  TopoJobResult,
  TopoPolicy,
  TopoPolicyResult,
  TopoReason,
  TopoResources,
  TopoTimedJob,
} from "../schedulers/topology_types.ts";
import { step } from "../core/step.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { JobRecord, JobSpec } from "../core/types.ts";
import { greedyBackfillAdmission, strictFifoAdmission } from "../schedulers/topology_admission.ts";
import { topologyCluster } from "../schedulers/topology_cluster.ts";
import { headOfLineBlocked } from "../schedulers/topology_reasons.ts";
import { initialState } from "./initial_state.ts";

export type {
  TopoCluster,
  TopoJob,
  TopoJobResult,
  TopoPolicy,
  TopoPolicyResult,
  TopoReason,
  TopoResources,
  TopoTimedJob,
};
import type { SimState } from "../core/state.ts";

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
    } else if (d.type === "PEND") {
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
