// A deep, plain-data copy of a simulation state, for purity tests: two
// snapshots are deeply equal exactly when the states hold the same data.

import { OrderedSet } from "../core/_ordered_set.ts";
import { Vec } from "../core/_vector.ts";
import type { SimState } from "../core/state.ts";

function plain(x: unknown, depth: number): unknown {
  if (depth > 10_000) throw new Error("snapshotState: structure too deep (a cycle?)");
  if (typeof x === "function") return "[function]";
  if (x === null || typeof x !== "object") return x;
  // Persistent trees are copied node by node, subtree minima included, so a
  // mutation anywhere inside (not only in the element order) is seen.
  if (x instanceof OrderedSet) return { orderedSet: plain(x.root, depth + 1) };
  // A vector's chunks are private: compare its elements.
  if (x instanceof Vec) return { vector: x.toArray().map((v) => plain(v, depth + 1)) };
  if (Array.isArray(x)) return x.map((v) => plain(v, depth + 1));
  // The run-time generator's words: copied element by element.
  if (ArrayBuffer.isView(x)) return { typedArray: Array.from(x as Uint32Array) };
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x).sort()) {
    out[k] = plain((x as Record<string, unknown>)[k], depth + 1);
  }
  return out;
}

/**
 * A deep copy of `state` as plain objects and arrays (functions become
 * `"[function]"`): persistent sets are copied with their whole tree, vectors by
 * their elements, typed arrays (the generator's words) element by element.
 * Compare two snapshots with a deep-equality assertion.
 *
 * @example
 * ```ts
 * import { initialState, step } from "@evtsim/evtsim";
 * import { snapshotState } from "@evtsim/evtsim/testing";
 * const s = initialState({ totalNodes: 8 });
 * const before = JSON.stringify(snapshotState(s));
 * step(s, { kind: "appendJobs", jobs: [{ submitTime: 0, numNodes: 1, timeLimit: 1 }] });
 * console.assert(JSON.stringify(snapshotState(s)) === before);
 * ```
 */
export function snapshotState(state: SimState): unknown {
  return plain(state, 0);
}
