// What is derived from the live inputs' definitions (core/live_inputs.ts):
// the check of an input's fields when it is given, the creator that builds
// an input from a call's arguments, and an input's JSON form in a `.replay`
// log and back. Each takes the table, so a test can add a kind.

import { describeValue } from "./_describe_value.ts";
import { EvtsimError } from "./errors.ts";
import type { JobUpdate } from "./live.ts";
import {
  LIVE_INPUTS,
  type LiveFieldType,
  type LiveFieldTypes,
  type LiveFieldValues,
  type LiveInputKind,
  type LiveInputTable,
} from "./live_inputs.ts";
import type { QueueDef } from "./queues.ts";
import { type QueueDefData, queueDefData, queueDefOf } from "./_snapshot_queues.ts";

/**
 * Each field type's JSON form in a `.replay` log: as {@link LiveFieldTypes},
 * but a queue's explicit "no limit" is null there.
 *
 * @example
 * ```ts
 * import type { LiveFieldData } from "./_live_inputs_derived.ts";
 * const q: LiveFieldData["queueDef"] = { name: "batch", maxRunning: null };
 * console.assert(q.maxRunning === null);
 * ```
 */
export interface LiveFieldData extends Omit<LiveFieldTypes, "queueDef"> {
  /** A queue's definition; `maxRunning: null` removes its limit. */
  readonly queueDef: QueueDefData;
}

/**
 * A live input as a `.replay` log's `event` line carries it (JSON-safe).
 *
 * @example
 * ```ts
 * import type { LiveInputData } from "./_live_inputs_derived.ts";
 * const line: LiveInputData = { kind: "updateQueue", queue: { name: "batch", maxRunning: null } };
 * console.assert(line.kind === "updateQueue");
 * ```
 */
export type LiveInputData = {
  [K in LiveInputKind]:
    & { readonly kind: K }
    & LiveFieldValues<(typeof LIVE_INPUTS)[K]["fields"], LiveFieldData>;
}[LiveInputKind];

// ---- the check when an input is given ---------------------------------------

function usage(detail: string): EvtsimError {
  return new EvtsimError("usage", detail);
}

const isPlainObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);

/** Per field type: whether a value passes, and what the message says was expected. */
const CHECKS: Readonly<Record<LiveFieldType, { ok(v: unknown): boolean; expected: string }>> = {
  jobId: { ok: (v) => typeof v === "number", expected: "a job id (a number)" },
  time: { ok: (v) => typeof v === "number", expected: "a time in seconds (a number)" },
  integer: { ok: (v) => typeof v === "number", expected: "a number" },
  count: { ok: (v) => typeof v === "number", expected: "a number" },
  outcome: { ok: (v) => typeof v === "string", expected: "a string" },
  jobUpdate: { ok: isPlainObject, expected: "an object" },
  queueDef: { ok: isPlainObject, expected: "an object" },
  nodeNames: {
    ok: (v) => Array.isArray(v) && v.every((n) => typeof n === "string"),
    expected: "a list of node names",
  },
};

/**
 * Checks the fields of a live input of `kind` (one of `table`'s) for their
 * types, in the definition's order; throws an `EvtsimError` of kind
 * `"usage"` naming the input and the field. Whether the event can apply is
 * the handler's question (core/_live.ts).
 */
export function checkLiveInput(
  kind: string,
  input: Readonly<Record<string, unknown>>,
  table: LiveInputTable = LIVE_INPUTS,
): void {
  const fields = table[kind].fields;
  for (const name in fields) {
    const field = fields[name];
    const v = input[name];
    if (v === undefined && field.optional) continue;
    const check = CHECKS[field.type];
    if (!check.ok(v)) {
      throw usage(`${kind}: ${name}: expected ${check.expected}, got ${describeValue(v)}`);
    }
  }
}

/** Throws an `EvtsimError` of kind `"usage"` unless `kind` is one of `table`'s. */
export function checkLiveInputKind(
  kind: unknown,
  what: string,
  table: LiveInputTable = LIVE_INPUTS,
): void {
  if (typeof kind !== "string" || !Object.hasOwn(table, kind)) {
    throw usage(
      `${what}: expected a live-event kind (${Object.keys(table).join(", ")}), got ${
        describeValue(kind)
      }`,
    );
  }
}

// ---- the creator ---------------------------------------------------------------

/**
 * The live input of `kind` from a creator's arguments (in the order of the
 * definition's `params`): its fields in the definition's order, the ones
 * given as undefined left out. Checks nothing (`step` does).
 */
export function liveInputFromArgs(
  kind: string,
  args: readonly unknown[],
  table: LiveInputTable = LIVE_INPUTS,
): Readonly<Record<string, unknown>> & { readonly kind: string } {
  const def = table[kind];
  const given: Record<string, unknown> = {};
  def.params.forEach((p, i) => {
    const a = args[i];
    if (typeof p === "string") given[p] = a;
    else if (a !== undefined && a !== null) {
      for (const name of p) given[name] = (a as Record<string, unknown>)[name];
    }
  });
  const out: Record<string, unknown> = { kind };
  for (const name in def.fields) if (given[name] !== undefined) out[name] = given[name];
  return out as { readonly kind: string };
}

// ---- the `.replay` log's event -------------------------------------------------

/** Per field type: its JSON form in a log and back (identity when absent). */
const LOG_FORMS: Partial<
  Record<LiveFieldType, { data(v: unknown): unknown; of?(d: unknown): unknown }>
> = {
  // Known fields only: an update with other keys would not read back.
  jobUpdate: {
    data: (v) => {
      const u = v as JobUpdate;
      return {
        ...(u.priority === undefined ? {} : { priority: u.priority }),
        ...(u.queue === undefined ? {} : { queue: u.queue }),
      };
    },
  },
  // An explicit `maxRunning: undefined` (remove the limit) is written as null.
  queueDef: {
    data: (v) => queueDefData(v as QueueDef),
    of: (d) => queueDefOf(d as Parameters<typeof queueDefOf>[0]),
  },
  nodeNames: { data: (v) => [...(v as readonly string[])] },
};

/** A live input as a log's `event` line carries it: its fields in order, JSON-safe. */
export function liveInputData(
  input: Readonly<Record<string, unknown>> & { readonly kind: string },
  table: LiveInputTable = LIVE_INPUTS,
): Record<string, unknown> {
  const fields = table[input.kind].fields;
  const out: Record<string, unknown> = { kind: input.kind };
  for (const name in fields) {
    const v = input[name];
    if (v === undefined) continue;
    const form = LOG_FORMS[fields[name].type];
    out[name] = form === undefined ? v : form.data(v);
  }
  return out;
}

/** The live input a log's `event` line (already checked by its schema) stands for. */
export function liveInputOfData(
  data: Readonly<Record<string, unknown>> & { readonly kind: string },
  table: LiveInputTable = LIVE_INPUTS,
): Readonly<Record<string, unknown>> & { readonly kind: string } {
  const fields = table[data.kind].fields;
  let decoded = false;
  for (const name in fields) if (LOG_FORMS[fields[name].type]?.of !== undefined) decoded = true;
  // Most kinds read back as they are written.
  if (!decoded) return data;
  const out: Record<string, unknown> = { kind: data.kind };
  for (const name in fields) {
    const v = data[name];
    if (v === undefined) continue;
    const of = LOG_FORMS[fields[name].type]?.of;
    out[name] = of === undefined ? v : of(v);
  }
  return out as { readonly kind: string };
}
