// `info resource`'s nodes line on a machine (a resource model that names its
// nodes): the node count's "in use" and "free" count whole nodes only, and a
// job that asks for cores, memory or GPUs per replica holds none of them, so
// on a machine the line counts the model's nodes instead: busy (holding any
// job; partly used when some unit of a resource is still free on it), idle
// (online, holding nothing) and offline (draining when a job still runs on
// it). busy + idle + offline is the machine's node count. The counts are the
// core's (core/_machine_room.ts), as the library's and servers' monitors give them.

import { machineRoom } from "../core/_machine_room.ts";
import type { SimState } from "../core/state.ts";

/** The nodes line on a machine, or undefined on whole nodes (the node count's line stays). */
export function machineNodesLine(state: SimState): string | undefined {
  const room = machineRoom(state);
  if (room === undefined) return undefined;
  const { busy, mixed, idle, offline, draining } = room;
  const down = `${offline} offline${draining === 0 ? "" : ` (${draining} draining)`}`;
  return `nodes: ${room.nodes} total: ${busy} busy (${mixed} partly used), ${idle} idle, ${down}; ${state.running.size} jobs running`;
}
