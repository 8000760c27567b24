// Changing the configuration of a state between steps, for the shells that
// record and re-simulate: turning decisions on when a recording starts (and
// back off when it stops), and re-simulating a snapshot under another picker,
// admission policy or queue set. Each is a pure function: the state or
// snapshot given is left as it is.

import type { ResolvedConfig } from "./config.ts";
import { EvtsimError } from "./errors.ts";
import { carryLateCall } from "./_policy_faults.ts";
import type { QueueDef } from "./queues.ts";
import { queueDefData, type SnapshotData } from "./snapshot.ts";
import { emptyPendCodes, type SimState } from "./state.ts";

/**
 * The state with decisions emitted at `level` from the next round on. When
 * they were off, the pend-reason bookkeeping starts empty (every waiting
 * job's next reason is reported); when turned off it is dropped.
 */
export function withDecisions(state: SimState, level: ResolvedConfig["decisions"]): SimState {
  if (state.config.decisions === level) return state;
  const config: ResolvedConfig = Object.freeze({ ...state.config, decisions: level });
  carryLateCall(state.config, config); // still the same run
  const pendCodes = state.config.decisions === false || level === false
    ? emptyPendCodes()
    : state.pendCodes;
  return Object.freeze({ ...state, config, pendCodes });
}

/** What a re-simulation may change in a snapshot before loading it. */
export interface Reconfiguration {
  /** Another picker, by registered name. */
  readonly picker?: string;
  /** Another admission (backfill) policy, by registered name. */
  readonly backfillPolicy?: string;
  /** Another set of queues (replaces both the configured and the current queues). */
  readonly queues?: readonly QueueDef[];
  /** Other picker settings, by picker name (replace the configured ones). */
  readonly pickerSettings?: Readonly<Record<string, unknown>>;
  /** What capacity cuts from now on do to running jobs (`drain`, `kill`). */
  readonly onCapacityCut?: ResolvedConfig["onCapacityCut"];
  /** Whose capacity-change rules apply from now on (`evtsim`, `drevt`). */
  readonly capacitySemantics?: ResolvedConfig["capacitySemantics"];
  /** What node failures from now on do to the jobs on the failed nodes (`kill`, `requeue`). */
  readonly onNodeFailure?: ResolvedConfig["onNodeFailure"];
  /** How many times a job may be requeued after node failures from now on. */
  readonly requeueLimit?: number;
  /**
   * A constant power cap from now on (watts; docs/power.md), replacing the
   * recorded cap and its schedule; the recorded node watts stay.
   */
  readonly powerCap?: number;
}

/**
 * The snapshot with its policies or queues replaced. With new queues, a live
 * job without a queue goes to the first one (as an appended job would); a
 * live job naming a queue the new set does not define is an error. The names
 * are checked when the snapshot is loaded.
 */
export function reconfigure(data: SnapshotData, change: Reconfiguration): SnapshotData {
  let out: SnapshotData = data;
  if (change.picker !== undefined && change.picker !== out.config.picker) {
    // The old picker's memory means nothing to another one.
    const { pickerMemory: _dropped, ...rest } = out;
    out = { ...rest, config: { ...out.config, picker: change.picker } };
  }
  if (change.pickerSettings !== undefined) {
    out = { ...out, config: { ...out.config, pickerSettings: change.pickerSettings } };
  }
  // Stored only when not the default, as configData writes them.
  if (change.onCapacityCut !== undefined) {
    const { onCapacityCut: _old, ...config } = out.config;
    out = {
      ...out,
      config: change.onCapacityCut === "drain"
        ? config
        : { ...config, onCapacityCut: change.onCapacityCut },
    };
  }
  if (change.capacitySemantics !== undefined) {
    const { capacitySemantics: _old, ...config } = out.config;
    out = {
      ...out,
      config: change.capacitySemantics === "evtsim"
        ? config
        : { ...config, capacitySemantics: change.capacitySemantics },
    };
  }
  // Stored only when given, as configData writes them.
  if (change.onNodeFailure !== undefined) {
    out = { ...out, config: { ...out.config, onNodeFailure: change.onNodeFailure } };
  }
  if (change.requeueLimit !== undefined) {
    out = { ...out, config: { ...out.config, requeueLimit: change.requeueLimit } };
  }
  if (change.backfillPolicy !== undefined) {
    out = { ...out, config: { ...out.config, backfillPolicy: change.backfillPolicy } };
  }
  if (change.powerCap !== undefined) {
    const { powerCapSchedule: _old, ...config } = out.config;
    out = { ...out, config: { ...config, powerCap: change.powerCap } };
  }
  if (change.queues !== undefined) {
    const defs = change.queues.map(queueDefData);
    if (defs.length === 0) throw new EvtsimError("usage", "the new queue set is empty");
    const names = new Set(defs.map((q) => q.name));
    const records = out.store.records.map((r) => {
      if (r.rejected || r.endTime >= 0) return r;
      if (r.queue === undefined) return { ...r, queue: defs[0].name };
      if (!names.has(r.queue)) {
        throw new EvtsimError(
          "input",
          `job ${r.id} is in queue '${r.queue}', which the new queues do not define (defined: ${
            [...names].join(", ")
          })`,
        );
      }
      return r;
    });
    out = {
      ...out,
      config: { ...out.config, queues: defs },
      queues: defs,
      store: { ...out.store, records },
    };
  }
  return out;
}
