// One session in a worker of its own (the session host's default): its
// engine work runs off the server's thread, so a long call delays no other
// session and no /health, and the host can abandon the call by terminating
// the worker. Messages: first a `SessionInit`, then `{ seq, op }` calls, each
// answered `{ seq, ...OpReply }` in order.

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import type { PolicyRegistry } from "../../core/policies.ts";
import {
  opError,
  type OpReply,
  type SessionInit,
  type SessionOp,
  SessionPlace,
} from "./_session_ops.ts";

let place: SessionPlace | undefined;

async function init(m: SessionInit): Promise<OpReply> {
  try {
    let registry: PolicyRegistry | undefined;
    if (m.policyModule !== undefined) {
      // The one way serve resolves --policy_module (cli/serve_command.ts), loaded
      // only when a module is given.
      const { serveRegistry } = await import("../../cli/serve_command.ts");
      registry = await serveRegistry(m.policyModule);
    }
    place = SessionPlace.create(m, {
      recordDir: m.recordDir,
      snapshotInterval: m.snapshotInterval,
      spillDir: m.spillDir,
    }, registry);
    return { ok: true, result: true, mark: place.session.recordingMark() };
  } catch (e) {
    return { ok: false, error: opError(e) };
  }
}

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as { seq: number; init?: SessionInit; op?: SessionOp };
  const reply = m.init !== undefined
    ? await init(m.init)
    : place === undefined
    ? { ok: false, error: { status: 500, kind: "internal", message: "no session" } }
    : place.answer(m.op!);
  self.postMessage({ seq: m.seq, ...reply });
};
