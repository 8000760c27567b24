// The admission policy `external` when a `.replay` log of an external
// session (`evtsim serve`, admission "external") is re-simulated: the client
// is not there, so the decisions the log recorded are the policy. Each
// event's recorded sessions are loaded before the event is applied; at each
// scheduling round the policy takes the next recorded round at the clock,
// starts its DISPATCHes in their order (through the session's own
// `dispatch`, so an edited log's start that does not fit is refused by the
// engine as any policy's would be) and pends every other candidate with
// the reason the log gives it (or the one it gave last, which writes no new
// row, as in the recorded run).
//
// An external session has one admission session per round
// (`singleSession`), so a recorded round is one session's decisions.

import type { Admission, AdmissionSession } from "../core/admission.ts";
import { type PendReason, pendReasons } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import type { JobRecord } from "../core/types.ts";
import type { SessionMessage } from "../io/replay_schema.ts";

/** The recorded decisions of an external run, handed to the engine as its admission policy. */
export class RecordedExternal {
  #rounds: readonly SessionMessage[] = [];
  /** The reason each waiting job was last pended with (a later pend with its code writes no row). */
  readonly #last = new Map<number, PendReason>();
  readonly admission: Admission;

  constructor() {
    this.admission = {
      name: "external",
      singleSession: true,
      runSession: (s) => this.#round(s),
    };
  }

  /** The rounds recorded after the event about to be applied. */
  load(rounds: readonly SessionMessage[]): void {
    this.#rounds = rounds;
  }

  #round(s: AdmissionSession): void {
    const candidates: JobRecord[] = [];
    for (let job = s.next(); job !== undefined; job = s.next()) candidates.push(job);
    // One round per clock time within an event: found by its time, so a
    // piece of an event applied again (the replay REPL) finds it again.
    const recorded = this.#rounds.find((r) => r.time === s.now);
    if (candidates.length === 0) return;
    const reasons = new Map<number, PendReason>();
    for (const d of recorded?.decisions ?? []) {
      if (d[0] === "PEND") {
        reasons.set(d[1], d[2] as PendReason);
        continue;
      }
      s.restart!();
      let job = s.next();
      while (job !== undefined && job.id !== d[1]) job = s.next();
      if (job === undefined) {
        throw new EvtsimError(
          "input",
          `the recorded DISPATCH of job ${d[1]} at time ${s.now}: job ${
            d[1]
          } is not waiting to start then`,
        );
      }
      s.dispatch(job, d[3] === "backfill");
      this.#last.delete(job.id);
    }
    s.restart!();
    for (let job = s.next(); job !== undefined; job = s.next()) {
      const reason = reasons.get(job.id) ?? this.#last.get(job.id) ?? pendReasons.external();
      s.pend(job, reason);
    }
    for (const [id, reason] of reasons) this.#last.set(id, reason);
  }
}
