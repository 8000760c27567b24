// The REPL's views of the re-simulation itself (rather than of a state):
// `info session`, `info config`, `history`, and how a piece is described.

import type { Stepper } from "./_repl_stepper.ts";
import type { Candidate, EventItem, Position } from "./_repl_types.ts";

/** How many positions `history` lists. */
const LISTED = 10;

/** A log event as the REPL names it: `seq 3 (runToCompletion, base.replay:6)`. */
export function describeEvent(item: EventItem): string {
  const e = item.event.entry;
  const input = e.input;
  const jobs = input.kind === "appendJobs" ? `, ${input.jobs.rows.length} jobs` : "";
  return `log event seq ${e.seq} (${input.kind}${jobs}, line ${e.line})`;
}

/** What a piece is: a whole log event, or one instant of an advance. */
export function describePiece(c: Candidate): string {
  const whole = c.last && !c.before.inEvent;
  return `${whole ? "" : "an instant of "}${describeEvent(c.item)}`;
}

function decisionsLine(p: Position): string {
  const d = p.pieceDecisions;
  if (d.length === 0) return "no decision";
  const dispatched = d.filter((x) => x.type === "DISPATCH").length;
  return `${dispatched} dispatched, ${d.length - dispatched} pended (round ${
    d[d.length - 1].round
  })`;
}

/** `info session`: the position, the log event in progress, the counts, the last event. */
export function sessionInfo(s: Stepper, file: string): string[] {
  const at = s.at;
  const lines = [`event #${at.index} at t=${at.state.time} (round ${at.state.round}), in ${file}`];
  if (at.ended) lines.push(`the log has ended: ${at.events} log events done`);
  else {
    const item = s.itemAt(at.item) as EventItem;
    lines.push(
      `${describeEvent(item)}: ${
        at.inEvent ? "in progress" : "next"
      }; ${at.events} log events done`,
    );
  }
  lines.push(
    `so far: ${at.sessions} sessions, ${at.decisions} decisions${
      s.verify ? `, ${at.mismatches} mismatches` : ""
    }`,
  );
  if (at.piece !== undefined) {
    lines.push(`last event (#${at.index}): ${at.piece.kind}; ${decisionsLine(at)}`);
  }
  return lines;
}

/** `info config`: the REPL's settings and the log's configuration. */
export function configInfo(s: Stepper, speed: number): string[] {
  const o = s.output;
  const last = s.lastOutput;
  const output = o !== undefined
    ? `${o.path} (${o.events} log events written)`
    : last !== undefined
    ? `off (last: ${last.path}, ${last.events} log events)`
    : "off";
  const c = s.sim.header.config;
  const queues = c.queues.length === 0 ? "none" : c.queues.map((q) => q.name).join(",");
  return [
    `speed=${speed} output=${output} verify=${
      s.verify ? "on" : "off"
    } history=${s.historySessions} sessions`,
    `log: picker=${c.picker} admission=${c.backfillPolicy} nodes=${c.totalNodes} queues=${queues} decisions=${c.decisions} config=${s.sim.header.configHash}`,
  ];
}

/** `history`: how far back `back` can go, and the latest positions. */
export function historyInfo(s: Stepper): string[] {
  const r = s.reachable();
  if (r.length === 0) {
    return [
      s.historySessions === 0
        ? "no history is kept (--history 0)"
        : "no history yet: this is the start of the re-simulation",
    ];
  }
  const lines = [
    `${r.length} events back, to event #${r[0].index} at t=${r[0].state.time} (round ${
      r[0].state.round
    }); --history ${s.historySessions} sessions`,
  ];
  for (let k = 1; k <= Math.min(LISTED, r.length); k++) {
    const p = r[r.length - k];
    lines.push(`  back ${k}: event #${p.index} at t=${p.state.time} (round ${p.state.round})`);
  }
  if (r.length > LISTED) {
    lines.push(`  … back ${r.length}: event #${r[0].index} at t=${r[0].state.time}`);
  }
  return lines;
}
