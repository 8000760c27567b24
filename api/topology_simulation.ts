// TopoQueue's timed `simulate` on evtsim's engine. Jobs arrive at their
// arrival tick and run for their duration; the engine visits only arrival
// and completion times, releases what ends before each scheduling round and
// runs one admission session per round — what TopoQueue does at each tick.
// The timeline and lifecycles are read back from the engine's rows: the
// DISPATCH decisions (where each job went, in the order started) and the
// job rows (begin and end).

import { EvtsimError } from "../core/errors.ts";
import type { DispatchDecision } from "../core/decisions.ts";
import type { NodeShare } from "../core/resource_model.ts";
import { step } from "../core/step.ts";
import type { JobRow, JobSpec } from "../core/types.ts";
import {
  blockedBehind,
  demandOf,
  MAX_TICK,
  requestedOf,
  topoReason,
  topoState,
  waitingRecord,
} from "./topology.ts";
import type {
  TopoCluster,
  TopoEvent,
  TopoJobLifecycle,
  TopoPolicy,
  TopoReason,
  TopoSimulationResult,
  TopoTimedJob,
} from "../schedulers/topology_types.ts";

export type { TopoEvent, TopoJobLifecycle, TopoSimulationResult };

/**
 * Simulates `jobs` (TopoQueue's timed jobs) under `policy` on evtsim's
 * engine with a topology cluster as its resource model. Jobs still waiting
 * when nothing can arrive or end any more are `unscheduled`, with their
 * reason on the empty cluster (strict FIFO: the head's, and the rest blocked
 * behind it). Inputs are taken as valid (see `io/topo_inputs.ts`).
 *
 * @example
 * ```ts
 * import { simulateTopology } from "@evtsim/evtsim";
 * const cluster = { nodes: [{ name: "n1", capacity: { cpu: 8, gpu: 0 } }] };
 * const job = (name: string, replicas: number, arrivalTick: number) =>
 *   ({ name, replicas, resourcesPerReplica: { cpu: 4, gpu: 0 }, arrivalTick, durationTicks: 5 });
 * const r = simulateTopology(cluster, [job("a", 1, 0), job("huge", 3, 0), job("b", 1, 0)], "backfill");
 * if (r.completedJobCount !== 2 || r.jobs[1].reason?.code !== "insufficient_capacity") throw new Error("huge never fits");
 * ```
 */
export function simulateTopology(
  cluster: TopoCluster,
  jobs: readonly TopoTimedJob[],
  policy: TopoPolicy,
): TopoSimulationResult {
  // Ids in arrival order (then input order), so the FCFS picker's order is TopoQueue's queue order.
  const order = jobs.map((_, i) => i).sort((a, b) =>
    jobs[a].arrivalTick - jobs[b].arrivalTick || a - b
  );
  const specs: JobSpec[] = order.map((i) => ({
    submitTime: jobs[i].arrivalTick,
    numNodes: 0,
    timeLimit: jobs[i].durationTicks,
    demand: demandOf(jobs[i]),
  }));
  let s = topoState(cluster, policy);
  s = step(s, { kind: "appendJobs", jobs: specs }).state;
  const run = step(s, { kind: "runToCompletion" });
  const end = step(run.state, { kind: "finish" });
  const dispatches = run.rows.decisions.filter((d): d is DispatchDecision => d.type === "DISPATCH");
  const rows = new Map<number, JobRow>();
  for (const r of [...run.rows.jobs, ...end.rows.jobs]) rows.set(r.jobId, r);
  const placed = new Map(dispatches.map((d) => [d.jobId, d]));

  // Lifecycles in input order; metrics over the completed jobs.
  const lifecycles: TopoJobLifecycle[] = new Array(jobs.length);
  let completed = 0;
  let total = 0;
  let max = 0;
  const waiting: number[] = []; // ids still waiting, in queue order
  order.forEach((input, id) => {
    const j = jobs[input];
    const row = rows.get(id);
    const d = placed.get(id);
    if (row === undefined || d === undefined) {
      waiting.push(id);
      return;
    }
    if (row.beginTime + j.durationTicks > MAX_TICK) {
      throw new EvtsimError(
        "input",
        `tick ${row.beginTime} admit job ${
          JSON.stringify(j.name)
        }: finish tick exceeds ${MAX_TICK} for duration ${j.durationTicks}`,
      );
    }
    const delay = row.beginTime - j.arrivalTick;
    completed++;
    total += delay;
    if (delay > max) max = delay;
    lifecycles[input] = lifecycle(j, "completed", row.beginTime, row.endTime, d, undefined);
  });
  // End of run: reasons against the cluster as the engine left it (all released).
  const resources = end.state.resources!;
  waiting.forEach((id, k) => {
    const input = order[id];
    const j = jobs[input];
    let reason: TopoReason;
    if (policy === "strict-fifo" && k > 0) {
      reason = blockedBehind(waiting[0], jobs[order[waiting[0]]]);
    } else {
      const r = resources.model.place(resources.state, waitingRecord(id, j));
      if (r.reason === undefined) {
        throw new EvtsimError(
          "state",
          `final placement invariant for job ${
            JSON.stringify(j.name)
          }: unexpectedly fit on an empty cluster`,
        );
      }
      reason = topoReason(r.reason);
    }
    lifecycles[input] = lifecycle(j, "unscheduled", undefined, undefined, undefined, reason);
  });

  const events = timeline(jobs, order, rows, dispatches);
  const startTick = events.length > 0 ? events[0].tick : 0;
  const endTick = events.length > 0 ? events[events.length - 1].tick : 0;
  return {
    policy,
    events,
    jobs: lifecycles,
    completedJobCount: completed,
    unscheduledJobCount: waiting.length,
    startTick,
    endTick,
    makespanTicks: endTick - startTick,
    totalQueueDelayTicks: total,
    averageQueueDelayTicks: completed > 0 ? total / completed : 0,
    maximumQueueDelayTicks: max,
  };
}

function lifecycle(
  j: TopoTimedJob,
  status: "completed" | "unscheduled",
  start: number | undefined,
  completion: number | undefined,
  d: DispatchDecision | undefined,
  reason: TopoReason | undefined,
): TopoJobLifecycle {
  const r: Record<string, unknown> = {
    jobName: j.name,
    status,
    arrivalTick: j.arrivalTick,
    durationTicks: j.durationTicks,
  };
  if (start !== undefined) r.startTick = start;
  if (completion !== undefined) r.completionTick = completion;
  if (start !== undefined) r.queueDelayTicks = start - j.arrivalTick;
  if (d?.domain !== undefined && d.domain !== "") r.selectedTopologyDomain = d.domain;
  r.allocation = shares(d?.allocation);
  r.requestedResources = requestedOf(j);
  if (reason !== undefined) r.reason = reason;
  return r as unknown as TopoJobLifecycle;
}

function shares(a: readonly NodeShare[] | undefined): NodeShare[] {
  return (a ?? []).map((s) => ({ nodeName: s.nodeName, replicas: s.replicas }));
}

/**
 * The timeline TopoQueue prints: at each tick the completions (by input
 * position), then the arrivals (by input position), then the admissions
 * (in the order the engine started them).
 */
function timeline(
  jobs: readonly TopoTimedJob[],
  order: readonly number[],
  rows: ReadonlyMap<number, JobRow>,
  dispatches: readonly DispatchDecision[],
): TopoEvent[] {
  // [tick, phase (0 completed, 1 arrived, 2 admitted), rank within the phase, event]
  const all: [number, number, number, TopoEvent][] = [];
  order.forEach((input, id) => {
    const j = jobs[input];
    all.push([j.arrivalTick, 1, input, { tick: j.arrivalTick, type: "arrived", jobName: j.name }]);
    const row = rows.get(id);
    if (row !== undefined) {
      all.push([row.endTime, 0, input, { tick: row.endTime, type: "completed", jobName: j.name }]);
    }
  });
  dispatches.forEach((d, k) => {
    const e: Record<string, unknown> = {
      tick: d.time,
      type: "admitted",
      jobName: jobs[order[d.jobId]].name,
    };
    if (d.domain !== undefined && d.domain !== "") e.selectedTopologyDomain = d.domain;
    if (d.allocation !== undefined && d.allocation.length > 0) e.allocation = shares(d.allocation);
    all.push([d.time, 2, k, e as unknown as TopoEvent]);
  });
  all.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  return all.map((x) => x[3]);
}
