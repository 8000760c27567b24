// The schemas of the `.replay` log's messages and of a snapshot value
// (zod), and how a schema failure is said in one line. Shapes only: the
// facts that tie messages together (order, sequence numbers, times) are
// checked by the log reader, and the facts inside a snapshot by the core
// when it is loaded.

import { z } from "zod/v4";
import { PEND_REASON_CODES } from "../core/decisions.ts";
import { jsonBoundProblem } from "../core/_json_bounds.ts";
import type { LiveInputData } from "../core/_live_inputs_derived.ts";
import type { LiveEventData } from "../core/snapshot.ts";
import { LIVE_INPUTS, type LiveFieldType, type LiveInputTable } from "../core/live_inputs.ts";

const num = z.number();
const int = z.number().int();
const nat = int.min(0);
const u32 = nat.max(0xffffffff);
const name = z.string().min(1);

// Free-form JSON (picker settings, a picker's memory), bounded in depth and
// size before anything walks it recursively.
function boundedJson<T extends z.ZodType>(schema: T) {
  return schema.superRefine((v, ctx) => {
    const problem = jsonBoundProblem(v);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  });
}

/** What a job asks of a resource model (`ResourceDemand`). */
export const DemandSchema = z.strictObject({
  name: z.string().optional(),
  replicas: int.min(1),
  perReplica: z.record(z.string(), nat),
  topologyKey: z.string().optional(),
});

/** A node of a resource model (`ModelNode`). */
const ModelNodeSchema = z.strictObject({
  name,
  capacity: z.record(z.string(), nat),
  labels: z.record(z.string(), z.string()).optional(),
});

/** A queue definition; `maxRunning: null` means explicitly no limit. */
export const QueueDefSchema = z.strictObject({
  name,
  priority: int.optional(),
  picker: name.optional(),
  project: z.string().optional(),
  maxRunning: nat.nullable().optional(),
  open: z.boolean().optional(),
  preemptMode: z.enum(["off", "requeue", "cancel", "suspend"]).optional(),
  graceTime: num.nonnegative().optional(),
});

/** The configuration in a header or a snapshot. */
export const ConfigSchema = z.strictObject({
  totalNodes: int.positive(),
  backfillPolicy: name,
  priorityPolicy: z.enum(["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"]),
  picker: name,
  queues: z.array(QueueDefSchema),
  decisions: z.union([z.boolean(), z.literal("heads")]),
  runTimeMode: z.enum(["actual", "limit", "distribution", "external"]),
  runTimeDistribution: z.enum(["normal", "lognormal", "uniform"]),
  runTimeScale: num.positive(),
  runTimeStddev: num.min(0),
  seed: num,
  jobStoreCapacity: nat,
  jobStoreOverflow: z.enum(["abort", "grow"]),
  jobFlushInterval: nat,
  resourceHistoryCapacity: nat,
  startTime: num,
  capacitySchedule: z.array(
    z.strictObject({
      time: num,
      capacity: nat,
      down: z.array(name).optional(),
      up: z.array(name).optional(),
      failed: z.array(name).optional(),
    }),
  ),
  onCapacityCut: z.enum(["drain", "kill"]).optional(),
  capacitySemantics: z.enum(["evtsim", "drevt"]).optional(),
  onNodeFailure: z.enum(["kill", "requeue"]).optional(),
  requeueLimit: nat.optional(),
  pickerSettings: boundedJson(z.record(z.string(), z.unknown())).optional(),
  powerCap: num.min(0).optional(),
  powerCapSchedule: z.array(z.strictObject({ time: num, watts: num.min(0) })).optional(),
  idleWatts: num.min(0).optional(),
  busyWatts: num.min(0).optional(),
  nodeWatts: z.array(
    z.strictObject({ nodes: nat.min(1), idleWatts: num.min(0), busyWatts: num.min(0) }),
  ).optional(),
  resourceNodes: z.array(ModelNodeSchema).optional(),
});

const OUTCOME = z.enum(["cancelled", "failed", "killed"]);
const END_OUTCOME = z.enum(["completed", "failed", "killed"]);

const JobRecordSchema = z.strictObject({
  id: nat,
  submitTime: num,
  numNodes: nat,
  timeLimit: num,
  runTime: num,
  queue: z.string().optional(),
  priority: int,
  user: z.string().optional(),
  account: z.string().optional(),
  beginTime: num,
  endTime: num,
  rejected: z.boolean(),
  hidden: z.boolean(),
  unsubmitted: z.literal(true).optional(),
  outcome: OUTCOME.optional(),
  exitStatus: int.optional(),
  demand: DemandSchema.optional(),
  requeues: nat.optional(),
  firstSubmitTime: num.optional(),
  preemptions: nat.optional(),
  power: num.min(0).optional(),
  suspensions: nat.optional(),
  firstBeginTime: num.optional(),
  fullTimeLimit: num.optional(),
  suspendedAt: num.optional(),
  suspendedSeconds: num.optional(),
  graceStop: num.optional(),
});

const JobUpdateSchema = z.strictObject({ priority: int.optional(), queue: name.optional() });

/** Each live-field type's JSON form in a log (core/live_inputs.ts). */
const LIVE_FIELD_SCHEMAS: Readonly<Record<LiveFieldType, z.ZodType>> = {
  jobId: nat,
  time: num,
  integer: int,
  count: nat,
  outcome: END_OUTCOME,
  jobUpdate: JobUpdateSchema,
  queueDef: QueueDefSchema,
  nodeNames: z.array(z.string()),
};

// A live event waiting in the state, as a snapshot stores it: its stored
// kind, time and sequence number, then its other fields in the definition's
// order (core/live_inputs.ts), each filled in by the handler unless it may
// stay out.
const LiveEventSchema = z.discriminatedUnion(
  "kind",
  Object.values(LIVE_INPUTS as LiveInputTable).map((def) => {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, field] of Object.entries(def.fields)) {
      if (name === "time") continue;
      const schema = LIVE_FIELD_SCHEMAS[field.type];
      shape[name] = field.optionalWhenStored === true ? schema.optional() : schema;
    }
    return z.strictObject({ kind: z.literal(def.stored), time: num, seq: nat, ...shape });
  }) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<LiveEventData>;

const StatsSchema = z.strictObject({
  jobsCreated: nat,
  jobsRejected: nat,
  jobsStarted: nat,
  jobsCompleted: nat,
  jobsCancelled: nat,
  jobsFailed: nat,
  jobsKilled: nat,
  sumWait: num,
  maxWait: num,
  sumTurnaround: num,
  sumBoundedSlowdown: num,
  nodeSeconds: num,
  firstSubmit: num.nullable(),
  lastEnd: num.nullable(),
  queueSamples: nat,
  queueSampleSum: num,
  queueSampleMax: nat,
  lostWork: num.optional(),
  requeues: nat.optional(),
  maxRequeues: nat.optional(),
  preemptedWork: num.optional(),
  preemptions: nat.optional(),
  maxPreemptions: nat.optional(),
  suspensions: nat.optional(),
  suspendedSeconds: num.optional(),
});

/** A snapshot value, as `saveSnapshot` returns it (the version is checked first). */
export const SnapshotSchema = z.strictObject({
  version: nat,
  config: ConfigSchema,
  time: num,
  rng: z.union([
    z.null(),
    z.strictObject({ index: z.int().min(0).max(624), words: z.array(u32).length(624) }),
  ]),
  nextJobId: nat,
  store: z.strictObject({
    firstId: nat,
    capacity: nat,
    completedSinceFlush: nat,
    records: z.array(JobRecordSchema),
  }),
  arrivals: z.array(nat),
  queues: z.array(QueueDefSchema),
  liveEvents: z.array(LiveEventSchema),
  liveSeq: nat,
  round: nat,
  pendCodes: z.array(z.tuple([nat, z.enum(PEND_REASON_CODES)])),
  events: z.array(z.strictObject({
    time: num,
    kind: z.union([z.literal(0), z.literal(1)]),
    id: nat,
    numNodes: nat,
    beginTime: num,
    timeLimit: num,
  })),
  allocatedNodes: nat,
  capacity: nat,
  capacityIndex: nat,
  sampled: z.boolean(),
  resourceBuffer: z.array(
    z.strictObject({ time: num, freeNodes: int, allocatedNodes: nat, power: num.optional() }),
  ),
  stats: StatsSchema,
  finished: z.boolean(),
  overallocationReported: z.boolean(),
  graces: z.array(z.strictObject({
    preemptor: nat,
    victims: z.array(nat),
    modes: z.array(z.enum(["requeue", "cancel", "suspend"])),
  })).optional(),
  pickerMemory: boundedJson(z.unknown()).optional(),
  allocations: z.array(z.tuple([nat, z.array(z.tuple([name, int.min(1)]))])).optional(),
  offline: z.array(name).optional(),
});

/** The fields of a job, in the order a job table's columns list them. */
export const JOB_COLUMNS = [
  "submitTime",
  "numNodes",
  "timeLimit",
  "actualRunTime",
  "queue",
  "priority",
  "user",
  "account",
  "demand",
  "power",
] as const;

/** A job field's name. */
export type JobColumn = (typeof JOB_COLUMNS)[number];

const isFiniteNumber = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const CELL: Record<JobColumn, { ok: (x: unknown) => boolean; expected: string }> = {
  submitTime: { ok: isFiniteNumber, expected: "a number" },
  numNodes: { ok: (x) => Number.isSafeInteger(x) && (x as number) >= 0, expected: "a node count" },
  timeLimit: { ok: isFiniteNumber, expected: "a number" },
  actualRunTime: { ok: (x) => x === null || isFiniteNumber(x), expected: "a number or null" },
  queue: { ok: (x) => x === null || typeof x === "string", expected: "a string or null" },
  priority: { ok: (x) => x === null || Number.isSafeInteger(x), expected: "an integer or null" },
  user: { ok: (x) => x === null || typeof x === "string", expected: "a string or null" },
  account: { ok: (x) => x === null || typeof x === "string", expected: "a string or null" },
  demand: {
    ok: (x) => x === null || DemandSchema.safeParse(x).success,
    expected: "a demand (replicas, perReplica, topologyKey) or null",
  },
  power: { ok: (x) => x === null || (isFiniteNumber(x) && x >= 0), expected: "watts or null" },
};

/**
 * The jobs of an append as a table: `columns` names the fields (the three
 * required ones first, then those of the optional ones any job has, in
 * {@link JOB_COLUMNS} order) and each row gives one job's values, null for
 * an optional field the job does not have. A trace's jobs as objects would
 * repeat every field name in every job: three times the bytes.
 */
export const JobTableSchema = z.strictObject({
  columns: z.array(z.enum(JOB_COLUMNS)),
  // Checked row by row below: an array schema per row would copy every cell.
  rows: z.custom<unknown[][]>(Array.isArray, { message: "expected an array of rows" }),
}).superRefine((t, ctx) => {
  const cols = t.columns;
  const at = cols.map((c) => JOB_COLUMNS.indexOf(c));
  if (
    cols[0] !== "submitTime" || cols[1] !== "numNodes" || cols[2] !== "timeLimit" ||
    at.some((k, i) => i > 0 && k <= at[i - 1])
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["columns"],
      message: `expected submitTime, numNodes, timeLimit, then some of ${
        JOB_COLUMNS.slice(3).join(", ")
      } in that order`,
    });
    return;
  }
  const checks = cols.map((c) => CELL[c]);
  for (let i = 0; i < t.rows.length; i++) {
    const row = t.rows[i];
    if (!Array.isArray(row) || row.length !== cols.length) {
      ctx.addIssue({
        code: "custom",
        path: ["rows", i],
        message: `expected ${cols.length} values (${cols.join(", ")})`,
      });
      return;
    }
    for (let j = 0; j < row.length; j++) {
      if (!checks[j].ok(row[j])) {
        ctx.addIssue({
          code: "custom",
          path: ["rows", i, j],
          message: `${cols[j]}: expected ${checks[j].expected}`,
        });
        return;
      }
    }
  }
});

/** An advance target: a number, or the string "Infinity" (JSON has no infinity). */
const TARGET = z.union([num, z.literal("Infinity")]);

/**
 * The `event` line's schema of each live input of `table`, from its
 * definition: its fields in order, the optional ones optional.
 */
export function liveInputSchemas(table: LiveInputTable = LIVE_INPUTS) {
  return Object.entries(table).map(([kind, def]) => {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, field] of Object.entries(def.fields)) {
      const schema = LIVE_FIELD_SCHEMAS[field.type];
      shape[name] = field.optional ? schema.optional() : schema;
    }
    return z.strictObject({ kind: z.literal(kind), ...shape });
  });
}

// The reducer's own inputs; the live ones follow, from their definitions.
const BASE_INPUT_SCHEMAS = [
  z.strictObject({
    kind: z.literal("appendJobs"),
    jobs: JobTableSchema,
    submit: z.boolean().optional(),
    maxStoreCapacity: nat.optional(),
  }),
  z.strictObject({ kind: z.literal("submitJob"), id: nat, submitTime: num }),
  z.strictObject({ kind: z.literal("advanceTo"), time: TARGET }),
  z.strictObject({ kind: z.literal("runUntilExclusive"), time: TARGET }),
  z.strictObject({ kind: z.literal("runToCompletion") }),
  z.strictObject({ kind: z.literal("flush") }),
  z.strictObject({ kind: z.literal("finish") }),
] as const;

/** A reducer input, as an `event` message carries it. */
export const InputSchema = z.discriminatedUnion("kind", [
  ...BASE_INPUT_SCHEMAS,
  ...liveInputSchemas(),
]);

// The same schema, typed with the live inputs' precise fields (a schema
// built from a table types its fields loosely).
const EventInputSchema = InputSchema as unknown as z.ZodType<InputData>;

const REASON = z.strictObject({
  code: z.enum(PEND_REASON_CODES),
  message: z.string(),
  needed: num.optional(),
  free: num.optional(),
  end: num.optional(),
  reservation: num.optional(),
  blockedBy: nat.optional(),
  queue: z.string().optional(),
  capacity: nat.optional(),
  draw: num.optional(),
  powerCap: num.optional(),
});

/** A decision inside a session: see {@link LogDecisionSchema}. */
export type LogDecision =
  | readonly ["DISPATCH", number, number]
  | readonly ["DISPATCH", number, number, "backfill"]
  | readonly ["PEND", number, z.infer<typeof REASON>]
  | readonly [
    "PREEMPT",
    number,
    readonly number[],
    readonly ("requeue" | "cancel" | "suspend")[],
    z.infer<typeof REASON>,
  ]
  | readonly [
    "PREEMPT",
    number,
    readonly number[],
    readonly ("requeue" | "cancel" | "suspend")[],
    z.infer<typeof REASON>,
    readonly number[],
  ];

const isNat = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

function isLogDecision(d: unknown): d is LogDecision {
  if (!Array.isArray(d) || !isNat(d[1])) return false;
  if (d[0] === "DISPATCH") {
    return isNat(d[2]) && (d.length === 3 || (d.length === 4 && d[3] === "backfill"));
  }
  if (d[0] === "PREEMPT") return isPreempt(d);
  return d[0] === "PEND" && d.length === 3 && REASON.safeParse(d[2]).success;
}

// ["PREEMPT", job, victims, modes, reason(, graces)]: a mode (and a grace
// time, when a victim's queue has one) for each victim.
function isPreempt(d: unknown[]): boolean {
  const [, , victims, modes, reason, graces] = d;
  const graced = d.length === 6 && Array.isArray(graces) &&
    graces.length === (victims as unknown[])?.length &&
    graces.every((g) => typeof g === "number" && g >= 0 && Number.isFinite(g)) &&
    graces.some((g) => g > 0);
  return (d.length === 5 || graced) && Array.isArray(victims) && victims.length > 0 &&
    victims.every(isNat) && Array.isArray(modes) && modes.length === victims.length &&
    modes.every((m) => m === "requeue" || m === "cancel" || m === "suspend") &&
    REASON.safeParse(reason).success;
}

/**
 * A decision inside a session (its time and round are the session's), as a
 * short array: `["DISPATCH", job, nodes]`, `["DISPATCH", job, nodes,
 * "backfill"]`, `["PEND", job, reason]` or `["PREEMPT", job, victims, modes,
 * reason]`. A session line is written for
 * nearly every round of a run, so its size is most of a log's size, and the
 * check is a plain function (a union of tuple schemas costs several times
 * more per decision).
 */
export const LogDecisionSchema: z.ZodType<LogDecision> = z.custom<LogDecision>(isLogDecision, {
  message: 'expected ["DISPATCH", job, nodes], ["DISPATCH", job, nodes, "backfill"] or ' +
    '["PEND", job, {code, message, …}] or ["PREEMPT", job, [victims], [modes], {code, …}]',
});

const version = nat;

/**
 * A policy module a recording used (`--policy_module`): its absolute path and
 * the SHA-256 of its source (64 hex digits, as `sha256sum` prints it), so a
 * replay loads the same code or says that it cannot.
 *
 * @example
 * ```ts
 * import { type PolicyModuleRef, Simulation } from "@evtsim/evtsim";
 * const m: PolicyModuleRef = { path: "/home/me/my_policies.ts", sha256: "ab".repeat(32) };
 * let log = "";
 * const sim = new Simulation({ totalNodes: 4 });
 * sim.startRecording({ write: (text) => void (log += text) }, { policyModules: [m] });
 * sim.stopRecording();
 * // The recording's header names the module, for a replay to load it again.
 * const header = JSON.parse(log.split("\n")[0]);
 * console.assert(header.type === "header" && header.policyModules[0].sha256 === m.sha256);
 * ```
 */
export interface PolicyModuleRef {
  /** The module's absolute path. */
  readonly path: string;
  /** SHA-256 of the module's source file (64 lower-case hex digits). */
  readonly sha256: string;
}

/** The schema of a {@link PolicyModuleRef} in a header. */
export const PolicyModuleSchema = z.strictObject({
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "expected 64 hex digits"),
});

/** The schema of each message type. */
export const MESSAGE_SCHEMAS = {
  header: z.strictObject({
    type: z.literal("header"),
    version,
    evtsim: z.string(),
    config: ConfigSchema,
    configHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, "expected sha256:<64 hex digits>"),
    startTime: num,
    wallStart: z.string().nullable(),
    snapshotInterval: nat,
    origin: z.enum(["recording", "resimulation"]),
    // Absent in logs of runs without policy modules (and in older logs).
    policyModules: z.array(PolicyModuleSchema).optional(),
  }),
  snapshot: z.strictObject({
    type: z.literal("snapshot"),
    version,
    seq: nat,
    time: num,
    state: SnapshotSchema,
  }),
  event: z.strictObject({
    type: z.literal("event"),
    version,
    seq: nat,
    time: num,
    input: EventInputSchema,
  }),
  session: z.strictObject({
    type: z.literal("session"),
    version,
    time: num,
    round: nat,
    decisions: z.array(LogDecisionSchema),
    summary: z.strictObject({ dispatched: nat, pended: nat, wallMs: num.min(0) }),
  }),
  end: z.strictObject({ type: z.literal("end"), version, seq: nat, time: num }),
} as const;

const isFiniteNum = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

/**
 * A fast check for the common session message: true only for a value the
 * session schema accepts with DISPATCH decisions only (PEND reasons, odd
 * shapes and every failure are left to the schema, which also words the
 * error). Keys are counted, so an unknown key is never let through.
 */
export function isPlainSession(m: unknown): boolean {
  if (m === null || typeof m !== "object" || Array.isArray(m)) return false;
  const o = m as Record<string, unknown>;
  let keys = 0;
  for (const _ in o) keys++;
  if (
    keys !== 6 || o.type !== "session" || !isNat(o.version) || !isFiniteNum(o.time) ||
    !isNat(o.round) || !Array.isArray(o.decisions)
  ) return false;
  for (const d of o.decisions) {
    if (!Array.isArray(d) || d[0] !== "DISPATCH" || !isNat(d[1]) || !isNat(d[2])) return false;
    if (d.length !== 3 && !(d.length === 4 && d[3] === "backfill")) return false;
  }
  const s = o.summary;
  if (s === null || typeof s !== "object" || Array.isArray(s)) return false;
  const x = s as Record<string, unknown>;
  let n = 0;
  for (const _ in x) n++;
  return n === 3 && isNat(x.dispatched) && isNat(x.pended) && isFiniteNum(x.wallMs) &&
    x.wallMs >= 0;
}

/** The message types, in the order a log introduces them. */
export const MESSAGE_TYPES = Object.keys(MESSAGE_SCHEMAS) as (keyof typeof MESSAGE_SCHEMAS)[];

/** A header message. */
export type HeaderMessage = z.infer<typeof MESSAGE_SCHEMAS.header>;
/** A snapshot message. */
export type SnapshotMessage = z.infer<typeof MESSAGE_SCHEMAS.snapshot>;
/** An event message. */
export type EventMessage = z.infer<typeof MESSAGE_SCHEMAS.event>;
/** A session message. */
export type SessionMessage = z.infer<typeof MESSAGE_SCHEMAS.session>;
/** An end message. */
export type EndMessage = z.infer<typeof MESSAGE_SCHEMAS.end>;
/** Any message. */
export type LogMessage =
  | HeaderMessage
  | SnapshotMessage
  | EventMessage
  | SessionMessage
  | EndMessage;
/** An input as an event carries it. */
export type InputData = z.infer<(typeof BASE_INPUT_SCHEMAS)[number]> | LiveInputData;

/** The first problem zod found, as `path: what was expected`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  let path = issue.path.map(String);
  let text = issue.message.replace(/^Invalid (input|option): /, "");
  if (issue.code === "unrecognized_keys") {
    path = [...path, issue.keys[0]];
    text = "unknown field";
  } else if (issue.code === "invalid_union" && "options" in issue && Array.isArray(issue.options)) {
    // A discriminated union (an input's kind): name what it may be.
    text = `expected one of ${issue.options.join(", ")}`;
  } else if (issue.code === "invalid_union" && issue.path.length > 0) {
    text = "unknown value";
  } else if (issue.code === "invalid_type" && /received undefined$/.test(text)) {
    text = "required";
  }
  return path.length > 0 ? `${path.join(".")}: ${text}` : text;
}
