// A seeded failure model: each node fails after an exponentially
// distributed time up (mean `mtbf` seconds) and is repaired after an
// exponentially distributed time down (mean `repair`), drawn from the
// project's generator (core/rng.ts, std::mt19937) seeded with `seed`. The
// draws are made in time order over all nodes (ties: node order), one draw
// per change, so a later `until` only adds changes after the earlier ones:
// the same seed gives the same failures, and a longer horizon the same
// prefix.

import { EvtsimError } from "./errors.ts";
import { RngCursor, seedRng } from "./rng.ts";
import type { CapacityChange } from "./types.ts";

/**
 * How often nodes fail and how long a repair takes (seconds, means of
 * exponential distributions), and the generator's seed.
 *
 * @example
 * ```ts
 * import type { FailureModel } from "./failure_model.ts";
 * const m: FailureModel = { mtbf: 86400, repair: 3600, seed: 7 };
 * if (m.mtbf !== 86400) throw new Error("mtbf");
 * ```
 */
export interface FailureModel {
  /** Mean time between failures of one node (seconds, > 0). */
  readonly mtbf: number;
  /** Mean time to repair a failed node (seconds, > 0). */
  readonly repair: number;
  /** Seed of the generator (default 0). */
  readonly seed?: number;
  /** The distribution of both times: `exponential` (the only one, and the default). */
  readonly distribution?: "exponential";
}

/**
 * One node failing (`down`) or repaired (`up`) at a time, as a failure trace
 * lists it (`time,node,state`).
 *
 * @example
 * ```ts
 * import type { NodeFailureEvent } from "./failure_model.ts";
 * const e: NodeFailureEvent = { time: 3600, node: "gpu001", state: "down" };
 * if (e.state !== "down") throw new Error("state");
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
 * The failures and repairs the model draws for `nodes` over (`from`,
 * `until`]: every node starts up at `from`; times are whole seconds (at
 * least 1 s apart); a failure after `until` is not drawn, its node's last
 * repair may come after it. Sorted by time, then node order.
 *
 * @example
 * ```ts
 * import { drawNodeFailures } from "./failure_model.ts";
 * const model = { mtbf: 1000, repair: 100, seed: 1 };
 * const a = drawNodeFailures(model, ["n1", "n2"], 0, 5000);
 * const b = drawNodeFailures(model, ["n1", "n2"], 0, 5000);
 * // The same seed draws the same failures; a node is repaired after each failure.
 * if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("deterministic");
 * const n1 = a.filter((e) => e.node === "n1").map((e) => e.state).join();
 * if (!/^(down,up,)*(down,up)?$/.test(n1 + (n1 === "" ? "" : ","))) throw new Error(n1);
 * ```
 */
export function drawNodeFailures(
  model: FailureModel,
  nodes: readonly string[],
  from: number,
  until: number,
): NodeFailureEvent[] {
  checkModel(model);
  if (!Number.isFinite(from) || !Number.isFinite(until) || until < from) {
    throw new EvtsimError(
      "usage",
      `failure model: the horizon must be finite and not before the start (${from}), got ${until}`,
    );
  }
  const rng = RngCursor.from(seedRng(model.seed ?? 0));
  const draw = (mean: number) => Math.max(1, Math.round(-mean * Math.log(1 - rng.canonical())));
  // Each node's next change: [time, node index, down?]; the earliest is applied next.
  const next: [number, number, boolean][] = nodes.map((_, i) => [from + draw(model.mtbf), i, true]);
  const out: NodeFailureEvent[] = [];
  for (;;) {
    let k = -1;
    for (let i = 0; i < next.length; i++) {
      const [t, , down] = next[i];
      if (down && t > until) continue;
      if (k < 0 || t < next[k][0]) k = i;
    }
    if (k < 0) break;
    const [t, i, down] = next[k];
    out.push({ time: t, node: nodes[i], state: down ? "down" : "up" });
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
  if (m.seed !== undefined && !Number.isFinite(m.seed)) {
    throw new EvtsimError("usage", `failure model: seed must be a number, got ${m.seed}`);
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
