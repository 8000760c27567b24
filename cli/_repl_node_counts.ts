// `info resource`'s nodes line on a machine (a resource model that names its
// nodes): the node count's "in use" and "free" count whole nodes only, and a
// job that asks for cores, memory or GPUs per replica holds none of them, so
// on a machine the line counts the model's nodes instead: busy (holding any
// job; partly used when some unit of a resource is still free on it), idle
// (online, holding nothing) and offline (draining when a job still runs on
// it). busy + idle + offline is the machine's node count.

import { countedResources } from "../core/_metrics_resources.ts";
import { NODE_RESOURCE } from "../core/machine.ts";
import type { SimState } from "../core/state.ts";

/** The nodes line on a machine, or undefined on whole nodes (the node count's line stays). */
export function machineNodesLine(state: SimState): string | undefined {
  const model = state.resources?.model;
  if (model?.nodes === undefined || model.freeOn === undefined) return undefined;
  const ms = state.resources!.state;
  const counted = countedResources(model.nodes);
  // The nodes running jobs hold: from each running job's allocation when the
  // model says it, else a node with any unit taken.
  let holding: Set<string> | undefined;
  if (model.allocationOf !== undefined) {
    holding = new Set();
    for (const r of state.running.values()) {
      for (const a of model.allocationOf(ms, r.id) ?? []) holding.add(a.nodeName);
    }
  }
  const down = new Set(model.offline?.(ms) ?? []);
  let busy = 0, partly = 0, idle = 0, draining = 0;
  for (const n of model.nodes) {
    const free = model.freeOn(ms, n.name) ?? n.capacity;
    const held = holding !== undefined
      ? holding.has(n.name)
      : Object.entries(n.capacity).some(([r, c]) => (free[r] ?? 0) < c);
    if (down.has(n.name)) {
      if (held) draining++;
      continue;
    }
    if (!held) {
      idle++;
      continue;
    }
    busy++;
    // A whole-node job takes the node's `node` unit: nothing else fits there.
    const whole = (n.capacity[NODE_RESOURCE] ?? 0) > 0 && (free[NODE_RESOURCE] ?? 0) === 0;
    if (!whole && counted.some((r) => (free[r] ?? 0) > 0)) partly++;
  }
  const offline = `${down.size} offline${draining === 0 ? "" : ` (${draining} draining)`}`;
  return `nodes: ${model.nodes.length} total: ${busy} busy (${partly} partly used), ${idle} idle, ${offline}; ${state.running.size} jobs running`;
}
