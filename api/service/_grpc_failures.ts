// The gRPC front's fields of node failures and preemption (docs/failures.md,
// docs/preemption.md): HTTP's session fields onNodeFailure, requeueLimit,
// queues and decisions from an InitRequest, HTTP's queue update from an
// UpdateQueueRequest, and HTTP's failure and preemption statistics into a
// GetStatisticsResponse. The two fronts read one schema: `queues_json` and
// `queue_json` are checked by HTTP's own queue schemas, so a queue field
// HTTP learns (a preemption setting, a partition) needs no edit here.

import { CreateSessionSchema, QueueDefSchema } from "./http_schemas.ts";
import { ServiceError, type SessionParams, type SessionStatistics } from "./sessions.ts";
import type { SessionOp } from "./_session_ops.ts";

type Msg = Record<string, unknown>;

function bad(message: string): never {
  throw new ServiceError(400, "usage", message);
}

/** HTTP's `queues` array schema (the one POST /sessions checks). */
const QUEUES = CreateSessionSchema.shape.queues;

/** What a session's decisions field may be over gRPC (proto3 strings: "" is none). */
const DECISIONS: Readonly<Record<string, boolean | "heads">> = {
  true: true,
  heads: "heads",
  false: false,
};

/**
 * The failure and preemption fields of an InitRequest as HTTP's session
 * fields: `on_node_failure` (onNodeFailure), `requeue_limit` (requeueLimit),
 * `queues_json` (queues, HTTP's array as JSON) and `decisions`. A bad value
 * is one line naming the proto field.
 */
export function failureParamsOf(
  m: Msg,
): Pick<SessionParams, "onNodeFailure" | "requeueLimit" | "queues" | "decisions"> {
  const str = (k: string) => (typeof m[k] === "string" ? m[k] as string : "");
  const onFailure = str("on_node_failure");
  if (onFailure !== "" && onFailure !== "kill" && onFailure !== "requeue") {
    bad(`on_node_failure must be one of kill, requeue, got '${onFailure}'`);
  }
  // Proto3 optional: absent when unset (uint32, so a whole count when set).
  const limit = m.requeue_limit === undefined || m.requeue_limit === null
    ? undefined
    : Number(m.requeue_limit);
  const decisions = str("decisions");
  if (decisions !== "" && !(decisions in DECISIONS)) {
    bad(`decisions must be one of true, heads, false, got '${decisions}'`);
  }
  const queues = queuesOf(str("queues_json"));
  return {
    ...(onFailure === "" ? {} : { onNodeFailure: onFailure as "kill" | "requeue" }),
    ...(limit === undefined ? {} : { requeueLimit: limit }),
    ...(queues === undefined ? {} : { queues }),
    ...(decisions === "" ? {} : { decisions: DECISIONS[decisions] }),
  };
}

/** `queues_json` checked by HTTP's schema; "" is none. */
function queuesOf(text: string): SessionParams["queues"] {
  if (text === "") return undefined;
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    bad('queues_json is not valid JSON (expected an array of queues, e.g. [{"name": "batch"}])');
  }
  if (!Array.isArray(given)) {
    bad('queues_json must be a JSON array of queues, e.g. [{"name": "batch"}]');
  }
  const parsed = QUEUES.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    bad(`queues_json: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return parsed.data;
}

/**
 * The step call of an `update_queue` request (HTTP's POST
 * /sessions/{id}/queues): `queue_json` checked by HTTP's queue schema.
 */
export function queueUpdateOp(m: Msg): SessionOp {
  const text = typeof m.queue_json === "string" ? m.queue_json : "";
  if (text === "") bad('update_queue needs queue_json, e.g. {"name": "batch", "priority": 10}');
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    bad('queue_json is not valid JSON (expected a queue, e.g. {"name": "batch"})');
  }
  const parsed = QueueDefSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    bad(`queue_json: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  const time = m.time === undefined || m.time === null ? undefined : Number(m.time);
  return {
    op: "step",
    method: "updateQueue",
    args: time === undefined ? [parsed.data] : [parsed.data, time],
  };
}

/**
 * HTTP's failure and preemption statistics under the proto's names: each
 * present only when HTTP's is (from the first failure; with a preemptive
 * queue; with a `suspend` queue), so a session with none answers as before.
 */
export function failureStatistics(s: SessionStatistics): Msg {
  return {
    ...(s.lostWork === undefined ? {} : {
      lost_work: s.lostWork,
      requeues: s.requeues,
      max_requeues: s.maxRequeues,
    }),
    ...(s.preemptedWork === undefined ? {} : {
      preempted_work: s.preemptedWork,
      preemptions: s.preemptions,
      max_preemptions: s.maxPreemptions,
    }),
    ...(s.suspensions === undefined ? {} : {
      suspensions: s.suspensions,
      suspended_seconds: s.suspendedSeconds ?? 0,
    }),
  };
}
