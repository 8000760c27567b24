// Shared by the topology tests: a waiting job record with only a demand.

import type { JobRecord, ResourceDemand } from "../mod.ts";

/** A waiting record of job `id` asking for `demand` (no nodes of the node-count pool). */
export function demandRecord(id: number, demand: ResourceDemand): JobRecord {
  return {
    id,
    submitTime: 0,
    numNodes: 0,
    timeLimit: 1,
    runTime: 1,
    queue: undefined,
    priority: 0,
    beginTime: -1,
    endTime: -1,
    rejected: false,
    hidden: false,
    demand,
  };
}
