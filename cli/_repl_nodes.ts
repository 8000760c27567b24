// The REPL's `info node NAME`: what runs on one node now, and what it has
// free. A run with a resource model reads both from the model (the node's
// capacity and free units) and from the DISPATCH rows' allocations; a
// whole-node run names its nodes with the whole-node tracker
// (core/node_assignment.ts) over every job that has started so far, so a
// node here is the node the schedule's `nodes` column names.

import type { DecisionRow } from "../core/decisions.ts";
import {
  assignWholeNodes,
  type NodeInterval,
  wholeNodeIndex,
  wholeNodeName,
} from "../core/node_assignment.ts";
import type { NodeShare } from "../core/resource_model.ts";
import type { SimState } from "../core/state.ts";
import type { JobRecord, JobRow } from "../core/types.ts";
import { compressHostlist } from "../io/hostlist.ts";
import { ReplError } from "./_repl_types.ts";

/** What the re-simulation has written so far (kept by the stepper). */
export interface NodeHistory {
  /** Job rows written, by job id. */
  readonly rows: Map<number, NodeInterval>;
  /** Allocations of DISPATCH rows that carry one (a resource model's), by job id. */
  readonly allocations: Map<number, readonly NodeShare[]>;
}

/** Adds a piece's job rows and DISPATCH allocations to `h`. */
export function noteWritten(
  h: NodeHistory,
  rows: readonly JobRow[],
  decisions: readonly DecisionRow[],
): void {
  for (const r of rows) {
    h.rows.set(r.jobId, {
      jobId: r.jobId,
      beginTime: r.beginTime,
      endTime: r.endTime,
      numNodes: r.numNodes,
    });
  }
  for (const d of decisions) {
    if (d.type === "DISPATCH" && d.allocation !== undefined) {
      h.allocations.set(d.jobId, d.allocation);
    }
  }
}

/** `k=v` pairs; zeros left out unless `all` (a node's free units show every resource). */
function units(x: Readonly<Record<string, number>>, all = false): string {
  const parts = Object.entries(x).filter(([, v]) => all || v !== 0).map(([k, v]) => `${k}=${v}`);
  return parts.length === 0 ? "nothing" : parts.join(" ");
}

function recordOf(state: SimState, id: number): JobRecord | undefined {
  return id >= state.store.firstId ? state.store.records.get(id - state.store.firstId) : undefined;
}

/**
 * `info node NAME`: the jobs running on the node now and its free resources
 * (a whole node: free, or the job holding it).
 */
export function nodeInfo(state: SimState, h: NodeHistory, arg: string | undefined): string[] {
  const resources = state.resources;
  if (resources !== undefined) return modelNodeInfo(state, h, arg);
  const total = state.config.totalNodes;
  const all = `${wholeNodeName(0, total)}-${wholeNodeName(total - 1, total)}`;
  if (arg === undefined) throw new ReplError(`info node needs a node name (${all})`);
  const index = wholeNodeIndex(arg);
  if (index === undefined || index >= total || arg !== wholeNodeName(index, total)) {
    throw new ReplError(`no node '${arg}': this run's nodes are ${all}`);
  }
  // Every job that has started: the rows written of the jobs the state has
  // reclaimed (rows written later, before a `back`, are not this position's),
  // and the records still in the state.
  const jobs = new Map<number, NodeInterval>();
  for (const [id, row] of h.rows) if (id < state.store.firstId) jobs.set(id, row);
  for (const rec of state.store.records) {
    if (rec.beginTime < 0 || rec.rejected || rec.hidden) continue;
    jobs.set(rec.id, {
      jobId: rec.id,
      beginTime: rec.beginTime,
      endTime: rec.endTime >= 0 ? rec.endTime : Infinity,
      numNodes: rec.numNodes,
    });
  }
  const nodes = assignWholeNodes([...jobs.values()], total);
  for (const r of state.running.values()) {
    const mine = nodes.get(r.id);
    if (mine === undefined || !mine.includes(index)) continue;
    const names = compressHostlist([...mine].map((n) => wholeNodeName(n, total)));
    return [
      `node ${arg}: running job ${r.id} since ${r.beginTime} (${r.numNodes} nodes: ${names}); nothing free`,
    ];
  }
  const usable = index < state.capacity
    ? ""
    : ` (beyond the usable capacity of ${state.capacity} nodes)`;
  return [`node ${arg}: free, no job running${usable}`];
}

function modelNodeInfo(state: SimState, h: NodeHistory, arg: string | undefined): string[] {
  const { model, state: modelState } = state.resources!;
  if (model.nodes === undefined || model.freeOn === undefined) {
    return [`info node: resource model ${model.name} does not name its nodes`];
  }
  const list = compressHostlist(model.nodes.map((n) => n.name));
  if (arg === undefined) throw new ReplError(`info node needs a node name (${list})`);
  const node = model.nodes.find((n) => n.name === arg);
  if (node === undefined) throw new ReplError(`no node '${arg}': this run's nodes are ${list}`);
  const jobs: string[] = [];
  for (const r of state.running.values()) {
    const share = h.allocations.get(r.id)?.find((s) => s.nodeName === arg);
    if (share === undefined) continue;
    const per = recordOf(state, r.id)?.demand?.perReplica ?? {};
    const held = Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v * share.replicas]));
    jobs.push(`job ${r.id} since ${r.beginTime} (${share.replicas} replicas: ${units(held)})`);
  }
  return [
    `node ${arg}: ${jobs.length === 0 ? "no job running" : `running ${jobs.join(", ")}`}; free ${
      units(model.freeOn(modelState, arg) ?? {}, true)
    } of ${units(node.capacity, true)}`,
  ];
}
