// The state's fields as a step sees them, declared once. `SimState`
// (core/state.ts) says what each field is; the table below says how a step
// treats it, in the order a frozen state lists its keys. The draft
// (core/_engine.ts, `Working`) takes its plain fields' names and types from
// here and copies them with one loop each way, so a field added to
// `SimState` fails to compile until it has its row.

import type { SimState } from "./state.ts";

/**
 * How a step treats one field of the state:
 * - `kept`: the same value for the whole run or step (a configuration, a
 *   policy); the draft holds it read-only.
 * - `copied`: a number, flag or frozen record that the step replaces,
 *   never changes in place; copied in and out as it is.
 * - `edited`: a structure the step changes in place; it has its own code
 *   to open it for the step and close it into the next state.
 */
export type FieldRole = "kept" | "copied" | "edited";

/** Every field of `SimState` and its role, in a frozen state's key order. */
export const STATE_FIELDS = {
  config: "kept",
  picker: "kept",
  pickerState: "edited",
  admission: "kept",
  admissionMemory: "copied",
  registry: "kept",
  queues: "edited",
  liveEvents: "edited",
  liveSeq: "copied",
  round: "copied",
  pendCodes: "edited",
  time: "copied",
  rng: "copied",
  nextJobId: "copied",
  store: "edited",
  arrivals: "edited",
  running: "edited",
  events: "edited",
  allocatedNodes: "copied",
  capacity: "copied",
  capacityIndex: "copied",
  sampled: "copied",
  resourceBuffer: "edited",
  resourceBufferLength: "copied",
  stats: "edited",
  replay: "kept",
  finished: "copied",
  overallocationReported: "copied",
  timeBound: "copied",
  resources: "edited",
} as const satisfies { readonly [K in keyof Required<SimState>]: FieldRole };

type FieldsWith<R extends FieldRole> = {
  [K in keyof typeof STATE_FIELDS]: (typeof STATE_FIELDS)[K] extends R ? K : never;
}[keyof typeof STATE_FIELDS];

/** Fields the draft holds read-only. */
export type KeptField = FieldsWith<"kept">;
/** Fields the draft copies in and out as they are. */
export type CopiedField = FieldsWith<"copied">;
/** Fields with their own open/close code. */
export type EditedField = FieldsWith<"edited">;

/** The draft's plain fields: named and typed as in `SimState`. */
export type PlainDraft =
  & { readonly [K in KeptField]: SimState[K] }
  & { -readonly [K in CopiedField]: SimState[K] };

/** The kept and copied fields, in `STATE_FIELDS` order. */
export const PLAIN_FIELDS: readonly (KeptField | CopiedField)[] = Object.keys(STATE_FIELDS)
  .filter((k) => STATE_FIELDS[k as keyof typeof STATE_FIELDS] !== "edited") as (
    | KeptField
    | CopiedField
  )[];

/** Copies the plain fields of `from` into `to` (a draft, or the next state). */
export function copyPlainFields(to: PlainDraft, from: PlainDraft): void {
  const target = to as unknown as Record<string, unknown>;
  const source = from as unknown as Record<string, unknown>;
  for (const k of PLAIN_FIELDS) target[k] = source[k];
}

/** A state under construction: every field writable. */
export type NewState = { -readonly [K in keyof SimState]: SimState[K] };

// The key order of a frozen state (STATE_FIELDS'), without and with a
// resource model. A new state starts as a copy of one, so that every state
// has the same keys in the same order and V8 gives them one fast shape
// (an object built key by key from `{}` would not get one).
const SHAPE = Object.freeze(
  Object.fromEntries(Object.keys(STATE_FIELDS).filter((k) => k !== "resources").map((k) => [k, 0])),
);
const SHAPE_WITH_RESOURCES = Object.freeze(
  Object.fromEntries(Object.keys(STATE_FIELDS).map((k) => [k, 0])),
);

/** A state whose fields are all still to be set; `resources` only when `withResources`. */
export function newState(withResources: boolean): NewState {
  return { ...(withResources ? SHAPE_WITH_RESOURCES : SHAPE) } as unknown as NewState;
}
