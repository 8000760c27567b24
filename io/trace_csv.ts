// Reading DR_EVT CSV job traces (`simple`: columns found by header name;
// `lassen`: fixed positions). Traces reach 250k rows, so lines are cut with
// indexOf loops, only the needed fields are sliced, and a line without a
// double quote never goes through the quote-aware splitter.

import { isPad, splitAll, splitPlain, splitQuoted } from "./_csv_fields.ts";
import { readPlainRow } from "./_csv_fast_row.ts";
import { FieldReader, show } from "./_csv_values.ts";
import { forEachStreamLine, lineTooLong, MAX_LINE_CHARS } from "./_gzip_lines.ts";
import { EvtsimError } from "../core/errors.ts";
import type { JobSpec, RecordedJob } from "../core/types.ts";
import type { ResourceDemand } from "../core/resource_model.ts";
import { lassenPlan } from "./lassen.ts";
import { type JobColumns, jobSpec, withOwner } from "./_job_columns.ts";
import {
  ACCOUNT,
  ACTUAL,
  ACTUAL_ALIASES,
  BEGIN,
  type ColumnPlan,
  END,
  headerPlan,
  LIMIT,
  NODES,
  PRIORITY,
  QUEUE,
  slotTable,
  SUBMIT,
  TEXT_SLOTS,
  USER,
} from "./_trace_columns.ts";
import { createTimestampParser, type TimestampParser } from "./timestamps.ts";

/**
 * How to read a trace.
 *
 * @example
 * ```ts
 * import { parseTrace, type TraceReadOptions } from "@evtsim/evtsim/io";
 * const options: TraceReadOptions = { file: "jobs.csv", timezone: "UTC", maxJobs: 1 };
 * const t = parseTrace("job_submit_time,num_nodes,time_limit\n2024-01-01 00:00:00,4,60\n0,1,1\n", options);
 * console.assert(t.jobs.length === 1 && t.jobs[0].submitTime === 1704067200);
 * ```
 */
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
  /**
   * The queues a run defines (`--queues`): a job naming another queue is an
   * error naming its line. Undefined: any queue name is a label.
   */
  readonly queues?: ReadonlySet<string>;
  /**
   * Reads each simulation row's demand on a machine (`--machine`): the job
   * gets it and holds no share of the node count (numNodes 0). Undefined:
   * demand columns are ignored, as any unknown column is.
   */
  readonly demand?: TraceDemandReader;
  /**
   * DR_EVT's `--trace_type pcon`: every row has `avgpcon`, `minpcon` and
   * `maxpcon` columns (numbers), which its job carries as `pcon` ({@link PconJob}).
   */
  readonly pcon?: boolean;
}

/** A job's `avgpcon`, `minpcon` and `maxpcon` (a `--trace_type pcon` trace). */
export type PconValues = readonly [number, number, number];

/** What a job of a `pcon` trace carries besides its {@link JobSpec} fields. */
export interface PconJob {
  /** The row's `avgpcon`, `minpcon`, `maxpcon`. */
  readonly pcon?: PconValues;
}

/** The `pcon` columns, in the order a job's {@link PconValues} holds them. */
export const PCON_COLUMNS = ["avgpcon", "minpcon", "maxpcon"] as const;

/**
 * Turns a simulation row into a demand: `value(column)` is the text of a
 * column by header name (undefined when the header has none), `numNodes` the
 * row's num_nodes; `fail` makes the error naming the file, line and column.
 *
 * @example
 * ```ts
 * import { parseTrace, type TraceDemandReader } from "@evtsim/evtsim/io";
 * const demand: TraceDemandReader = (value, numNodes) => ({
 *   replicas: numNodes,
 *   perReplica: { gpus: Number(value("gpus") ?? 0) },
 * });
 * const t = parseTrace("job_submit_time,num_nodes,time_limit,gpus\n0,2,60,4\n", { file: "t.csv", demand });
 * console.assert(t.jobs[0].numNodes === 0 && t.jobs[0].demand?.perReplica.gpus === 4);
 * ```
 */
export type TraceDemandReader = (
  value: (column: string) => string | undefined,
  numNodes: number,
  fail: (detail: string, field: string) => EvtsimError,
) => ResourceDemand;

/**
 * A trace as loaded: jobs to simulate, or recorded jobs to replay.
 *
 * @example
 * ```ts
 * import { type LoadedTrace, parseTrace } from "@evtsim/evtsim/io";
 * const replay: LoadedTrace = parseTrace(
 *   "job_submit_time,begin_time,end_time,num_nodes,queue,time_limit\n0,5,65,4,pbatch,60\n",
 *   { file: "schedule.csv" },
 * );
 * // begin_time and end_time make it a recorded schedule to replay.
 * console.assert(replay.mode === "replay" && replay.recorded[0].endTime === 65);
 * console.assert(replay.queueColumn === "queue" && replay.jobs.length === 0);
 * ```
 */
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

/**
 * The zone calendar timestamps are read in unless told otherwise (DR_EVT `--timezone`).
 *
 * @example
 * ```ts
 * import { DEFAULT_TIMEZONE, parseTrace } from "@evtsim/evtsim/io";
 * const text = "job_submit_time,num_nodes,time_limit\n2024-01-01 00:00:00,1,1\n";
 * const t = parseTrace(text, { file: "t.csv", timezone: DEFAULT_TIMEZONE });
 * console.assert(DEFAULT_TIMEZONE === "America/Los_Angeles" && t.jobs[0].submitTime === 1704096000);
 * ```
 */
export const DEFAULT_TIMEZONE = "America/Los_Angeles";

/**
 * Parses the text of a trace. Throws {@link EvtsimError} (one line: file, line, field, what was
 * expected) on the first bad row; replay rows with submit > begin or begin > end are skipped
 * with a warning instead, as DR_EVT does.
 *
 * @example
 * ```ts
 * import { parseTrace } from "@evtsim/evtsim/io";
 * const t = parseTrace("job_submit_time,num_nodes,time_limit\n10,4,100\n0,2,50\n", { file: "t.csv" });
 * console.assert(t.mode === "simulation" && t.jobs[0].submitTime === 0);
 * ```
 */
export function parseTrace(text: string, options: TraceReadOptions): LoadedTrace {
  return parseTraceInto(text, options, undefined);
}

/**
 * {@link parseTrace}, with the simulation jobs added to `columns` (in file
 * order, unsorted) instead of the result's `jobs` when it is given.
 */
export function parseTraceInto(
  text: string,
  options: TraceReadOptions,
  columns: JobColumns | undefined,
): LoadedTrace {
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
  const vals: string[] = ["", "", "", "", "", "", "", "", "", ""];
  const queues = options.queues;
  const demandOf = options.demand;
  const pcon = options.pcon === true;
  let pconAt: number[] = [];
  let columnAt: Map<string, number> | undefined;
  let plan: ColumnPlan | undefined;
  let slotOf: Int8Array = new Int8Array(0);
  let linesRead = 0;
  let overruns = 0;
  let limitFallbacks = 0;
  let prevSubmit = -Infinity;
  const len = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0; // byte-order mark
  // The fast path (see _csv_fast_row.ts) for simulation rows; given up after
  // 64 rows in a row it could not read (calendar timestamps, say).
  const nums = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const spans = new Array<number>(20).fill(0);
  let fastMisses = 0;
  let lastQueue = "";
  // Rows of one user (account) share one string, as rows of one queue do.
  const lastText = ["", ""];
  const textAt = (slot: number, k: number): string => {
    const s = spans[2 * slot], n = spans[2 * slot + 1] - s;
    const last = lastText[k];
    return n === last.length && text.startsWith(last, s)
      ? last
      : (lastText[k] = text.slice(s, s + n));
  };

  while (pos < len) {
    let nl = text.indexOf("\n", pos);
    if (nl === -1) nl = len;
    r.line++;
    if (nl - pos > MAX_LINE_CHARS) throw lineTooLong(r.file, r.line);
    let end = nl;
    while (end > pos && isPad(text.charCodeAt(end - 1))) end--;
    const start = pos;
    pos = nl + 1;
    if (end === start) continue;

    if (plan === undefined) {
      plan = format === "lassen" ? lassenPlan() : headerPlan(text.slice(start, end), r);
      slotOf = slotTable(plan);
      if (pcon) {
        if (format === "lassen") {
          throw r.fail(
            "--trace_type pcon reads avgpcon, minpcon and maxpcon by name: give a simple trace",
            "format",
          );
        }
        const names = plan.names ?? [];
        pconAt = PCON_COLUMNS.map((name) => {
          const i = names.indexOf(name);
          if (i < 0) {
            throw r.fail("expected this column in the header (--trace_type pcon), got none", name);
          }
          return i;
        });
      }
      continue;
    }
    if (linesRead >= maxJobs) break;
    linesRead++;

    if (
      fastMisses < 64 && plan.begin === undefined && demandOf === undefined && !pcon &&
      readPlainRow(text, start, end, slotOf, plan.fieldCount, TEXT_SLOTS, nums, spans)
    ) {
      fastMisses = 0;
      const submitTime = nums[SUBMIT];
      let queue: string | undefined;
      if (plan.queue !== undefined) {
        // Rows of one queue share one string.
        const from = spans[2 * QUEUE], n = spans[2 * QUEUE + 1] - from;
        queue = n === lastQueue.length && text.startsWith(lastQueue, from)
          ? lastQueue
          : (lastQueue = text.slice(from, from + n));
      }
      if (
        !(queues !== undefined && queue !== undefined && !queues.has(queue)) &&
        !(requireSorted && submitTime < prevSubmit)
      ) {
        const timeLimit = nums[LIMIT];
        let actualRunTime = plan.actual === undefined ? undefined : nums[ACTUAL];
        if (actualRunTime !== undefined && actualRunTime > timeLimit) overruns++;
        if (actualMode && !(actualRunTime !== undefined && actualRunTime > 0)) {
          actualRunTime = undefined;
          limitFallbacks++;
        }
        if (requireSorted) prevSubmit = submitTime;
        const priority = plan.priority === undefined ? undefined : nums[PRIORITY];
        if (columns !== undefined) {
          columns.add(
            submitTime,
            nums[NODES],
            timeLimit,
            actualRunTime,
            queue,
            priority,
            plan.user === undefined ? undefined : textAt(USER, 0),
            plan.account === undefined ? undefined : textAt(ACCOUNT, 1),
          );
          continue;
        }
        const job = jobSpec(submitTime, nums[NODES], timeLimit, actualRunTime, queue, priority);
        jobs.push(
          plan.user === undefined && plan.account === undefined ? job : withOwner(
            job,
            plan.user === undefined ? undefined : textAt(USER, 0),
            plan.account === undefined ? undefined : textAt(ACCOUNT, 1),
          ),
        );
        continue;
      }
      // An unknown queue or an unsorted row: the general path reports it.
    } else fastMisses++;

    // Only the general path reads the line as a string of its own (a slice
    // per row was most of what the fast path allocated).
    const line = text.slice(start, end);
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
    if (queues !== undefined && queue !== undefined && !queues.has(queue)) {
      throw r.fail(
        `unknown queue ${show(queue)} (defined: ${[...queues].join(", ")})`,
        plan.queue!.name,
      );
    }
    const priority = plan.priority === undefined || vals[PRIORITY] === ""
      ? undefined
      : r.integer(vals[PRIORITY], plan.priority);

    if (plan.begin !== undefined && plan.end !== undefined) {
      const beginTime = r.time(vals[BEGIN], plan.begin);
      const endTime = r.time(vals[END], plan.end);
      if (submitTime > beginTime || beginTime > endTime) {
        const why = submitTime > beginTime ? "submit > begin" : "begin > end";
        warnings.push(`${r.file}:${r.line}: job event times are incorrect (${why})`);
        continue;
      }
      if (requireSorted) prevSubmit = r.ordered(submitTime, prevSubmit, vals[SUBMIT], plan.submit);
      let rec: RecordedJob = queue === undefined
        ? { submitTime, numNodes, timeLimit, beginTime, endTime }
        : { submitTime, numNodes, timeLimit, queue, beginTime, endTime };
      if (pcon) rec = { ...rec, pcon: pconValues(line, pconAt, r) } as RecordedJob;
      recorded.push(
        plan.user === undefined && plan.account === undefined ? rec : withOwner(
          rec,
          plan.user === undefined ? undefined : vals[USER],
          plan.account === undefined ? undefined : vals[ACCOUNT],
        ),
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
    if (columns !== undefined && demandOf === undefined && !pcon) {
      columns.add(
        submitTime,
        numNodes,
        timeLimit,
        actualRunTime,
        queue,
        priority,
        plan.user === undefined ? undefined : vals[USER],
        plan.account === undefined ? undefined : vals[ACCOUNT],
      );
      continue;
    }
    let job = jobSpec(submitTime, numNodes, timeLimit, actualRunTime, queue, priority);
    if (demandOf !== undefined) {
      if (columnAt === undefined) {
        columnAt = new Map();
        (plan.names ?? []).forEach((n, i) => columnAt!.has(n) || columnAt!.set(n, i));
      }
      const at = columnAt;
      let all: string[] | undefined;
      const value = (column: string): string | undefined => {
        const i = at.get(column);
        if (i === undefined) return undefined;
        all ??= splitAll(line);
        return all[i];
      };
      job = { ...job, numNodes: 0, demand: demandOf(value, numNodes, (d, f) => r.fail(d, f)) };
    }
    if (pcon) job = { ...job, pcon: pconValues(line, pconAt, r) } as JobSpec;
    jobs.push(
      plan.user === undefined && plan.account === undefined ? job : withOwner(
        job,
        plan.user === undefined ? undefined : vals[USER],
        plan.account === undefined ? undefined : vals[ACCOUNT],
      ),
    );
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

// A row's avgpcon, minpcon and maxpcon (DR_EVT reads them as doubles).
function pconValues(line: string, at: readonly number[], r: FieldReader): PconValues {
  const all = splitAll(line);
  const v = at.map((i, k) => {
    const raw = (all[i] ?? "").trim();
    const x = raw === "" ? NaN : Number(raw);
    if (!Number.isFinite(x)) throw r.fail(`expected a number, got '${raw}'`, PCON_COLUMNS[k]);
    return x;
  });
  return [v[0], v[1], v[2]];
}

/**
 * Reads and parses a trace file (see {@link parseTrace}); the path names the file in messages.
 * A file that cannot be read gives an {@link EvtsimError} of kind `input`.
 *
 * @example
 * ```ts
 * import { readTrace } from "@evtsim/evtsim/io";
 * const path = await Deno.makeTempFile({ suffix: ".csv" });
 * await Deno.writeTextFile(path, "job_submit_time,num_nodes,time_limit\n0,4,100\n");
 * const t = await readTrace(path, { runTimeMode: "actual" });
 * // No actual run time column: under run_time_mode actual, jobs run for their limit.
 * console.assert(t.jobs.length === 1 && t.limitFallbacks === 1 && t.warnings.length === 1);
 * await Deno.remove(path);
 * ```
 */
export async function readTrace(
  path: string,
  options: Omit<TraceReadOptions, "file">,
): Promise<LoadedTrace> {
  return parseTrace(await readTraceText(path), { ...options, file: path });
}

/** The text of a trace file; one that cannot be read gives an {@link EvtsimError} of kind `input`. */
export async function readTraceText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read the trace: ${(e as Error).message}`, {
      file: path,
    });
  }
}

/** How many jobs a trace's text can hold at most: its line count. */
export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Reads and parses a trace from a byte stream (a file's or a socket's
 * `readable`, `Deno.stdin.readable`, a fetch body), gunzipping it when it
 * starts with the gzip magic bytes; `options.file` names it in messages.
 *
 * @example
 * ```ts
 * import { readTraceStream } from "@evtsim/evtsim/io";
 * const bytes = new Blob(["job_submit_time,num_nodes,time_limit\n0,4,100\n"]).stream();
 * const t = await readTraceStream(bytes, { file: "stdin" });
 * console.assert(t.jobs.length === 1 && t.jobs[0].timeLimit === 100);
 * ```
 */
export async function readTraceStream(
  stream: ReadableStream<Uint8Array>,
  options: TraceReadOptions,
): Promise<LoadedTrace> {
  const lines: string[] = [];
  await forEachStreamLine(stream, options.file, (text, start, end) => {
    lines.push(text.slice(start, end));
    return true;
  });
  return parseTrace(lines.join("\n"), options);
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
