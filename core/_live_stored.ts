// The live event a live input stands for, derived from the inputs'
// definitions (core/live_inputs.ts): `step` has one branch for every live
// input (no case per kind), the handler (core/_live.ts) checks the event
// and fills in its defaults, and a snapshot stores it in the definition's
// field order. A new kind needs none of these edited.

import { liveFieldData, liveFieldOfData } from "./_live_inputs_derived.ts";
import type { LiveEvent } from "./live.ts";
import {
  LIVE_INPUTS,
  type LiveFieldType,
  type LiveFieldTypes,
  type LiveFieldValues,
  type LiveInput,
  type LiveInputKind,
  type LiveInputTable,
} from "./live_inputs.ts";

/**
 * A live event as its input gives it to the handler (`pushLiveEvent`):
 * the stored kind and the input's fields, before the handler checks them,
 * fills in the defaults and gives the event its sequence number.
 */
export type LiveEventInput = {
  [K in LiveInputKind]:
    & { readonly kind: (typeof LIVE_INPUTS)[K]["stored"] }
    & LiveFieldValues<(typeof LIVE_INPUTS)[K]["fields"], LiveFieldTypes>;
}[LiveInputKind];

// Per input kind: the stored kind and the field names and types in the
// definition's order, made once for the built-in table (`step` reads them
// for every live input).
interface StoredForm {
  readonly stored: string;
  readonly names: readonly string[];
  readonly types: readonly LiveFieldType[];
}

function formsOf(table: LiveInputTable): Map<string, StoredForm> {
  return new Map(
    Object.entries(table).map(([kind, def]) => [kind, {
      stored: def.stored,
      names: Object.keys(def.fields),
      types: Object.values(def.fields).map((f) => f.type),
    }]),
  );
}

// The same forms by stored kind (a snapshot names the stored kind).
function byStored(forms: Map<string, StoredForm>): Map<string, StoredForm> {
  return new Map([...forms.values()].map((f) => [f.stored, f]));
}

const FORMS = formsOf(LIVE_INPUTS);
const BY_STORED = byStored(FORMS);

const formsFor = (table: LiveInputTable) => table === LIVE_INPUTS ? FORMS : formsOf(table);
const storedFor = (table: LiveInputTable) =>
  table === LIVE_INPUTS ? BY_STORED : byStored(formsOf(table));

/** Whether an input is one of the live-event inputs (`LIVE_INPUTS`' kinds). */
export function isLiveInput(input: { readonly kind: string }): input is LiveInput {
  return FORMS.has(input.kind);
}

/**
 * The live event a live input stands for: its definition's stored kind,
 * then the input's fields in the definition's order, the ones not given
 * left out (the handler fills in their defaults).
 */
export function liveEventInput(
  input: LiveInput,
  table: LiveInputTable = LIVE_INPUTS,
): LiveEventInput {
  const { stored, names } = formsFor(table).get(input.kind)!;
  const given = input as unknown as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = { kind: stored };
  for (let i = 0; i < names.length; i++) {
    const v = given[names[i]];
    if (v !== undefined) out[names[i]] = v;
  }
  return out as LiveEventInput;
}

/**
 * A stored live event as a snapshot keeps it (JSON-safe): kind, time and
 * seq, then its other fields in the definition's order, each in its log
 * form; a field the event lacks (only an `optionalWhenStored` one can) is
 * left out.
 */
export function liveEventData(
  e: LiveEvent,
  table: LiveInputTable = LIVE_INPUTS,
): Record<string, unknown> {
  const { names, types } = storedFor(table).get(e.kind)!;
  const fields = e as unknown as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = { kind: e.kind, time: e.time, seq: e.seq };
  for (let i = 0; i < names.length; i++) {
    if (names[i] === "time") continue;
    const v = fields[names[i]];
    if (v !== undefined) out[names[i]] = liveFieldData(types[i], v);
  }
  return out;
}

/** The stored live event a snapshot's (already checked) data stands for. */
export function liveEventOfData(
  d: Readonly<Record<string, unknown>>,
  table: LiveInputTable = LIVE_INPUTS,
): LiveEvent {
  const { names, types } = storedFor(table).get(d.kind as string)!;
  let decoded: Record<string, unknown> | undefined;
  for (let i = 0; i < names.length; i++) {
    const v = d[names[i]];
    if (v === undefined || names[i] === "time") continue;
    const of = liveFieldOfData(types[i], v);
    if (of !== v) (decoded ??= { ...d })[names[i]] = of;
  }
  // Most kinds read back as they are stored.
  return (decoded ?? d) as unknown as LiveEvent;
}
