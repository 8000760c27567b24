// `evtsim simulate --admission external --external_command CMD`: the
// external-decision protocol (docs/external-schedulers.md) with a command
// of your own as the client, one JSON object per line: the command reads
// each round on stdin as HTTP's reply has it (`{"awaitingDecisions": true,
// "round": {...}}`) and writes its answer on stdout as HTTP's POST
// .../decisions body (`{"round": N, "decisions": [...]}`). The run is
// synchronous: at a round the engine's thread waits on a shared buffer
// while a worker (cli/_external_command_worker.ts) does the pipe I/O. An
// invalid answer, a line that is not one, or a command that ends early
// stops the run with one line. SIGINT/SIGTERM while it waits (a command
// that never answers): the worker hears them, ends the command and wakes
// this thread, which stops the run as the signal listener would (130 / 143).

import { EvtsimError } from "../core/errors.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { withPolicies } from "../schedulers/registry.ts";
import { externalAdmission, type ExternalAsk } from "../api/service/_external.ts";
import {
  awaitAnswer,
  expectAnswer,
  INTERRUPTED,
  newChannel,
} from "../api/service/_external_channel.ts";
import { DecisionsSchema } from "../api/service/external_schemas.ts";
import { exitForSignal } from "./_watchdog.ts";

/** The command's client, running: the registry with its `external` policy, and how to stop it. */
export interface ExternalCommand {
  readonly registry: PolicyRegistry;
  /**
   * Settles once the worker has started the command. Await it before the
   * run: a round blocks this thread, and a worker started from a worker (a
   * sweep cell, a compare run) may need this thread's event loop to start.
   */
  readonly ready: Promise<void>;
  /** Ends the command's input and waits (at most about 2 s) for it to exit. */
  close(): Promise<void>;
}

/**
 * Starts `command` (`sh -c`) as the client of the policy `external` added
 * to `registry`; `totalNodes` is what its rounds say the machine has.
 */
export function externalCommand(
  command: string,
  registry: PolicyRegistry,
  totalNodes: () => number | undefined,
): ExternalCommand {
  const channel = newChannel();
  const worker = new Worker(new URL("./_external_command_worker.ts", import.meta.url).href, {
    type: "module",
  });
  const ready = new Promise<void>((resolve) => {
    worker.onmessage = () => resolve();
  });
  worker.postMessage({ start: { command, channel } });
  const fail = (why: string) => new EvtsimError("usage", `--external_command: ${why}`);
  const ask = (message: ExternalAsk): string => {
    const line = "invalid" in message
      ? { error: message.invalid, kind: "decision", round: message.round }
      : { awaitingDecisions: true, round: message.round };
    expectAnswer(channel);
    worker.postMessage({ ask: JSON.stringify(line) });
    const text = awaitAnswer(channel) ?? "\u0000stopped";
    // A signal while this thread waited (the worker heard it): stop as its listener would.
    if (text.startsWith(INTERRUPTED)) exitForSignal(Number(text.slice(INTERRUPTED.length)));
    const round = message.round.round;
    if (text.startsWith("\u0000")) throw fail(`${text.slice(1)} (round ${round})`);
    let given: unknown;
    try {
      given = JSON.parse(text);
    } catch {
      throw fail(`its answer to round ${round} is not a JSON line: ${text.slice(0, 80)}`);
    }
    const parsed = DecisionsSchema.safeParse(given);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw fail(
        `its answer to round ${round}: ${
          issue.path.length ? `${issue.path.join(".")}: ` : ""
        }${issue.message}`,
      );
    }
    if (parsed.data.round !== round) {
      throw fail(`it answered round ${parsed.data.round}; round ${round} is awaited`);
    }
    return JSON.stringify(parsed.data);
  };
  let nodes: number | undefined;
  const admission = externalAdmission({
    ask,
    // A batch run has nobody to ask again: an invalid answer stops it.
    onInvalid: "fail",
    get totalNodes() {
      return nodes ??= totalNodes();
    },
    // The trace's jobs are not counted here: a job the run does not hold reads as not waiting.
    known: () => true,
    failPrefix: "--external_command: its answer: ",
  });
  return {
    registry: withPolicies({ admissions: [admission] }, registry),
    ready,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          worker.terminate();
          resolve();
        }, 3000);
        worker.onmessage = () => {
          clearTimeout(timer);
          worker.terminate();
          resolve();
        };
        worker.postMessage({ stop: true });
      }),
  };
}
