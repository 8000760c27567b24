// `evtsim dump`: a `.replay` log as stable, diffable text, one line per
// message and one per decision (the seed interface's `scheduler dump`,
// docs/seed-003-mapping.md). What does not
// belong to the scheduling story is left out, so that the dump of a
// recording and the dump of its re-simulation are equal line for line when
// every decision is the same: the wall-clock start and the origin of the
// header, the wall duration and counts of sessions, and the sequence numbers
// and clock values events and snapshots were written with (a what-if run
// that inserts an event numbers the rest on, and may reach an input at
// another clock; decisions carry their own times).
//
//   header format=1 evtsim=0.1.0 config=sha256:… picker=builtin_fcfs admission=easy nodes=128 …
//   policy_module /home/me/my_policies.ts sha256=…   (one per module the run's policies came from)
//   snapshot
//   event runUntilExclusive {"time":112}
//   event appendJobs 2 jobs
//     job 0 {"submitTime":112,"numNodes":1,"timeLimit":225,"actualRunTime":146}
//     job 1 {"submitTime":245,"numNodes":2,"timeLimit":516,"actualRunTime":313}
//   event runToCompletion
//     t=112 round=1 DISPATCH job=0 nodes=1
//     t=245 round=2 PEND job=1 insufficient_nodes: needs 2 nodes, 1 free
//   end
//
// An appended batch gets one line per job (with the id it is given), so
// that a what-if that edits one job shows as one changed line.

import type { DecisionRow } from "../core/decisions.ts";
import { decisionRow, jobsOf, type LogEntry } from "./replay_log.ts";
import type { HeaderMessage, InputData, PolicyModuleRef } from "./replay_schema.ts";

/** The header line. */
export function dumpHeader(h: HeaderMessage): string {
  const c = h.config;
  const queues = c.queues.length === 0
    ? ""
    : ` queues=${c.queues.map((q) => `${q.name}:${q.priority ?? 0}`).join(",")}`;
  return `header format=${h.version} evtsim=${h.evtsim} config=${h.configHash} picker=${c.picker} admission=${c.backfillPolicy} nodes=${c.totalNodes}${queues} decisions=${c.decisions} start=${h.startTime}`;
}

/** The line naming a policy module the run used (after the header line). */
export function dumpPolicyModule(m: PolicyModuleRef): string {
  return `policy_module ${m.path} sha256=${m.sha256}`;
}

/**
 * An event's lines: its input kind and the input's other fields; an append
 * lists its jobs one per line, numbered from `nextJobId`.
 */
export function dumpEvent(input: InputData, nextJobId: number): string[] {
  if (input.kind === "appendJobs") {
    const { kind, jobs, ...rest } = input;
    const fields = Object.keys(rest).length === 0 ? "" : ` ${JSON.stringify(rest)}`;
    const specs = jobsOf(jobs);
    const lines = [`event ${kind} ${specs.length} jobs${fields}`];
    specs.forEach((j, i) => lines.push(`  job ${nextJobId + i} ${JSON.stringify(j)}`));
    return lines;
  }
  const { kind, ...rest } = input;
  const fields = Object.keys(rest).length === 0 ? "" : ` ${JSON.stringify(rest)}`;
  return [`event ${kind}${fields}`];
}

/** A decision line (indented under its event). */
export function dumpDecision(d: DecisionRow): string {
  const head = `  t=${d.time} round=${d.round} ${d.type} job=${d.jobId}`;
  if (d.type === "PEND") return `${head} ${d.reason.code}: ${d.reason.message}`;
  if (d.type === "PREEMPT") {
    return `${head} victims=${d.victims.join(",")} mode=${d.mode.join(",")}${
      d.grace === undefined ? "" : ` grace=${d.grace.join(",")} stopAt=${d.stopAt}`
    } ${d.reason.code}: ${d.reason.message}`;
  }
  // No queue: the log does not repeat a dispatched job's own queue.
  return `${head} nodes=${d.numNodes}${d.backfill ? " backfill" : ""}`;
}

/** Dumps messages in order, keeping track of the ids appended jobs get. */
export class Dumper {
  /** Id the next appended job gets (known from the last snapshot). */
  nextJobId = 0;

  /** The lines of one message. */
  lines(e: LogEntry): string[] {
    switch (e.type) {
      case "header":
        return [dumpHeader(e), ...(e.policyModules ?? []).map(dumpPolicyModule)];
      case "snapshot":
        this.nextJobId = e.state.nextJobId;
        return ["snapshot"];
      case "event":
        return this.event(e.input);
      case "session":
        return e.decisions.map((d) => dumpDecision(decisionRow(d, e.time, e.round)));
      case "end":
        return ["end"];
    }
  }

  /** The lines of one event (see {@link dumpEvent}). */
  event(input: InputData): string[] {
    const lines = dumpEvent(input, this.nextJobId);
    if (input.kind === "appendJobs") this.nextJobId += input.jobs.rows.length;
    return lines;
  }
}
