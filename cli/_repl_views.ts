// The REPL's views of the re-simulation itself (rather than of a state):
// `help`, `info session`, `info config`, `history`, and how a piece is
// described.

import type { Stepper } from "./_repl_stepper.ts";
import type { Candidate, EventItem, Position } from "./_repl_types.ts";

/** One line per command, as `help` prints it. */
export const HELP: readonly string[] = [
  "step [N]                    apply the next N events (default 1); an event is one instant of the log",
  "next [N]                    run until N more scheduling sessions (rounds) have begun (default 1)",
  "continue                    run to the next breakpoint or to the end of the log",
  "back [N]                    go back N events (default 1)",
  "back session [N]            go back N sessions: to before the N-th last round began (default 1)",
  "history                     list the positions 'back' can return to",
  "break TYPE [key=value ...]  stop before an event of TYPE whose fields all match ('help break')",
  "info break                  list the breakpoints",
  "delete ID|all               delete a breakpoint, or every one",
  "info session                the position: event, time, round, log event, counts, last event",
  "info job ID                 one job: state, queue, priority, times; a waiting job's pend reason",
  "info queue NAME|all         a queue or all: priority, state, limits, running and waiting jobs",
  "info pending                every waiting job with its pend reason",
  "info resource               nodes (a machine's: busy, idle, offline); the head's reservation",
  "info node NAME              one node (n001 …): the job running on it, what it has free",
  "info summary                jobs waiting, running, finished; queues; nodes; a machine's utilization",
  "info config                 speed, output, verify, history, and the log's configuration",
  "snapshot [FILE]             write the state as a .replay ('replay FILE --start_time T' starts there)",
  "set speed X                 pace wall time: X simulated seconds per second (0: as fast as possible)",
  "set output FILE|off         write the re-simulation's log to FILE from here (as --output), or stop",
  "set verify on|off           compare each decision with the recorded one; print each mismatch",
  "help                        this list",
  "quit                        leave the REPL",
];

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
    `${r.length} events back, to event #${r[0].index} at t=${r[0].time} (round ${
      r[0].round
    }); --history ${s.historySessions} sessions`,
  ];
  for (let k = 1; k <= Math.min(LISTED, r.length); k++) {
    const p = r[r.length - k];
    lines.push(`  back ${k}: event #${p.index} at t=${p.time} (round ${p.round})`);
  }
  if (r.length > LISTED) {
    lines.push(`  … back ${r.length}: event #${r[0].index} at t=${r[0].time}`);
  }
  return lines;
}
