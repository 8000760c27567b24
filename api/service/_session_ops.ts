// The calls a session answers, as plain data: what the session host sends
// to the place a session runs (its own worker, or in-thread), and what comes
// back. Everything here crosses a worker boundary, so it is structured-clone
// data only: no functions, no class instances.

import { LIVE_INPUTS } from "../../core/live_inputs.ts";
import type { JobSpec } from "../../core/types.ts";
import type { PolicyRegistry } from "../../core/policies.ts";
import type { Machine } from "../../core/machine.ts";
import { machineInput } from "../../io/_machine_demands.ts";
import type { AskClient } from "./_external.ts";
import {
  type FinishSummary,
  type OutputField,
  type RecordingMark,
  ServiceError,
  serviceError,
  Session,
  type SessionEnv,
  type SessionParams,
} from "./sessions.ts";

/** The simulation methods a step call may make (each one `step` of the engine). */
const STEP_METHODS = new Set([
  "submitJob",
  "advanceTo",
  "runUntilExclusive",
  // Each live event's method has its kind's name (core/live_inputs.ts).
  ...Object.keys(LIVE_INPUTS),
]);

/** A capacity change as the fronts give it: a node count, or node/group names. */
export interface CapacityChangeRequest {
  readonly capacity?: number;
  readonly down?: readonly string[];
  readonly up?: readonly string[];
  readonly failed?: readonly string[];
  readonly time?: number;
}

/**
 * The step call of a capacity change, one decoder for every front (HTTP's
 * `POST /sessions/{id}/capacity`, gRPC's `change_capacity`): a node count
 * (`changeCapacity`) or nodes and groups going down and up (`changeNodes`),
 * never both and never neither.
 */
export function capacityOp(change: CapacityChangeRequest): SessionOp {
  const names = change.down !== undefined || change.up !== undefined ||
    change.failed !== undefined;
  if (names === (change.capacity !== undefined)) {
    throw new ServiceError(
      400,
      "validation",
      "give either capacity (a node count) or down/up (node or group names of the machine)",
    );
  }
  if (!names) {
    return { op: "step", method: "changeCapacity", args: [change.capacity, change.time] };
  }
  return {
    op: "step",
    method: "changeNodes",
    args: [{
      ...(change.down === undefined ? {} : { down: change.down }),
      ...(change.up === undefined ? {} : { up: change.up }),
      ...(change.failed === undefined ? {} : { failed: change.failed }),
      ...(change.time === undefined ? {} : { time: change.time }),
    }],
  };
}

/** One call on a session. */
export type SessionOp =
  | { readonly op: "append"; readonly jobs: readonly JobSpec[]; readonly submit: boolean }
  | { readonly op: "step"; readonly method: string; readonly args: readonly unknown[] }
  | { readonly op: "monitors" }
  | { readonly op: "statistics" }
  | { readonly op: "backfillWindow" }
  | { readonly op: "pendingReason"; readonly job: number }
  | { readonly op: "startRecording" }
  | { readonly op: "stopRecording" }
  | { readonly op: "recordingStatus" }
  | { readonly op: "finish"; readonly runToCompletion: boolean }
  | {
    readonly op: "page";
    readonly field: OutputField;
    readonly from: number;
    readonly count: number;
  }
  | { readonly op: "close" };

export type { FinishSummary, OutputField };

/** How a session is created where it runs. */
export interface SessionInit {
  readonly id: string;
  readonly params: SessionParams;
  readonly recordDir?: string;
  readonly snapshotInterval?: number;
  /** A policy module whose policies the session may name (loaded where the session runs). */
  readonly policyModule?: string;
  /** The session's own folder for the rows of its finish reply. */
  readonly spillDir?: string;
  /** The server's `--machine` (plain data: the model is built where the session runs). */
  readonly machine?: Machine;
  /** An external session's answer channel (_external_channel.ts). */
  readonly channel?: SharedArrayBuffer;
}

/** An error as it crosses the boundary. */
export interface OpError {
  readonly status: ServiceError["status"];
  readonly kind: string;
  readonly message: string;
}

/**
 * The answer to one call: its result or its error, and where the recording
 * stands; or, for a call of an external session that reached a scheduling
 * round, the round its client must answer (`awaiting`; `invalid`: why the
 * last answer was refused). The call goes on once it is answered.
 */
export type OpReply =
  | { readonly ok: true; readonly result: unknown; readonly mark?: RecordingMark }
  | { readonly ok: false; readonly error: OpError; readonly mark?: RecordingMark }
  | { readonly ok: "awaiting"; readonly awaiting: PostedRound; readonly mark?: undefined };

/**
 * A round as it crosses from the session's worker: its number and its JSON
 * text (made there, so the server's thread only copies it into replies),
 * and why the last answer was refused (reask).
 */
export interface PostedRound {
  readonly number: number;
  readonly json: string;
  readonly invalid?: string;
}

/** One session where it runs: the session and its finished output (served in pages). */
export class SessionPlace {
  #finished = false;

  constructor(readonly session: Session) {}

  /** Creates the session of `init` (with `registry` for its policy names). */
  static create(
    init: SessionInit,
    env: Omit<SessionEnv, "registry" | "machine" | "ask">,
    registry?: PolicyRegistry,
    ask?: AskClient,
  ) {
    const machine = init.machine === undefined ? undefined : machineInput(init.machine);
    const session = new Session({ ...env, registry, machine, ask }, init.id, init.params);
    if (env.recordDir !== undefined) session.startRecording();
    return new SessionPlace(session);
  }

  /** Answers `op`; never throws (an error is a reply). */
  answer(op: SessionOp): OpReply {
    try {
      const result = this.#run(op);
      return { ok: true, result, mark: this.session.recordingMark() };
    } catch (e) {
      // An invalid answer with onInvalid "fail": the session ends (the host ends it).
      const failure = this.session.externalFailure;
      const error: OpError = failure === undefined
        ? opError(e)
        : { status: 409, kind: "decision", message: failure };
      return { ok: false, error, mark: this.session.recordingMark() };
    }
  }

  #run(op: SessionOp): unknown {
    const s = this.session;
    switch (op.op) {
      case "append": {
        const r = s.append(op.jobs, op.submit);
        return { ids: r.result, decisions: r.decisions, notices: r.notices };
      }
      case "step": {
        if (!STEP_METHODS.has(op.method)) {
          throw new ServiceError(400, "usage", `no call '${op.method}'`);
        }
        const clock = s.currentTime;
        // A node change names nodes or groups of the machine: its nodes by name
        // here. (A machine's utilization counts node equivalents from the
        // allocations, so it needs no capacity over time, unlike changeCapacity.)
        const nodes = op.method === "changeNodes"
          ? s.nodeChange(op.args[0] as Parameters<Session["nodeChange"]>[0])
          : undefined;
        const args = nodes === undefined ? op.args : [nodes];
        const r = s.call((sim) =>
          (sim as unknown as Record<string, (...a: unknown[]) => unknown>)[op.method](...args)
        );
        if (op.method === "changeCapacity") {
          // Made: the finish reply's utilization measures against it.
          s.capacityChanged(op.args[0] as number, (op.args[1] as number | undefined) ?? clock);
        }
        return { decisions: r.decisions, notices: r.notices, monitors: s.monitors() };
      }
      case "monitors":
        return s.monitors();
      case "statistics":
        return s.statistics();
      case "backfillWindow":
        return s.backfillWindow();
      case "pendingReason":
        return s.pendingReason(op.job);
      case "startRecording":
        return s.startRecording();
      case "stopRecording":
        return s.stopRecording();
      case "recordingStatus":
        return s.recordingStatus();
      case "finish": {
        const summary: FinishSummary = s.finish(op.runToCompletion);
        this.#finished = true;
        return summary;
      }
      case "page":
        if (!this.#finished) throw new ServiceError(409, "state", "finish first");
        // Serialised here, where the rows are, so the host's thread only copies text.
        return s.page(op.field, op.from, op.count);
      case "close":
        s.close();
        return true;
    }
  }
}

/** An error of any kind as a reply: a service error as it is, anything else a 500. */
export function opError(e: unknown): OpError {
  let se: ServiceError;
  try {
    se = serviceError(e);
  } catch {
    const message = e instanceof Error ? e.message : String(e);
    console.error(`evtsim serve: internal error: ${(e as Error)?.stack ?? e}`);
    return { status: 500, kind: "internal", message: `internal error: ${message.split("\n")[0]}` };
  }
  return { status: se.status, kind: se.kind, message: se.message };
}
