// The host's side of an external session's rounds (docs/external-schedulers.md):
// which round a call waits at, the round's time budget, and the refusals of
// answers for a round that is not the one awaited and of other calls while
// one is (the session's worker is blocked inside its step until answered).

import type { PostedRound } from "./_session_ops.ts";
import type { ExternalOptions } from "./_external.ts";
import { ServiceError } from "./sessions.ts";

/**
 * The reply of a call of an external session that reached a scheduling
 * round: the round its client must answer (`POST .../decisions`), and, when
 * the last answer was refused (onInvalid: reask), why.
 */
export class AwaitingRound {
  constructor(
    /** The round's number. */
    readonly round: number,
    /** The round as JSON text. */
    readonly json: string,
    readonly invalid?: string,
  ) {}

  /** HTTP's reply: the round (200), or the refusal with the round again (409). */
  response(): Response {
    const body = this.invalid === undefined
      ? `{"awaitingDecisions":true,"round":${this.json}}`
      : `{"error":${JSON.stringify(this.invalid)},"kind":"decision","round":${this.json}}`;
    return new Response(body, {
      status: this.invalid === undefined ? 200 : 409,
      headers: { "content-type": "application/json" },
    });
  }
}

/** The round an external session's call waits at, if any. */
export class RoundWait {
  /** The round awaited (undefined while an answer is applied, and between calls). */
  #awaiting: PostedRound | undefined;
  /** Whether a call is in a round (from its first round to its own reply). */
  inRound = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly id: string,
    readonly options: ExternalOptions,
    /** Ends the session (a round over its budget, onDisconnect "end"). */
    readonly end: (why: string) => void,
  ) {}

  /** The refusal of another call while a call is in a round (409 `awaiting`). */
  busy(): ServiceError {
    const r = this.#awaiting;
    return new ServiceError(
      409,
      "awaiting",
      r === undefined
        ? `session '${this.id}' is applying the answer to a round; wait for its reply`
        : `session '${this.id}' awaits the decisions of round ${r.number} (POST /sessions/${this.id}/decisions)`,
    );
  }

  /** Takes the answer to round `round`: 409 `round` unless it is the one awaited. */
  take(round: number): void {
    const awaited = this.#awaiting;
    if (awaited === undefined) {
      throw new ServiceError(
        409,
        "round",
        this.inRound
          ? `session '${this.id}' is applying an answer already; wait for its reply`
          : noRound(this.id),
      );
    }
    if (round !== awaited.number) {
      throw new ServiceError(
        409,
        "round",
        `session '${this.id}' awaits the decisions of round ${awaited.number}, not round ${round}`,
      );
    }
    this.#awaiting = undefined;
    clearTimeout(this.#timer);
  }

  /** A call reached a round: it is awaited (and its budget runs) until answered. */
  began(posted: PostedRound): AwaitingRound {
    this.inRound = true;
    this.#awaiting = posted;
    const budget = this.options.roundTimeout ?? 0;
    if (budget > 0) {
      this.#timer = setTimeout(() => {
        if (this.#awaiting !== posted || this.options.onDisconnect === "suspend") return;
        this.end(`no answer to round ${posted.number} within its roundTimeout of ${budget} s`);
      }, budget * 1000);
    }
    return new AwaitingRound(posted.number, posted.json, posted.invalid);
  }

  /** The call in a round has its own reply. */
  done(): void {
    this.inRound = false;
  }

  /** The session ends. */
  stop(): void {
    clearTimeout(this.#timer);
  }
}

/** The refusal of an answer when no call is at a round. */
export function noRound(id: string): string {
  return `session '${id}' awaits no decisions (no call is at a scheduling round)`;
}
