// What the REPL's breakpoints watch (docs/seed-003-mapping.md, "Events"): the events of one
// piece, in the order the engine applies them at an instant — jobs arriving
// in the wait queue (JOB_PUSH), jobs ending (JOB_STATE_CHANGE), live updates
// of jobs and queues (JOB_UPDATE, QUEUE_UPDATE), then each scheduling round
// (BEGIN_ROUND) with its decisions (DECISION, and JOB_STATE_CHANGE state=RUN
// for a dispatch). They are read off the piece computed but not yet applied
// — the state before it, its input and what it returned — so a breakpoint
// stops *before* the piece that matches: `info job` still shows the job
// waiting, `step` applies the piece.
//
// On a machine, a `changeNodes` input is NODE_REQUEST (what was asked, due
// later); the nodes going offline or back at an instant, by a live change or
// the capacity schedule, are NODE_CHANGE (first of the instant, as the engine
// applies them), and a job a cut kills (--on_capacity_cut kill) is
// JOB_STATE_CHANGE state=KILLED.
//
// Field names are those of the log and `evtsim dump` (job, nodes, queue,
// round, time, …); the log's longer spellings (jobId, numNodes, timeLimit)
// are accepted in filters too.

import { type DecisionRow, PEND_REASON_CODES } from "../core/decisions.ts";
import type { SimState } from "../core/state.ts";
import { nodeEvents, nodeRequest } from "./_repl_node_events.ts";
import type { JobRecord } from "../core/types.ts";
import type { Candidate } from "./_repl_types.ts";
import { ReplError } from "./_repl_types.ts";

/** The event types a breakpoint can watch. */
export const EVENT_TYPES = [
  "JOB_PUSH",
  "JOB_STATE_CHANGE",
  "JOB_UPDATE",
  "QUEUE_UPDATE",
  "BEGIN_ROUND",
  "DECISION",
  "NODE_REQUEST",
  "NODE_CHANGE",
] as const;

/** One of {@link EVENT_TYPES}. */
export type EventType = typeof EVENT_TYPES[number];

type Value = string | number | boolean;

/** One event of a piece: its type and fields (in print order). */
export interface ReplEvent {
  readonly type: EventType;
  readonly fields: Readonly<Record<string, Value>>;
}

type FieldKind = "number" | "string" | "boolean" | readonly string[];

const STATES = ["RUN", "DONE", "FAILED", "KILLED", "CANCELLED", "PEND", "SUSP"] as const;

/** The fields of each event type and their kinds. */
const FIELDS: Readonly<Record<EventType, Readonly<Record<string, FieldKind>>>> = {
  NODE_REQUEST: { down: "string", up: "string", time: "number" },
  NODE_CHANGE: {
    node: "string",
    state: ["DOWN", "UP"],
    source: ["live", "schedule", "failure"],
    time: "number",
  },
  JOB_PUSH: {
    job: "number",
    queue: "string",
    nodes: "number",
    limit: "number",
    priority: "number",
    time: "number",
  },
  JOB_STATE_CHANGE: {
    job: "number",
    state: STATES,
    oldState: STATES,
    queue: "string",
    requeues: "number",
    suspensions: "number",
    time: "number",
  },
  JOB_UPDATE: { job: "number", priority: "number", queue: "string", time: "number" },
  QUEUE_UPDATE: {
    queue: "string",
    priority: "number",
    open: "boolean",
    maxRunning: "number",
    time: "number",
  },
  BEGIN_ROUND: { round: "number", time: "number" },
  DECISION: {
    type: ["DISPATCH", "PEND", "PREEMPT"],
    job: "number",
    nodes: "number",
    backfill: "boolean",
    reason: PEND_REASON_CODES,
    queue: "string",
    round: "number",
    time: "number",
  },
};

/** Longer spellings of the log (and common ones) for the same fields. */
const ALIASES: Readonly<Record<string, string>> = {
  id: "job",
  jobid: "job",
  numnodes: "nodes",
  timelimit: "limit",
  t: "time",
  submittime: "time",
  maxrunning: "maxRunning",
};

/** A breakpoint: an event type and field filters, all of which must match. */
export interface Breakpoint {
  readonly id: number;
  readonly type: EventType;
  readonly filters: readonly { readonly key: string; readonly value: Value }[];
}

/** `help break`: the event types and their fields. */
export const FIELDS_HELP: readonly string[] = [
  "break TYPE [key=value ...]: stop before an event of TYPE whose fields all match; the types:",
  "  JOB_PUSH          a job arrives in the wait queue",
  "  JOB_STATE_CHANGE  a job starts (RUN) or ends (DONE, FAILED, KILLED, CANCELLED), or a node",
  "                    failure or a preemption requeues it (PEND, oldState=RUN, requeues=N)",
  "                    or a preemption suspends it (SUSP, oldState=RUN, suspensions=N)",
  "  JOB_UPDATE        a waiting job's priority or queue changes",
  "  QUEUE_UPDATE      a queue is added or changed",
  "  BEGIN_ROUND       a scheduling round (session) begins",
  "  DECISION          a DISPATCH, PEND or PREEMPT decision (PREEMPT: victims=, mode=)",
  "  NODE_REQUEST      a machine's nodes are asked to go down or up (changeNodes; due at time)",
  "  NODE_CHANGE       a machine's node goes offline (DOWN) or back (UP): a live change, the schedule",
  "                    or a node failure (source=live, schedule, failure)",
  ...fieldLines(),
  "e.g. break DECISION type=DISPATCH job=40;  break JOB_STATE_CHANGE state=DONE queue=pdebug",
];

function fieldLines(): string[] {
  return EVENT_TYPES.map((t) => `fields of ${t}: ${fieldNames(t)}`);
}

function fieldNames(type: EventType): string {
  return Object.keys(FIELDS[type]).join(", ");
}

/** Parses `break TYPE [key=value ...]`'s arguments; throws a `ReplError` naming what is wrong. */
export function parseBreakpoint(id: number, args: readonly string[]): Breakpoint {
  if (args.length === 0) {
    throw new ReplError(`break needs an event type: ${EVENT_TYPES.join(", ")}`);
  }
  const type = args[0].toUpperCase() as EventType;
  if (!EVENT_TYPES.includes(type)) {
    throw new ReplError(
      `unknown event type '${args[0]}' (event types: ${EVENT_TYPES.join(", ")})`,
    );
  }
  const filters = args.slice(1).map((arg) => {
    const eq = arg.indexOf("=");
    if (eq <= 0 || eq === arg.length - 1) {
      throw new ReplError(
        `bad breakpoint filter '${arg}': write key=value (${type} fields: ${fieldNames(type)})`,
      );
    }
    const raw = arg.slice(0, eq);
    const key = FIELDS[type][raw] !== undefined ? raw : ALIASES[raw.toLowerCase()] ?? raw;
    const kind = FIELDS[type][key];
    if (kind === undefined) {
      throw new ReplError(
        `bad breakpoint filter '${arg}': ${type} has no field '${raw}' (fields: ${
          fieldNames(type)
        })`,
      );
    }
    return { key, value: parseValue(arg, kind, arg.slice(eq + 1)) };
  });
  return { id, type, filters };
}

function parseValue(arg: string, kind: FieldKind, text: string): Value {
  if (kind === "string") return text;
  if (kind === "number") {
    const n = Number(text);
    if (!Number.isFinite(n)) {
      throw new ReplError(`bad breakpoint filter '${arg}': '${text}' is not a number`);
    }
    return n;
  }
  if (kind === "boolean") {
    if (text === "true" || text === "false") return text === "true";
    throw new ReplError(`bad breakpoint filter '${arg}': '${text}' is not true or false`);
  }
  const v = kind.find((k) => k.toLowerCase() === text.toLowerCase());
  if (v === undefined) {
    throw new ReplError(
      `bad breakpoint filter '${arg}': '${text}' is not one of ${kind.join(", ")}`,
    );
  }
  return v;
}

/** Whether an event matches a breakpoint. */
export function matches(b: Breakpoint, e: ReplEvent): boolean {
  return b.type === e.type && b.filters.every((f) => e.fields[f.key] === f.value);
}

/** A breakpoint as `info break` lists it: `DECISION type=DISPATCH job=40`. */
export function formatBreakpoint(b: Breakpoint): string {
  return [b.type, ...b.filters.map((f) => `${f.key}=${f.value}`)].join(" ");
}

/** An event as one line: `DECISION type=DISPATCH job=40 nodes=8 …`. */
export function formatEvent(e: ReplEvent): string {
  return [e.type, ...Object.entries(e.fields).map(([k, v]) => `${k}=${v}`)].join(" ");
}

function recordOf(state: SimState, id: number): JobRecord | undefined {
  return id >= state.store.firstId ? state.store.records.get(id - state.store.firstId) : undefined;
}

/** Whether a job has ended (its record is final, or it has been written and dropped). */
function ended(state: SimState, id: number): JobRecord | "gone" | undefined {
  if (id < state.store.firstId) return "gone";
  const r = recordOf(state, id);
  return r !== undefined && r.endTime >= 0 ? r : undefined;
}

/**
 * The events of a piece (only those of `types`, when given, so a run with
 * only DECISION breakpoints does not look at arrivals and ends).
 */
export function eventsOf(c: Candidate, types?: ReadonlySet<EventType>): ReplEvent[] {
  const before = c.before.state;
  const after = c.result.state;
  if (before.replay) return [];
  const want = (t: EventType) => types === undefined || types.has(t);
  const out: ReplEvent[] = [];
  const t = after.time;
  const advance = c.input.kind === "advanceTo" || c.input.kind === "runUntilExclusive" ||
    c.input.kind === "runToCompletion";
  if (c.input.kind === "changeNodes" && want("NODE_REQUEST")) {
    out.push(nodeRequest(c.input, before));
  }
  const killed = advance ? nodeEvents(before, after, out, want) : new Set<number>();
  if (advance && want("JOB_PUSH")) jobPushes(before, t, out);
  if (advance && want("JOB_STATE_CHANGE")) {
    for (const e of before.events.values()) {
      if (e.time > t) break;
      if (e.kind === 0) out.push(stateChange(before, e.id, "DONE", e.time));
    }
  }
  if (advance) {
    for (const l of before.liveEvents.values()) {
      if (l.time > t) break;
      if (l.kind === "updateJob" && want("JOB_UPDATE")) {
        out.push({
          type: "JOB_UPDATE",
          fields: {
            job: l.id,
            ...(l.update.priority === undefined ? {} : { priority: l.update.priority }),
            ...(l.update.queue === undefined ? {} : { queue: l.update.queue }),
            time: l.time,
          },
        });
      } else if (l.kind === "updateQueue" && want("QUEUE_UPDATE")) {
        const q = l.queue;
        out.push({
          type: "QUEUE_UPDATE",
          fields: {
            queue: q.name,
            ...(q.priority === undefined ? {} : { priority: q.priority }),
            ...(q.open === undefined ? {} : { open: q.open }),
            ...(q.maxRunning === undefined ? {} : { maxRunning: q.maxRunning }),
            time: l.time,
          },
        });
      } else if ((l.kind === "cancel" || l.kind === "end") && want("JOB_STATE_CHANGE")) {
        const done = ended(after, l.id);
        // A live event that no longer applied by its time was dropped.
        if (done === undefined) continue;
        const outcome = done === "gone" ? undefined : done.outcome;
        const state = l.kind === "cancel"
          ? "CANCELLED"
          : outcome === "failed"
          ? "FAILED"
          : outcome === "killed"
          ? "KILLED"
          : "DONE";
        if (l.kind === "cancel" && done !== "gone" && outcome !== "cancelled") continue;
        killed.delete(l.id);
        out.push(stateChange(before, l.id, state, l.time));
      }
    }
  }
  for (const id of killed) out.push(stateChange(before, id, "KILLED", t));
  roundEvents(c, out, want);
  return out;
}

// The jobs submitted by `t` (they arrive in submit-time order).
function jobPushes(before: SimState, t: number, out: ReplEvent[]): void {
  for (const job of before.arrivals.values()) {
    if (job.submitTime > t) break;
    out.push({
      type: "JOB_PUSH",
      fields: {
        job: job.id,
        ...(job.queue === undefined ? {} : { queue: job.queue }),
        nodes: job.numNodes,
        limit: job.timeLimit,
        priority: job.priority,
        time: job.submitTime,
      },
    });
  }
}

function stateChange(state: SimState, id: number, to: string, time: number): ReplEvent {
  const queue = recordOf(state, id)?.queue;
  return {
    type: "JOB_STATE_CHANGE",
    fields: { job: id, state: to, ...(queue === undefined ? {} : { queue }), time },
  };
}

// Each round begun in the piece, with its decisions.
function roundEvents(c: Candidate, out: ReplEvent[], want: (t: EventType) => boolean): void {
  const before = c.before.state;
  const after = c.result.state;
  const decisions = c.result.rows.decisions;
  let k = 0;
  for (let round = before.round + 1; round <= after.round; round++) {
    if (want("BEGIN_ROUND")) {
      out.push({ type: "BEGIN_ROUND", fields: { round, time: after.time } });
    }
    for (; k < decisions.length && decisions[k].round <= round; k++) {
      decisionEvents(before, after, decisions[k], out, want);
    }
  }
  for (; k < decisions.length; k++) decisionEvents(before, after, decisions[k], out, want);
}

function decisionEvents(
  before: SimState,
  after: SimState,
  d: DecisionRow,
  out: ReplEvent[],
  want: (t: EventType) => boolean,
): void {
  const queue = recordOf(before, d.jobId)?.queue;
  const q: Record<string, Value> = queue === undefined ? {} : { queue };
  if (want("DECISION")) out.push({ type: "DECISION", fields: decisionFields(d, q) });
  if (d.type === "PREEMPT" && want("JOB_STATE_CHANGE")) victimEvents(before, after, d, out);
  if (d.type === "DISPATCH" && want("JOB_STATE_CHANGE")) {
    out.push({
      type: "JOB_STATE_CHANGE",
      fields: { job: d.jobId, state: "RUN", ...q, time: d.time },
    });
    // A job of no length ends at the instant it starts, in the same piece.
    const done = ended(after, d.jobId);
    if (done !== undefined && (done === "gone" || done.endTime === d.time)) {
      out.push({
        type: "JOB_STATE_CHANGE",
        fields: { job: d.jobId, state: "DONE", ...q, time: d.time },
      });
    }
  }
}

// A DECISION event's fields: the row's own, then the job's queue, round and time.
function decisionFields(d: DecisionRow, q: Record<string, Value>): Record<string, Value> {
  return d.type === "DISPATCH"
    ? {
      type: d.type,
      job: d.jobId,
      nodes: d.numNodes,
      backfill: d.backfill,
      ...q,
      round: d.round,
      time: d.time,
    }
    : d.type === "PREEMPT"
    ? {
      type: d.type,
      job: d.jobId,
      victims: d.victims.join(","),
      mode: d.mode.join(","),
      ...(d.grace === undefined ? {} : { grace: d.grace.join(","), stopAt: d.stopAt! }),
      ...q,
      round: d.round,
      time: d.time,
    }
    : { type: d.type, job: d.jobId, reason: d.reason.code, ...q, round: d.round, time: d.time };
}

// A preemption's victims: requeued (back to PEND, same id), cancelled
// (KILLED) or suspended (SUSP, same id, with its suspension count).
function victimEvents(
  before: SimState,
  after: SimState,
  d: Extract<DecisionRow, { type: "PREEMPT" }>,
  out: ReplEvent[],
): void {
  d.victims.forEach((id, i) => {
    // A victim with a grace time runs on: it changes state when it stops.
    if ((d.grace?.[i] ?? 0) > 0) return;
    const v = recordOf(before, id)?.queue;
    const vq: Record<string, Value> = v === undefined ? {} : { queue: v };
    const requeues = recordOf(after, id)?.requeues;
    const suspensions = recordOf(after, id)?.suspensions;
    out.push({
      type: "JOB_STATE_CHANGE",
      fields: d.mode[i] === "cancel"
        ? { job: id, state: "KILLED", oldState: "RUN", ...vq, time: d.time }
        : d.mode[i] === "suspend"
        ? {
          job: id,
          state: "SUSP",
          oldState: "RUN",
          ...vq,
          ...(suspensions === undefined ? {} : { suspensions }),
          time: d.time,
        }
        : {
          job: id,
          state: "PEND",
          oldState: "RUN",
          ...vq,
          ...(requeues === undefined ? {} : { requeues }),
          time: d.time,
        },
    });
  });
}
