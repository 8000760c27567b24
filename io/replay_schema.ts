// The schemas of the `.replay` log's messages and of a snapshot value
// (zod), and how a schema failure is said in one line. Shapes only: the
// facts that tie messages together (order, sequence numbers, times) are
// checked by the log reader, and the facts inside a snapshot by the core
// when it is loaded.

import { z } from "zod/v4";

const num = z.number();
const int = z.number().int();
const nat = int.min(0);
const u32 = nat.max(0xffffffff);
const name = z.string().min(1);

const PEND_CODES = [
  "insufficient_nodes",
  "reservation_blocked",
  "behind_head",
  "backfill_skipped",
  "queue_limit",
  "queue_closed",
] as const;

/** A queue definition; `maxRunning: null` means explicitly no limit. */
export const QueueDefSchema = z.strictObject({
  name,
  priority: int.optional(),
  picker: name.optional(),
  project: z.string().optional(),
  maxRunning: nat.nullable().optional(),
  open: z.boolean().optional(),
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
  capacitySchedule: z.array(z.strictObject({ time: num, capacity: nat })),
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
  beginTime: num,
  endTime: num,
  rejected: z.boolean(),
  hidden: z.boolean(),
  unsubmitted: z.literal(true).optional(),
  outcome: OUTCOME.optional(),
  exitStatus: int.optional(),
});

const JobUpdateSchema = z.strictObject({ priority: int.optional(), queue: name.optional() });

const LiveEventSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("cancel"), time: num, seq: nat, id: nat }),
  z.strictObject({
    kind: z.literal("end"),
    time: num,
    seq: nat,
    id: nat,
    outcome: END_OUTCOME,
    exitStatus: int,
  }),
  z.strictObject({
    kind: z.literal("updateJob"),
    time: num,
    seq: nat,
    id: nat,
    update: JobUpdateSchema,
  }),
  z.strictObject({ kind: z.literal("updateQueue"), time: num, seq: nat, queue: QueueDefSchema }),
  z.strictObject({ kind: z.literal("capacity"), time: num, seq: nat, capacity: nat }),
]);

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
});

/** A snapshot value, as `saveSnapshot` returns it (the version is checked first). */
export const SnapshotSchema = z.strictObject({
  version: nat,
  config: ConfigSchema,
  time: num,
  rng: z.tuple([u32, u32, u32, u32]),
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
  pendCodes: z.array(z.tuple([nat, z.enum(PEND_CODES)])),
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
  resourceBuffer: z.array(z.strictObject({ time: num, freeNodes: int, allocatedNodes: nat })),
  stats: StatsSchema,
  finished: z.boolean(),
  overallocationReported: z.boolean(),
});

const JobSpecSchema = z.strictObject({
  submitTime: num,
  numNodes: nat,
  timeLimit: num,
  actualRunTime: num.optional(),
  queue: z.string().optional(),
  priority: int.optional(),
});

/** An advance target: a number, or the string "Infinity" (JSON has no infinity). */
const TARGET = z.union([num, z.literal("Infinity")]);

/** A reducer input, as an `event` message carries it. */
export const InputSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("appendJobs"),
    jobs: z.array(JobSpecSchema),
    submit: z.boolean().optional(),
    maxStoreCapacity: nat.optional(),
  }),
  z.strictObject({ kind: z.literal("submitJob"), id: nat, submitTime: num }),
  z.strictObject({ kind: z.literal("advanceTo"), time: TARGET }),
  z.strictObject({ kind: z.literal("runUntilExclusive"), time: TARGET }),
  z.strictObject({ kind: z.literal("runToCompletion") }),
  z.strictObject({ kind: z.literal("flush") }),
  z.strictObject({ kind: z.literal("finish") }),
  z.strictObject({ kind: z.literal("cancelJob"), id: nat, time: num.optional() }),
  z.strictObject({
    kind: z.literal("endJob"),
    id: nat,
    time: num.optional(),
    outcome: END_OUTCOME.optional(),
    exitStatus: int.optional(),
  }),
  z.strictObject({
    kind: z.literal("updateJob"),
    id: nat,
    update: JobUpdateSchema,
    time: num.optional(),
  }),
  z.strictObject({ kind: z.literal("updateQueue"), queue: QueueDefSchema, time: num.optional() }),
  z.strictObject({ kind: z.literal("changeCapacity"), capacity: nat, time: num.optional() }),
]);

/** A decision inside a session (its time and round are the session's). */
export const LogDecisionSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("DISPATCH"),
    jobId: nat,
    numNodes: nat,
    backfill: z.boolean(),
    queue: z.string().optional(),
  }),
  z.strictObject({
    type: z.literal("PEND"),
    jobId: nat,
    reason: z.strictObject({
      code: z.enum(PEND_CODES),
      message: z.string(),
      needed: num.optional(),
      free: num.optional(),
      end: num.optional(),
      reservation: num.optional(),
      blockedBy: nat.optional(),
      queue: z.string().optional(),
    }),
  }),
]);

const version = nat;

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
    input: InputSchema,
  }),
  session: z.strictObject({
    type: z.literal("session"),
    version,
    time: num,
    round: nat,
    decisions: z.array(LogDecisionSchema),
    summary: z.strictObject({
      decisions: nat,
      dispatched: nat,
      pended: nat,
      wallMs: num.min(0),
    }),
  }),
  end: z.strictObject({ type: z.literal("end"), version, seq: nat, time: num }),
} as const;

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
export type InputData = z.infer<typeof InputSchema>;
/** A decision as a session carries it. */
export type LogDecision = z.infer<typeof LogDecisionSchema>;

/** The first problem zod found, as `path: what was expected`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  let path = issue.path.map(String);
  let text = issue.message.replace(/^Invalid input: /, "");
  if (issue.code === "unrecognized_keys") {
    path = [...path, issue.keys[0]];
    text = "unknown field";
  } else if (issue.code === "invalid_union" && issue.path.length > 0) {
    text = "unknown value";
  } else if (issue.code === "invalid_type" && /received undefined$/.test(text)) {
    text = "required";
  }
  return path.length > 0 ? `${path.join(".")}: ${text}` : text;
}
