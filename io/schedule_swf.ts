// The schedule as a Standard Workload Format log (`--outfile x.swf`), so the
// tools that read SWF read a simulated schedule: one line of 18 fields per
// finished job, with the wait (field 3) and run time (field 4) the
// simulation produced, and header comments naming the machine size.
//
// Times are whole seconds relative to the first written job's submit time,
// which the `; UnixStartTime:` comment records. Unknown fields are -1, as
// the format asks; a numeric queue name is written as the queue number.

import type { JobRow } from "../core/types.ts";

/** What the header says about the run. */
export interface SwfScheduleOptions {
  /** Nodes in the machine (written as MaxNodes and MaxProcs). */
  readonly totalNodes: number;
  /** Version string for the `; Note:` comment. */
  readonly version: string;
}

/**
 * Writes SWF lines through `sink` as job rows arrive; the header is written
 * before the first job (whose submit time is the log's time 0), or by
 * `finish` when there are no jobs.
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

  /** Writes one finished job. */
  row(r: JobRow): void {
    const submit = Math.trunc(r.submitTime);
    if (this.base === undefined) this.header(submit);
    const begin = Math.trunc(r.beginTime);
    const end = Math.trunc(r.endTime);
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
      -1, // 12 user
      -1, // 13 group
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
