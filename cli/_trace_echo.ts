// What the outputs need of the input beyond what the engine keeps: each job's
// fields in the SWF log it came from (for an SWF schedule that keeps them)
// and its user and trace job number (for the extended schedule CSV). Jobs
// get ids 0, 1, … in the order the inputs are read, so job id k is the k-th
// job read over all inputs.

import type { JobSpec } from "../core/types.ts";
import type { SwfSourceLog } from "../io/schedule_swf.ts";
import type { LoadedInput } from "./load.ts";

const SWF_FIELDS = 18;

interface Chunk {
  /** Id of the chunk's first job. */
  readonly start: number;
  readonly jobs: readonly JobSpec[];
  /** 18 fields a job, with an SWF input read with `keepSwfFields`. */
  readonly fields?: Float64Array;
}

/** The inputs read so far, looked up by job id. */
export class TraceEcho {
  private readonly chunks: Chunk[] = [];
  private next = 0;
  private last = 0;
  /** The first input's SWF header, when it is an SWF log. */
  swfSource: SwfSourceLog | undefined;

  /** Records one input's jobs (ids continue from the previous input's). */
  add(input: LoadedInput): void {
    const swf = input.swf;
    if (this.chunks.length === 0 && swf !== undefined) {
      this.swfSource = {
        comments: swf.header.comments ?? [],
        machineSize: input.machineSize,
        unit: swf.unit,
        procsPerNode: swf.procsPerNode,
      };
    }
    const jobs = input.mode === "replay" ? input.recorded : input.jobs;
    this.chunks.push({ start: this.next, jobs, fields: swf?.fields });
    this.next += jobs.length;
  }

  private chunk(id: number): Chunk | undefined {
    // Rows come nearly in id order: start from the chunk of the last look-up.
    let i = this.last;
    const c = this.chunks;
    if (i >= c.length || c[i].start > id) i = 0;
    while (i + 1 < c.length && c[i + 1].start <= id) i++;
    this.last = i;
    const found = c[i];
    return found !== undefined && id - found.start < found.jobs.length ? found : undefined;
  }

  /** The job's 18 fields in its SWF log, if it came from one. */
  swfFields(id: number): Float64Array | undefined {
    const c = this.chunk(id);
    if (c?.fields === undefined) return undefined;
    const k = (id - c.start) * SWF_FIELDS;
    return c.fields.subarray(k, k + SWF_FIELDS);
  }

  /** The job as read. */
  spec(id: number): JobSpec | undefined {
    const c = this.chunk(id);
    return c?.jobs[id - c.start];
  }

  /** The job's number in its SWF log (field 1), or "" for a CSV trace. */
  traceJobId(id: number): string {
    const f = this.swfFields(id);
    return f === undefined ? "" : String(f[0]);
  }
}
