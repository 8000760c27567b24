// Reader for Slurm accounting exports (`sacct --parsable2`): a header line of
// column names, then one job per line, fields separated by `|`. Columns may
// come in any order. Every job line is kept as a record with everything a
// multi-resource machine model will need (CPUs, memory, GPUs, partition);
// the jobs handed to the simulator are the whole-node view of those that ran.
// Every job left out is counted in the report, so that none is silent.

import type { JobSpec, RecordedJob } from "../core/types.ts";
import { forEachLine, forEachStreamLine } from "./_gzip_lines.ts";
import { SacctParser } from "./_sacct_parser.ts";
import type { OverrunPolicy } from "./swf.ts";

/**
 * One job line of an export (step lines are not jobs), as Slurm recorded it.
 * Times are epoch seconds; sizes of memory are megabytes.
 *
 * @example
 * ```ts
 * import { parseSacct, type SacctJob } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes|AllocTRES|Partition\n" +
 *   "7_2|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:10|01:00:00|1|cpu=8,gres/gpu=2,mem=64G,node=1|gpu\n";
 * const job: SacctJob = parseSacct(text, "jobs.psv").records[0];
 * console.assert(job.arrayJobId === "7" && job.arrayTask === "2" && job.gpus === 2);
 * console.assert(job.allocTres?.mem === 65536 && job.partition === "gpu");
 * ```
 */
export interface SacctJob {
  /** Line in the file. */
  readonly line: number;
  /** `JobID` as printed (`123`, `123_4`, `123+0`). */
  readonly jobId: string;
  /** The array job's number, for an array task. */
  readonly arrayJobId?: string;
  /** The array task (`4`, or `[5-9]` for a pending array's remaining tasks). */
  readonly arrayTask?: string;
  /** The heterogeneous component's offset (`123+1` → 1). */
  readonly hetOffset?: number;
  /** `Submit`. */
  readonly submit: number;
  /** `Start`; absent when the job never started (`Unknown`, `None`). */
  readonly start?: number;
  /** `End`; absent when the job had not ended at export time. */
  readonly end?: number;
  /** `Timelimit` in seconds; absent for `UNLIMITED` and `Partition_Limit`. */
  readonly timeLimit?: number;
  /** `NNodes` (0 only for a job that never started: it was allocated nothing). */
  readonly nodes: number;
  /** `NCPUS`. */
  readonly cpus?: number;
  /** `ReqMem` in megabytes. */
  readonly memory?: number;
  /** What `memory` is per: `node` (`Gn`) or `cpu` (`Mc`), when the value says so. */
  readonly memoryPer?: "node" | "cpu";
  /** GPUs: `gres/gpu` of `AllocTRES`, else of `ReqTRES`. */
  readonly gpus?: number;
  /** `ReqTRES` as `{ name: amount }` (memory in megabytes). */
  readonly reqTres?: Readonly<Record<string, number>>;
  /** `AllocTRES` as `{ name: amount }` (memory in megabytes). */
  readonly allocTres?: Readonly<Record<string, number>>;
  /** `Partition`. */
  readonly partition?: string;
  /** `User`. */
  readonly user?: string;
  /** `Account`. */
  readonly account?: string;
  /** The state word of `State` (`COMPLETED`, `CANCELLED`, `TIMEOUT`, …). */
  readonly state?: string;
  /** Who cancelled it (`CANCELLED by 1000` → `1000`). */
  readonly cancelledBy?: string;
  /** `ExitCode` (`status:signal`). */
  readonly exitCode?: { readonly status: number; readonly signal: number };
}

/**
 * Options of {@link readSacct}, {@link readSacctStream} and {@link parseSacct}.
 *
 * @example
 * ```ts
 * import { parseSacct, type SacctReadOptions } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes\n" +
 *   "1|2024-07-01T12:00:00|2024-07-01T12:00:00|2024-07-01T12:10:00|05:00|2\n";
 * const options: SacctReadOptions = { timezone: "Europe/Berlin", overrun: "run" };
 * const { jobs, timeOffset } = parseSacct(text, "jobs.psv", options);
 * console.assert(timeOffset === 1719828000 && jobs[0].actualRunTime === 600);
 * ```
 */
export interface SacctReadOptions {
  /** IANA zone of the times (sacct prints the controller's local time; default `UTC`). */
  readonly timezone?: string;
  /** A job that ran longer than its `Timelimit` (default `kill`: it ends at its limit). */
  readonly overrun?: OverrunPolicy;
  /** Stop after this many job lines (step lines not counted); 0 or undefined reads them all. */
  readonly maxJobs?: number;
  /** Times relative to the earliest accepted submit (default `true`); `false` keeps epoch seconds. */
  readonly relativeTimes?: boolean;
  /** The queues a run defines: an accepted job whose partition is not one of them is an error. */
  readonly queues?: ReadonlySet<string>;
}

/**
 * Counts of everything the reader did.
 *
 * @example
 * ```ts
 * import { parseSacct, type SacctLoadReport } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes|State\n" +
 *   "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:05:00|UNLIMITED|1|COMPLETED\n" +
 *   "1.batch|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:05:00||1|COMPLETED\n" +
 *   "2|2024-01-01T00:01:00|Unknown|Unknown|01:00:00|1|PENDING\n";
 * const report: SacctLoadReport = parseSacct(text, "jobs.psv").report;
 * console.assert(report.read === 2 && report.steps === 1 && report.neverStarted === 1);
 * console.assert(report.accepted === 1 && report.noLimit === 1);
 * ```
 */
export interface SacctLoadReport {
  /** Job lines read (step lines excluded). */
  readonly read: number;
  /** Step lines (`123.batch`, `123.0`, `123.extern`) skipped. */
  readonly steps: number;
  /** Jobs simulated. */
  readonly accepted: number;
  /** Jobs left out because they never started (`Start` is `Unknown`/`None`: pending, or cancelled while waiting). */
  readonly neverStarted: number;
  /** Jobs left out because they had started but not ended at export time (`End` is `Unknown`). */
  readonly notEnded: number;
  /** Accepted jobs with `Timelimit` `UNLIMITED` or `Partition_Limit`: their run time is their limit. */
  readonly noLimit: number;
  /** Accepted jobs that ran longer than their `Timelimit` (Slurm's kill grace time). */
  readonly overruns: number;
  /** What was done with the overruns. */
  readonly overrunPolicy: OverrunPolicy;
  /** True when reading stopped at `maxJobs`. */
  readonly stoppedAtMaxJobs: boolean;
}

/**
 * What a read produced.
 *
 * @example
 * ```ts
 * import { type LoadedSacct, parseSacct } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes|User|Account|Partition\n" +
 *   "5|2024-01-01T00:10:00|2024-01-01T00:10:30|2024-01-01T00:20:30|1-00:00:00|4|ann|phys|cpu\n";
 * const s: LoadedSacct = parseSacct(text, "jobs.psv");
 * console.assert(s.jobs[0].submitTime === 0 && s.recorded[0].beginTime === 30);
 * console.assert(s.jobs[0].timeLimit === 86400 && s.jobs[0].numNodes === 4);
 * console.assert(s.jobs[0].user === "ann" && s.jobs[0].queue === "cpu");
 * ```
 */
export interface LoadedSacct {
  /** Every job line, in file order. */
  readonly records: SacctJob[];
  /** The accepted jobs as whole-node jobs, stably sorted by submit time. */
  readonly jobs: JobSpec[];
  /** The same jobs with their recorded begin and end (after the overrun policy). */
  readonly recorded: RecordedJob[];
  /** Epoch seconds subtracted from every time (the earliest accepted submit), or 0. */
  readonly timeOffset: number;
  /** What was read, skipped and overrun. */
  readonly report: SacctLoadReport;
}

/**
 * Reads a `sacct --parsable2` export (gunzipped on the fly when the name ends
 * in `.gz`). Bad input rejects with an `EvtsimError` naming the file, line and
 * column: `jobs.psv:7: NNodes: expected a whole number of nodes ≥ 1, got '0'`.
 *
 * @example
 * ```ts
 * import { readSacct } from "@evtsim/evtsim/io";
 * const path = await Deno.makeTempFile({ suffix: ".psv" });
 * await Deno.writeTextFile(path, "JobID|Submit|Start|End|Timelimit|NNodes\n" +
 *   "1|2024-01-01T00:00:00|2024-01-01T00:00:05|2024-01-01T00:01:05|10:00|2\n");
 * const { jobs } = await readSacct(path);
 * console.assert(jobs[0].numNodes === 2 && jobs[0].timeLimit === 600 && jobs[0].actualRunTime === 60);
 * await Deno.remove(path);
 * ```
 */
export async function readSacct(
  path: string,
  options: SacctReadOptions = {},
): Promise<LoadedSacct> {
  const parser = new SacctParser(path, options);
  await forEachLine(path, (text, start, end, line) => parser.line(text, start, end, line));
  return parser.finish();
}

/**
 * Reads a `sacct --parsable2` export from a byte stream (gunzipping it when it
 * starts with the gzip magic bytes); `name` names it in messages.
 *
 * @example
 * ```ts
 * import { readSacctStream } from "@evtsim/evtsim/io";
 * const text = "NNodes|Timelimit|JobID|Submit|Start|End\n" +
 *   "3|UNLIMITED|9|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00\n";
 * const { jobs } = await readSacctStream(new Blob([text]).stream(), "stdin");
 * console.assert(jobs[0].numNodes === 3 && jobs[0].timeLimit === 3600);
 * ```
 */
export async function readSacctStream(
  stream: ReadableStream<Uint8Array>,
  name: string,
  options: SacctReadOptions = {},
): Promise<LoadedSacct> {
  const parser = new SacctParser(name, options);
  await forEachStreamLine(
    stream,
    name,
    (text, start, end, line) => parser.line(text, start, end, line),
  );
  return parser.finish();
}

/**
 * Parses a `sacct --parsable2` export already in memory; `file` is only used
 * in error messages.
 *
 * @example
 * ```ts
 * import { parseSacct } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes\n" +
 *   "1|2024-01-01T00:00:00|2024-01-01T00:00:09|2024-01-01T00:00:05|10:00|1\n";
 * let message = "";
 * try {
 *   parseSacct(text, "jobs.psv");
 * } catch (e) {
 *   message = (e as Error).message;
 * }
 * console.assert(message.startsWith("jobs.psv:2: End: expected a time at or after Start"));
 * ```
 */
export function parseSacct(
  text: string,
  file: string,
  options: SacctReadOptions = {},
): LoadedSacct {
  const parser = new SacctParser(file, options);
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

/**
 * The load report as lines for stderr, naming the file.
 *
 * @example
 * ```ts
 * import { formatSacctReport, parseSacct } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes\n" +
 *   "1|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|10:00|1\n";
 * const lines = formatSacctReport(parseSacct(text, "jobs.psv"), "jobs.psv");
 * console.assert(lines[0] === "jobs.psv: read 1 jobs, accepted 1, skipped 0");
 * ```
 */
export function formatSacctReport(loaded: LoadedSacct, file: string): string[] {
  const r = loaded.report;
  const skipped = r.neverStarted + r.notEnded;
  const why: string[] = [];
  if (r.neverStarted > 0) why.push(`${r.neverStarted} never started`);
  if (r.notEnded > 0) why.push(`${r.notEnded} not ended at export`);
  const lines = [
    `${file}: read ${r.read} jobs, accepted ${r.accepted}, skipped ${skipped}` +
    (why.length > 0 ? ` (${why.join(", ")})` : ""),
  ];
  if (r.steps > 0) lines.push(`${file}: ${r.steps} step lines (JobID NNN.STEP) ignored`);
  if (r.noLimit > 0) {
    lines.push(
      `${file}: ${r.noLimit} job(s) with Timelimit UNLIMITED or Partition_Limit: ` +
        `their run time is their limit`,
    );
  }
  if (r.overruns > 0) {
    lines.push(
      `${file}: ${r.overruns} job(s) ran past their Timelimit; --overrun ${r.overrunPolicy}: ${
        r.overrunPolicy === "run"
          ? "they run their full actual time"
          : r.overrunPolicy === "kill"
          ? "they end at their time limit"
          : "their time limit is raised to the actual run time"
      }`,
    );
  }
  if (loaded.timeOffset !== 0) {
    const utc = new Date(loaded.timeOffset * 1000).toISOString().slice(0, 19);
    lines.push(
      `${file}: time 0 is the first submit, ${utc}Z (epoch ${loaded.timeOffset})`,
    );
  }
  if (r.stoppedAtMaxJobs) lines.push(`${file}: stopped after ${r.read} jobs (--max_jobs)`);
  return lines;
}
