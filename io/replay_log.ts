// The `.replay` log (docs/recording.md, "The .replay format"; JSON Lines
// instead of the seed interface's Cap'n Proto, docs/seed-003-mapping.md): one JSON object per line, each with `type` and the format
// `version`:
//
//   header    evtsim version, the configuration (picker, admission, queues…),
//             its sha-256, the simulation clock and wall-clock time when the
//             recording started, the snapshot interval, and whether it is a
//             recording or a re-simulation's own log
//   snapshot  the whole state (core/snapshot.ts) and `seq`, the number of
//             events before it; required right after the header, then every
//             N events
//   event     one input the core consumed (`input` is the reducer input as
//             JSON; an append's jobs as a table of columns and rows), `seq`
//             (0, 1, … from the start of the recording) and `time`, the
//             clock when it was given
//   session   one scheduling round that made decisions: its time, round
//             number, decisions in order (short arrays: ["DISPATCH", job,
//             nodes(, "backfill")], ["PEND", job, reason] or ["PREEMPT", job,
//             victims, modes, reason]) and a summary
//             (counts, and its share of the wall duration of the step that
//             ran it, which re-simulation ignores)
//   end       the recording stopped cleanly after `seq` events
//
// A session belongs to the event before it: the core runs rounds inside the
// step that applies an input (an advance), so the event comes first and the
// sessions it caused follow it. Rounds that decide nothing write no session.
//
// Reading (io/replay_reader.ts) validates every message with its schema and
// the file's structure (header first, snapshot second, sequence numbers,
// times never going back) and reports a problem as `file:line: …`. A last
// line that is not complete JSON is a torn write: it is reported as a
// warning and the rest is read.

import denoJson from "../deno.json" with { type: "json" };
import type { DecisionRow, PendReason } from "../core/decisions.ts";
import { EvtsimError } from "../core/errors.ts";
import { liveInputData, liveInputOfData } from "../core/_live_inputs_derived.ts";
import { type ConfigData, configData, snapshotOf } from "../core/snapshot.ts";
import type { SimState } from "../core/state.ts";
import type { Input } from "../core/step.ts";
import type { JobSpec } from "../core/types.ts";
import type { ResourceDemand } from "../core/resource_model.ts";
import { sha256Hex } from "./_sha256.ts";
import type {
  EventMessage,
  InputData,
  JobColumn,
  LogDecision,
  LogMessage,
  PolicyModuleRef,
  SessionMessage,
} from "./replay_schema.ts";

/** The log format this program writes and reads. */
export const FORMAT_VERSION = 1;

/** This program's version (deno.json), written into every header. */
export const EVTSIM_VERSION: string = denoJson.version;

// ---- encoding -------------------------------------------------------------

type InputDataOf<K extends InputData["kind"]> = Extract<InputData, { kind: K }>;

/** Jobs as a table (see `JobTableSchema`): the columns any of them needs, one row each. */
export function jobTable(jobs: readonly JobSpec[]): InputDataOf<"appendJobs">["jobs"] {
  let actual = false;
  let queue = false;
  let priority = false;
  let user = false;
  let account = false;
  let demand = false;
  let power = false;
  for (const j of jobs) {
    if (j.actualRunTime !== undefined) actual = true;
    if (j.queue !== undefined) queue = true;
    if (j.priority !== undefined) priority = true;
    if (j.user !== undefined) user = true;
    if (j.account !== undefined) account = true;
    if (j.demand !== undefined) demand = true;
    if (j.power !== undefined) power = true;
  }
  const columns: JobColumn[] = ["submitTime", "numNodes", "timeLimit"];
  if (actual) columns.push("actualRunTime");
  if (queue) columns.push("queue");
  if (priority) columns.push("priority");
  if (user) columns.push("user");
  if (account) columns.push("account");
  if (demand) columns.push("demand");
  if (power) columns.push("power");
  const rows = jobs.map((j) => {
    const row: (number | string | ResourceDemand | null)[] = [
      j.submitTime,
      j.numNodes,
      j.timeLimit,
    ];
    if (actual) row.push(j.actualRunTime ?? null);
    if (queue) row.push(j.queue ?? null);
    if (priority) row.push(j.priority ?? null);
    if (user) row.push(j.user ?? null);
    if (account) row.push(j.account ?? null);
    if (demand) row.push(j.demand ?? null);
    if (power) row.push(j.power ?? null);
    return row;
  });
  return { columns, rows };
}

/** The jobs a table stands for. */
export function jobsOf(table: InputDataOf<"appendJobs">["jobs"]): JobSpec[] {
  const { columns, rows } = table;
  const out: JobSpec[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const job: { -readonly [K in keyof JobSpec]?: JobSpec[K] } = {};
    for (let j = 0; j < columns.length; j++) {
      const v = row[j];
      if (v !== null) (job as Record<string, unknown>)[columns[j]] = v;
    }
    out[i] = job as JobSpec;
  }
  return out;
}

const target = (t: number): number | "Infinity" => (t === Infinity ? "Infinity" : t);

/** An input as an event message carries it: known fields only, JSON-safe. */
export function inputData(input: Input): InputData {
  switch (input.kind) {
    case "appendJobs":
      return {
        kind: input.kind,
        jobs: jobTable(input.jobs),
        ...(input.submit === undefined ? {} : { submit: input.submit }),
        ...(input.maxStoreCapacity === undefined
          ? {}
          : { maxStoreCapacity: input.maxStoreCapacity }),
      };
    case "submitJob":
      return { kind: input.kind, id: input.id, submitTime: input.submitTime };
    case "advanceTo":
    case "runUntilExclusive":
      return { kind: input.kind, time: target(input.time) };
    case "runToCompletion":
    case "flush":
    case "finish":
      return { kind: input.kind };
    case "replayJobs":
      throw new EvtsimError(
        "state",
        "the replay of a recorded schedule cannot be recorded: it makes no decisions",
      );
    default:
      // A live event: as its definition says (core/live_inputs.ts).
      return liveInputData(input) as InputData;
  }
}

/** The reducer input an event message stands for. */
export function inputOf(d: InputData): Input {
  switch (d.kind) {
    case "advanceTo":
    case "runUntilExclusive":
      return { kind: d.kind, time: d.time === "Infinity" ? Infinity : d.time };
    case "appendJobs":
      return { ...d, jobs: jobsOf(d.jobs) };
    case "submitJob":
    case "runToCompletion":
    case "flush":
    case "finish":
      return d;
    default:
      return liveInputOfData(d) as Input;
  }
}

function reasonData(r: PendReason): PendReason {
  const out: { -readonly [K in keyof PendReason]: PendReason[K] } = {
    code: r.code,
    message: r.message,
  };
  if (r.needed !== undefined) out.needed = r.needed;
  if (r.free !== undefined) out.free = r.free;
  if (r.end !== undefined) out.end = r.end;
  if (r.reservation !== undefined) out.reservation = r.reservation;
  if (r.blockedBy !== undefined) out.blockedBy = r.blockedBy;
  if (r.queue !== undefined) out.queue = r.queue;
  if (r.capacity !== undefined) out.capacity = r.capacity;
  return out;
}

/**
 * A decision as a session carries it (its time and round are the session's;
 * a DISPATCH's queue is the job's own and is not repeated).
 */
export function logDecision(d: DecisionRow): LogDecision {
  if (d.type === "PEND") return ["PEND", d.jobId, reasonData(d.reason)];
  if (d.type === "PREEMPT") {
    const head = ["PREEMPT", d.jobId, [...d.victims], [...d.mode], reasonData(d.reason)] as const;
    return d.grace === undefined ? head : [...head, [...d.grace]];
  }
  return d.backfill
    ? ["DISPATCH", d.jobId, d.numNodes, "backfill"]
    : ["DISPATCH", d.jobId, d.numNodes];
}

/** The decision row a session's decision stands for (without a DISPATCH's queue). */
export function decisionRow(d: LogDecision, time: number, round: number): DecisionRow {
  if (d[0] === "PREEMPT") {
    // The preemptor's queue is the job's own, which the events decide (as a DISPATCH's).
    const row = {
      type: "PREEMPT" as const,
      time,
      round,
      jobId: d[1],
      victims: d[2],
      mode: d[3],
      reason: d[4],
    };
    return d.length === 5 ? row : { ...row, grace: d[5], stopAt: time + Math.max(...d[5]) };
  }
  return d[0] === "PEND"
    ? { type: "PEND", time, round, jobId: d[1], reason: d[2] }
    : { type: "DISPATCH", time, round, jobId: d[1], numNodes: d[2], backfill: d.length === 4 };
}

/** `sha256:<hex>` of a configuration's JSON. */
export function configHash(config: ConfigData): string {
  return "sha256:" + sha256Hex(JSON.stringify(config));
}

/** What a log's header says besides the configuration (taken from the state). */
export interface HeaderFacts {
  /** Wall-clock start (ISO 8601), or null for a re-simulation's own log. */
  readonly wallStart: string | null;
  /** Events between periodic snapshots (0 = none). */
  readonly snapshotInterval: number;
  /** A recording of a run, or the log a re-simulation writes. */
  readonly origin: "recording" | "resimulation";
  /** The policy modules the run's policies came from (written only when there are some). */
  readonly policyModules?: readonly PolicyModuleRef[];
}

/**
 * Encodes messages as lines. Each method returns the line (with its
 * newline); the caller decides when to hand lines to a sink.
 */
export const encode = {
  header(state: SimState, facts: HeaderFacts): string {
    const config = configData(state.config, state.resources?.model);
    const msg = {
      type: "header",
      version: FORMAT_VERSION,
      evtsim: EVTSIM_VERSION,
      config,
      configHash: configHash(config),
      startTime: state.time,
      wallStart: facts.wallStart,
      snapshotInterval: facts.snapshotInterval,
      origin: facts.origin,
      ...(facts.policyModules !== undefined && facts.policyModules.length > 0
        ? { policyModules: facts.policyModules }
        : {}),
    };
    return JSON.stringify(msg) + "\n";
  },
  snapshot(seq: number, state: SimState): string {
    const msg = {
      type: "snapshot",
      version: FORMAT_VERSION,
      seq,
      time: state.time,
      state: snapshotOf(state),
    };
    return JSON.stringify(msg) + "\n";
  },
  event(seq: number, time: number, input: Input): string {
    const msg: EventMessage = {
      type: "event",
      version: FORMAT_VERSION,
      seq,
      time,
      input: inputData(input),
    };
    return JSON.stringify(msg) + "\n";
  },
  /**
   * One session line per round among `decisions` (grouped as they come).
   * `stepWallMs`, the wall time of the whole step, is shared evenly among
   * its rounds: the core runs a step without looking at a clock.
   */
  sessions(decisions: readonly DecisionRow[], stepWallMs: number): string {
    let rounds = 1;
    for (let i = 1; i < decisions.length; i++) {
      if (decisions[i].round !== decisions[i - 1].round) rounds++;
    }
    const wallMs = Math.round((stepWallMs / rounds) * 1000) / 1000;
    let out = "";
    for (let i = 0; i < decisions.length;) {
      const { time, round } = decisions[i];
      const group: LogDecision[] = [];
      let dispatched = 0;
      for (; i < decisions.length && decisions[i].round === round; i++) {
        const d = decisions[i];
        if (d.type === "DISPATCH") dispatched++;
        group.push(logDecision(d));
      }
      const msg: SessionMessage = {
        type: "session",
        version: FORMAT_VERSION,
        time,
        round,
        decisions: group,
        summary: { dispatched, pended: group.length - dispatched, wallMs },
      };
      out += JSON.stringify(msg) + "\n";
    }
    return out;
  },
  end(seq: number, time: number): string {
    return JSON.stringify({ type: "end", version: FORMAT_VERSION, seq, time }) + "\n";
  },
};

/** A message and the line it was read from (1-based). */
export type LogEntry = LogMessage & { readonly line: number };
