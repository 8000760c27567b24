// The line-by-line state machine behind io/sacct.ts: the header names the
// columns, each later line is a job (or a step, which is counted and
// skipped). Field formats are in _sacct_fields.ts.

import { EvtsimError } from "../core/errors.ts";
import type { JobSpec, RecordedJob } from "../core/types.ts";
import { lineTooLong, MAX_LINE_CHARS } from "./_gzip_lines.ts";
import {
  slurmCount,
  slurmExitCode,
  slurmJobId,
  slurmReqMem,
  slurmState,
  slurmTime,
  slurmTimelimit,
  slurmTres,
  tresGpus,
} from "./_sacct_fields.ts";
import type { LoadedSacct, SacctJob, SacctReadOptions } from "./sacct.ts";

/** Columns the reader uses, as sacct names them. */
const COLUMNS = [
  "JobID",
  "Submit",
  "Start",
  "End",
  "Timelimit",
  "NNodes",
  "NCPUS",
  "ReqMem",
  "ReqTRES",
  "AllocTRES",
  "Partition",
  "User",
  "Account",
  "State",
  "ExitCode",
] as const;
type Column = typeof COLUMNS[number];
// sacct prints local times without an offset, so the hour repeated when
// daylight saving time ends is ambiguous: a job running across it can read
// as ending before it started.
const DST_HINT = " (a daylight-saving change? export with TZ=UTC sacct … and read with " +
  "--timezone UTC)";
const REQUIRED: readonly Column[] = ["JobID", "Submit", "Start", "End", "Timelimit", "NNodes"];

/** Distinct TRES strings remembered (an export of unique ones parses each anyway). */
const TRES_CACHE = 4096;

export class SacctParser {
  readonly #file: string;
  readonly #timezone: string;
  readonly #maxJobs: number;
  readonly #options: SacctReadOptions;
  /** Column name → field index; undefined until the header is read. */
  #index: Map<Column, number> | undefined;
  #fields = 0;
  /** `--parsable` (not 2) ends every line with a `|`. */
  #trailingBar = false;
  #lineNo = 0;
  readonly #records: SacctJob[] = [];
  readonly #seen = new Map<string, number>();
  #steps = 0;
  // Jobs of one shape print the same TRES string: each distinct string is
  // parsed once and its (frozen) result shared by the records.
  readonly #tresSeen = new Map<string, Readonly<Record<string, number>>>();
  readonly #tres = (v: string): Readonly<Record<string, number>> => {
    let t = this.#tresSeen.get(v);
    if (t === undefined) {
      t = Object.freeze(slurmTres(v));
      if (this.#tresSeen.size < TRES_CACHE) this.#tresSeen.set(v, t);
    }
    return t;
  };
  #stopped = false;

  constructor(file: string, options: SacctReadOptions) {
    this.#file = file;
    this.#options = options;
    this.#timezone = options.timezone ?? "UTC";
    this.#maxJobs = options.maxJobs ?? 0;
  }

  /** Takes one line; returns false once `maxJobs` job lines were read. */
  line(text: string, start: number, end: number, lineNo: number): boolean {
    if (end - start > MAX_LINE_CHARS) throw lineTooLong(this.#file, lineNo);
    this.#lineNo = lineNo;
    let s = text.slice(start, end);
    if (s.endsWith("\r")) s = s.slice(0, -1);
    if (s.trim() === "") return true;
    if (this.#index === undefined) {
      this.#header(s);
      return true;
    }
    if (this.#trailingBar && s.endsWith("|")) s = s.slice(0, -1);
    const vals = s.split("|");
    if (vals.length !== this.#fields) {
      throw this.#fail(
        `expected ${this.#fields} fields separated by '|' as in the header, got ${vals.length}`,
      );
    }
    const jobIdText = this.#get(vals, "JobID")!;
    const id = this.#parse("JobID", () => slurmJobId(jobIdText));
    if (id.step !== undefined) {
      this.#steps++;
      return true;
    }
    const earlier = this.#seen.get(jobIdText);
    if (earlier !== undefined) {
      throw this.#fail(
        `expected each job once, got '${jobIdText}' again (line ${earlier})`,
        "JobID",
      );
    }
    this.#seen.set(jobIdText, lineNo);
    this.#records.push(this.#record(vals, jobIdText, id));
    this.#stopped = this.#maxJobs > 0 && this.#records.length >= this.#maxJobs;
    return !this.#stopped;
  }

  #header(s: string): void {
    if (s.endsWith("|")) {
      this.#trailingBar = true;
      s = s.slice(0, -1);
    }
    const names = s.split("|");
    const index = new Map<Column, number>();
    const known = new Map(COLUMNS.map((c) => [c.toLowerCase(), c]));
    names.forEach((raw, i) => {
      const c = known.get(raw.trim().toLowerCase());
      if (c === undefined) return; // a column the reader does not use
      if (index.has(c)) throw this.#fail(`expected each column once, got ${c} twice`, "header");
      index.set(c, i);
    });
    const missing = REQUIRED.filter((c) => !index.has(c));
    if (missing.length > 0) {
      throw this.#fail(
        `expected the columns ${REQUIRED.join(", ")} (sacct --parsable2), missing ${
          missing.join(", ")
        }`,
        "header",
      );
    }
    this.#index = index;
    this.#fields = names.length;
  }

  #get(vals: readonly string[], c: Column): string | undefined {
    const i = this.#index!.get(c);
    return i === undefined ? undefined : vals[i];
  }

  #parse<T>(c: Column, f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw this.#fail((e as Error).message, c);
    }
  }

  #optional<T>(vals: readonly string[], c: Column, f: (v: string) => T): T | undefined {
    const v = this.#get(vals, c);
    return v === undefined ? undefined : this.#parse(c, () => f(v));
  }

  #record(vals: readonly string[], jobId: string, id: ReturnType<typeof slurmJobId>): SacctJob {
    const tz = this.#timezone;
    const submitText = this.#get(vals, "Submit")!;
    const submit = this.#parse("Submit", () => slurmTime(submitText, tz));
    if (submit === undefined) {
      throw this.#fail(`expected a submit time YYYY-MM-DDTHH:MM:SS, got '${submitText}'`, "Submit");
    }
    const start = this.#parse("Start", () => slurmTime(this.#get(vals, "Start")!, tz));
    const end = this.#parse("End", () => slurmTime(this.#get(vals, "End")!, tz));
    if (start !== undefined && end !== undefined && end < start) {
      throw this.#fail(
        `expected a time at or after Start (${this.#get(vals, "Start")}), got '${
          this.#get(vals, "End")
        }'` + (start - end <= 3600 && tz !== "UTC" ? DST_HINT : ""),
        "End",
      );
    }
    const timeLimit = this.#parse("Timelimit", () => slurmTimelimit(this.#get(vals, "Timelimit")!));
    // A job that never started was allocated nothing, and some Slurm versions
    // print 0 nodes for it; one that ran had at least one.
    const nodes = this.#parse(
      "NNodes",
      () =>
        start === undefined
          ? slurmCount(this.#get(vals, "NNodes")!, 0, "a whole number of nodes")
          : slurmCount(this.#get(vals, "NNodes")!, 1, "a whole number of nodes ≥ 1"),
    );
    const cpus = this.#optional(
      vals,
      "NCPUS",
      (v) => v === "" ? undefined : slurmCount(v, 0, "a whole number of CPUs"),
    );
    const mem = this.#optional(vals, "ReqMem", slurmReqMem);
    const reqTres = this.#optional(vals, "ReqTRES", this.#tres);
    const allocTres = this.#optional(vals, "AllocTRES", this.#tres);
    const gpus = (allocTres === undefined ? undefined : tresGpus(allocTres)) ??
      (reqTres === undefined ? undefined : tresGpus(reqTres));
    const state = this.#optional(vals, "State", slurmState);
    const exitCode = this.#optional(vals, "ExitCode", slurmExitCode);
    const text = (c: Column): string | undefined => {
      const v = this.#get(vals, c);
      return v === undefined || v === "" ? undefined : v;
    };
    const partition = text("Partition");
    const user = text("User");
    const account = text("Account");
    const r: Record<string, unknown> = { line: this.#lineNo, jobId };
    if (id.arrayTask !== undefined) {
      r.arrayJobId = id.base;
      r.arrayTask = id.arrayTask;
    }
    if (id.hetOffset !== undefined) r.hetOffset = id.hetOffset;
    r.submit = submit;
    if (start !== undefined) r.start = start;
    if (end !== undefined) r.end = end;
    if (timeLimit !== undefined) r.timeLimit = timeLimit;
    r.nodes = nodes;
    if (cpus !== undefined) r.cpus = cpus;
    if (mem !== undefined) {
      r.memory = mem.megabytes;
      if (mem.per !== undefined) r.memoryPer = mem.per;
    }
    if (gpus !== undefined) r.gpus = gpus;
    if (reqTres !== undefined && Object.keys(reqTres).length > 0) r.reqTres = reqTres;
    if (allocTres !== undefined && Object.keys(allocTres).length > 0) r.allocTres = allocTres;
    if (partition !== undefined) r.partition = partition;
    if (user !== undefined) r.user = user;
    if (account !== undefined) r.account = account;
    if (state !== undefined) {
      r.state = state.state;
      if (state.by !== undefined) r.cancelledBy = state.by;
    }
    if (exitCode !== undefined) r.exitCode = exitCode;
    return r as unknown as SacctJob;
  }

  #fail(detail: string, field?: string): EvtsimError {
    return new EvtsimError("input", detail, {
      file: this.#file,
      line: this.#lineNo,
      ...(field !== undefined ? { field } : {}),
    });
  }

  finish(): LoadedSacct {
    if (this.#index === undefined) {
      throw new EvtsimError(
        "input",
        `expected a header line naming the columns (${REQUIRED.join("|")}|…), got an empty file`,
        { file: this.#file },
      );
    }
    const overrun = this.#options.overrun ?? "kill";
    const queues = this.#options.queues;
    let neverStarted = 0;
    let notEnded = 0;
    let noLimit = 0;
    let overruns = 0;
    const ran: SacctJob[] = [];
    for (const r of this.#records) {
      if (r.start === undefined) neverStarted++;
      else if (r.end === undefined) notEnded++;
      else ran.push(r);
    }
    // Stable by submit time, as the engine takes them.
    const order = ran.map((r, i) => [r, i] as const).sort((a, b) =>
      a[0].submit - b[0].submit || a[1] - b[1]
    ).map((p) => p[0]);
    const offset = this.#options.relativeTimes === false || order.length === 0
      ? 0
      : order[0].submit;
    const jobs: JobSpec[] = [];
    const recorded: RecordedJob[] = [];
    for (const r of order) {
      if (queues !== undefined && r.partition !== undefined && !queues.has(r.partition)) {
        throw new EvtsimError(
          "input",
          `unknown queue '${r.partition}' (defined: ${[...queues].join(", ")})`,
          { file: this.#file, line: r.line, field: "Partition" },
        );
      }
      let run = r.end! - r.start!;
      let limit = r.timeLimit;
      if (limit === undefined) {
        noLimit++;
        limit = run;
      } else if (run > limit) {
        overruns++;
        if (overrun === "kill") run = limit;
        else if (overrun === "inflate") limit = run;
      }
      const job: Record<string, unknown> = {
        submitTime: r.submit - offset,
        numNodes: r.nodes,
        timeLimit: limit,
        actualRunTime: run,
      };
      if (r.partition !== undefined) job.queue = r.partition;
      if (r.user !== undefined) job.user = r.user;
      if (r.account !== undefined) job.account = r.account;
      const spec = job as unknown as JobSpec;
      jobs.push(spec);
      const begin = r.start! - offset;
      recorded.push({ ...spec, beginTime: begin, endTime: begin + run });
    }
    return {
      records: this.#records,
      jobs,
      recorded,
      timeOffset: offset,
      report: {
        read: this.#records.length,
        steps: this.#steps,
        accepted: jobs.length,
        neverStarted,
        notEnded,
        noLimit,
        overruns,
        overrunPolicy: overrun,
        stoppedAtMaxJobs: this.#stopped,
      },
    };
  }
}
