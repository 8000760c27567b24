// The SWF parser behind io/swf.ts: accumulates a log's jobs line by line and
// converts sizes at the end (the unit conversion may depend on header fields),
// counting every decision it makes in the load report.

import { EvtsimError } from "../core/errors.ts";
import type { JobSpec, RecordedJob } from "../core/types.ts";
import {
  parseHeaderEntry,
  parseQueueEntry,
  positiveNumber,
  scanDataLine,
  SWF_FIELD_COUNT,
} from "./_swf_scan.ts";
import type { LoadedSwf, OverrunPolicy, SwfHeader, SwfLoadReport, SwfReadOptions } from "./swf.ts";

const OVERRUN_POLICIES: readonly OverrunPolicy[] = ["kill", "run", "inflate"];

/** Accumulates jobs line by line; sizes are converted by `finish`. */
export class SwfParser {
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
  readonly user: number[] = [];
  readonly group: number[] = [];
  readonly entries: [string, string][] = [];
  readonly comments: string[] = [];
  /** The 18 fields of every accepted job, in file order (`keepFields` only). */
  kept: Float64Array | undefined;
  /** The line of every kept job, in file order (`keepFields` only). */
  private readonly keptLines: number[] = [];
  private lineNo = 0;
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
    if (opts.keepFields === true) this.kept = new Float64Array(SWF_FIELD_COUNT * 4096);
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
    this.lineNo = lineNo;
    this.read++;
    this.job(f[1], f[2], f[3], f[4], f[7], f[8], f[14], f[11], f[12]);
    return this.maxJobs === 0 || this.read < this.maxJobs;
  }

  private headerLine(comment: string): void {
    this.comments.push(comment);
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
    user: number,
    group: number,
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
    this.user.push(user);
    this.group.push(group);
    if (this.kept !== undefined) this.keep(n);
  }

  // Copies the line's fields into slot n, doubling the buffer when it is full.
  private keep(n: number): void {
    let kept = this.kept!;
    if ((n + 1) * SWF_FIELD_COUNT > kept.length) {
      const grown = new Float64Array(kept.length * 2);
      grown.set(kept);
      this.kept = kept = grown;
    }
    kept.set(this.fields, n * SWF_FIELD_COUNT);
    this.keptLines.push(this.lineNo);
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
    const kept = this.kept;
    // In file order already unless the log had to be sorted.
    const inPlace = this.outOfOrder === 0;
    const fields = kept === undefined
      ? undefined
      : inPlace
      ? kept.subarray(0, n * SWF_FIELD_COUNT)
      : new Float64Array(n * SWF_FIELD_COUNT);
    const recorded: RecordedJob[] = [];
    let oversized = 0;
    for (let j = 0; j < n; j++) {
      const k = order[j];
      if (fields !== undefined && !inPlace) {
        fields.set(
          kept!.subarray(k * SWF_FIELD_COUNT, (k + 1) * SWF_FIELD_COUNT),
          j * SWF_FIELD_COUNT,
        );
      }
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
      let spec: JobSpec = q < 0 ? base : { ...base, queue: this.queues.get(q) ?? String(q) };
      // The user (field 12) and group (field 13) ids, as text, feed the fair-share picker.
      const u = this.user[k], g = this.group[k];
      if (u >= 0) spec = { ...spec, user: String(u) };
      if (g >= 0) spec = { ...spec, account: String(g) };
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
      comments: this.comments,
    };
    return {
      header,
      jobs,
      recorded,
      report,
      machineSize,
      timeOffset: offset,
      ...(fields !== undefined ? { fields, lines: order.map((k) => this.keptLines[k]) } : {}),
    };
  }
}
