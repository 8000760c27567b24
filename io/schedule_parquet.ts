// The schedule as an Apache Parquet file (`--outfile x.parquet`), for studies
// too large for CSV: the columns of the schedule CSV with the same names and
// values (times truncated as the CSV writes them), written through the
// maintained `hyparquet-writer` package. Rows are collected column by column
// and the file is encoded once, at the end of the run.

import { parquetWriteBuffer } from "hyparquet-writer";
import type { JobRow } from "../core/types.ts";
import type { ScheduleCsvOptions } from "./schedule_csv.ts";
import { formatTime } from "./time_format.ts";

/** The per-job figures of `--extended_output`. */
export interface ExtendedFields {
  /** Wait, in seconds. */
  readonly wait: number;
  /** Bounded slowdown. */
  readonly boundedSlowdown: number;
  /** The job's number in its trace (SWF field 1), or "". */
  readonly traceJobId: string;
  /** The job's user in its trace, or "". */
  readonly user: string;
  /** The nodes it ran on, Slurm hostlist form (io/hostlist.ts), or "". */
  readonly nodes?: string;
}

/** Layout of the Parquet schedule: the CSV's, with or without the extended columns. */
export interface ScheduleParquetOptions extends ScheduleCsvOptions {
  /** Add job_id, wait_time, bounded_slowdown, trace_job_id, trace_user and nodes. */
  readonly extended?: boolean;
}

// A time with the value the CSV writes: whole seconds, or milliseconds, truncated.
function time(t: number, msec: boolean): number {
  return msec ? Number(formatTime(t, true)) : Math.trunc(t);
}

/**
 * Collects schedule rows and encodes them as one Parquet file.
 *
 * @example
 * ```ts
 * import { ScheduleParquet } from "./schedule_parquet.ts";
 * import { parquetReadObjects } from "hyparquet";
 * const p = new ScheduleParquet({});
 * p.row({ jobId: 0, submitTime: 0, beginTime: 5, endTime: 65, numNodes: 2, timeLimit: 100, queue: undefined });
 * const bytes = p.bytes();
 * const rows = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
 * console.assert(rows[0].begin_time === 5 && rows[0].num_nodes === 2);
 * ```
 */
export class ScheduleParquet {
  private readonly submit: number[] = [];
  private readonly begin: number[] = [];
  private readonly end: number[] = [];
  private readonly nodes: number[] = [];
  private readonly exit: number[] = [];
  private readonly queue: string[] = [];
  private readonly limit: number[] = [];
  private readonly jobId: number[] = [];
  private readonly wait: number[] = [];
  private readonly slowdown: number[] = [];
  private readonly traceJobId: string[] = [];
  private readonly user: string[] = [];
  private readonly nodeList: string[] = [];

  constructor(private readonly options: ScheduleParquetOptions) {}

  /** Adds one finished job (`extra` with `extended`). */
  row(r: JobRow, extra?: ExtendedFields): void {
    const msec = this.options.msec === true;
    this.submit.push(time(r.submitTime, msec));
    this.begin.push(time(r.beginTime, msec));
    this.end.push(time(r.endTime, msec));
    this.nodes.push(r.numNodes);
    this.exit.push(r.exitStatus ?? 0);
    if (this.options.queueColumn !== undefined) this.queue.push(r.queue ?? "");
    this.limit.push(time(r.timeLimit, msec));
    if (this.options.extended === true && extra !== undefined) {
      this.jobId.push(r.jobId);
      this.wait.push(time(extra.wait, msec));
      this.slowdown.push(Number(extra.boundedSlowdown.toFixed(6)));
      this.traceJobId.push(extra.traceJobId);
      this.user.push(extra.user);
      this.nodeList.push(extra.nodes ?? "");
    }
  }

  /** The Parquet file of the rows added so far. */
  bytes(): Uint8Array {
    const o = this.options;
    const columns = [
      { name: "job_submit_time", data: this.submit, type: "DOUBLE" as const },
      { name: "begin_time", data: this.begin, type: "DOUBLE" as const },
      { name: "end_time", data: this.end, type: "DOUBLE" as const },
      { name: "num_nodes", data: this.nodes, type: "INT32" as const },
      { name: "exit_status", data: this.exit, type: "INT32" as const },
      ...(o.queueColumn !== undefined
        ? [{ name: o.queueColumn, data: this.queue, type: "STRING" as const }]
        : []),
      { name: "time_limit", data: this.limit, type: "DOUBLE" as const },
      ...(o.extended === true
        ? [
          { name: "job_id", data: this.jobId, type: "INT32" as const },
          { name: "wait_time", data: this.wait, type: "DOUBLE" as const },
          { name: "bounded_slowdown", data: this.slowdown, type: "DOUBLE" as const },
          { name: "trace_job_id", data: this.traceJobId, type: "STRING" as const },
          { name: "trace_user", data: this.user, type: "STRING" as const },
          { name: "nodes", data: this.nodeList, type: "STRING" as const },
        ]
        : []),
    ];
    return new Uint8Array(
      parquetWriteBuffer({ columnData: columns.map((c) => ({ ...c, nullable: false })) }),
    );
  }
}
