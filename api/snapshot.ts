// The public snapshot functions: a state as a JSON-safe value and back
// (docs/library.md, "Snapshots"). The layout is described in core/snapshot.ts; a
// value read from anywhere is validated with the schema first, so a broken
// one is one clear error rather than a broken state.

import { EvtsimError } from "../core/errors.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { SNAPSHOT_VERSION, type SnapshotData, snapshotOf } from "../core/snapshot.ts";
import { restoreSnapshot } from "../core/_snapshot_restore.ts";
import type { SimState } from "../core/state.ts";
import { describeIssue, SnapshotSchema } from "../io/replay_schema.ts";
import { defaultRegistry } from "../schedulers/registry.ts";

/**
 * A snapshot: the whole state of a simulation as plain JSON-safe data
 * (configuration with its policies by name, jobs, queues, pending events,
 * pend-reason bookkeeping, generator, statistics, unwritten resource rows).
 * The picker's own state is not in it: loading rebuilds it through the
 * picker's hooks. Treat it as a value to store and load; its fields are
 * described in docs/library.md ("Snapshots").
 *
 * @example
 * ```ts
 * import { initialState, saveSnapshot, type Snapshot } from "@evtsim/evtsim";
 * const snap: Snapshot = saveSnapshot(initialState({ totalNodes: 8, picker: "sjf", startTime: 50 }));
 * if (snap.version !== 1 || snap.time !== 50) throw new Error("snapshot");
 * if ((snap.config as { picker: string }).picker !== "sjf") throw new Error("the picker by name");
 * ```
 */
export interface Snapshot {
  /** The snapshot layout version (1). */
  readonly version: number;
  /** The simulation clock. */
  readonly time: number;
  /** The other fields: plain JSON data. */
  readonly [field: string]: unknown;
}

/**
 * The state as a JSON-safe {@link Snapshot}: `JSON.stringify` it to store it,
 * `loadSnapshot(JSON.parse(text))` to continue from it. Throws an
 * `EvtsimError` for the state of a schedule replay (it has no scheduler).
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, loadSnapshot, saveSnapshot, step } from "@evtsim/evtsim";
 * let s = step(initialState({ totalNodes: 4 }), appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ])).state;
 * s = step(s, advanceTo(5)).state;
 * const copy = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(s))));
 * // The copy goes on exactly as the original: job 1 starts when job 0 ends.
 * const a = step(s, advanceTo(10)).state;
 * const b = step(copy, advanceTo(10)).state;
 * if (JSON.stringify(saveSnapshot(a)) !== JSON.stringify(saveSnapshot(b))) throw new Error("same state");
 * if (b.allocatedNodes !== 4 || b.running.first()?.id !== 1) throw new Error("job 1 runs");
 * ```
 */
export function saveSnapshot(state: SimState): Snapshot {
  return snapshotOf(state) as unknown as Snapshot;
}

/**
 * Options of {@link loadSnapshot}.
 *
 * @example
 * ```ts
 * import { initialState, loadSnapshot, type LoadSnapshotOptions, orderedPicker, saveSnapshot, withPolicies } from "@evtsim/evtsim";
 * const smallestFirst = orderedPicker({ name: "smallest_first", compare: (a, b) => a.numNodes - b.numNodes || a.id - b.id });
 * const text = JSON.stringify(saveSnapshot(initialState({ totalNodes: 4, picker: smallestFirst })));
 * // The snapshot names its picker; a registry that has it brings it back.
 * const options: LoadSnapshotOptions = { registry: withPolicies({ pickers: [smallestFirst] }) };
 * console.assert(loadSnapshot(JSON.parse(text), options).picker === smallestFirst);
 * let message = "";
 * try {
 *   loadSnapshot(JSON.parse(text));
 * } catch (e) {
 *   message = (e as Error).message;
 * }
 * console.assert(message.startsWith("unknown picker 'smallest_first'"), message);
 * ```
 */
export interface LoadSnapshotOptions {
  /** Where the snapshot's picker and admission names are looked up (default: evtsim's own). */
  readonly registry?: PolicyRegistry;
}

/**
 * The state a snapshot value describes (for example one parsed from JSON),
 * ready to be stepped. The value is validated first; the picker and
 * admission policy are looked up by name and the picker's state is rebuilt
 * through its hooks. Throws an `EvtsimError` naming the field for a value
 * that is not a snapshot, a newer snapshot version, or a policy name the
 * registry does not know.
 *
 * @example
 * ```ts
 * import { EvtsimError, initialState, loadSnapshot, saveSnapshot } from "@evtsim/evtsim";
 * const snap = saveSnapshot(initialState({ totalNodes: 8 }));
 * if (loadSnapshot(snap).config.totalNodes !== 8) throw new Error("loaded");
 * try {
 *   const config = snap.config as Record<string, unknown>;
 *   loadSnapshot({ ...snap, config: { ...config, picker: "nobody_registered_this" } });
 *   throw new Error("an unknown picker must be refused");
 * } catch (e) {
 *   if (!(e instanceof EvtsimError) || !e.message.includes("unknown picker")) throw e;
 * }
 * ```
 */
export function loadSnapshot(value: unknown, options: LoadSnapshotOptions = {}): SimState {
  return restoreSnapshot(checkSnapshot(value), options.registry ?? defaultRegistry());
}

/** Validates a snapshot value's shape; throws an `EvtsimError` naming the field. */
export function checkSnapshot(value: unknown, where = "snapshot"): SnapshotData {
  const v = (value ?? {}) as { version?: unknown };
  if (typeof v.version === "number" && v.version > SNAPSHOT_VERSION) {
    throw new EvtsimError(
      "input",
      `${where}: version ${v.version} is newer than this program reads (${SNAPSHOT_VERSION}); upgrade evtsim`,
    );
  }
  const parsed = SnapshotSchema.safeParse(value);
  if (!parsed.success) {
    throw new EvtsimError("input", `${where}: ${describeIssue(parsed.error)}`);
  }
  return parsed.data as SnapshotData;
}
