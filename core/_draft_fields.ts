// The state's fields as a step sees them, declared once. `SimState`
// (core/state.ts) says what each field is; the table below says how a step
// treats it, in the order a frozen state lists its keys. The draft
// (core/_engine.ts, `Working`) takes its fields' names and types from here
// and copies them with one loop each way, so a field added to `SimState`
// fails to compile until it has its row (and, if edited, its protocol in
// `EDITS`, core/_cow.ts's copy-on-write protocol).

import { type CopyOnWrite, type LazyDraft, recordEdit, transientEdit } from "./_cow.ts";
import type { OrderedSet } from "./_ordered_set.ts";
import { policyFailure } from "./_policy_faults.ts";
import type { Vec } from "./_vector.ts";
import type { PendCode } from "./decisions.ts";
import type { LiveEvent } from "./live.ts";
import type { Picker } from "./picker.ts";
import type { QueueTable } from "./queues.ts";
import type { ResourceModel } from "./resource_model.ts";
import type { RunningSet } from "./running.ts";
import type { JobStore, ResourceEvent, ResourceModelState, SimState } from "./state.ts";
import type { MutableStatistics, StatisticsAccumulator } from "./statistics.ts";
import type { JobRecord, ResourceRow } from "./types.ts";

/**
 * How a step treats one field of the state:
 * - `kept`: the same value for the whole run or step (a configuration, a
 *   policy); the draft holds it read-only.
 * - `copied`: a number, flag or frozen record that the step replaces,
 *   never changes in place; copied in and out as it is.
 * - `edited`: a structure the step changes in place, through its
 *   copy-on-write protocol in `EDITS`.
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

/** The job store while a step edits it. */
export interface WorkingStore {
  firstId: number;
  records: Vec<JobRecord>;
  capacity: number;
  completedSinceFlush: number;
}

/** A resource model's state while a step edits it (opened on the first change). */
export interface ResourceDraft {
  readonly model: ResourceModel;
  state: unknown;
}

/** Fields opened on their first change: most steps leave them alone. */
export type LazyField = "queues" | "resources";

/** What the protocols below use of the draft. */
export interface DraftContext extends LazyDraft<LazyField> {
  readonly picker: Picker;
  readonly replay: boolean;
  readonly time: number;
}

// A picker hook called when a step begins or ends, its failure named.
function pickerCall<T>(s: DraftContext, call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw policyFailure(s.picker.name, s.time, e);
  }
}

/** The draft's edited fields: named as in `SimState`, typed as the step edits them. */
export interface EditedDraft {
  pickerState: unknown;
  queues: QueueTable;
  liveEvents: OrderedSet<LiveEvent>;
  pendCodes: OrderedSet<PendCode>;
  store: WorkingStore;
  arrivals: OrderedSet<JobRecord>;
  running: RunningSet;
  events: OrderedSet<ResourceEvent>;
  resourceBuffer: Vec<ResourceRow>;
  /** This step's own copy of the accumulator, updated in place. */
  stats: MutableStatistics;
  resources: ResourceDraft | undefined;
}

/** Each edited field's protocol: from its `SimState` value to its draft and back. */
export type Edits = {
  readonly [K in EditedField]: CopyOnWrite<SimState[K], EditedDraft[K], DraftContext>;
};

/** How a step edits each `edited` field (core/_cow.ts). */
export const EDITS: Edits = {
  // The picker's own structure, through its edit hooks (a schedule replay has no picker state).
  pickerState: {
    when: "eager",
    open: (value: unknown, w: DraftContext): unknown =>
      w.replay || w.picker.beginEdit === undefined
        ? value
        : pickerCall(w, () => w.picker.beginEdit!(value, w.owner)),
    close: (draft: unknown, w: DraftContext): unknown =>
      w.replay || w.picker.endEdit === undefined
        ? draft
        : pickerCall(w, () => w.picker.endEdit!(draft)),
  },
  // Changed by live queue updates and by running counts of configured queues.
  queues: {
    when: "lazy",
    open: (value: QueueTable): QueueTable => ({
      list: [...value.list],
      byName: new Map(value.byName),
    }),
    close: (draft: QueueTable): QueueTable =>
      Object.freeze({
        list: Object.freeze(draft.list.map((q) => Object.freeze(q))),
        byName: draft.byName,
      }),
  },
  liveEvents: transientEdit<OrderedSet<LiveEvent>>(),
  pendCodes: transientEdit<OrderedSet<PendCode>>(),
  store: {
    when: "eager",
    open: (value: JobStore, w: DraftContext): WorkingStore => ({
      ...value,
      records: value.records.transient(w.owner),
    }),
    close: (draft: WorkingStore): JobStore =>
      Object.freeze({
        firstId: draft.firstId,
        records: draft.records.persistent(),
        capacity: draft.capacity,
        completedSinceFlush: draft.completedSinceFlush,
      }),
  },
  arrivals: transientEdit<OrderedSet<JobRecord>>(true),
  running: transientEdit<RunningSet>(true),
  events: transientEdit<OrderedSet<ResourceEvent>>(true),
  resourceBuffer: transientEdit<Vec<ResourceRow>>(),
  stats: recordEdit<StatisticsAccumulator, MutableStatistics>(),
  // The model's state, through its edit hooks, once a job starts or ends or a node changes.
  resources: {
    when: "lazy",
    open: (value: ResourceModelState | undefined): ResourceDraft | undefined =>
      value && { model: value.model, state: value.model.beginEdit(value.state) },
    close: (draft: ResourceDraft | undefined): ResourceModelState | undefined =>
      draft && Object.freeze({ model: draft.model, state: draft.model.endEdit(draft.state) }),
  },
};

const EDITED_FIELDS = Object.keys(EDITS) as EditedField[];
const EAGER_FIELDS = EDITED_FIELDS.filter((k) => EDITS[k].when === "eager");
const LAZY_FIELDS = EDITED_FIELDS.filter((k) => EDITS[k].when === "lazy");

type AnyEdit = CopyOnWrite<unknown, unknown, DraftContext>;

/** Opens the eager fields of `from` into the draft; the lazy ones wait for `own`. */
export function openEditedFields(draft: EditedDraft & DraftContext, from: SimState): void {
  const target = draft as unknown as Record<string, unknown>;
  const source = from as unknown as Record<string, unknown>;
  for (const k of EAGER_FIELDS) target[k] = (EDITS[k] as AnyEdit).open(source[k], draft);
  for (const k of LAZY_FIELDS) target[k] = source[k];
}

/** Closes the draft's edited fields into the next state (a lazy one only if opened). */
export function closeEditedFields(next: NewState, draft: EditedDraft & DraftContext): void {
  const target = next as unknown as Record<string, unknown>;
  const source = draft as unknown as Record<string, unknown>;
  for (const k of EDITED_FIELDS) {
    const value = source[k];
    // Without a resource model a state has no `resources` key at all.
    if (value === undefined && k === "resources") continue;
    target[k] = EDITS[k].when === "lazy" && !draft.opened.has(k as LazyField)
      ? value
      : (EDITS[k] as AnyEdit).close(value, draft);
  }
}
