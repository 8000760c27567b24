// Reading DR_EVT CSV job traces (`simple`: columns found by header name;
// `lassen`: fixed positions). Traces reach 250k rows, so lines are cut with
// indexOf loops, only the needed fields are sliced, and a line without a
// double quote never goes through the quote-aware splitter.

import { isPad, splitAll, splitPlain, splitQuoted } from "./_csv_fields.ts";
import { FieldReader } from "./_csv_values.ts";
import { EvtsimError } from "../core/errors.ts";
import type { JobSpec, RecordedJob } from "../core/types.ts";
import { lassenPlan } from "./lassen.ts";
import { createTimestampParser, type TimestampParser } from "./timestamps.ts";

/** How to read a trace. */
export interface TraceReadOptions {
  /** Path of the trace, used in messages. */
  readonly file: string;
  /** `simple` (header names, the default) or `lassen` (fixed 33 columns). */
  readonly format?: "simple" | "lassen";
  /** IANA zone for calendar timestamps without an offset; default `America/Los_Angeles`. */
  readonly timezone?: string;
  /** Stop after this many data lines were read (DR_EVT `-j`); 0 or undefined = unlimited. */
  readonly maxJobs?: number;
  /**
   * The run-time mode the jobs are read for. Under `actual`, a job without an
   * actual run time (no such column, an empty value, or 0) runs for its time
   * limit, as DR_EVT does, and one warning line says how many. Default: the
   * values are read as they are (empty = none).
   */
  readonly runTimeMode?: "actual" | "limit" | "distribution";
  /** Same as `runTimeMode: "actual"` (the older name of the option). */
  readonly requireActualRunTime?: boolean;
  /** Progressive input: a submit time earlier than the previous row's is an error. */
  readonly requireSorted?: boolean;
}

/** A trace as loaded: jobs to simulate, or recorded jobs to replay. */
export interface LoadedTrace {
  /** `replay` when the trace has `begin_time` and `end_time` (always for `lassen`). */
  readonly mode: "simulation" | "replay";
  /** Simulation mode: jobs stably sorted by submit time (ties keep file order); else empty. */
  readonly jobs: JobSpec[];
  /** Replay mode: recorded jobs stably sorted by submit time, bad rows skipped; else empty. */
  readonly recorded: RecordedJob[];
  /** The queue column the input had; the schedule output repeats it. */
  readonly queueColumn: "q_id" | "queue" | undefined;
  /** The header has an actual-run-time column (it is read only in simulation mode). */
  readonly hasActualRunTime: boolean;
  /** Data lines read (blank lines excluded, skipped replay rows included). */
  readonly linesRead: number;
  /** Simulation rows whose actual run time exceeds the time limit (accepted). */
  readonly overruns: number;
  /**
   * Under `runTimeMode: "actual"`: simulation jobs without an actual run time
   * (no column, an empty value or 0) that run for their time limit.
   */
  readonly limitFallbacks: number;
  /** One line each, e.g. `t.csv:7: job event times are incorrect (submit > begin)`. */
  readonly warnings: string[];
}

/** A column the reader uses: its 0-based position and the name messages give it. */
export interface PlannedColumn {
  /** 0-based field position. */
  readonly index: number;
  /** Header name (or canonical name for `lassen`). */
  readonly name: string;
}

/** Where the fields of a trace format are; shared by the `simple` and `lassen` readers. */
export interface ColumnPlan {
  /** `job_submit_time`. */
  readonly submit: PlannedColumn;
  /** `num_nodes`. */
  readonly nodes: PlannedColumn;
  /** `time_limit` or an alias. */
  readonly limit: PlannedColumn;
  /** `q_id` or `queue`, if present. */
  readonly queue: PlannedColumn | undefined;
  /** Actual run time or an alias, if present. */
  readonly actual: PlannedColumn | undefined;
  /** `begin_time` (replay only). */
  readonly begin: PlannedColumn | undefined;
  /** `end_time` (replay only). */
  readonly end: PlannedColumn | undefined;
  /** Fields every data line must have. */
  readonly fieldCount: number;
  /** Header names by position, when the format has meaningful ones. */
  readonly names: readonly string[] | undefined;
}

/** The zone calendar timestamps are read in unless told otherwise (DR_EVT `--timezone`). */
export const DEFAULT_TIMEZONE = "America/Los_Angeles";

const TIME_LIMIT_ALIASES = ["time_limit", "timelimit", "walltime"];
const ACTUAL_ALIASES = [
  "actual_run_time",
  "actual_runtime",
  "duration",
  "actual_duration",
  "run_time",
];
const KNOWN_NAMES = new Set([
  "job_submit_time",
  "num_nodes",
  "q_id",
  "queue",
  "begin_time",
  "end_time",
  ...TIME_LIMIT_ALIASES,
  ...ACTUAL_ALIASES,
]);

// Value slots, in the order of the plan's columns.
const SUBMIT = 0, NODES = 1, LIMIT = 2, QUEUE = 3, ACTUAL = 4, BEGIN = 5, END = 6;

/**
 * Parses the text of a trace. Throws {@link EvtsimError} (one line: file, line, field, what was
 * expected) on the first bad row; replay rows with submit > begin or begin > end are skipped
 * with a warning instead, as DR_EVT does.
 *
 * @example
 * ```ts
 * import { parseTrace } from "./trace_csv.ts";
 * const t = parseTrace("job_submit_time,num_nodes,time_limit\n10,4,100\n0,2,50\n", { file: "t.csv" });
 * console.assert(t.mode === "simulation" && t.jobs[0].submitTime === 0);
 * ```
 */
export function parseTrace(text: string, options: TraceReadOptions): LoadedTrace {
  const format = options.format ?? "simple";
  if (format !== "simple" && format !== "lassen") {
    const e = `expected simple or lassen, got '${format}'`;
    throw new EvtsimError("usage", e, { field: "trace_format" });
  }
  let ts: TimestampParser;
  try {
    ts = createTimestampParser(options.timezone ?? DEFAULT_TIMEZONE);
  } catch (e) {
    throw new EvtsimError("usage", (e as Error).message, { field: "timezone" });
  }
  const maxJobs = options.maxJobs !== undefined && options.maxJobs > 0 ? options.maxJobs : Infinity;
  const actualMode = options.runTimeMode === "actual" || options.requireActualRunTime === true;
  const requireSorted = options.requireSorted === true;
  const r = new FieldReader(options.file, ts);

  const jobs: JobSpec[] = [];
  const recorded: RecordedJob[] = [];
  const warnings: string[] = [];
  const vals: string[] = ["", "", "", "", "", "", ""];
  let plan: ColumnPlan | undefined;
  let slotOf: Int8Array = new Int8Array(0);
  let linesRead = 0;
  let overruns = 0;
  let limitFallbacks = 0;
  let prevSubmit = -Infinity;
  const len = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0; // byte-order mark

  while (pos < len) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1) nl = len;
    r.line++;
    let end = nl;
    while (end > pos && isPad(text.charCodeAt(end - 1))) end--;
    const start = pos;
    pos = nl + 1;
    if (end === start) continue;
    const line = text.slice(start, end);

    if (plan === undefined) {
      plan = format === "lassen" ? lassenPlan() : headerPlan(line, r);
      slotOf = slotTable(plan);
      continue;
    }
    if (linesRead >= maxJobs) break;
    linesRead++;

    const names = plan.names;
    const got = line.indexOf('"') === -1
      ? splitPlain(line, slotOf, plan.fieldCount, vals)
      : splitQuoted(
        line,
        slotOf,
        plan.fieldCount,
        vals,
        (f) =>
          r.fail(
            "expected a closing double quote, got end of line",
            names?.[f] ?? `field ${f + 1}`,
          ),
      );
    if (got !== plan.fieldCount) {
      const e = `expected ${plan.fieldCount} comma-separated fields (as in the header), got ${
        got < plan.fieldCount ? got : "more"
      }`;
      throw r.fail(
        e,
        got < plan.fieldCount ? plan.names?.[got] ?? `field ${got + 1}` : `field ${got}`,
      );
    }

    const submitTime = r.time(vals[SUBMIT], plan.submit);
    const numNodes = r.count(vals[NODES], plan.nodes);
    const timeLimit = r.seconds(vals[LIMIT], plan.limit);
    const queue = plan.queue === undefined ? undefined : vals[QUEUE];

    if (plan.begin !== undefined && plan.end !== undefined) {
      const beginTime = r.time(vals[BEGIN], plan.begin);
      const endTime = r.time(vals[END], plan.end);
      if (submitTime > beginTime || beginTime > endTime) {
        const why = submitTime > beginTime ? "submit > begin" : "begin > end";
        warnings.push(`${r.file}:${r.line}: job event times are incorrect (${why})`);
        continue;
      }
      if (requireSorted) prevSubmit = r.ordered(submitTime, prevSubmit, vals[SUBMIT], plan.submit);
      recorded.push(
        queue === undefined
          ? { submitTime, numNodes, timeLimit, beginTime, endTime }
          : { submitTime, numNodes, timeLimit, queue, beginTime, endTime },
      );
      continue;
    }

    let actualRunTime: number | undefined;
    if (plan.actual !== undefined) {
      const raw = vals[ACTUAL];
      if (raw !== "") {
        actualRunTime = r.seconds(raw, plan.actual);
        if (actualRunTime > timeLimit) overruns++;
      }
    }
    // DR_EVT starts a job without a (positive) actual run time with its limit.
    if (actualMode && !(actualRunTime !== undefined && actualRunTime > 0)) {
      actualRunTime = undefined;
      limitFallbacks++;
    }
    if (requireSorted) prevSubmit = r.ordered(submitTime, prevSubmit, vals[SUBMIT], plan.submit);
    // Only keys with values, so that jobs compare equal to hand-written specs.
    if (actualRunTime === undefined) {
      jobs.push(
        queue === undefined
          ? { submitTime, numNodes, timeLimit }
          : { submitTime, numNodes, timeLimit, queue },
      );
    } else {
      jobs.push(
        queue === undefined
          ? { submitTime, numNodes, timeLimit, actualRunTime }
          : { submitTime, numNodes, timeLimit, actualRunTime, queue },
      );
    }
  }

  if (plan === undefined) {
    throw new EvtsimError("input", "expected a header row, got an empty file", {
      file: r.file,
      line: 1,
    });
  }
  const mode = plan.begin !== undefined ? "replay" : "simulation";
  if (mode === "simulation" && limitFallbacks > 0) {
    const what = plan.actual === undefined
      ? `no actual run time column (${ACTUAL_ALIASES.join(", ")})`
      : `${limitFallbacks} job(s) with an empty or zero ${plan.actual.name}`;
    warnings.push(
      `${r.file}: ${what}: such jobs run for their time limit (run_time_mode actual, as DR_EVT does)`,
    );
  }
  return {
    mode,
    jobs: sortBySubmitStable(jobs),
    recorded: sortBySubmitStable(recorded),
    queueColumn: plan.queue === undefined ? undefined : plan.queue.name as "q_id" | "queue",
    hasActualRunTime: plan.actual !== undefined,
    linesRead,
    overruns,
    limitFallbacks: mode === "simulation" ? limitFallbacks : 0,
    warnings,
  };
}

/**
 * Reads and parses a trace file (see {@link parseTrace}); the path names the file in messages.
 * A file that cannot be read gives an {@link EvtsimError} of kind `input`.
 */
export async function readTrace(
  path: string,
  options: Omit<TraceReadOptions, "file">,
): Promise<LoadedTrace> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read the trace: ${(e as Error).message}`, {
      file: path,
    });
  }
  return parseTrace(text, { ...options, file: path });
}

/**
 * Sorts jobs by submit time in place, keeping the file order of equal times (DR_EVT's
 * `std::stable_sort`), and returns the same array. Already sorted input costs one pass.
 */
export function sortBySubmitStable<T extends { readonly submitTime: number }>(jobs: T[]): T[] {
  for (let i = 1; i < jobs.length; i++) {
    if (jobs[i].submitTime < jobs[i - 1].submitTime) {
      return jobs.sort((a, b) => a.submitTime - b.submitTime); // Array#sort is stable
    }
  }
  return jobs;
}

function headerPlan(line: string, r: FieldReader): ColumnPlan {
  const names = splitAll(line);
  const at = new Map<string, number>();
  names.forEach((name, i) => {
    if (!at.has(name)) at.set(name, i);
    else if (KNOWN_NAMES.has(name)) {
      throw r.fail(`expected each column name once, got '${name}' twice`, name);
    }
  });
  const find = (aliases: readonly string[]): PlannedColumn | undefined => {
    for (const name of aliases) {
      const index = at.get(name);
      if (index !== undefined) return { index, name };
    }
    return undefined;
  };
  const need = (aliases: readonly string[], why = ""): PlannedColumn => {
    const found = find(aliases);
    if (found !== undefined) return found;
    const accepted = aliases.length > 1 ? ` (accepted names: ${aliases.join(", ")})` : "";
    throw r.fail(`expected this column in the header${why}${accepted}, got none`, aliases[0]);
  };
  const submit = need(["job_submit_time"]);
  const nodes = need(["num_nodes"]);
  const limit = need(TIME_LIMIT_ALIASES);
  const begin = find(["begin_time"]);
  const end = find(["end_time"]);
  if ((begin === undefined) !== (end === undefined)) {
    const [has, lacks] = begin !== undefined
      ? ["begin_time", "end_time"]
      : ["end_time", "begin_time"];
    throw r.fail(`ambiguous trace: has ${has} but not ${lacks}`, lacks);
  }
  const actual = find(ACTUAL_ALIASES);
  const queue = find(["q_id", "queue"]);
  return { submit, nodes, limit, queue, actual, begin, end, fieldCount: names.length, names };
}

// Field position → value slot (−1 = not read).
function slotTable(plan: ColumnPlan): Int8Array {
  const cols = [plan.submit, plan.nodes, plan.limit, plan.queue, plan.actual, plan.begin, plan.end];
  let size = 0;
  for (const c of cols) if (c !== undefined && c.index + 1 > size) size = c.index + 1;
  const table = new Int8Array(size).fill(-1);
  cols.forEach((c, slot) => {
    if (c !== undefined) table[c.index] = slot;
  });
  return table;
}
