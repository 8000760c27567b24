// The zod schemas of the external-decision protocol (docs/external-schedulers.md):
// the `external` options of a session, a round as the server sends it, and
// an answer as the client sends it. The HTTP front checks with them and
// documents them in /openapi.json; the gRPC front checks its JSON fields
// with the same ones, so both fronts refuse the same answers.

import { z } from "@hono/zod-openapi";
import { PEND_REASON_CODES } from "../../core/decisions.ts";

const jobId = z.number().int().nonnegative();

/** `external` of POST /sessions (with admission "external"). */
export const ExternalOptionsSchema = z.object({
  roundTimeout: z.number().nonnegative().finite().optional().openapi({
    description: "Seconds a round may wait for its answer (0 or absent: no limit)",
  }),
  onInvalid: z.enum(["reask", "fail"]).optional().openapi({
    description: "An invalid answer: the round is asked again (reask, default) or the session ends",
  }),
  onDisconnect: z.enum(["end", "suspend"]).optional().openapi({
    description:
      "No answer within roundTimeout, or a gRPC stream gone mid-round: the session ends " +
      "(end, default) or the round stays awaited until --session_idle_timeout (suspend)",
  }),
}).strict().openapi("ExternalOptions");

/** One decision of an answer. */
export const ExternalDecisionSchema = z.object({
  type: z.enum(["DISPATCH", "PEND"]),
  jobId,
  backfill: z.boolean().optional().openapi({
    description: "DISPATCH: what the decision row says (default: false for the first " +
      "waiting job, true otherwise)",
  }),
  reason: z.object({
    code: z.string().min(1).max(64).openapi({
      description: `A pend reason code: ${PEND_REASON_CODES.join(", ")}`,
    }),
    message: z.string().max(1024),
  }).strict().optional().openapi({ description: "PEND: why (default code external)" }),
}).strict().openapi("ExternalDecision");

/** POST /sessions/{id}/decisions, and gRPC decide's decisions_json. */
export const DecisionsSchema = z.object({
  round: z.number().int().positive().openapi({ description: "The round answered" }),
  decisions: z.array(ExternalDecisionSchema).max(1_000_000),
}).strict().openapi("Decisions");

const WaitingJobSchema = z.object({
  jobId,
  submitTime: z.number(),
  numNodes: z.number(),
  timeLimit: z.number(),
  priority: z.number(),
  queue: z.string().optional(),
  user: z.string().optional(),
  account: z.string().optional(),
  demand: z.object({
    replicas: z.number(),
    perReplica: z.record(z.string(), z.number()),
  }).optional(),
});

/** A round as the server sends it. */
export const RoundSchema = z.object({
  protocol: z.literal(1),
  round: z.number().int().positive(),
  time: z.number(),
  free: z.number().openapi({ description: "Nodes free now" }),
  totalNodes: z.number().optional().openapi({ description: "Whole nodes (not on a --machine)" }),
  freeUnits: z.record(z.string(), z.number()).optional().openapi({
    description: "On a --machine server: the units of each resource free now",
  }),
  waiting: z.array(WaitingJobSchema).openapi({
    description: "The jobs that may start, in the picker's order",
  }),
  running: z.array(z.object({
    jobId,
    beginTime: z.number(),
    numNodes: z.number(),
    timeLimit: z.number(),
    projectedEnd: z.number(),
  })).openapi({ description: "By projected end (begin + time limit), then job id" }),
  queues: z.array(z.object({
    name: z.string(),
    open: z.boolean(),
    running: z.number(),
    maxRunning: z.number().optional(),
  })),
}).openapi("Round");

/** The reply of a call that reached a round. */
export const AwaitingSchema = z.object({
  awaitingDecisions: z.literal(true),
  round: RoundSchema,
}).openapi("AwaitingDecisions");
