// The external-decision protocol's admission policy (docs/external-schedulers.md):
// a session created with `admission: "external"` asks its client at every
// scheduling session which waiting jobs start. The policy runs inside the
// engine's synchronous `step`, so asking is a blocking call (`ask`): in a
// session worker it posts the round to the server's thread and waits on a
// shared buffer for the answer (_external_channel.ts).
//
// A round: the policy walks every candidate the picker offers (without a
// verdict), sends them with the running jobs and the queues, checks the
// answer as a whole (unknown, not waiting, named twice, does not fit after
// the dispatches before it), and then applies it through the session's own
// `dispatch` and `pend`, so the engine checks each start as it checks any
// policy's. DISPATCHes go in the client's order: before each, the picker's
// pass restarts and walks to the job (`AdmissionSession.restart`); then a
// last pass pends every candidate left, with the client's reason or
// `external`.

import type { Admission, AdmissionSession } from "../../core/admission.ts";
import {
  PEND_REASON_CODES,
  type PendReason,
  type PendReasonCode,
  pendReasons,
} from "../../core/decisions.ts";
import { EvtsimError } from "../../core/errors.ts";
import type { JobRecord } from "../../core/types.ts";

/** The protocol version this server speaks. */
export const PROTOCOL_VERSION = 1;

/** A session's `external` options (all optional). */
export interface ExternalOptions {
  /** Seconds a round may wait for its answer (0 or absent: no limit). */
  readonly roundTimeout?: number;
  /** An invalid answer: the round is asked again (reask, default) or the session ends (fail). */
  readonly onInvalid?: "reask" | "fail";
  /** No answer within roundTimeout, or a gRPC stream gone mid-round: end (default) or suspend. */
  readonly onDisconnect?: "end" | "suspend";
}

/** A waiting job as a round lists it. */
export interface RoundWaitingJob {
  readonly jobId: number;
  readonly submitTime: number;
  readonly numNodes: number;
  readonly timeLimit: number;
  readonly priority: number;
  readonly queue?: string;
  readonly user?: string;
  readonly account?: string;
  readonly demand?: { readonly replicas: number; readonly perReplica: Record<string, number> };
}

/** A running job as a round lists it. */
export interface RoundRunningJob {
  readonly jobId: number;
  readonly beginTime: number;
  readonly numNodes: number;
  readonly timeLimit: number;
  readonly projectedEnd: number;
}

/** A queue as a round lists it. */
export interface RoundQueue {
  readonly name: string;
  readonly open: boolean;
  readonly running: number;
  readonly maxRunning?: number;
}

/** What the client is asked at a scheduling round. */
export interface RoundContext {
  readonly protocol: number;
  readonly round: number;
  readonly time: number;
  readonly free: number;
  readonly totalNodes?: number;
  /** On a machine: the units of each resource free now. */
  readonly freeUnits?: Readonly<Record<string, number>>;
  readonly waiting: readonly RoundWaitingJob[];
  readonly running: readonly RoundRunningJob[];
  readonly queues: readonly RoundQueue[];
}

/** One decision of an answer (checked for shape by the fronts). */
export interface ExternalDecision {
  readonly type: "DISPATCH" | "PEND";
  readonly jobId: number;
  readonly backfill?: boolean;
  readonly reason?: { readonly code: string; readonly message: string };
}

/** An answer to a round. */
export interface ExternalAnswer {
  readonly round: number;
  readonly decisions: readonly ExternalDecision[];
}

/**
 * What the policy sends: a round to answer, or the same round again with why
 * the last answer was refused (reask).
 */
export type ExternalAsk =
  | { readonly round: RoundContext }
  | { readonly round: RoundContext; readonly invalid: string };

/** Where the policy asks: blocks until the client's answer (its JSON text) is there. */
export type AskClient = (message: ExternalAsk) => string;

/** What the session tells the policy besides the admission session. */
export interface ExternalSetup {
  readonly ask: AskClient;
  readonly onInvalid: "reask" | "fail";
  /** The session's whole nodes (absent on a machine). */
  readonly totalNodes?: number;
  /** Whether `id` names a job of the session (appended, whatever its state). */
  readonly known: (id: number) => boolean;
  /** Put before a refusal that ends the run (onInvalid fail), e.g. the option that named the client. */
  readonly failPrefix?: string;
}

/** The policy, with the refusal that ended its session (onInvalid: fail). */
export interface ExternalAdmission extends Admission {
  /** Set when an invalid answer ended the session. */
  failure: string | undefined;
  /**
   * Set while the session answers "why does this job wait" (a probe round
   * on a copy of the state, core/_pend_reasons.ts): the client is not asked;
   * every candidate gets the reason it was last pended with.
   */
  probing: boolean;
}

const CODES = new Set<string>(PEND_REASON_CODES);

/** The admission policy of an external session. */
export function externalAdmission(setup: ExternalSetup): ExternalAdmission {
  let rounds = 0;
  /** Each waiting job's reason as the client's last answer gave it. */
  const last = new Map<number, PendReason>();
  const policy: ExternalAdmission = {
    name: "external",
    // One round per scheduling point: the client's answer is the whole
    // round (the engine asks no follow-up session at the same clock), and a
    // recorded round is one session's decisions (api/_external_replay.ts).
    singleSession: true,
    failure: undefined,
    probing: false,
    runSession(s) {
      if (policy.probing) {
        for (let job = s.next(); job !== undefined; job = s.next()) {
          s.pend(job, last.get(job.id) ?? pendReasons.external());
        }
        return;
      }
      const candidates: JobRecord[] = [];
      for (let job = s.next(); job !== undefined; job = s.next()) candidates.push(job);
      if (candidates.length === 0) return;
      const round = roundContext(s, ++rounds, candidates, setup.totalNodes);
      let message: ExternalAsk = { round };
      for (;;) {
        const text = setup.ask(message);
        const answer = JSON.parse(text) as ExternalAnswer;
        const refused = checkAnswer(s, candidates, answer, setup.known);
        if (refused === undefined) return apply(s, candidates, answer, last);
        if (setup.onInvalid === "fail") {
          policy.failure = refused;
          throw new EvtsimError("state", `${setup.failPrefix ?? ""}${refused}`);
        }
        message = { round, invalid: refused };
      }
    },
  };
  return policy;
}

function roundContext(
  s: AdmissionSession,
  round: number,
  candidates: readonly JobRecord[],
  totalNodes: number | undefined,
): RoundContext {
  return {
    protocol: PROTOCOL_VERSION,
    round,
    time: s.now,
    free: s.free,
    ...(totalNodes === undefined ? {} : { totalNodes }),
    ...freeUnits(s),
    waiting: candidates.map(waitingJob),
    running: s.running.toArray().map((r) => ({
      jobId: r.id,
      beginTime: r.beginTime,
      numNodes: r.numNodes,
      timeLimit: r.timeLimit,
      projectedEnd: r.projectedEnd,
    })),
    queues: (s.queueStates?.() ?? []).map((q) => ({
      name: q.def.name,
      open: q.def.open !== false,
      running: q.running,
      ...(q.def.maxRunning === undefined ? {} : { maxRunning: q.def.maxRunning }),
    })),
  };
}

/**
 * On a machine (a topology cluster): the units of each resource free now,
 * summed over the nodes online. Read from the cluster's own fields, as
 * nothing in the model contract sums them; absent on another model.
 */
function freeUnits(s: AdmissionSession): { freeUnits?: Record<string, number> } {
  const res = s.resources;
  if (res === undefined) return {};
  const names = (res.model as { resources?: unknown }).resources;
  const sums = (res.state as { freeSums?: unknown }).freeSums;
  if (!Array.isArray(names) || !(sums instanceof Float64Array)) return {};
  return {
    freeUnits: Object.fromEntries(names.map((n: string, i) => [n, Math.max(0, sums[i])])),
  };
}

function waitingJob(j: JobRecord): RoundWaitingJob {
  return {
    jobId: j.id,
    submitTime: j.submitTime,
    numNodes: j.numNodes,
    timeLimit: j.timeLimit,
    priority: j.priority,
    ...(j.queue === undefined ? {} : { queue: j.queue }),
    ...(j.user === undefined ? {} : { user: j.user }),
    ...(j.account === undefined ? {} : { account: j.account }),
    ...(j.demand === undefined
      ? {}
      : { demand: { replicas: j.demand.replicas, perReplica: { ...j.demand.perReplica } } }),
  };
}

/**
 * Why the answer is refused (one line naming the job), or undefined when
 * every decision holds: each job named once, waiting, and each DISPATCH
 * fitting after the DISPATCHes before it (nodes, the resource model's
 * placement on a copy of its state, queue limits).
 */
function checkAnswer(
  s: AdmissionSession,
  candidates: readonly JobRecord[],
  answer: ExternalAnswer,
  known: (id: number) => boolean,
): string | undefined {
  const byId = new Map(candidates.map((j) => [j.id, j]));
  const seen = new Set<number>();
  let free = s.free;
  const res = s.resources;
  let trial = res === undefined ? undefined : res.model.beginEdit(res.state);
  const queues = new Map((s.queueStates?.() ?? []).map((q) => [q.def.name, q]));
  const started = new Map<string, number>();
  for (const d of answer.decisions) {
    const id = d.jobId;
    if (seen.has(id)) return `job ${id} is named twice (one decision per job and round)`;
    seen.add(id);
    const job = byId.get(id);
    if (job === undefined) {
      return known(id)
        ? `job ${id} is not waiting to start (it is not among this round's waiting jobs)`
        : `job ${id} is unknown (no such job in this session)`;
    }
    if (d.type === "PEND") {
      if (d.reason !== undefined && !CODES.has(d.reason.code)) {
        return `job ${id}: pend reason code '${d.reason.code}' is not one of ${
          PEND_REASON_CODES.join(", ")
        }`;
      }
      continue;
    }
    if (res !== undefined && job.demand !== undefined) {
      const r = res.model.place(trial, job);
      if (r.placement === undefined) {
        return `job ${id} does not fit now (after the DISPATCHes before it): ${r.reason.message}`;
      }
      trial = res.model.allocate(trial, job, r.placement);
    }
    if (job.numNodes > free) {
      return `job ${id} does not fit now: needs ${job.numNodes} nodes, ${free} free after the DISPATCHes before it`;
    }
    free -= job.numNodes;
    const q = job.queue === undefined ? undefined : queues.get(job.queue);
    const max = q?.def.maxRunning;
    if (q !== undefined && max !== undefined) {
      const n = (started.get(q.def.name) ?? 0) + 1;
      started.set(q.def.name, n);
      if (q.running + n > max) {
        return `job ${id} does not fit now: queue ${q.def.name} runs its maximum of ${max} jobs`;
      }
    }
  }
  return undefined;
}

/** Applies a checked answer: DISPATCHes in its order, then a PEND for every candidate left. */
function apply(
  s: AdmissionSession,
  candidates: readonly JobRecord[],
  answer: ExternalAnswer,
  last: Map<number, PendReason>,
) {
  const reasons = new Map<number, PendReason>();
  const first = candidates[0].id;
  for (const d of answer.decisions) {
    if (d.type === "PEND") {
      if (d.reason !== undefined) {
        reasons.set(d.jobId, { code: d.reason.code as PendReasonCode, message: d.reason.message });
      }
      continue;
    }
    s.restart!();
    let job = s.next();
    while (job !== undefined && job.id !== d.jobId) job = s.next();
    if (job === undefined) {
      throw new EvtsimError("state", `job ${d.jobId} was not offered again to start`);
    }
    s.dispatch(job, d.backfill ?? job.id !== first);
    last.delete(job.id);
  }
  // The first pass gave no verdicts: the candidates are walked again for them.
  s.restart!();
  const external = pendReasons.external();
  for (let job = s.next(); job !== undefined; job = s.next()) {
    const reason = reasons.get(job.id) ?? external;
    s.pend(job, reason);
    last.set(job.id, reason);
  }
}
