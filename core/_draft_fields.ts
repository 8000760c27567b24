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
import type { GraceClaim } from "./_grace.ts";
import type { PendCode } from "./decisions.ts";
import type { LiveEvent } from "./live.ts";
import type { Picker } from "./picker.ts";
import type { QueueTable } from "./queues.ts";
import type { ResourceModel } from "./resource_model.ts";
import type { RunMode } from "./_run_mode.ts";
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

/** A role for every field of `SimState`, and nothing else. */
export type StateFieldRoles = { readonly [K in keyof Required<SimState>]: FieldRole };

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
  runMode: "kept",
  finished: "copied",
  overallocationReported: "copied",
  timeBound: "copied",
  graces: "edited",
  resources: "edited",
} as const satisfies StateFieldRoles;

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

/** No pending grace claim (the draft's value when the state has none). */
export const NO_GRACES: readonly GraceClaim[] = Object.freeze([]);

/** Fields opened on their first change: most steps leave them alone. */
export type LazyField = "queues" | "resources";

/** What the protocols below use of the draft. */
export interface DraftContext extends LazyDraft<LazyField> {
  readonly picker: Picker;
  readonly runMode: RunMode;
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
  /** Pending preemptions under a grace time (core/_grace.ts): replaced, never changed in place. */
  graces: readonly GraceClaim[];
  resources: ResourceDraft | undefined;
}

/** Each edited field's protocol: from its `SimState` value to its draft and back. */
export type Edits = {
  readonly [K in EditedField]: CopyOnWrite<SimState[K], EditedDraft[K], DraftContext>;
};

/** How a step edits each `edited` field (core/_cow.ts). */
export const EDITS: Edits = {
  // The picker's own structure, through its edit hooks (a schedule replay has none: nothing decides).
  pickerState: {
    when: "eager",
    open: (value: unknown, w: DraftContext): unknown =>
      !w.runMode.decides || w.picker.beginEdit === undefined
        ? value
        : pickerCall(w, () => w.picker.beginEdit!(value, w.owner)),
    close: (draft: unknown, w: DraftContext): unknown =>
      !w.runMode.decides || w.picker.endEdit === undefined
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
  // Replaced whole by core/_grace.ts; a state without a pending claim has none.
  graces: {
    when: "eager",
    open: (value: readonly GraceClaim[] | undefined): readonly GraceClaim[] => value ?? NO_GRACES,
    close: (draft: readonly GraceClaim[]): readonly GraceClaim[] | undefined =>
      draft.length === 0 ? undefined : Object.freeze(draft),
  },
  // The model's state, through its edit hooks, once a job starts or ends or a node changes.
  resources: {
    when: "lazy",
    open: (value: ResourceModelState | undefined): ResourceDraft | undefined =>
      value && { model: value.model, state: value.model.beginEdit(value.state) },
    close: (draft: ResourceDraft | undefined): ResourceModelState | undefined =>
      draft && Object.freeze({ model: draft.model, state: draft.model.endEdit(draft.state) }),
  },
};

/** The draft, as the generated copy below reads and writes it. */
export type Draft = PlainDraft & EditedDraft & LazyDraft<LazyField>;

// The copy in and out of the draft, written out once from STATE_FIELDS and
// EDITS when this module loads: named stores and one object literal in
// STATE_FIELDS order, as fast as a hand-written copy (a loop of keyed
// stores and a state built key by key cost each step about 1.5 µs more,
// a third of a small step), while the key list stays the only one.
const KEYS = Object.keys(STATE_FIELDS) as (keyof typeof STATE_FIELDS)[];
for (const k of KEYS) {
  if (!/^[A-Za-z_$][\w$]*$/.test(k)) throw new Error(`state field ${k} is not an identifier`);
}

// The draft's value of field `k` as the next state holds it.
function closed(k: keyof typeof STATE_FIELDS): string {
  if (STATE_FIELDS[k] !== "edited") return `w.${k}`;
  const close = `E.${k}.close(w.${k}, w)`;
  return EDITS[k as EditedField].when === "lazy" ? `(w.opened.${k} ? ${close} : w.${k})` : close;
}

// One statement filling draft field `k` from the state `s`.
function opened(k: keyof typeof STATE_FIELDS): string {
  const eager = STATE_FIELDS[k] === "edited" && EDITS[k as EditedField].when === "eager";
  return eager ? `this.${k} = E.${k}.open(s.${k}, w);` : `this.${k} = s.${k};`;
}

const LAZY = KEYS.filter((k) =>
  STATE_FIELDS[k] === "edited" && EDITS[k as EditedField].when === "lazy"
);

// Plain fields first: an edited field's protocol may read them (the picker, the mode).
const OPEN_ORDER = [
  ...KEYS.filter((k) => STATE_FIELDS[k] !== "edited"),
  ...KEYS.filter((k) => STATE_FIELDS[k] === "edited"),
];

const literal = (keys: readonly string[]) =>
  `{ ${keys.map((k) => `${k}: ${closed(k as keyof typeof STATE_FIELDS)}`).join(", ")} }`;

/**
 * The draft's base class, written out from STATE_FIELDS: its constructor
 * makes the step's edit token, copies the plain fields of the state `s`,
 * then opens the eager edited fields (the picker's `beginEdit` first) and
 * holds the lazy ones as they are until `own` opens them. Assigning them in
 * the constructor itself keeps them in the object, as declared fields were.
 */
export const DraftBase: new (s: SimState) => Draft = new Function(
  "E",
  `return class DraftBase {\nconstructor(s) {\nconst w = this;\nthis.owner = {};\nthis.opened = { ${
    LAZY.map((k) => `${k}: false`).join(", ")
  } };\n${OPEN_ORDER.map(opened).join("\n")}\n}\n};`,
)(EDITS);

/**
 * The next state from a draft: every field closed, in STATE_FIELDS order
 * (the picker's `endEdit` first, the resource model's last); `resources`
 * only with a model. Not yet frozen.
 */
export const closeDraft: (w: Draft) => SimState = new Function(
  "E",
  `return function closeDraft(w) {\n  return w.resources === undefined\n    ? ${
    literal(KEYS.filter((k) => k !== "resources"))
  }\n    : ${literal(KEYS)};\n};`,
)(EDITS);
