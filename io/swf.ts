// Reader for the Standard Workload Format (SWF) of the Parallel Workloads
// Archive: 18 numeric fields per job, `;` header comments, -1 for unknown.
// Every decision that changes a job (a fallback, a skip, a run past the
// requested time) is counted in a load report so that none is silent.

import type { JobSpec, RecordedJob } from "../core/types.ts";
import { forEachLine, forEachStreamLine } from "./_gzip_lines.ts";
import { SwfParser } from "./_swf_parser.ts";

export { formatSwfReport } from "./_swf_report.ts";

/**
 * The unit job sizes and the machine size are expressed in.
 *
 * @example
 * ```ts
 * import { parseSwfText, type SwfUnit } from "@evtsim/evtsim/io";
 * const log = "; MaxNodes: 4\n; MaxProcs: 32\n1 0 5 100 16 -1 -1 16 600 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const size = (unit: SwfUnit) => parseSwfText(log, "log.swf", { unit }).jobs[0].numNodes;
 * console.assert(size("procs") === 16 && size("nodes") === 2); // 8 processors per node
 * ```
 */
export type SwfUnit = "nodes" | "procs";

/**
 * What to do with a job whose run time exceeds its requested time: `kill` ends
 * it at its limit (as a real resource manager would), `run` lets it run its
 * full time (as DR_EVT does), `inflate` raises its limit to its run time.
 *
 * @example
 * ```ts
 * import { type OverrunPolicy, parseSwfText } from "@evtsim/evtsim/io";
 * // Ran 100 s, asked for 60 s.
 * const log = "1 0 5 100 16 -1 -1 16 60 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const job = (overrun: OverrunPolicy) => parseSwfText(log, "log.swf", { overrun }).jobs[0];
 * console.assert(job("kill").actualRunTime === 60 && job("run").actualRunTime === 100);
 * console.assert(job("inflate").timeLimit === 100);
 * ```
 */
export type OverrunPolicy = "kill" | "run" | "inflate";

/**
 * Options of {@link readSwf}, {@link readSwfStream} and {@link parseSwfText}.
 *
 * @example
 * ```ts
 * import { parseSwfText, type SwfReadOptions } from "@evtsim/evtsim/io";
 * const log = "1 1000 7 100 16 -1 -1 16 600 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const options: SwfReadOptions = { relativeTimes: true, replayRecordedWait: true };
 * const { recorded } = parseSwfText(log, "log.swf", options);
 * console.assert(recorded[0].submitTime === 0 && recorded[0].beginTime === 7);
 * ```
 */
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
  /**
   * Also keep the 18 fields of every accepted job as the log gives them
   * ({@link LoadedSwf.fields}), for writing the simulated schedule back as
   * the same log (default false: 144 bytes a job).
   */
  readonly keepFields?: boolean;
}

/**
 * Counts of everything the reader did to the log's jobs.
 *
 * @example
 * ```ts
 * import { parseSwfText, type SwfLoadReport } from "@evtsim/evtsim/io";
 * // A job without a run time is skipped; one without a requested time uses its run time.
 * const log = "1 0 5 -1 16 -1 -1 16 60 -1 1 1 1 -1 1 -1 -1 -1\n2 9 5 30 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const report: SwfLoadReport = parseSwfText(log, "log.swf").report;
 * console.assert(report.read === 2 && report.accepted === 1 && report.skipped.nonPositiveRunTime === 1);
 * console.assert(report.limitFallbacks === 1);
 * ```
 */
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

/**
 * The header comments of an SWF log.
 *
 * @example
 * ```ts
 * import { parseSwfText, type SwfHeader } from "@evtsim/evtsim/io";
 * const header: SwfHeader = parseSwfText("; MaxProcs: 128\n; Queue: 1 batch\n", "log.swf").header;
 * console.assert(header.maxProcs === 128 && header.queues.get(1) === "batch");
 * ```
 */
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
  /** Every comment line as written after its `;`, in file order. */
  readonly comments?: readonly string[];
}

/**
 * What a read produced.
 *
 * @example
 * ```ts
 * import { type LoadedSwf, parseSwfText } from "@evtsim/evtsim/io";
 * const log = "; MaxProcs: 64\n1 30 5 100 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const swf: LoadedSwf = parseSwfText(log, "log.swf");
 * console.assert(swf.machineSize === 64 && swf.jobs[0].submitTime === 30 && swf.timeOffset === 0);
 * ```
 */
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
  /**
   * With `keepFields`: the 18 fields of `jobs[i]` as the log gives them, at
   * `fields[18 * i]` to `fields[18 * i + 17]` (field 1, the job number, first).
   */
  readonly fields?: Float64Array;
  /** With `keepFields`: the line of `jobs[i]` in the log. */
  readonly lines?: readonly number[];
}

/**
 * Reads an SWF log, streaming it line by line (gunzipped on the fly when the
 * name ends in `.gz`). Rejects with an `EvtsimError` naming the file, line and
 * field for a malformed line, and with "truncated or corrupt gzip stream" for
 * a damaged `.gz` file.
 *
 * @example
 * ```ts
 * import { formatSwfReport, readSwf } from "@evtsim/evtsim/io";
 * const path = await Deno.makeTempFile({ suffix: ".swf" });
 * await Deno.writeTextFile(path, "; MaxProcs: 64\n1 0 5 100 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n");
 * const { jobs, report, machineSize } = await readSwf(path);
 * const lines = formatSwfReport(report, "log.swf"); // the load report, for stderr
 * console.assert(jobs.length === 1 && machineSize === 64 && lines[0].endsWith("accepted 1, skipped 0"));
 * await Deno.remove(path);
 * ```
 */
export async function readSwf(path: string, options: SwfReadOptions = {}): Promise<LoadedSwf> {
  const parser = new SwfParser(path, options);
  await forEachLine(path, (text, start, end, line) => parser.line(text, start, end, line));
  return parser.finish();
}

/**
 * Reads an SWF log from a byte stream, line by line, gunzipping it when it
 * starts with the gzip magic bytes; `name` names it in messages.
 *
 * @example
 * ```ts
 * import { readSwfStream } from "@evtsim/evtsim/io";
 * const log = "; MaxProcs: 64\n1 0 5 100 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const { jobs, machineSize } = await readSwfStream(new Blob([log]).stream(), "stdin");
 * console.assert(machineSize === 64 && jobs[0].actualRunTime === 100);
 * ```
 */
export async function readSwfStream(
  stream: ReadableStream<Uint8Array>,
  name: string,
  options: SwfReadOptions = {},
): Promise<LoadedSwf> {
  const parser = new SwfParser(name, options);
  await forEachStreamLine(
    stream,
    name,
    (text, start, end, line) => parser.line(text, start, end, line),
  );
  return parser.finish();
}

/**
 * Parses SWF text already in memory; `file` is only used in error messages.
 *
 * @example
 * ```ts
 * import { parseSwfText } from "@evtsim/evtsim/io";
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
