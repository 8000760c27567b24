// The REPL's events of a machine's nodes (cli/_repl_events.ts has the rest):
// a `changeNodes` input as given (NODE_REQUEST), and the nodes that go
// offline or come back at an instant (NODE_CHANGE), read off the resource
// model's offline nodes before and after the piece, so a live change and a
// capacity schedule's row show the same way.

import type { SimState } from "../core/state.ts";
import type { Input } from "../core/step.ts";
import type { JobRecord } from "../core/types.ts";
import { compressHostlist } from "../io/hostlist.ts";
import type { EventType, ReplEvent } from "./_repl_events.ts";

/** A `changeNodes` input as NODE_REQUEST: the names asked (host lists) and when it is due. */
export function nodeRequest(
  i: Extract<Input, { kind: "changeNodes" }>,
  before: SimState,
): ReplEvent {
  const names = (list: readonly string[] | undefined) =>
    list === undefined || list.length === 0 ? undefined : compressHostlist([...list]);
  const [down, up] = [names(i.down), names(i.up)];
  return {
    type: "NODE_REQUEST",
    fields: {
      ...(down === undefined ? {} : { down }),
      ...(up === undefined ? {} : { up }),
      time: i.time ?? before.time,
    },
  };
}

// A job's record if it ended (endTime set) and is still in the store.
function endedRecord(state: SimState, id: number): JobRecord | undefined {
  if (id < state.store.firstId) return undefined;
  const r = state.store.records.get(id - state.store.firstId);
  return r !== undefined && r.endTime >= 0 ? r : undefined;
}

/**
 * The nodes of a machine that went offline or came back in the piece (the
 * model's offline nodes before and after it), first of the instant; returns
 * the jobs a cut killed there (ended killed at the instant, not by a live end).
 */
export function nodeEvents(
  before: SimState,
  after: SimState,
  out: ReplEvent[],
  want: (t: EventType) => boolean,
): Set<number> {
  const killed = new Set<number>();
  const model = before.resources?.model;
  if (model?.offline === undefined) return killed;
  if (!want("NODE_CHANGE") && !want("JOB_STATE_CHANGE")) return killed;
  const t = after.time;
  const live = new Set<string>();
  // Nodes that failed (unplanned) in the piece: live ones and the schedule's `failed` lists.
  const failed = new Set<string>();
  for (const l of before.liveEvents.values()) {
    if (l.time > t) break;
    if (l.kind === "nodes") {
      for (const n of [...l.down, ...l.up]) live.add(n);
      for (const n of l.failed ?? []) failed.add(n);
    }
  }
  if (live.size === 0 && failed.size === 0 && before.capacityIndex === after.capacityIndex) {
    return killed;
  }
  for (const c of before.config.capacitySchedule.slice(before.capacityIndex, after.capacityIndex)) {
    for (const n of c.failed ?? []) failed.add(n);
  }
  const was = new Set(model.offline(before.resources!.state));
  const now = new Set(model.offline(after.resources!.state));
  if (want("NODE_CHANGE")) {
    for (const n of model.nodes ?? []) {
      if (was.has(n.name) === now.has(n.name)) continue;
      out.push({
        type: "NODE_CHANGE",
        fields: {
          node: n.name,
          state: now.has(n.name) ? "DOWN" : "UP",
          source: failed.has(n.name) ? "failure" : live.has(n.name) ? "live" : "schedule",
          time: t,
        },
      });
    }
  }
  if (want("JOB_STATE_CHANGE")) {
    for (const r of before.running.values()) {
      const done = endedRecord(after, r.id);
      if (done?.outcome === "killed" && done.endTime === t) killed.add(r.id);
      // Requeued by a failure: running before, waiting again after (same id).
      const back = r.id >= after.store.firstId
        ? after.store.records.get(r.id - after.store.firstId)
        : undefined;
      if (back !== undefined && back.beginTime < 0 && back.requeues !== undefined) {
        out.push({
          type: "JOB_STATE_CHANGE",
          fields: {
            job: r.id,
            state: "PEND",
            oldState: "RUN",
            ...(back.queue === undefined ? {} : { queue: back.queue }),
            requeues: back.requeues,
            time: t,
          },
        });
      }
    }
  }
  return killed;
}
