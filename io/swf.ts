// Reader for the Standard Workload Format (SWF) of the Parallel Workloads
// Archive: 18 numeric fields per job, `;` header comments, -1 for unknown.
// Every decision that changes a job (a fallback, a skip, a run past the
// requested time) is counted in a load report so that none is silent.

import { EvtsimError } from "../core/errors.ts";
import type { JobSpec, RecordedJob } from "../core/types.ts";
import { forEachLine } from "./_gzip_lines.ts";
import {
  parseHeaderEntry,
  parseQueueEntry,
  positiveNumber,
  scanDataLine,
  SWF_FIELD_COUNT,
} from "./_swf_scan.ts";

export { formatSwfReport } from "./_swf_report.ts";

/** The unit job sizes and the machine size are expressed in. */
export type SwfUnit = "nodes" | "procs";

/**
 * What to do with a job whose run time exceeds its requested time: `kill` ends
 * it at its limit (as a real resource manager would), `run` lets it run its
 * full time (as DR_EVT does), `inflate` raises its limit to its run time.
 */
export type OverrunPolicy = "kill" | "run" | "inflate";

/** Options of {@link readSwf} and {@link parseSwfText}. */
export interface SwfReadOptions {
  /**
   * Unit of job sizes (default `procs`: SWF sizes are processor counts, and
   * the machine size is `MaxProcs`). With `nodes`, a job of p processors
   * needs ceil(p / procsPerNode) nodes and the machine has
   * floor(MaxProcs / procsPerNode) nodes (MaxNodes when MaxProcs is absent).
   */
  readonly unit?: SwfUnit;
  /**
   * Processors per node, used only with `unit: "nodes"`. Default: MaxProcs /
   * MaxNodes from the header when that is a whole number, else 1.
   */
  readonly procsPerNode?: number;
  /** Overrun policy (default `kill`). */
  readonly overrun?: OverrunPolicy;
  /** Stop after this many data lines; 0 or undefined reads them all. */
  readonly maxJobs?: number;
  /**
   * Also produce `recorded` jobs with begin = submit + wait and end = begin +
   * run time (after the overrun policy); jobs with an unknown wait are skipped.
   */
  readonly replayRecordedWait?: boolean;
  /** Subtract the earliest accepted submit time from all times (default false). */
  readonly relativeTimes?: boolean;
}

/** Counts of everything the reader did to the log's jobs. */
export interface SwfLoadReport {
  /** Data lines read (comments and blank lines excluded). */
  readonly read: number;
  /** Jobs kept. */
  readonly accepted: number;
  /** Jobs dropped, each counted once under the first reason that applies, in this order. */
  readonly skipped: {
    readonly missingSubmitTime: number;
    readonly nonPositiveSize: number;
    readonly nonPositiveRunTime: number;
    /** Only with `replayRecordedWait`. */
    readonly missingWait: number;
  };
  /** Accepted jobs without a requested time (field 9 ≤ 0): their run time was used. */
  readonly limitFallbacks: number;
  /** Accepted jobs without requested processors (field 8 ≤ 0): allocated processors (field 5) used. */
  readonly sizeFallbacks: number;
  /** Accepted jobs whose run time exceeds their requested time. */
  readonly overruns: number;
  /** What was done with the overruns. */
  readonly overrunPolicy: OverrunPolicy;
  /** Unit of the sizes. */
  readonly unit: SwfUnit;
  /** Processors per node used for `unit: "nodes"` (1 for `procs`). */
  readonly procsPerNode: number;
  /** Where procsPerNode came from. */
  readonly procsPerNodeFrom: "option" | "header" | "default";
  /** Machine size from the header in the chosen unit, when the header gives one. */
  readonly machineSize?: number;
  /** Accepted jobs larger than `machineSize` (a simulator will reject them). */
  readonly oversized: number;
  /** Accepted jobs submitted before the job accepted just before them (they were sorted). */
  readonly outOfOrder: number;
  /** True when reading stopped at `maxJobs`. */
  readonly stoppedAtMaxJobs: boolean;
}

/** The header comments of an SWF log. */
export interface SwfHeader {
  /** `; MaxNodes:` when positive. */
  readonly maxNodes?: number;
  /** `; MaxProcs:` when positive. */
  readonly maxProcs?: number;
  /** `; UnixStartTime:` (epoch seconds of time 0) when positive. */
  readonly unixStartTime?: number;
  /** Queue names by number from `; Queue: N name` lines. */
  readonly queues: ReadonlyMap<number, string>;
  /** Every `; Key: value` comment, in file order (keys may repeat). */
  readonly entries: ReadonlyArray<readonly [string, string]>;
}

/** What a read produced. */
export interface LoadedSwf {
  /** The header comments. */
  readonly header: SwfHeader;
  /** Accepted jobs, stably sorted by submit time. */
  readonly jobs: JobSpec[];
  /** The same jobs with recorded begin/end when `replayRecordedWait`, else empty. */
  readonly recorded: RecordedJob[];
  /** What was read, skipped, fallen back and overrun. */
  readonly report: SwfLoadReport;
  /** Default machine size in the chosen unit, from the header. */
  readonly machineSize?: number;
  /** Seconds subtracted from every time (`relativeTimes`), else 0. */
  readonly timeOffset: number;
}

const OVERRUN_POLICIES: readonly OverrunPolicy[] = ["kill", "run", "inflate"];

// Accumulates jobs line by line; sizes are converted at the end because the
// unit conversion may depend on header fields.
class SwfParser {
  readonly file: string;
  readonly opts: SwfReadOptions;
  readonly overrun: OverrunPolicy;
  readonly maxJobs: number;
  readonly replay: boolean;
  readonly fields = new Float64Array(SWF_FIELD_COUNT);
  readonly submit: number[] = [];
  readonly procs: number[] = [];
  readonly limit: number[] = [];
  readonly run: number[] = [];
  readonly wait: number[] = [];
  readonly queue: number[] = [];
  readonly entries: [string, string][] = [];
  readonly queues = new Map<number, string>();
  maxNodes: number | undefined;
  maxProcs: number | undefined;
  unixStartTime: number | undefined;
  read = 0;
  missingSubmitTime = 0;
  nonPositiveSize = 0;
  nonPositiveRunTime = 0;
  missingWait = 0;
  limitFallbacks = 0;
  sizeFallbacks = 0;
  overruns = 0;
  outOfOrder = 0;

  constructor(file: string, opts: SwfReadOptions) {
    this.file = file;
    this.opts = opts;
    this.overrun = opts.overrun ?? "kill";
    if (!OVERRUN_POLICIES.includes(this.overrun)) {
      throw new EvtsimError(
        "usage",
        `unknown overrun policy '${this.overrun}' (expected ${OVERRUN_POLICIES.join(", ")})`,
      );
    }
    if (opts.unit !== undefined && opts.unit !== "nodes" && opts.unit !== "procs") {
      throw new EvtsimError("usage", `unknown SWF unit '${opts.unit}' (expected nodes, procs)`);
    }
    const ppn = opts.procsPerNode;
    if (ppn !== undefined && !(Number.isInteger(ppn) && ppn > 0)) {
      throw new EvtsimError("usage", `procs per node must be a positive integer, got ${ppn}`);
    }
    this.maxJobs = opts.maxJobs ?? 0;
    if (!(Number.isInteger(this.maxJobs) && this.maxJobs >= 0)) {
      throw new EvtsimError(
        "usage",
        `max jobs must be a non-negative integer, got ${opts.maxJobs}`,
      );
    }
    this.replay = opts.replayRecordedWait ?? false;
  }

  /** Handles one line; false once `maxJobs` data lines have been read. */
  line(text: string, start: number, end: number, lineNo: number): boolean {
    let i = start;
    while (i < end && text.charCodeAt(i) <= 32) i++;
    if (i >= end) return true;
    if (text.charCodeAt(i) === 59 /* ; */) {
      this.headerLine(text.slice(i + 1, end));
      return true;
    }
    const f = this.fields;
    scanDataLine(text, i, end, f, this.file, lineNo);
    this.read++;
    this.job(f[1], f[2], f[3], f[4], f[7], f[8], f[14]);
    return this.maxJobs === 0 || this.read < this.maxJobs;
  }

  private headerLine(comment: string): void {
    const entry = parseHeaderEntry(comment);
    if (!entry) return;
    this.entries.push(entry);
    const [key, value] = entry;
    if (key === "MaxNodes") this.maxNodes = positiveNumber(value);
    else if (key === "MaxProcs") this.maxProcs = positiveNumber(value);
    else if (key === "UnixStartTime") this.unixStartTime = positiveNumber(value);
    else if (key === "Queue") {
      const q = parseQueueEntry(value);
      if (q) this.queues.set(q[0], q[1]);
    }
  }

  private job(
    submit: number,
    wait: number,
    run: number,
    allocated: number,
    requested: number,
    reqTime: number,
    queue: number,
  ): void {
    if (submit < 0) return void this.missingSubmitTime++;
    const procs = requested > 0 ? requested : allocated;
    if (procs <= 0) return void this.nonPositiveSize++;
    if (run <= 0) return void this.nonPositiveRunTime++;
    if (this.replay && wait < 0) return void this.missingWait++;
    if (requested <= 0) this.sizeFallbacks++;
    let limit = reqTime;
    let actual = run;
    if (reqTime <= 0) {
      this.limitFallbacks++;
      limit = run;
    } else if (run > reqTime) {
      this.overruns++;
      if (this.overrun === "kill") actual = reqTime;
      else if (this.overrun === "inflate") limit = run;
    }
    const n = this.submit.length;
    if (n > 0 && submit < this.submit[n - 1]) this.outOfOrder++;
    this.submit.push(submit);
    this.procs.push(procs);
    this.limit.push(limit);
    this.run.push(actual);
    this.wait.push(wait);
    this.queue.push(queue);
  }

  finish(): LoadedSwf {
    const unit = this.opts.unit ?? "procs";
    let ppn = 1;
    let ppnFrom: SwfLoadReport["procsPerNodeFrom"] = "default";
    const headerPpn = this.maxProcs !== undefined && this.maxNodes !== undefined
      ? this.maxProcs / this.maxNodes
      : undefined;
    if (unit === "nodes") {
      if (this.opts.procsPerNode !== undefined) {
        ppn = this.opts.procsPerNode;
        ppnFrom = "option";
      } else if (headerPpn !== undefined && Number.isInteger(headerPpn)) {
        ppn = headerPpn;
        ppnFrom = "header";
      }
    }
    let machineSize: number | undefined;
    if (unit === "procs") machineSize = this.maxProcs ?? this.maxNodes;
    else if (this.maxProcs !== undefined) machineSize = Math.floor(this.maxProcs / ppn);
    else machineSize = this.maxNodes;

    const n = this.submit.length;
    const order = Array.from({ length: n }, (_, k) => k);
    // Array.prototype.sort is stable, so equal submit times keep file order.
    if (this.outOfOrder > 0) order.sort((a, b) => this.submit[a] - this.submit[b]);
    const offset = this.opts.relativeTimes && n > 0 ? this.submit[order[0]] : 0;

    const jobs: JobSpec[] = [];
    const recorded: RecordedJob[] = [];
    let oversized = 0;
    for (const k of order) {
      const numNodes = Math.ceil(this.procs[k] / ppn);
      if (machineSize !== undefined && numNodes > machineSize) oversized++;
      const q = this.queue[k];
      const base = {
        submitTime: this.submit[k] - offset,
        numNodes,
        timeLimit: this.limit[k],
        actualRunTime: this.run[k],
      };
      // The queue name comes from the header's `; Queue: N name` lines.
      const spec: JobSpec = q < 0 ? base : { ...base, queue: this.queues.get(q) ?? String(q) };
      if (this.replay) {
        const beginTime = spec.submitTime + this.wait[k];
        const job: RecordedJob = { ...spec, beginTime, endTime: beginTime + this.run[k] };
        recorded.push(job);
        jobs.push(job);
      } else {
        jobs.push(spec);
      }
    }
    const report: SwfLoadReport = {
      read: this.read,
      accepted: n,
      skipped: {
        missingSubmitTime: this.missingSubmitTime,
        nonPositiveSize: this.nonPositiveSize,
        nonPositiveRunTime: this.nonPositiveRunTime,
        missingWait: this.missingWait,
      },
      limitFallbacks: this.limitFallbacks,
      sizeFallbacks: this.sizeFallbacks,
      overruns: this.overruns,
      overrunPolicy: this.overrun,
      unit,
      procsPerNode: ppn,
      procsPerNodeFrom: ppnFrom,
      machineSize,
      oversized,
      outOfOrder: this.outOfOrder,
      stoppedAtMaxJobs: this.maxJobs > 0 && this.read >= this.maxJobs,
    };
    const header: SwfHeader = {
      maxNodes: this.maxNodes,
      maxProcs: this.maxProcs,
      unixStartTime: this.unixStartTime,
      queues: this.queues,
      entries: this.entries,
    };
    return { header, jobs, recorded, report, machineSize, timeOffset: offset };
  }
}

/**
 * Reads an SWF log, streaming it line by line (gunzipped on the fly when the
 * name ends in `.gz`). Rejects with an `EvtsimError` naming the file, line and
 * field for a malformed line, and with "truncated or corrupt gzip stream" for
 * a damaged `.gz` file.
 *
 * @example
 * ```ts ignore
 * const { jobs, report, machineSize } = await readSwf("KTH-SP2-1996-2.1-cln.swf.gz");
 * for (const line of formatSwfReport(report, "KTH")) console.error(line);
 * ```
 */
export async function readSwf(path: string, options: SwfReadOptions = {}): Promise<LoadedSwf> {
  const parser = new SwfParser(path, options);
  await forEachLine(path, (text, start, end, line) => parser.line(text, start, end, line));
  return parser.finish();
}

/**
 * Parses SWF text already in memory; `file` is only used in error messages.
 *
 * @example
 * ```ts
 * import { parseSwfText } from "./swf.ts";
 * const text = "; MaxProcs: 64\n1 0 5 100 4 -1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const { jobs, report } = parseSwfText(text, "mini.swf");
 * console.assert(jobs[0].actualRunTime === 60 && report.overruns === 1);
 * ```
 */
export function parseSwfText(text: string, file: string, options: SwfReadOptions = {}): LoadedSwf {
  const parser = new SwfParser(file, options);
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  while (pos < text.length) {
    let nl = text.indexOf("\n", pos);
    if (nl < 0) nl = text.length;
    if (!parser.line(text, pos, nl, ++lineNo)) break;
    pos = nl + 1;
  }
  return parser.finish();
}
