// The one line a re-simulation mismatch is reported as, in a file of its own:
// `evtsim replay --verify` and the REPL (cli/_repl_commands.ts) both print it,
// and the REPL, which replay_command.ts loads, need not import the command back.

import type { Mismatch } from "../api/resimulation.ts";
import type { DecisionRow } from "../core/decisions.ts";
import { dumpDecision } from "../io/replay_dump.ts";

/** The one-line report of a mismatch: time, job, and both decisions. */
export function mismatchText(file: string, m: Mismatch): string {
  const job = m.recorded?.jobId ?? m.resimulated?.jobId;
  const other = m.recorded !== undefined && m.resimulated !== undefined &&
      m.recorded.jobId !== m.resimulated.jobId
    ? `/${m.resimulated.jobId}`
    : "";
  return `mismatch at t=${m.time} job ${job}${other} (event #${m.seq}, ${file}:${m.line}, decision ${
    m.index + 1
  }): recorded: ${text(m.recorded)}; re-simulated: ${text(m.resimulated)}`;
}

function text(d: DecisionRow | undefined): string {
  return d === undefined ? "(none)" : dumpDecision(d).trim();
}
