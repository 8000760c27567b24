// The zod schemas of the HTTP front: they validate every request body and
// parameter, and the OpenAPI document at /openapi.json is generated from
// them (http.ts), so the document and the checks cannot drift apart.

import { z } from "@hono/zod-openapi";
import { ExternalOptionsSchema } from "./external_schemas.ts";

const time = z.number().openapi({ description: "Simulation time in seconds (finite)" });
const count = z.number().int().nonnegative();

/** A job as the streaming API takes it. */
export const JobSpecSchema = z.object({
  submitTime: time,
  numNodes: z.number().int().positive(),
  timeLimit: z.number().nonnegative(),
  actualRunTime: z.number().nonnegative().optional(),
  power: z.number().nonnegative().optional().openapi({
    description: "The job's own draw while it runs, watts (a power cap counts it; docs/power.md)",
  }),
  queue: z.string().min(1).max(256).optional(),
  priority: z.number().optional(),
  user: z.string().min(1).max(256).optional().openapi({
    description: "Who submitted it (fair share)",
  }),
  account: z.string().min(1).max(256).optional().openapi({
    description: "The account it is charged to (fair share with by: account)",
  }),
  // Demands on a --machine server (the CSV trace's columns; numNodes = replicas).
  numCores: z.number().optional().openapi({
    description: "Cores per replica (--machine servers; CSV num_cores)",
  }),
  memory: z.union([z.number(), z.string().max(64)]).optional().openapi({
    description: "Memory per replica: MiB, or a size like 64G (--machine servers)",
  }),
  gpus: z.number().optional().openapi({ description: "GPUs per replica (--machine servers)" }),
  partition: z.string().max(256).optional().openapi({
    description: "The machine partition it runs in (--machine servers)",
  }),
  topology: z.string().max(256).optional().openapi({
    description: "A label key (e.g. rack) whose one domain holds every replica (--machine servers)",
  }),
  resources: z.record(z.string().max(256), z.number()).optional().openapi({
    description: "Units per replica of the machine's other named resources, e.g. { fpga: 1 } " +
      "(--machine servers; the CSV column of that name)",
  }),
}).strict().openapi("JobSpec");

/** A queue definition as a request gives it. */
export type QueueDef = z.infer<typeof QueueDefSchema>;

/** A queue definition (also a queue update). */
export const QueueDefSchema = z.object({
  name: z.string().min(1).max(256),
  priority: z.number().optional(),
  picker: z.string().optional(),
  project: z.string().optional(),
  maxRunning: count.optional(),
  open: z.boolean().optional(),
  preemptMode: z.enum(["off", "requeue", "cancel", "suspend"]).optional().openapi({
    description:
      "What a job of a queue of higher priority that needs this queue's running jobs' resources does to them (default off; see docs/preemption.md)",
  }),
  graceTime: z.number().nonnegative().max(Number.MAX_SAFE_INTEGER).optional().openapi({
    description:
      "Seconds a preempted job of this queue runs on after the preemption before it stops (default 0; see docs/preemption.md)",
  }),
}).strict().openapi("QueueDef");

/** POST /sessions. */
export const CreateSessionSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/).optional().openapi({
    description: "A label used in recording file names",
  }),
  totalNodes: z.number().int().positive().optional().openapi({
    description:
      "Whole identical nodes: required, except on a --machine server (leave it out there)",
  }),
  backfillPolicy: z.enum(["easy", "conservative", "none"]).optional(),
  priorityPolicy: z.enum(["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"]).optional(),
  picker: z.string().min(1).optional().openapi({
    description: "A registered picker's name (built-in, or from the server's --policy_module)",
  }),
  admission: z.string().min(1).max(256).optional().openapi({
    description:
      "A registered admission (backfill) policy's name, e.g. easy_extra, conservative_profile " +
      "or one from the server's --policy_module; overrides backfillPolicy; " +
      "external: the client decides at every scheduling round (POST /sessions/{id}/decisions)",
  }),
  external: ExternalOptionsSchema.optional(),
  pickerSettings: z.record(z.string(), z.unknown()).optional().openapi({
    description:
      "Settings per picker name, e.g. { fairshare: { by, halfLife, maxAge, weights, shares } }",
  }),
  queues: z.array(
    QueueDefSchema.extend({
      partition: z.string().min(1).max(256).optional().openapi({
        description: "--machine servers: the partition its jobs that name none run in " +
          "(as a --queues file's partition:)",
      }),
    }).strict(),
  ).max(1024).optional(),
  runTimeMode: z.enum(["actual", "limit", "distribution", "external"]).optional(),
  runTimeDistribution: z.enum(["normal", "lognormal", "uniform"]).optional(),
  runTimeScale: z.number().optional(),
  runTimeStddev: z.number().optional(),
  seed: z.number().int().optional(),
  startTime: time.optional(),
  onCapacityCut: z.enum(["drain", "kill"]).optional().openapi({
    description: "Running jobs beyond a capacity cut: drain (default) or kill",
  }),
  capacitySemantics: z.enum(["evtsim", "drevt"]).optional().openapi({
    description:
      "A job larger than the capacity now: held while later jobs start (evtsim, default) or blocking (drevt)",
  }),
  onNodeFailure: z.enum(["kill", "requeue"]).optional().openapi({
    description:
      "Jobs on a failing node (capacity change 'failed'): killed (default) or requeued, same id",
  }),
  requeueLimit: count.optional().openapi({
    description: "Times a job may be requeued after node failures before it is killed (default 3)",
  }),
  powerCap: z.number().nonnegative().optional().openapi({
    description: "A power cap, watts: a start that would take the machine's draw over it waits " +
      "(PEND power_cap; docs/power.md); before powerCapSchedule's first change with it",
  }),
  powerCapSchedule: z.array(
    z.object({ time, watts: z.number().nonnegative() }).strict(),
  ).max(100_000).optional().openapi({
    description: "Power cap changes in time order: from each time on, at most watts",
  }),
  idleWatts: z.number().nonnegative().optional().openapi({
    description: "Watts of a node holding no job (default 0)",
  }),
  busyWatts: z.number().nonnegative().optional().openapi({
    description: "Watts of a node holding a job (default 0), besides the job's own power",
  }),
  decisions: z.union([z.boolean(), z.literal("heads")]).optional().openapi({
    description:
      "Emit scheduling decisions (DISPATCH / PEND with a reason): true, 'heads' or false",
  }),
  // The finish reply's metric options (simulate's --bsld_tau, --measure_window,
  // --trim, --resource_columns); the server's own are the defaults.
  bsldTau: z.number().optional().openapi({
    description: "Bounded-slowdown threshold tau of the finish reply's metrics, seconds > 0",
  }),
  measureWindow: z.tuple([z.number(), z.number()]).optional().openapi({
    description: "[start, end): the finish reply's metrics measure only jobs submitted in it",
  }),
  trim: z.tuple([z.number(), z.number()]).optional().openapi({
    description: "[warmup, cooldown] instead of measureWindow: the first and last jobs in " +
      "submit order left out (each a fraction in [0, 1) or a whole number of jobs)",
  }),
  extendedOutput: z.boolean().optional().openapi({
    description: "The finish reply's job rows gain waitTime, boundedSlowdown and nodes " +
      "(Slurm hostlist form), as simulate's --extended_output columns",
  }),
  resourceColumns: z.enum(["drevt", "per_resource"]).optional().openapi({
    description: "per_resource: the finish reply's resource rows gain NAME_free and NAME_used " +
      "per resource type (nodes on whole nodes)",
  }),
}).strict().openapi("CreateSession");

/** POST /sessions/{id}/jobs. */
export const AppendJobsSchema = z.object({
  jobs: z.array(JobSpecSchema).min(1),
  submit: z.boolean().optional().openapi({
    description: "false: only store the jobs (submit each later); default true",
  }),
}).strict().openapi("AppendJobs");

/** POST /sessions/{id}/job. */
export const AppendJobSchema = z.object({
  job: JobSpecSchema,
  submit: z.boolean().optional(),
}).strict().openapi("AppendJob");

/** A target time (advance, run until, submit). */
export const TimeSchema = z.object({ time }).strict().openapi("Time");

/** An optional event time (default: the clock). */
export const EventTimeSchema = z.object({ time: time.optional() }).strict().openapi("EventTime");

/** POST /sessions/{id}/jobs/{job}/end. */
export const EndJobSchema = z.object({
  time: time.optional(),
  outcome: z.enum(["completed", "failed", "killed"]).optional(),
  exitStatus: z.number().int().optional(),
}).strict().openapi("EndJob");

/** POST /sessions/{id}/jobs/{job}/update. */
export const UpdateJobSchema = z.object({
  time: time.optional(),
  priority: z.number().optional(),
  queue: z.string().min(1).max(256).optional(),
}).strict().openapi("UpdateJob");

/** POST /sessions/{id}/queues. */
export const UpdateQueueSchema = z.object({
  queue: QueueDefSchema,
  time: time.optional(),
}).strict().openapi("UpdateQueue");

/** POST /sessions/{id}/capacity. */
export const CapacitySchema = z.object({
  capacity: count.optional().openapi({
    description: "The usable node count (whole-node sessions)",
  }),
  down: z.array(z.string()).optional().openapi({
    description: "Nodes or node groups going offline (sessions on a --machine server)",
  }),
  up: z.array(z.string()).optional().openapi({
    description: "Nodes or node groups coming back online (sessions on a --machine server)",
  }),
  failed: z.array(z.string()).optional().openapi({
    description:
      "Nodes or node groups failing: offline, and their running jobs end at once, killed or requeued (onNodeFailure)",
  }),
  time: time.optional(),
}).strict().openapi("Capacity");

/** POST /sessions/{id}/finish. */
export const FinishSchema = z.object({
  runToCompletion: z.boolean().optional().openapi({
    description: "false: stop at the clock (like --max_time); default true",
  }),
}).strict().openapi("Finish");

/** Path parameters. */
export const SessionParam = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/).openapi({
    param: { name: "id", in: "path" },
    description: "The session id (32 hex digits)",
  }),
});
export const JobParam = SessionParam.extend({
  job: z.string().regex(/^\d{1,15}$/).openapi({ param: { name: "job", in: "path" } }),
});

// ---- responses (documented; the handlers build them from the session layer) ----

/** Every error reply. */
export const ErrorSchema = z.object({
  error: z.string(),
  kind: z.string().openapi({
    description: "validation, usage, input, time, state, capacity, not_found, unauthorized, " +
      "too_large, io",
  }),
}).openapi("Error");

export const PendReasonSchema = z.object({
  code: z.string(),
  message: z.string(),
  needed: z.number().optional(),
  free: z.number().optional(),
  end: z.number().optional(),
  reservation: z.number().optional(),
  blockedBy: z.number().optional(),
  draw: z.number().optional(),
  powerCap: z.number().optional(),
}).openapi("PendReason");

const DecisionSchema = z.object({
  type: z.enum(["DISPATCH", "PEND"]),
  time: z.number(),
  round: z.number(),
  jobId: z.number(),
  numNodes: z.number().optional(),
  backfill: z.boolean().optional(),
  queue: z.string().optional(),
  reason: PendReasonSchema.optional(),
}).openapi("Decision");

const NoticeSchema = z.object({ kind: z.string() }).passthrough().openapi("Notice");

/** Rows a call made final: decisions (if the session asked for them) and notices. */
export const CallRowsSchema = z.object({
  decisions: z.array(DecisionSchema),
  notices: z.array(NoticeSchema),
});

export const MonitorsSchema = z.object({
  sessionId: z.string(),
  name: z.string(),
  currentTime: z.number(),
  nodesInUse: z.number(),
  availableNodes: z.number(),
  activeJobCount: z.number(),
  headShadowTime: z.number(),
  totalJobs: z.number(),
}).openapi("Monitors");

export const RecordingStatusSchema = z.object({
  recording: z.boolean(),
  events: z.number(),
  startedAt: z.number().optional(),
  error: z.string().optional(),
  file: z.string().optional(),
}).openapi("RecordingStatus");

export const CreatedSchema = z.object({
  sessionId: z.string(),
  recording: RecordingStatusSchema,
  protocol: z.number().optional().openapi({
    description: "An external session: the decision protocol's version",
  }),
}).openapi("Created");

export const IdsSchema = CallRowsSchema.extend({ ids: z.array(z.number()) }).openapi("JobIds");

export const StepSchema = CallRowsSchema.extend({ monitors: MonitorsSchema }).openapi("StepResult");

export const StatisticsSchema = z.record(
  z.string(),
  // `resources`: on a --machine server, the per-resource utilization so far.
  z.union([z.number().nullable(), z.record(z.string(), z.unknown())]),
).openapi("Statistics");

export const BackfillWindowSchema = z.object({
  currentTime: z.number(),
  availableNodes: z.number(),
  shadowTime: z.number(),
  releases: z.array(z.object({
    time: z.number(),
    nodesReleased: z.number(),
    // On a --machine server: units of each resource coming back then.
    unitsReleased: z.record(z.string(), z.number()).optional(),
  })),
  // On a --machine server: nodes online with any unit free, idle ones, free units per resource.
  nodesWithRoom: z.number().optional(),
  idleNodes: z.number().optional(),
  freeUnits: z.record(z.string(), z.number()).optional(),
}).openapi("BackfillWindow");

const JobRowSchema = z.object({
  jobId: z.number(),
  submitTime: z.number(),
  beginTime: z.number(),
  endTime: z.number(),
  numNodes: z.number(),
  timeLimit: z.number(),
  queue: z.string().optional(),
  outcome: z.string().optional(),
  exitStatus: z.number().optional(),
  // With extendedOutput (simulate's --extended_output columns).
  waitTime: z.number().optional(),
  boundedSlowdown: z.number().optional(),
  nodes: z.string().optional(),
}).openapi("JobRow");

export const OutputSchema = z.object({
  sessionId: z.string(),
  jobs: z.array(JobRowSchema),
  resources: z.array(z.record(z.string(), z.unknown())).openapi({
    description: "time, freeNodes, allocatedNodes (and NAME_free, NAME_used per resource type " +
      "with resourceColumns per_resource)",
  }),
  notices: z.array(NoticeSchema),
  decisions: z.array(DecisionSchema),
  statistics: StatisticsSchema,
  /** The metric set (docs/metrics.md). */
  metrics: z.record(z.string(), z.number().nullable()).openapi("Metrics"),
  /** Per user, account, queue and size class (docs/metrics.md). */
  breakdowns: z.record(
    z.string(),
    z.array(z.record(z.string(), z.union([z.string(), z.number()]).nullable())),
  ).openapi("Breakdowns"),
  /** Jain's index over the users' mean bounded slowdowns and the worst user. */
  fairness: z.record(z.string(), z.union([z.string(), z.number()]).nullable())
    .openapi("Fairness"),
  /** Per-resource and per-partition utilization (--machine servers; stats JSON `resources`). */
  resourceMetrics: z.record(z.string(), z.unknown()).optional().openapi("ResourceMetrics"),
  recording: RecordingStatusSchema,
}).openapi("Output");

export const StartedSchema = z.object({ file: z.string() }).openapi("RecordingStarted");
export const StoppedSchema = z.object({ events: z.number() }).openapi("RecordingStopped");
export const OkSchema = z.object({ ok: z.boolean() }).openapi("Ok");
export const DocumentSchema = z.record(z.string(), z.unknown()).openapi("OpenAPIDocument");
export const SessionListSchema = z.object({
  sessions: z.array(z.object({
    sessionId: z.string(),
    name: z.string(),
    ageSeconds: z.number(),
    idleSeconds: z.number(),
    calls: z.number(),
  })),
}).openapi("SessionList");
export const HealthSchema = z.object({
  ok: z.boolean(),
  sessions: z.number(),
  /** Spare workers started, warmed up and ready for the next sessions. */
  spareWorkers: z.number(),
}).openapi("Health");
