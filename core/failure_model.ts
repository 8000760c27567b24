// A seeded failure model: each node fails after an exponentially
// distributed time up (mean `mtbf` seconds) and is repaired after an
// exponentially distributed time down (mean `repair`), its own model or
// none (it never fails), drawn from the project's generator (core/rng.ts,
// std::mt19937) seeded with one seed. The
// draws are made in time order over all nodes (ties: node order), one draw
// per change, so a later `until` only adds changes after the earlier ones:
// the same seed gives the same failures, and a longer horizon the same
// prefix.

import { EvtsimError } from "./errors.ts";
import { RngCursor, seedRng } from "./rng.ts";
import type { CapacityChange } from "./types.ts";

/**
 * How often a node fails and how long its repair takes (seconds, means of
 * exponential distributions).
 *
 * @example
 * ```ts
 * import { drawNodeFailures, type FailureModel } from "./failure_model.ts";
 * const model: FailureModel = { mtbf: 86400, repair: 3600 };
 * // Thirty days of one node's failures and repairs, drawn with seed 7.
 * const events = drawNodeFailures([{ name: "n1", model }], 7, 0, 30 * 86400);
 * const states = events.map((e) => e.state).join();
 * // About one failure a day, each followed by its repair.
 * console.assert(events.length > 20 && /^(down,up,?)+$/.test(states), states);
 * ```
 */
export interface FailureModel {
  /** Mean time between failures of one node (seconds, > 0). */
  readonly mtbf: number;
  /** Mean time to repair a failed node (seconds, > 0). */
  readonly repair: number;
  /** The distribution of both times: `exponential` (the only one, and the default). */
  readonly distribution?: "exponential";
}

/**
 * One node failing (`down`) or repaired (`up`) at a time, as a failure trace
 * lists it (`time,node,state`).
 *
 * @example
 * ```ts
 * import { type NodeFailureEvent, withNodeFailures } from "./failure_model.ts";
 * const events: NodeFailureEvent[] = [
 *   { time: 3600, node: "gpu001", state: "down" },
 *   { time: 7200, node: "gpu001", state: "up" },
 * ];
 * // On a 4-node machine: 3 nodes online from 3600, 4 again from 7200.
 * const changes = withNodeFailures([], events, 4);
 * console.assert(changes.map((c) => `${c.time}:${c.capacity}`).join() === "3600:3,7200:4");
 * console.assert(changes[0].failed?.join() === "gpu001" && changes[1].up?.join() === "gpu001");
 * ```
 */
export interface NodeFailureEvent {
  /** When (whole seconds). */
  readonly time: number;
  /** The node's name. */
  readonly node: string;
  /** `down`: it fails; `up`: it is repaired. */
  readonly state: "down" | "up";
}

/**
 * The failures and repairs drawn for `nodes` over (`from`, `until`], each
 * node with its own model (a node without one never fails), from one
 * generator seeded with `seed`: every node starts up at `from`; times are
 * whole seconds (at least 1 s apart); a failure after `until` is not
 * drawn, its node's last repair may come after it. Sorted by time, then
 * node order.
 *
 * @example
 * ```ts
 * import { drawNodeFailures } from "./failure_model.ts";
 * const model = { mtbf: 1000, repair: 100 };
 * const nodes = [{ name: "n1", model }, { name: "n2", model }, { name: "n3" }];
 * const a = drawNodeFailures(nodes, 1, 0, 5000);
 * const b = drawNodeFailures(nodes, 1, 0, 5000);
 * // The same seed draws the same failures; a node is repaired after each failure.
 * if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("deterministic");
 * const n1 = a.filter((e) => e.node === "n1").map((e) => e.state).join();
 * if (!/^(down,up,)*(down,up)?$/.test(n1 + (n1 === "" ? "" : ","))) throw new Error(n1);
 * if (a.some((e) => e.node === "n3")) throw new Error("n3 has no model");
 * ```
 */
export function drawNodeFailures(
  nodes: readonly { readonly name: string; readonly model?: FailureModel }[],
  seed: number,
  from: number,
  until: number,
): NodeFailureEvent[] {
  for (const n of nodes) if (n.model !== undefined) checkModel(n.model);
  if (!Number.isFinite(seed)) {
    throw new EvtsimError("usage", `failure model: seed must be a number, got ${seed}`);
  }
  if (!Number.isFinite(from) || !Number.isFinite(until) || until < from) {
    throw new EvtsimError(
      "usage",
      `failure model: the horizon must be finite and not before the start (${from}), got ${until}`,
    );
  }
  const rng = RngCursor.from(seedRng(seed));
  const draw = (mean: number) => Math.max(1, Math.round(-mean * Math.log(1 - rng.canonical())));
  // Each failing node's next change: [time, node index, down?]; the earliest is applied next.
  const next: [number, number, boolean][] = [];
  nodes.forEach((n, i) => {
    if (n.model !== undefined) next.push([from + draw(n.model.mtbf), i, true]);
  });
  const out: NodeFailureEvent[] = [];
  for (;;) {
    let k = -1;
    for (let j = 0; j < next.length; j++) {
      const [t, i, down] = next[j];
      if (down && t > until) continue;
      if (k < 0 || t < next[k][0] || (t === next[k][0] && i < next[k][1])) k = j;
    }
    if (k < 0) break;
    const [t, i, down] = next[k];
    const model = nodes[i].model!;
    out.push({ time: t, node: nodes[i].name, state: down ? "down" : "up" });
    next[k] = [t + draw(down ? model.repair : model.mtbf), i, !down];
  }
  return out;
}

function checkModel(m: FailureModel): void {
  for (const key of ["mtbf", "repair"] as const) {
    const v = m[key];
    if (typeof v !== "number" || !(v > 0) || !Number.isFinite(v)) {
      throw new EvtsimError(
        "usage",
        `failure model: ${key} must be a positive number of seconds, got ${v}`,
      );
    }
  }
  if (m.distribution !== undefined && m.distribution !== "exponential") {
    throw new EvtsimError(
      "usage",
      `failure model: unknown distribution '${m.distribution}' (expected exponential)`,
    );
  }
}

/**
 * Failure events as capacity changes of a machine with `nodeCount` nodes,
 * merged into `schedule` (the planned changes, first at the same time):
 * a `down` is a change with `failed` nodes, an `up` one with `up` nodes, and
 * every change's `capacity` counts the nodes online after it.
 *
 * @example
 * ```ts
 * import { withNodeFailures } from "./failure_model.ts";
 * const planned = [{ time: 10, capacity: 1, down: ["n2"] }];
 * const s = withNodeFailures(planned, [{ time: 10, node: "n1", state: "down" }, { time: 20, node: "n1", state: "up" }], 2);
 * if (s.map((c) => c.capacity).join() !== "1,0,1" || s[1].failed?.[0] !== "n1") throw new Error("merged");
 * ```
 */
export function withNodeFailures(
  schedule: readonly CapacityChange[],
  failures: readonly NodeFailureEvent[],
  nodeCount: number,
): CapacityChange[] {
  const merged: CapacityChange[] = [];
  const offline = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < schedule.length || j < failures.length) {
    let c: CapacityChange;
    if (j >= failures.length || (i < schedule.length && schedule[i].time <= failures[j].time)) {
      c = schedule[i++];
    } else {
      // Failures (or repairs) at one instant in a row are one change.
      const { time, state } = failures[j];
      const names: string[] = [];
      for (; j < failures.length && failures[j].time === time && failures[j].state === state; j++) {
        names.push(failures[j].node);
      }
      c = state === "down"
        ? { time, capacity: 0, failed: names }
        : { time, capacity: 0, up: names };
    }
    for (const n of c.down ?? []) offline.add(n);
    for (const n of c.failed ?? []) offline.add(n);
    for (const n of c.up ?? []) offline.delete(n);
    merged.push({ ...c, capacity: nodeCount - offline.size });
  }
  return merged;
}
