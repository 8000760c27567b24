// The schedule as a Standard Workload Format log (`--outfile x.swf`), so the
// tools that read SWF read a simulated schedule: one line of 18 fields per
// finished job, with the wait (field 3) and run time (field 4) the
// simulation produced.
//
// When the input was itself an SWF log, the output is that log as simulated:
// its header comments, job numbers, submit times, users, groups, queues,
// partitions, requests and statuses are written back as the log gave them, so
// per-user or per-queue analysis of the simulated schedule works as on the
// original; only what the simulation changed is rewritten (see `row`).
//
// Otherwise (a CSV trace) times are whole seconds relative to the first
// written job's submit time, which the `; UnixStartTime:` comment records;
// unknown fields are -1, as the format asks; a numeric queue name is written
// as the queue number, a numeric user or account as the user or group id.

import type { JobRow } from "../core/types.ts";
import type { SwfUnit } from "./swf.ts";

/** The SWF log a schedule was simulated from, as its header describes it. */
export interface SwfSourceLog {
  /** Every comment line of the log as written after its `;`, in file order. */
  readonly comments: readonly string[];
  /** The machine size the header gives, in `unit`. */
  readonly machineSize?: number;
  /** The unit the simulation counted sizes in. */
  readonly unit: SwfUnit;
  /** Processors per node (1 for `procs`). */
  readonly procsPerNode: number;
}

/** What the header says about the run. */
export interface SwfScheduleOptions {
  /** Nodes in the machine (written as MaxNodes and MaxProcs). */
  readonly totalNodes: number;
  /** Version string for the `; Note:` comment. */
  readonly version: string;
  /** The SWF log the jobs came from: its header and per-job fields are kept. */
  readonly source?: SwfSourceLog;
}

// SWF status codes for the jobs a live event ended (field 11).
const STATUS_OF_OUTCOME = { cancelled: 5, failed: 0, killed: 0 } as const;

/**
 * Writes SWF lines through `sink` as job rows arrive; the header is written
 * before the first job (whose submit time is the log's time 0 unless the
 * jobs come from an SWF log), or by `finish` when there are no jobs.
 *
 * @example
 * ```ts
 * import { SwfScheduleWriter } from "./schedule_swf.ts";
 * const lines: string[] = [];
 * const w = new SwfScheduleWriter((l) => lines.push(l), { totalNodes: 8, version: "0.1.0" });
 * w.row({ jobId: 0, submitTime: 100, beginTime: 130, endTime: 190, numNodes: 4, timeLimit: 600, queue: undefined });
 * w.finish();
 * console.assert(lines.at(-1) === "1 0 30 60 4 -1 -1 4 600 -1 1 -1 -1 -1 -1 -1 -1 -1");
 * console.assert(lines.includes("; UnixStartTime: 100"));
 *
 * // From an SWF log: its fields are kept, the simulated wait written.
 * const kept: string[] = [];
 * const source = { comments: [" UnixStartTime: 1000000000"], unit: "procs" as const, procsPerNode: 1 };
 * const s = new SwfScheduleWriter((l) => kept.push(l), { totalNodes: 8, version: "0.1.0", source });
 * const log = [17, 100, 5, 60, 4, 55, 9, 4, 600, -1, 1, 7, 3, 2, 1, 2, -1, -1];
 * s.row({ jobId: 0, submitTime: 100, beginTime: 130, endTime: 190, numNodes: 4, timeLimit: 600, queue: "1" }, log);
 * console.assert(kept[0] === "; UnixStartTime: 1000000000");
 * console.assert(kept.at(-1) === "17 100 30 60 4 55 9 4 600 -1 1 7 3 2 1 2 -1 -1");
 * ```
 */
export class SwfScheduleWriter {
  private base: number | undefined;

  constructor(
    private readonly sink: (line: string) => void,
    private readonly options: SwfScheduleOptions,
  ) {}

  private header(base: number): void {
    this.base = base;
    const n = this.options.totalNodes;
    const source = this.options.source;
    if (source !== undefined) return this.sourceHeader(source, n);
    for (
      const line of [
        "; Version: 2.2",
        "; Computer: evtsim simulated machine",
        "; Installation: evtsim",
        `; Note: schedule simulated by evtsim ${this.options.version}; wait (field 3) and run ` +
        "time (field 4) are the simulated ones",
        "; Note: job sizes are nodes; MaxProcs equals MaxNodes",
        `; UnixStartTime: ${base}`,
        `; MaxNodes: ${n}`,
        `; MaxProcs: ${n}`,
        ";",
      ]
    ) this.sink(line);
  }

  // The log's own header, with the machine size replaced when the simulated
  // machine is not the logged one, and notes saying what was simulated.
  private sourceHeader(source: SwfSourceLog, n: number): void {
    const resized = source.machineSize !== n;
    let sized = !resized;
    const size = () => {
      if (source.unit === "nodes") this.sink(`; MaxNodes: ${n}`);
      this.sink(`; MaxProcs: ${n * source.procsPerNode}`);
      sized = true;
    };
    for (const comment of source.comments) {
      const text = comment.trimEnd();
      if (resized && /^\s*Max(Nodes|Procs)\s*:/.test(text)) {
        // The simulated size takes the place of the logged one.
        if (!sized) size();
        continue;
      }
      this.sink(`;${text}`);
    }
    if (!sized) size();
    const unit = source.unit === "procs" ? "processors" : "nodes";
    this.sink(
      `; Note: schedule simulated by evtsim ${this.options.version} on ${n} ${unit}` +
        (resized ? ` (the log's machine: ${source.machineSize ?? "not given"})` : "") +
        "; wait (field 3), run time (field 4), allocated processors (field 5) and status " +
        "(field 11) are the simulated ones, the other fields the log's",
    );
  }

  /**
   * Writes one finished job. `log` is the job's 18 fields in the SWF log it
   * came from (with `options.source`); the fields the simulation changed are
   * rewritten: the wait (3), the run time (4), the allocated processors (5)
   * when the job held another number of nodes, the CPU time and memory used
   * (6, 7: -1 when the run time changed), and the status (11): 5 for a
   * cancelled job, 0 for a failed or killed one or one ended at its requested
   * time before its logged run time. `user` and `account` (a CSV trace's)
   * are written as fields 12 and 13 when they are whole numbers.
   */
  row(r: JobRow, log?: ArrayLike<number>, user?: string, account?: string): void {
    const submit = Math.trunc(r.submitTime);
    if (this.base === undefined) this.header(submit);
    const begin = Math.trunc(r.beginTime);
    const end = Math.trunc(r.endTime);
    const source = this.options.source;
    if (source !== undefined && log !== undefined) {
      return this.sink(logLine(r, log, begin - submit, end - begin, source.procsPerNode));
    }
    const queue = r.queue !== undefined && /^\d+$/.test(r.queue) ? Number(r.queue) : -1;
    const fields = [
      r.jobId + 1, // 1 job number (SWF counts from 1)
      submit - this.base!, // 2 submit time
      begin - submit, // 3 wait time
      end - begin, // 4 run time
      r.numNodes, // 5 allocated processors
      -1, // 6 average CPU time
      -1, // 7 used memory
      r.numNodes, // 8 requested processors
      Math.trunc(r.timeLimit), // 9 requested time
      -1, // 10 requested memory
      1, // 11 status: completed
      idOf(user), // 12 user
      idOf(account), // 13 group
      -1, // 14 executable
      queue, // 15 queue
      -1, // 16 partition
      -1, // 17 preceding job
      -1, // 18 think time
    ];
    this.sink(fields.join(" "));
  }

  /** Writes the header if no job was written. */
  finish(): void {
    if (this.base === undefined) this.header(0);
  }
}

function idOf(name: string | undefined): number {
  return name !== undefined && /^\d{1,15}$/.test(name) ? Number(name) : -1;
}

// A job of an SWF log with its simulated wait and run time.
function logLine(
  r: JobRow,
  log: ArrayLike<number>,
  wait: number,
  run: number,
  ppn: number,
): string {
  const logged = log[4];
  const allocated = logged > 0 && Math.ceil(logged / ppn) === r.numNodes
    ? logged
    : r.numNodes * ppn;
  const sameRun = run === log[3];
  const requested = log[8];
  const status = r.outcome !== undefined
    ? STATUS_OF_OUTCOME[r.outcome]
    : requested > 0 && run >= requested && run < log[3]
    ? 0
    : log[10];
  return `${log[0]} ${log[1]} ${wait} ${run} ${allocated} ${sameRun ? log[5] : -1} ${
    sameRun ? log[6] : -1
  } ${log[7]} ${requested} ${log[9]} ${status} ${log[11]} ${log[12]} ${log[13]} ${log[14]} ${
    log[15]
  } ${log[16]} ${log[17]}`;
}
