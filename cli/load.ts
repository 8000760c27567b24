// Chooses a reader for the input and turns what it read into jobs for the
// engine: DR_EVT CSV (simple or lassen), SWF or a Slurm accounting export
// (sacct --parsable2), simulation or replay.

import { EvtsimError } from "../core/errors.ts";
import { checkTimeBound, MAX_EXACT } from "../core/_input_check.ts";
import type { JobSpec, RecordedJob } from "../core/types.ts";
import { lineCount, parseTraceInto, readTraceText, sortBySubmitStable } from "../io/trace_csv.ts";
import { JobColumns } from "../io/_job_columns.ts";
import type { OverrunPolicy, SwfHeader, SwfLoadReport, SwfUnit } from "../io/swf.ts";
import { describeFsError } from "../io/fs_errors.ts";
import type { MachineInput } from "../io/_machine_demands.ts";

/** What a whole input file gave. */
export interface LoadedInput {
  readonly mode: "simulation" | "replay";
  /** The simulation jobs (empty when they are in `columns`). */
  readonly jobs: JobSpec[];
  /** With `LoadOptions.columns`: a CSV trace's simulation jobs, in submit-time order. */
  readonly columns?: JobColumns;
  readonly recorded: RecordedJob[];
  readonly queueColumn: "q_id" | "queue" | undefined;
  /** Machine size the input itself states (SWF header), if any. */
  readonly machineSize?: number;
  /** Lines for stderr: warnings and the load report. */
  readonly messages: string[];
  /** Data lines read (what --max_jobs counts). */
  readonly linesRead: number;
  /** For an SWF log: its header, unit and (with `keepSwfFields`) each job's 18 fields. */
  readonly swf?: {
    readonly header: SwfHeader;
    readonly unit: SwfUnit;
    readonly procsPerNode: number;
    readonly fields?: Float64Array;
    /** The reader's report (its lines are `messages`; another -n words one differently). */
    readonly report?: SwfLoadReport;
  };
}

/** How to read one input file. */
export interface LoadOptions {
  readonly format: TraceFormat;
  readonly timezone: string;
  readonly maxJobs: number;
  readonly runTimeMode: "actual" | "limit" | "distribution";
  readonly overrun?: OverrunPolicy;
  readonly swfUnit: "procs" | "nodes";
  readonly procsPerNode?: number;
  readonly swfReplayWait: boolean;
  readonly requireSorted: boolean;
  /** The machine size given on the command line (-n), which an SWF report then names. */
  readonly totalNodes?: number;
  /** The queues of `--queues`: a trace job naming another is an error at its line. */
  readonly queues?: ReadonlySet<string>;
  /** Keep each SWF job's 18 fields (an SWF schedule or extended CSV writes them back). */
  readonly keepSwfFields?: boolean;
  /** `--machine`: every job gets a demand on it (and numNodes 0). */
  readonly machine?: MachineInput;
  /** `--trace_type pcon`: each job carries its avgpcon, minpcon, maxpcon (a CSV trace's columns). */
  readonly pcon?: boolean;
  /**
   * A CSV simulation trace's jobs come as `columns` (made into objects as they
   * are fed) when they are in submit-time order, instead of as `jobs`.
   */
  readonly columns?: boolean;
}

/** The input formats `--trace_format` names. */
export type TraceFormat = "simple" | "lassen" | "swf" | "sacct";

/**
 * The format for a path when none was given: SWF for .swf / .swf.gz, a Slurm
 * accounting export for .psv / .sacct (optionally .gz), else DR_EVT's CSV.
 */
export function formatFor(path: string, given: string | undefined): TraceFormat {
  if (given === "simple" || given === "lassen" || given === "swf" || given === "sacct") {
    return given;
  }
  if (/\.swf(\.gz)?$/i.test(path)) return "swf";
  return /\.(psv|sacct)(\.gz)?$/i.test(path) ? "sacct" : "simple";
}

/**
 * {@link formatFor}, and then a file it would read as DR_EVT's CSV is read as
 * a Slurm accounting export when its first line is a `|`-separated header
 * naming a JobID column (sacct --parsable2's), whatever the file's name. An
 * explicit format is never second-guessed; gzip files and anything but a
 * regular file (a pipe) are judged by name only.
 */
export async function sniffFormat(path: string, given: string | undefined): Promise<TraceFormat> {
  const format = formatFor(path, given);
  if (given !== undefined || format !== "simple" || /\.gz$/i.test(path)) return format;
  let head: string;
  try {
    // Only a regular file: reading the start of a pipe would take it from the reader.
    if (!(await Deno.stat(path)).isFile) return format;
    using file = await Deno.open(path, { read: true });
    const buf = new Uint8Array(4096);
    const n = await file.read(buf);
    head = new TextDecoder().decode(buf.subarray(0, n ?? 0));
  } catch {
    return format; // the reader reports an unreadable file
  }
  const first = head.replace(/^\uFEFF/, "").split("\n", 1)[0].replace(/\r$/, "");
  const names = first.split("|").map((c) => c.trim().toLowerCase());
  return names.length > 1 && names.includes("jobid") ? "sacct" : format;
}

/** Reads one input file. */
export async function loadInput(path: string, o: LoadOptions): Promise<LoadedInput> {
  // The SWF and Slurm readers load only for their formats (start-up time).
  if (o.format === "swf") return await loadSwf(path, o);
  if (o.format === "sacct") return await loadSacct(path, o);
  return await loadCsv(path, o, o.format);
}

// An SWF log (io/swf.ts); on a machine, each job's demand from its fields.
async function loadSwf(path: string, o: LoadOptions): Promise<LoadedInput> {
  const { formatSwfReport, readSwf } = await import("../io/swf.ts");
  const swf = await readSwf(path, {
    unit: o.swfUnit,
    procsPerNode: o.procsPerNode,
    overrun: o.overrun ?? "kill",
    maxJobs: o.maxJobs,
    replayRecordedWait: o.swfReplayWait,
    keepFields: o.keepSwfFields || o.machine !== undefined,
  });
  if (!o.swfReplayWait) checkJobTimes(swf.jobs, path);
  if (o.machine !== undefined) {
    const { swfDemand } = await import("../io/_machine_demands.ts");
    const m = o.machine;
    const f = swf.fields!;
    for (let i = 0; i < swf.jobs.length; i++) {
      const line = swf.lines![i];
      const demand = swfDemand(
        m,
        f.subarray(18 * i, 18 * i + 18),
        swf.jobs[i].queue,
        (detail, field) => new EvtsimError("input", detail, { file: path, line, field }),
      );
      swf.jobs[i] = { ...swf.jobs[i], numNodes: 0, demand };
    }
  }
  return {
    mode: o.swfReplayWait ? "replay" : "simulation",
    jobs: swf.jobs,
    recorded: swf.recorded,
    queueColumn: undefined,
    machineSize: swf.machineSize,
    messages: formatSwfReport(swf.report, path, o.totalNodes),
    linesRead: swf.report.read,
    swf: {
      header: swf.header,
      unit: swf.report.unit,
      procsPerNode: swf.report.procsPerNode,
      fields: swf.fields,
      report: swf.report,
    },
  };
}

// A Slurm sacct dump (io/sacct.ts); on a machine, each job's demand from its record.
async function loadSacct(path: string, o: LoadOptions): Promise<LoadedInput> {
  const { formatSacctReport, readSacct } = await import("../io/sacct.ts");
  const sacct = await readSacct(path, {
    timezone: o.timezone,
    overrun: o.overrun ?? "kill",
    maxJobs: o.maxJobs,
    queues: o.queues,
  });
  checkJobTimes(sacct.jobs, path);
  if (o.machine !== undefined) {
    const { sacctDemand } = await import("../io/_machine_demands.ts");
    // The jobs are the records that ran, stably by submit time (as the reader orders them).
    const ran = sacct.records.filter((r) => r.start !== undefined && r.end !== undefined)
      .map((r, i) => [r, i] as const)
      .sort((a, b) => a[0].submit - b[0].submit || a[1] - b[1]).map((p) => p[0]);
    for (let i = 0; i < sacct.jobs.length; i++) {
      const demand = sacctDemand(o.machine, ran[i], path);
      sacct.jobs[i] = { ...sacct.jobs[i], numNodes: 0, demand };
    }
  }
  return {
    mode: "simulation",
    jobs: sacct.jobs,
    recorded: [],
    // The partition is each job's queue: shown in the schedule, and bound to
    // the queues of --queues when they are given.
    queueColumn: sacct.jobs.some((j) => j.queue !== undefined) ? "queue" : undefined,
    messages: formatSacctReport(sacct, path),
    linesRead: sacct.report.read,
  };
}

// A DR_EVT or Lassen CSV trace, into columns when the run allows it.
async function loadCsv(
  path: string,
  o: LoadOptions,
  format: "simple" | "lassen",
): Promise<LoadedInput> {
  const text = await readTraceText(path);
  const columns = o.columns === true && o.machine === undefined && o.pcon !== true
    ? new JobColumns(o.maxJobs > 0 ? Math.min(o.maxJobs, lineCount(text)) : lineCount(text))
    : undefined;
  const t = parseTraceInto(text, {
    file: path,
    format,
    timezone: o.timezone,
    maxJobs: o.maxJobs,
    requireActualRunTime: o.runTimeMode === "actual",
    requireSorted: o.requireSorted,
    queues: o.queues,
    ...(o.machine !== undefined
      ? { demand: (await import("../io/_machine_demands.ts")).csvDemands(o.machine) }
      : {}),
    ...(o.pcon === true ? { pcon: true } : {}),
  }, columns);
  const messages = [...t.warnings];
  let jobs = t.jobs;
  // Jobs out of submit-time order are sorted as objects (as without columns).
  const sorted = columns !== undefined && t.mode === "simulation" && columns.sorted
    ? columns
    : undefined;
  if (columns !== undefined && sorted === undefined && t.mode === "simulation") {
    jobs = sortBySubmitStable(columns.slice(0, columns.length));
  }
  if (t.mode === "simulation" && t.overruns > 0) {
    const policy = o.overrun ?? "run";
    if (sorted !== undefined) overrunColumns(sorted, policy);
    else jobs = applyOverrunPolicy(jobs, policy);
    messages.push(
      `${path}: ${t.overruns} job(s) have actual_run_time > time_limit; --overrun ${policy}: ${
        policy === "run"
          ? "they run their full actual time (DR_EVT behaviour)"
          : policy === "kill"
          ? "they end at their time limit"
          : "their time limit is raised to the actual run time"
      }`,
    );
  }
  if (t.mode === "simulation") {
    if (sorted !== undefined) checkColumnTimes(sorted, path);
    else checkJobTimes(jobs, path);
  }
  return {
    mode: t.mode,
    jobs,
    ...(sorted !== undefined ? { columns: sorted } : {}),
    recorded: t.recorded,
    queueColumn: t.queueColumn,
    messages,
    linesRead: t.linesRead,
  };
}

/**
 * Refuses a trace whose jobs could take the simulation's times past 2^53 − 1
 * (a job begins at a submit time or another job's end, and ends at most its
 * time limit or run time later), naming the file and the job, before
 * anything runs. The core checks the same bound as jobs are appended.
 */
function checkJobTimes(jobs: readonly JobSpec[], path: string): void {
  const bound = new TimeBound(path);
  for (let i = 0; i < jobs.length; i++) {
    const j = jobs[i];
    bound.add(i, j.submitTime, j.timeLimit, j.actualRunTime);
  }
}

function checkColumnTimes(c: JobColumns, path: string): void {
  const beyond = c.firstBeyond(MAX_EXACT);
  if (beyond === undefined) return;
  const { index, latest, spans } = beyond;
  try {
    checkTimeBound(latest, spans, `job ${index} (submitted at ${c.submitTime(index)} s)`);
  } catch (e) {
    throw new EvtsimError("input", (e as Error).message, { file: path });
  }
}

// The latest submit time and the sum of the jobs' spans so far.
class TimeBound {
  #latest = 0;
  #spans = 0;
  constructor(readonly path: string) {}

  add(i: number, submitTime: number, timeLimit: number, actualRunTime: number | undefined): void {
    if (submitTime > this.#latest) this.#latest = submitTime;
    const run = actualRunTime ?? timeLimit;
    this.#spans += run > timeLimit ? run : timeLimit;
    if (this.#latest + this.#spans > MAX_EXACT) {
      try {
        checkTimeBound(this.#latest, this.#spans, `job ${i} (submitted at ${submitTime} s)`);
      } catch (e) {
        throw new EvtsimError("input", (e as Error).message, { file: this.path });
      }
    }
  }
}

// applyOverrunPolicy on columns, in place.
function overrunColumns(c: JobColumns, policy: OverrunPolicy): void {
  if (policy === "run") return;
  for (let i = 0; i < c.length; i++) {
    const run = c.actualRunTime(i), limit = c.timeLimit(i);
    if (run === undefined || run <= limit) continue;
    if (policy === "kill") c.setTimes(i, limit, limit);
    else c.setTimes(i, run, run);
  }
}

function applyOverrunPolicy(jobs: JobSpec[], policy: OverrunPolicy): JobSpec[] {
  if (policy === "run") return jobs;
  return jobs.map((j) => {
    if (j.actualRunTime === undefined || j.actualRunTime <= j.timeLimit) return j;
    return policy === "kill"
      ? { ...j, actualRunTime: j.timeLimit }
      : { ...j, timeLimit: j.actualRunTime };
  });
}

/** Reads an `--infile_list` file: one trace path per line, relative to the list. */
export async function readInfileList(listPath: string): Promise<string[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(listPath);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${describeFsError(e)}`, { file: listPath });
  }
  const dir = listPath.includes("/") ? listPath.slice(0, listPath.lastIndexOf("/") + 1) : "";
  const paths: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    paths.push(line.startsWith("/") ? line : dir + line);
  }
  if (paths.length === 0) {
    throw new EvtsimError("input", "lists no trace files", { file: listPath });
  }
  return paths;
}
