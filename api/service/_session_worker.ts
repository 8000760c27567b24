// One session in a worker of its own (the session host's default): its
// engine work runs off the server's thread, so a long call delays no other
// session and no /health, and the host can abandon the call by terminating
// the worker. A worker serves one session and is then terminated, never
// reused, so nothing a session or its policy module leaves in memory can
// reach another session.
//
// Messages: first a `{ seq, prepare }` (sent when the worker is started,
// possibly long before its session: a spare), then a `SessionInit`, then
// `{ seq, op }` calls, each answered `{ seq, ...OpReply }` in order.
// `prepare` loads the server's policy module and, when asked, warms the
// engine up with a small run of its own, so a spare worker's first session
// runs optimised code at once instead of warming up on its clients' time.

import type { PolicyRegistry } from "../../core/policies.ts";
import {
  opError,
  type OpReply,
  type PostedRound,
  type SessionInit,
  type SessionOp,
  SessionPlace,
} from "./_session_ops.ts";
import { warmUp } from "./_warm_up.ts";
import type { AskClient } from "./_external.ts";
import { awaitAnswer, expectAnswer } from "./_external_channel.ts";
import { EvtsimError } from "../../core/errors.ts";

/** What a worker does as soon as it starts. */
export interface WorkerPrepare {
  /** The server's policy module, loaded now (its top level runs in this worker only). */
  readonly policyModule?: string;
  /** Whether to warm the engine up with a run of its own first. */
  readonly warmUp: boolean;
}

// The worker's own scope, typed here: JSR refuses the triple-slash
// `deno.worker` lib directive that would type `self` as one.
const scope = self as unknown as {
  postMessage(m: unknown): void;
  onmessage: ((e: MessageEvent) => void) | null;
};

let place: SessionPlace | undefined;
/** The seq of the call being answered (an external round is posted under it). */
let current = 0;
/** The registry of the policy module, loaded by `prepare` (or its error). */
let prepared: Promise<PolicyRegistry | undefined> = Promise.resolve(undefined);

async function loadRegistry(file: string | undefined): Promise<PolicyRegistry | undefined> {
  if (file === undefined) return undefined;
  // The one way serve resolves --policy_module (cli/serve_command.ts), loaded
  // only when a module is given.
  const { serveRegistry } = await import("../../cli/serve_command.ts");
  return await serveRegistry(file);
}

function prepare(p: WorkerPrepare): OpReply {
  // The warm-up runs built-in policies only, in a Simulation of its own that
  // is dropped here; the engine keeps no state between Simulations.
  if (p.warmUp) warmUp();
  prepared = loadRegistry(p.policyModule);
  // Its error is the session's create error (answered to `init`).
  prepared.catch(() => {});
  return { ok: true, result: true };
}

async function init(m: SessionInit): Promise<OpReply> {
  try {
    const registry = await prepared;
    place = SessionPlace.create(
      m,
      {
        recordDir: m.recordDir,
        snapshotInterval: m.snapshotInterval,
        spillDir: m.spillDir,
      },
      registry,
      m.channel === undefined ? undefined : asker(m.channel),
    );
    return { ok: true, result: true, mark: place.session.recordingMark() };
  } catch (e) {
    return { ok: false, error: opError(e) };
  }
}

// An external round: posted as the running call's interim reply, then the
// worker blocks (its step cannot return) until the server writes the answer.
function asker(channel: SharedArrayBuffer): AskClient {
  return (message) => {
    expectAnswer(channel);
    const awaiting: PostedRound = {
      number: message.round.round,
      json: JSON.stringify(message.round),
      ...("invalid" in message ? { invalid: message.invalid } : {}),
    };
    scope.postMessage({ seq: current, ok: "awaiting", awaiting });
    const text = awaitAnswer(channel);
    if (text === undefined) throw new EvtsimError("state", "the session is ending");
    return text;
  };
}

scope.onmessage = async (e: MessageEvent) => {
  const m = e.data as {
    seq: number;
    prepare?: WorkerPrepare;
    init?: SessionInit;
    op?: SessionOp;
  };
  current = m.seq;
  const reply = m.prepare !== undefined
    ? prepare(m.prepare)
    : m.init !== undefined
    ? await init(m.init)
    : place === undefined
    ? { ok: false, error: { status: 500, kind: "internal", message: "no session" } }
    : place.answer(m.op!);
  scope.postMessage({ seq: m.seq, ...reply });
};
