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
  type LiveInputDefinition,
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
 * import { type LiveFieldData, liveFieldData } from "./_live_inputs_derived.ts";
 * // An explicit "no limit" (maxRunning undefined) is written as null.
 * const q = liveFieldData("queueDef", { name: "batch", maxRunning: undefined }) as LiveFieldData["queueDef"];
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
 * import { liveInputData, type LiveInputData } from "./_live_inputs_derived.ts";
 * const line = liveInputData({ kind: "updateQueue", queue: { name: "batch", maxRunning: undefined } }) as LiveInputData;
 * console.assert(JSON.stringify(line) === '{"kind":"updateQueue","queue":{"name":"batch","maxRunning":null}}');
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

/** Whether a value is of a field type (a switch: `step` checks every input). */
function passes(type: LiveFieldType, v: unknown): boolean {
  switch (type) {
    case "jobId":
    case "time":
    case "integer":
    case "count":
      return typeof v === "number";
    case "outcome":
      return typeof v === "string";
    case "jobUpdate":
    case "queueDef":
      return isPlainObject(v);
    case "nodeNames":
      return Array.isArray(v) && v.every((n) => typeof n === "string");
  }
}

/** What a message says a field type expected. */
const EXPECTED: Readonly<Record<LiveFieldType, string>> = {
  jobId: "a job id (a number)",
  time: "a time in seconds (a number)",
  integer: "a number",
  count: "a number",
  outcome: "a string",
  jobUpdate: "an object",
  queueDef: "an object",
  nodeNames: "a list of node names",
};

// A kind's fields as flat lists, made once per table: `step` checks every
// input, so the per-call work is a loop over a few names and types.
interface FieldChecks {
  readonly names: readonly string[];
  readonly types: readonly LiveFieldType[];
  readonly optional: readonly boolean[];
}

function compile(table: LiveInputTable): Map<string, FieldChecks> {
  const out = new Map<string, FieldChecks>();
  for (const [kind, def] of Object.entries(table)) {
    const fields = Object.entries(def.fields);
    out.set(kind, {
      names: fields.map(([n]) => n),
      types: fields.map(([, f]) => f.type),
      optional: fields.map(([, f]) => f.optional),
    });
  }
  return out;
}

const BUILT_IN = compile(LIVE_INPUTS);

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
  const { names, types, optional } = (table === LIVE_INPUTS ? BUILT_IN : compile(table)).get(
    kind,
  )!;
  for (let i = 0; i < names.length; i++) {
    const v = input[names[i]];
    if (v === undefined && optional[i]) continue;
    if (!passes(types[i], v)) {
      throw usage(
        `${kind}: ${names[i]}: expected ${EXPECTED[types[i]]}, got ${describeValue(v)}`,
      );
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
  const sources = table === LIVE_INPUTS ? BUILT_IN_SOURCES.get(kind)! : sourcesOf(table[kind]);
  const out: Record<string, unknown> = { kind };
  for (let i = 0; i < sources.length; i++) {
    const { name, arg, option } = sources[i];
    const a = args[arg];
    const v = option ? (a === undefined || a === null ? undefined : (a as never)[name]) : a;
    if (v !== undefined) out[name] = v;
  }
  return out as { readonly kind: string };
}

// Where each field of a kind comes from among a creator's arguments (the
// argument's index, and whether it is a field of that options object), in
// the definition's field order; made once for the built-in table.
interface FieldSource {
  readonly name: string;
  readonly arg: number;
  readonly option: boolean;
}

function sourcesOf(def: LiveInputDefinition): FieldSource[] {
  const out: FieldSource[] = [];
  for (const name in def.fields) {
    const arg = def.params.findIndex((p) => typeof p === "string" ? p === name : p.includes(name));
    if (arg >= 0) out.push({ name, arg, option: typeof def.params[arg] !== "string" });
  }
  return out;
}

const BUILT_IN_SOURCES = new Map(
  Object.entries(LIVE_INPUTS as LiveInputTable).map(([kind, def]) => [kind, sourcesOf(def)]),
);

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

/** A field's value of `type` in its JSON form (a log's, a snapshot's). */
export function liveFieldData(type: LiveFieldType, v: unknown): unknown {
  const form = LOG_FORMS[type];
  return form === undefined ? v : form.data(v);
}

/** A field's value of `type` from its JSON form (the value itself when the form is the value). */
export function liveFieldOfData(type: LiveFieldType, d: unknown): unknown {
  const of = LOG_FORMS[type]?.of;
  return of === undefined ? d : of(d);
}

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
