// The output files of a run: schedule CSV, resource CSV and (replay) the
// submission statistics CSV, all written atomically.

import type { Notice, StepRows } from "../core/types.ts";
import { AtomicTextWriter } from "../io/atomic_writer.ts";
import { RESOURCE_HEADER, resourceLine } from "../io/resource_csv.ts";
import { type ScheduleCsvOptions, scheduleHeader, scheduleLine } from "../io/schedule_csv.ts";
import { formatTime } from "../io/time_format.ts";

/** Paths and layout of a run's outputs. */
export interface OutputPaths {
  readonly schedule: string;
  readonly resources: string;
  readonly submissions?: string;
}

/** Writes rows as the reducer emits them; nothing appears until `commit`. */
export class RunOutputs {
  private readonly writers: AtomicTextWriter[] = [];
  private readonly jobs: AtomicTextWriter;
  private readonly resources: AtomicTextWriter;
  private readonly submissions: AtomicTextWriter | undefined;

  constructor(
    readonly paths: OutputPaths,
    private readonly layout: ScheduleCsvOptions,
    private readonly warn: (line: string) => void,
    private readonly totalNodes: number,
  ) {
    try {
      this.jobs = this.open(paths.schedule);
      this.resources = this.open(paths.resources);
      this.submissions = paths.submissions !== undefined ? this.open(paths.submissions) : undefined;
    } catch (e) {
      this.abort();
      throw e;
    }
    this.jobs.line(scheduleHeader(layout));
    this.resources.line(RESOURCE_HEADER);
    this.submissions?.line("job_id,submit_time,nodes_busy");
  }

  private open(path: string): AtomicTextWriter {
    const w = AtomicTextWriter.open(path);
    this.writers.push(w);
    return w;
  }

  /** Writes one step's rows and reports its notices. */
  write(rows: StepRows): void {
    for (const n of rows.notices) this.warn(noticeText(n, this.totalNodes));
    for (const r of rows.jobs) this.jobs.line(scheduleLine(r, this.layout));
    const msec = this.layout.msec === true;
    for (const r of rows.resources) this.resources.line(resourceLine(r, msec));
    if (this.submissions !== undefined && rows.submissions !== undefined) {
      for (const s of rows.submissions) {
        this.submissions.line(`${s.jobId},${formatTime(s.submitTime, msec)},${s.nodesBusy}`);
      }
    }
  }

  /** Moves every file into place. */
  commit(): void {
    for (const w of this.writers) w.commit();
  }

  /** Removes every temporary file. */
  abort(): void {
    for (const w of this.writers) w.abort();
  }
}

/** The stderr line for a notice, in DR_EVT's words where it has them. */
export function noticeText(n: Notice, totalNodes: number): string {
  switch (n.kind) {
    case "rejected":
      return `Job ${n.jobId} rejected: requests ${n.numNodes} nodes, exceeds total_nodes (${totalNodes}); this job can never be scheduled.`;
    case "stranded":
      return `Warning: ${n.waitingJobs} job(s) never started: at the end of the run (time ${n.time}) they still need more nodes than the usable capacity (${n.capacity} nodes, --capacity_schedule); they are left out of the schedule`;
    case "ignored":
      return `Warning: at ${n.time}: ${n.reason}; ignored`;
    case "overallocated":
      return `Warning: the replayed schedule over-allocates the machine: ${n.allocatedNodes} nodes in use at time ${n.time} (total_nodes ${n.totalNodes}); continuing, later over-allocations are not reported`;
  }
}
