// The live-event inputs, each defined once (CONTRIBUTING.md, "A new live-event
// kind"): its kind, its fields with their types, its names on the other
// fronts. The reducer's `Input` type, `step`'s argument check, the library's
// creators, the `.replay` log's `event` codec and schema, and the names
// table of docs/seed-003-mapping.md are derived from this table (the
// derivations: core/_live_inputs_derived.ts, io/replay_schema.ts); how an
// event applies to the state stays in core/_live.ts (the handler).

import type { EndOutcome, JobUpdate } from "./live.ts";
import type { QueueDef } from "./queues.ts";

/**
 * The types a live input's field may have. Each has one check when the
 * input is given (`step`) and one JSON form in a `.replay` log.
 *
 * @example
 * ```ts
 * import { initialState, LIVE_INPUTS, type LiveFieldTypes, step } from "@evtsim/evtsim";
 * // A changeCapacity's `capacity` is a count: the value its field type stands for.
 * const capacity: LiveFieldTypes[typeof LIVE_INPUTS.changeCapacity.fields.capacity.type] = 2;
 * const s = step(initialState({ totalNodes: 8 }), { kind: "changeCapacity", capacity, time: 5 }).state;
 * const e = s.liveEvents.first();
 * console.assert(e?.kind === "capacity" && e.capacity === 2 && e.time === 5);
 * ```
 */
export interface LiveFieldTypes {
  /** A job's id (a whole number ≥ 0 in a log). */
  readonly jobId: number;
  /** A time in simulation seconds. */
  readonly time: number;
  /** A whole number (an exit status). */
  readonly integer: number;
  /** A count ≥ 0 (a node count). */
  readonly count: number;
  /** How a job ended: completed, failed or killed. */
  readonly outcome: EndOutcome;
  /** A waiting job's new priority or queue. */
  readonly jobUpdate: JobUpdate;
  /** A queue's definition (fields left out keep their value). */
  readonly queueDef: QueueDef;
  /** A list of node (or node group) names. */
  readonly nodeNames: readonly string[];
}

/** One of the {@link LiveFieldTypes}' names. */
export type LiveFieldType = keyof LiveFieldTypes;

/**
 * A field of a live input: its type, whether it may be left out, and what
 * it means.
 *
 * @example
 * ```ts
 * import { initialState, LIVE_INPUTS, type LiveField, step } from "@evtsim/evtsim";
 * // The fields an endJob must be given (the others have defaults): step refuses it without them.
 * const fields: Readonly<Record<string, LiveField>> = LIVE_INPUTS.endJob.fields;
 * const required = Object.entries(fields).filter(([, f]) => !f.optional).map(([name]) => name);
 * let message = "";
 * try {
 *   step(initialState({ totalNodes: 4 }), { kind: "endJob" } as never);
 * } catch (e) {
 *   message = (e as Error).message;
 * }
 * console.assert(required.join() === "id" && message.startsWith("endJob: id: expected"), message);
 * ```
 */
export interface LiveField {
  /** Its type: what `step` checks and how a log writes it. */
  readonly type: LiveFieldType;
  /** Whether the field may be left out (a left-out `time` means the clock). */
  readonly optional: boolean;
  /**
   * Whether the event waiting in the state may still lack it (otherwise the
   * handler fills in its default, and a snapshot always has it).
   */
  readonly optionalWhenStored?: boolean;
  /** What it means. */
  readonly doc: string;
}

/**
 * The definition of one live-event input: everything about it but how it
 * applies to the state (core/_live.ts).
 *
 * @example
 * ```ts
 * import { initialState, LIVE_INPUTS, type LiveInputDefinition, step } from "@evtsim/evtsim";
 * const d: LiveInputDefinition = LIVE_INPUTS.changeCapacity;
 * // One name for the library, the reducer and the log; the state keeps it as its `stored` kind.
 * const s = step(initialState({ totalNodes: 8 }), { kind: "changeCapacity", capacity: 4 }).state;
 * console.assert(s.liveEvents.first()?.kind === d.stored && d.seed === "WORKERS_PUSH");
 * ```
 */
export interface LiveInputDefinition {
  /** What it does, in one line. */
  readonly summary: string;
  /** Its fields, in the order they are checked, built and written to a log. */
  readonly fields: Readonly<Record<string, LiveField>>;
  /**
   * The library creator's and `Simulation` method's parameters: a field's
   * name, or a list of fields taken from one options object.
   */
  readonly params: readonly (string | readonly string[])[];
  /** The kind of the `LiveEvent` the state keeps until its time (and a snapshot stores). */
  readonly stored: string;
  /** The seed-003 interface's event (docs/seed-003-mapping.md). */
  readonly seed: string;
  /** The REPL's breakpoint events it shows as. */
  readonly repl: readonly string[];
  /** The `evtsim serve` HTTP route, or null when it is not served over HTTP. */
  readonly http: string | null;
  /** The gRPC request (DR_EVT's protocol and evtsim's own), or null when it has none. */
  readonly grpc: string | null;
}

/**
 * Every live-event input, by its one name (the reducer's `kind`, the
 * library's creator and `Simulation` method, the `.replay` log's `kind`).
 * Adding an entry adds the input everywhere it is derived; its handler goes
 * into core/_live.ts.
 *
 * @example
 * ```ts
 * import { LIVE_INPUTS, Simulation } from "@evtsim/evtsim";
 * console.assert(Object.keys(LIVE_INPUTS).join() === "cancelJob,endJob,updateJob,updateQueue,changeCapacity,changeNodes");
 * console.assert(Object.keys(LIVE_INPUTS.updateJob.fields).join() === "id,update,time");
 * // Each kind is a Simulation method of the same name.
 * const sim = new Simulation({ totalNodes: 4 });
 * const methods = Object.keys(LIVE_INPUTS).filter((k) => typeof Reflect.get(sim, k) === "function");
 * console.assert(methods.length === Object.keys(LIVE_INPUTS).length, methods.join());
 * ```
 */
export const LIVE_INPUTS = {
  cancelJob: {
    summary: "cancel a waiting job",
    fields: {
      id: { type: "jobId", optional: false, doc: "the job" },
      time: { type: "time", optional: true, doc: "when it takes effect (default: the clock)" },
    },
    params: ["id", "time"],
    stored: "cancel",
    seed: "JOB_STATE_CHANGE",
    repl: ["JOB_STATE_CHANGE"],
    http: "POST /sessions/{id}/jobs/{job}/cancel",
    grpc: null,
  },
  endJob: {
    summary: "end a running job (completed, failed or killed)",
    fields: {
      id: { type: "jobId", optional: false, doc: "the job" },
      time: { type: "time", optional: true, doc: "when it takes effect (default: the clock)" },
      outcome: { type: "outcome", optional: true, doc: "how it ended (default completed)" },
      exitStatus: {
        type: "integer",
        optional: true,
        doc: "its exit status (default 0, 1 or 137 by outcome)",
      },
    },
    params: ["id", "time", ["outcome", "exitStatus"]],
    stored: "end",
    seed: "JOB_STATE_CHANGE",
    repl: ["JOB_STATE_CHANGE"],
    http: "POST /sessions/{id}/jobs/{job}/end",
    grpc: null,
  },
  updateJob: {
    summary: "change a waiting job's priority or queue",
    fields: {
      id: { type: "jobId", optional: false, doc: "the job" },
      update: { type: "jobUpdate", optional: false, doc: "its new priority or queue" },
      time: { type: "time", optional: true, doc: "when it takes effect (default: the clock)" },
    },
    params: ["id", "update", "time"],
    stored: "updateJob",
    seed: "JOB_UPDATE",
    repl: ["JOB_UPDATE"],
    http: "POST /sessions/{id}/jobs/{job}/update",
    grpc: null,
  },
  updateQueue: {
    summary: "add a queue or change one",
    fields: {
      queue: { type: "queueDef", optional: false, doc: "the queue's definition" },
      time: { type: "time", optional: true, doc: "when it takes effect (default: the clock)" },
    },
    params: ["queue", "time"],
    stored: "updateQueue",
    seed: "QUEUE_UPDATE",
    repl: ["QUEUE_UPDATE"],
    http: "POST /sessions/{id}/queues",
    grpc: null,
  },
  changeCapacity: {
    summary: "set the usable node count",
    fields: {
      capacity: { type: "count", optional: false, doc: "the usable node count" },
      time: { type: "time", optional: true, doc: "when it takes effect (default: the clock)" },
    },
    params: ["capacity", "time"],
    stored: "capacity",
    seed: "WORKERS_PUSH",
    repl: [],
    http: "POST /sessions/{id}/capacity",
    grpc: "change_capacity",
  },
  changeNodes: {
    summary: "take a machine's nodes offline, back online or fail them, by name",
    fields: {
      down: { type: "nodeNames", optional: true, doc: "nodes going offline" },
      up: { type: "nodeNames", optional: true, doc: "nodes coming back online" },
      failed: {
        type: "nodeNames",
        optional: true,
        optionalWhenStored: true,
        doc: "nodes failing (their running jobs end at once)",
      },
      time: { type: "time", optional: true, doc: "when it takes effect (default: the clock)" },
    },
    params: [["down", "up", "failed", "time"]],
    stored: "nodes",
    seed: "WORKERS_PUSH",
    repl: ["NODE_REQUEST", "NODE_CHANGE"],
    http: "POST /sessions/{id}/capacity",
    grpc: "change_capacity",
  },
} as const satisfies Readonly<Record<string, LiveInputDefinition>>;

/** The live-event inputs' kinds. */
export type LiveInputKind = keyof typeof LIVE_INPUTS;

/**
 * The reducer input of one live-event kind, as {@link LIVE_INPUTS} defines it.
 *
 * @example
 * ```ts
 * import { type LiveInputOf, Simulation } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }, { submitTime: 0, numNodes: 4, timeLimit: 10 }]);
 * sim.advanceTo(0);
 * const cancel: LiveInputOf<"cancelJob"> = { kind: "cancelJob", id: 1, time: 5 };
 * sim.pushLiveEvent(cancel);
 * const row = sim.finish().jobs[1];
 * console.assert(row.outcome === "cancelled" && row.endTime === 5);
 * ```
 */
export type LiveInputOf<K extends LiveInputKind> =
  & { readonly kind: K }
  & LiveFieldValues<(typeof LIVE_INPUTS)[K]["fields"], LiveFieldTypes>;

/**
 * The fields `F` of a live input as values, each of its type in `T` (the
 * optional ones optional).
 *
 * @example
 * ```ts
 * import { LIVE_INPUTS, type LiveFieldTypes, type LiveFieldValues, Simulation } from "@evtsim/evtsim";
 * type EndFields = LiveFieldValues<typeof LIVE_INPUTS.endJob.fields, LiveFieldTypes>;
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 100 });
 * sim.advanceTo(10);
 * // Only the id is required: the end takes effect at the clock (10), as a completion.
 * const end: EndFields = { id: 0 };
 * sim.pushLiveEvent({ kind: "endJob", ...end });
 * const row = sim.finish().jobs[0];
 * console.assert(row.endTime === 10 && row.outcome === undefined);
 * ```
 */
export type LiveFieldValues<
  F extends Readonly<Record<string, LiveField>>,
  T extends Readonly<Record<LiveFieldType, unknown>>,
> =
  & { readonly [P in keyof F as F[P]["optional"] extends true ? never : P]: T[F[P]["type"]] }
  & { readonly [P in keyof F as F[P]["optional"] extends true ? P : never]?: T[F[P]["type"]] };

/**
 * Any live-event input (a variant of the reducer's `Input`).
 *
 * @example
 * ```ts
 * import { initialState, type LiveInput, step } from "@evtsim/evtsim";
 * const input: LiveInput = { kind: "changeCapacity", capacity: 4, time: 10 };
 * const s = step(initialState({ totalNodes: 8 }), input).state;
 * console.assert(s.liveEvents.first()?.kind === "capacity");
 * ```
 */
export type LiveInput = { [K in LiveInputKind]: LiveInputOf<K> }[LiveInputKind];

/** The definitions as a plain table (the derivations below take one, so a test can add a kind). */
export type LiveInputTable = Readonly<Record<string, LiveInputDefinition>>;

/**
 * The fields `F` of a live event as the state keeps it until its time (its
 * `time` and `seq` aside), each of its type in `T`: the handler has filled
 * in every default, so only an `optionalWhenStored` field may be missing.
 *
 * @example
 * ```ts
 * import {
 *   advanceTo, appendJobs, endJob, initialState, LIVE_INPUTS, type LiveFieldTypes,
 *   type LiveStoredValues, step,
 * } from "@evtsim/evtsim";
 * type StoredEnd = LiveStoredValues<typeof LIVE_INPUTS.endJob.fields, LiveFieldTypes>;
 * let s = step(initialState({ totalNodes: 4 }), appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 100 }])).state;
 * s = step(s, advanceTo(0)).state;
 * s = step(s, endJob(0, 30, { outcome: "killed" })).state;
 * const e = s.liveEvents.first();
 * if (e?.kind !== "end") throw new Error("an end waits in the state");
 * // Waiting, an end always has its outcome and exit status (the default filled in).
 * const end: StoredEnd = e;
 * console.assert(end.outcome === "killed" && end.exitStatus === 137);
 * ```
 */
export type LiveStoredValues<
  F extends Readonly<Record<string, LiveField>>,
  T extends Readonly<Record<LiveFieldType, unknown>>,
> =
  & {
    readonly [
      P in keyof F as P extends "time" ? never
        : F[P] extends { readonly optionalWhenStored: true } ? never
        : P
    ]: T[F[P]["type"]];
  }
  & {
    readonly [
      P in keyof F as P extends "time" ? never
        : F[P] extends { readonly optionalWhenStored: true } ? P
        : never
    ]?: T[F[P]["type"]];
  };
