// The output files of a run: the schedule (CSV, extended CSV, SWF or Parquet), the
// resource CSV, the replay submission statistics and the statistics JSON.
// All are opened as temporaries before the run and committed together at the
// end, or none of them (io/atomic_writer.ts).

import type { JobRow, Notice, ResourceRow, StepRows, StrandedCause } from "../core/types.ts";
import {
  AtomicOutputSet,
  type AtomicTextWriter,
  type OutputFileSystem,
} from "../io/atomic_writer.ts";
import { RESOURCE_HEADER, resourceLine, writeResourceLine } from "../io/resource_csv.ts";
import {
  type ScheduleCsvOptions,
  scheduleHeader,
  scheduleLine,
  writeScheduleLine,
} from "../io/schedule_csv.ts";
import { SwfScheduleWriter } from "../io/schedule_swf.ts";
import { TraceEcho } from "./_trace_echo.ts";
import type { LoadedInput } from "./load.ts";
import { JobMetrics } from "../io/stats_json.ts";
import {
  MetricsCollector,
  type MetricsOptions,
  type ResourceMetrics,
  ResourceUseCollector,
} from "../core/metrics.ts";
import type { ResourceModel } from "../core/resource_model.ts";
import type { DecisionRow } from "../core/decisions.ts";
import type { SimState } from "../core/state.ts";
import { formatTime } from "../io/time_format.ts";
import { NodesColumn } from "./_nodes_column.ts";
import { PerResourceColumns, type ResourceColumns } from "./_resource_columns.ts";
import type { PconTimeline } from "./_pcon.ts";

/** Paths of a run's outputs. */
export interface OutputPaths {
  readonly schedule: string;
  readonly resources: string;
  readonly submissions?: string;
  readonly statsJson?: string;
  /** Scheduling decisions, JSON Lines. */
  readonly decisions?: string;
  /** The `.replay` log of `--record`. */
  readonly record?: string;
  /** `--failures_out`: the run's node failures as a failure trace. */
  readonly failures?: string;
}

/**
 * What the run needs of io/schedule_parquet.ts's `ScheduleParquet` (named
 * here so that the writer package is loaded, and its types resolved, only
 * for a Parquet schedule).
 */
export interface ParquetSchedule {
  /** Adds one finished job (`extra` with the extended columns). */
  row(
    r: JobRow,
    extra?: {
      readonly wait: number;
      readonly boundedSlowdown: number;
      readonly traceJobId: string;
      readonly user: string;
      readonly nodes?: string;
    },
  ): void;
  /** The Parquet file of the rows added. */
  bytes(): Uint8Array;
}

/** How the schedule is written. */
export interface ScheduleLayout extends ScheduleCsvOptions {
  /** `csv` (DR_EVT's columns), `swf` or `parquet`. */
  readonly format: "csv" | "swf" | "parquet";
  /** Append job_id,wait_time,bounded_slowdown,trace_job_id,trace_user,nodes (CSV and Parquet). */
  readonly extended?: boolean;
  /** Makes the Parquet schedule (`parquet`; the writer is loaded only for it). */
  readonly parquet?: (layout: ScheduleLayout) => ParquetSchedule;
  /** Machine size (SWF header). */
  readonly totalNodes: number;
  /** evtsim version (SWF header). */
  readonly version: string;
  /** DR_EVT's stderr line for each rejected job (`--verbose`) instead of one summary line. */
  readonly listRejected?: boolean;
  /**
   * The run's resource model, when it has one. If it names its nodes, the
   * statistics JSON gets utilization per resource and partition. Its
   * allocations are read from the DISPATCH rows, so such a run emits
   * decisions (`heads` at least) for them and for the `nodes` column.
   */
  readonly resourceModel?: ResourceModel;
  /** The resource timeline's columns: DR_EVT's (default), or a free/used pair per resource added. */
  readonly resourceColumns?: ResourceColumns;
  /** A run with node failures or requeueing preemption: the extended CSV schedule ends with a `requeues` column. */
  readonly requeues?: boolean;
  /**
   * `--trace_type pcon`: the resource rows wait until the end of the run,
   * when the timeline adds DR_EVT's avgpcon, minpcon and maxpcon columns.
   */
  readonly pcon?: PconTimeline;
  /** A power model: the resource CSV ends with the machine's draw, `power` (docs/power.md). */
  readonly power?: boolean;
}

/**
 * Whether `path` names an SWF schedule (`.swf`).
 *
 * @example
 * ```ts
 * import { isSwfPath } from "./outputs.ts";
 * console.assert(isSwfPath("out/sched.SWF") && !isSwfPath("sched.csv"));
 * ```
 */
export function isSwfPath(path: string): boolean {
  return /\.swf$/i.test(path);
}

/**
 * Whether `path` names a Parquet schedule (`.parquet`).
 *
 * @example
 * ```ts
 * import { isParquetPath } from "./outputs.ts";
 * console.assert(isParquetPath("out/sched.parquet") && !isParquetPath("sched.csv"));
 * ```
 */
export function isParquetPath(path: string): boolean {
  return /\.parquet$/i.test(path);
}

/** A CSV field, quoted when it holds a comma, quote or line break. */
function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Bounded slowdown as a CSV field: at most 6 decimals, no trailing zeros. */
function formatSlowdown(x: number): string {
  return String(Number(x.toFixed(6)));
}

/**
 * Opens every output's temporary at construction (so an unwritable path is
 * refused before the run), writes rows as the reducer emits them, and moves
 * everything into place on `commit`.
 */
export class RunOutputs {
  private readonly set: AtomicOutputSet;
  private readonly jobs: AtomicTextWriter;
  private readonly resources: AtomicTextWriter;
  private readonly submissions: AtomicTextWriter | undefined;
  private readonly stats: AtomicTextWriter | undefined;
  private readonly decisions: AtomicTextWriter | undefined;
  private readonly record: AtomicTextWriter | undefined;
  private readonly failures: AtomicTextWriter | undefined;
  private layout: ScheduleLayout | undefined;
  private swf: SwfScheduleWriter | undefined;
  private parquet: ParquetSchedule | undefined;
  /** The inputs' jobs as read, for what the schedule keeps of them. */
  private readonly echo = new TraceEcho();
  /** The per-resource pairs of a resource model's timeline (its rows wait until the end). */
  private perResource: PerResourceColumns | undefined;
  private readonly heldRows: ResourceRow[] = [];
  /** `--resource_columns per_resource` on a whole-node machine: one pair, nodes. */
  private nodePair = false;
  /** What each job held of each resource (a resource model's run with a stats JSON). */
  private resourceUse: ResourceUseCollector | undefined;
  /** The extended schedule's `nodes` column (rows wait in it until the end of the run). */
  private nodes: NodesColumn | undefined;
  /** Per-job wait and slowdown of every written job (their distributions only with a stats JSON). */
  readonly metrics: JobMetrics;
  /** The job rows' figures for the metric set (only with a stats JSON). */
  readonly metricRows: MetricsCollector | undefined;
  /**
   * Each job's user and account by job id, as their numbers in
   * {@link Outputs.metricRows} (0: none), for the metric set's breakdowns.
   */
  private ownerUser = new Uint32Array(0);
  private ownerAccount = new Uint32Array(0);
  private ownersRead = 0;
  /**
   * The CSV schedule's and DR_EVT resource timeline's lines are not made
   * when the file system drops them (a sweep cell keeps only its statistics
   * JSON: cli/_cell_outputs.ts).
   */
  private readonly dropSchedule: boolean;
  private readonly dropResources: boolean;

  constructor(readonly paths: OutputPaths, fs?: OutputFileSystem) {
    this.set = new AtomicOutputSet(fs);
    this.dropSchedule = fs?.discards?.(paths.schedule) === true;
    this.dropResources = fs?.discards?.(paths.resources) === true;
    this.metrics = new JobMetrics(paths.statsJson !== undefined);
    try {
      this.jobs = this.set.open(paths.schedule);
      this.resources = this.set.open(paths.resources);
      this.submissions = paths.submissions !== undefined
        ? this.set.open(paths.submissions)
        : undefined;
      this.stats = paths.statsJson !== undefined ? this.set.open(paths.statsJson) : undefined;
      this.metricRows = paths.statsJson !== undefined ? new MetricsCollector() : undefined;
      this.decisions = paths.decisions !== undefined ? this.set.open(paths.decisions) : undefined;
      this.record = paths.record !== undefined ? this.set.open(paths.record) : undefined;
      this.failures = paths.failures !== undefined ? this.set.open(paths.failures) : undefined;
    } catch (e) {
      this.set.abort();
      throw e;
    }
  }

  /**
   * Writes the headers, once the layout is known (after the first input is
   * read). Rejected jobs are one summary line at the end unless the layout's
   * `listRejected` (`--verbose`) asks for DR_EVT's line per job.
   */
  begin(layout: ScheduleLayout, warn: (line: string) => void): void {
    this.layout = layout;
    this.warn = warn;
    if (layout.extended === true) this.nodes = new NodesColumn(layout.totalNodes);
    const modelNodes = layout.resourceModel?.nodes;
    // Always on a machine: its utilization line counts node equivalents.
    if (modelNodes !== undefined) {
      this.resourceUse = new ResourceUseCollector(modelNodes);
    }
    if (layout.format === "swf") {
      this.swf = new SwfScheduleWriter((l) => this.jobs.line(l), {
        ...layout,
        source: this.echo.swfSource,
      });
    } else if (layout.format === "parquet") {
      this.parquet = layout.parquet!(layout);
    } else {
      this.jobs.line(
        scheduleHeader(layout) +
          (layout.extended
            ? ",job_id,wait_time,bounded_slowdown,trace_job_id,trace_user,nodes" +
              (layout.requeues === true ? ",requeues" : "")
            : ""),
      );
    }
    let resourceHeader = RESOURCE_HEADER;
    if (layout.resourceColumns === "per_resource") {
      if (modelNodes !== undefined) {
        this.perResource = new PerResourceColumns(modelNodes);
        resourceHeader += "," + this.perResource.header();
      } else {
        this.nodePair = true;
        resourceHeader += ",nodes_free,nodes_used";
      }
    }
    if (layout.pcon !== undefined) resourceHeader += ",avgpcon,minpcon,maxpcon";
    if (layout.power === true) resourceHeader += ",power";
    this.resources.line(resourceHeader);
    this.submissions?.line("job_id,submit_time,nodes_busy");
  }

  private warn: (line: string) => void = () => {};
  /** Ids of the rejected jobs not listed one by one. */
  private readonly rejected: number[] = [];

  /** Records an input's jobs (before their rows are written). */
  input(loaded: LoadedInput): void {
    this.echo.add(loaded);
  }

  /**
   * Records an input's users and accounts (with a stats JSON), ids
   * continuing from the previous input's as the jobs' ids do.
   */
  owners(loaded: LoadedInput): void {
    const rows = this.metricRows;
    if (rows === undefined) return;
    // The input's own numbering is made once per input (a sweep's cells
    // share one), and only its few names are numbered anew for each run.
    const t = ownerTable(loaded);
    const number = t.names.map((n) => rows.labelNumber(n));
    const from = this.ownersRead, to = from + t.user.length;
    if (to > this.ownerUser.length) {
      const size = Math.max(to, this.ownerUser.length * 2);
      const user = new Uint32Array(size), account = new Uint32Array(size);
      user.set(this.ownerUser);
      account.set(this.ownerAccount);
      this.ownerUser = user;
      this.ownerAccount = account;
    }
    for (let k = 0; k < t.user.length; k++) {
      this.ownerUser[from + k] = number[t.user[k]];
      this.ownerAccount[from + k] = number[t.account[k]];
    }
    this.ownersRead = to;
  }

  /** Writes one line of the `--record` log. */
  recordLine(text: string): void {
    this.record?.line(text);
  }

  /**
   * A run continued from a snapshot: the jobs running in it were placed
   * before, so the `nodes` column and the per-resource timeline take their
   * allocations from the state (as the DISPATCH rows the run did not see).
   */
  runningIn(state: SimState): void {
    const res = state.resources;
    if (res?.model.allocationOf === undefined) return;
    const rows: DecisionRow[] = [];
    for (const r of state.store.records.toArray()) {
      if (r.rejected || r.beginTime < 0 || r.endTime >= 0) continue;
      const allocation = res.model.allocationOf(res.state, r.id);
      if (allocation === undefined) continue;
      rows.push({
        type: "DISPATCH",
        time: r.beginTime,
        round: 0,
        jobId: r.id,
        numNodes: allocation.length,
        backfill: false,
        allocation,
        ...(r.demand !== undefined ? { perReplica: r.demand.perReplica } : {}),
      });
    }
    this.nodes?.decisions(rows);
    this.resourceUse?.decisions(rows);
  }

  /** Writes one step's rows and reports its notices. */
  write(rows: StepRows): void {
    const layout = this.layout!;
    for (const n of rows.notices) {
      if (n.kind === "rejected" && layout.listRejected !== true) this.rejected.push(n.jobId);
      // A requeue is a row of the decisions file (below), not a warning.
      else if (n.kind === "jobStateChange") continue;
      else for (const line of noticeText(n, layout.totalNodes).split("\n")) this.warn(line);
    }
    for (const r of rows.jobs) this.jobRow(r, layout);
    const msec = layout.msec === true;
    if (layout.pcon !== undefined) {
      layout.pcon.rows(rows.decisions, rows.jobs, rows.resources);
    } else if (this.perResource !== undefined) {
      this.perResource.decisions(rows.decisions);
      for (const r of rows.jobs) this.perResource.job(r);
      for (const r of rows.resources) this.heldRows.push(r);
    } else if (this.nodePair) {
      for (const r of rows.resources) {
        this.resources.line(
          `${resourceLine(r, msec)},${r.freeNodes},${r.allocatedNodes}${powerColumn(r, layout)}`,
        );
      }
    } else if (layout.power === true && !this.dropResources) {
      for (const r of rows.resources) {
        this.resources.line(resourceLine(r, msec) + powerColumn(r, layout));
      }
    } else if (!this.dropResources) {
      for (const r of rows.resources) writeResourceLine(this.resources, r, msec);
    }
    if (this.submissions !== undefined && rows.submissions !== undefined) {
      for (const s of rows.submissions) {
        this.submissions.line(`${s.jobId},${formatTime(s.submitTime, msec)},${s.nodesBusy}`);
      }
    }
    if (this.decisions !== undefined) {
      if (rows.notices.some((n) => n.kind === "jobStateChange")) {
        for (const line of withStateChanges(rows)) this.decisions.line(line);
      } else {
        for (const d of rows.decisions) this.decisions.line(JSON.stringify(d));
      }
    }
    if (this.nodes !== undefined) this.nodes.decisions(rows.decisions);
    if (this.resourceUse !== undefined) this.resourceUse.decisions(rows.decisions);
  }

  /** Utilization per resource and partition, when the run's resource model names its nodes. */
  resourceMetrics(options: MetricsOptions): ResourceMetrics | undefined {
    return this.resourceUse?.metrics(options);
  }

  private jobRow(r: JobRow, layout: ScheduleLayout): void {
    const m = this.metrics.add(r);
    // The user and account as read (the engine's row carries only the queue).
    // (Ids past the inputs' jobs have no owner, as before: 0.)
    this.metricRows?.addNumbered(
      r,
      r.jobId < this.ownersRead ? this.ownerUser[r.jobId] : 0,
      r.jobId < this.ownersRead ? this.ownerAccount[r.jobId] : 0,
    );
    this.resourceUse?.add(r);
    if (this.swf !== undefined) {
      const spec = this.echo.spec(r.jobId);
      return this.swf.row(r, this.echo.swfFields(r.jobId), spec?.user, spec?.account);
    }
    const extra = layout.extended
      ? {
        ...m,
        traceJobId: this.echo.traceJobId(r.jobId),
        user: this.echo.spec(r.jobId)?.user ?? "",
      }
      : undefined;
    if (extra !== undefined) {
      // The nodes are known once the jobs that started before this one are.
      this.nodes!.add(r, extra);
      return;
    }
    if (this.parquet !== undefined) return this.parquet.row(r);
    if (!this.dropSchedule) writeScheduleLine(this.jobs, r, layout);
  }

  /** Writes the extended rows, each with the nodes it ran on. */
  private writeExtended(layout: ScheduleLayout): void {
    this.nodes?.finish((r, extra) => {
      if (this.parquet !== undefined) return this.parquet.row(r, extra);
      this.jobs.line(
        `${scheduleLine(r, layout)},${r.jobId},${formatTime(extra.wait, layout.msec === true)},${
          formatSlowdown(extra.boundedSlowdown)
        },${extra.traceJobId},${csvField(extra.user)},${csvField(extra.nodes)}${
          layout.requeues === true ? `,${r.requeues ?? 0}` : ""
        }`,
      );
    });
  }

  /** The `--failures_out` file's text (written with the other outputs). */
  failureTrace(text: string): void {
    this.failures?.text(text);
  }

  /** Writes the statistics JSON (when asked for) and moves every file into place. */
  commit(statsJson: () => string): void {
    if (this.rejected.length > 0) {
      this.warn(rejectedSummary(this.rejected, this.layout!.totalNodes));
    }
    this.writeExtended(this.layout!);
    const msec = this.layout!.msec === true;
    const layout = this.layout!;
    layout.pcon?.lines((r, columns) =>
      this.resources.line(resourceLine(r, msec) + columns + powerColumn(r, layout))
    );
    this.perResource?.finish(
      this.heldRows,
      (r, pairs) =>
        this.resources.line(`${resourceLine(r, msec)},${pairs}${powerColumn(r, layout)}`),
    );
    this.swf?.finish();
    if (this.parquet !== undefined) this.jobs.bytes(this.parquet.bytes());
    this.stats?.text(statsJson());
    this.set.commit();
  }

  /** Removes every temporary file. */
  abort(): void {
    this.set.abort();
  }
}

/**
 * One stderr line for every rejected job (a log run on a smaller machine can
 * reject thousands): how many, the first ids, and how to list them all.
 *
 * @example
 * ```ts
 * import { rejectedSummary } from "./outputs.ts";
 * console.assert(
 *   rejectedSummary([3, 9], 50) ===
 *     "2 jobs rejected: they request more nodes than total_nodes (50) and can never be scheduled (jobs 3, 9; --verbose lists each)",
 * );
 * ```
 */
export function rejectedSummary(ids: readonly number[], totalNodes: number): string {
  const SHOWN = 5;
  const list = ids.slice(0, SHOWN).join(", ") +
    (ids.length > SHOWN ? ` and ${ids.length - SHOWN} more` : "");
  return `${ids.length} job${ids.length === 1 ? "" : "s"} rejected: ${
    ids.length === 1 ? "it requests" : "they request"
  } more nodes than total_nodes (${totalNodes}) and can never be scheduled (job${
    ids.length === 1 ? "" : "s"
  } ${list}; --verbose lists each)`;
}

/**
 * The step's decision rows with its job state changes (requeues) among them
 * as JOB_STATE_CHANGE rows, in time order: a change at an instant comes
 * before that instant's rounds (failures apply before the round).
 */
function withStateChanges(rows: StepRows): string[] {
  const out: string[] = [];
  const changes = rows.notices.filter((n) => n.kind === "jobStateChange");
  let i = 0;
  for (const d of rows.decisions) {
    for (; i < changes.length && changes[i].time <= d.time; i++) {
      out.push(stateChangeLine(changes[i]));
    }
    out.push(JSON.stringify(d));
  }
  for (; i < changes.length; i++) out.push(stateChangeLine(changes[i]));
  return out;
}

function stateChangeLine(n: Extract<Notice, { kind: "jobStateChange" }>): string {
  return JSON.stringify({
    type: "JOB_STATE_CHANGE",
    time: n.time,
    jobId: n.jobId,
    oldState: n.oldState,
    newState: n.newState,
    cause: n.cause,
    nodes: n.nodes,
    requeues: n.requeues,
    ...(n.suspensions === undefined ? {} : { suspensions: n.suspensions }),
    ...(n.preemptedBy === undefined ? {} : { preemptedBy: n.preemptedBy }),
  });
}

/** The stderr line for a notice, in DR_EVT's words where it has them. */
export function noticeText(n: Notice, totalNodes: number): string {
  switch (n.kind) {
    case "rejected":
      return `Job ${n.jobId} rejected: requests ${n.numNodes} nodes, exceeds total_nodes (${totalNodes}); this job can never be scheduled.`;
    case "stranded":
      return strandedText(n);
    case "ignored":
      return `Warning: at ${n.time}: ${n.reason}; ignored`;
    case "jobStateChange":
      return `at ${n.time}: job ${n.jobId} ${
        n.newState === "suspended" ? "suspended" : "requeued"
      } (${n.oldState} -> ${n.newState}, ${n.cause})`;
    case "overallocated":
      return `Warning: the replayed schedule over-allocates the machine: ${n.allocatedNodes} nodes in use at time ${n.time} (total_nodes ${n.totalNodes}); continuing, later over-allocations are not reported`;
  }
}

// One line per class of jobs that never started (a notice without causes,
// built by hand, is the capacity's, as before causes were classified).
function strandedText(n: Extract<Notice, { kind: "stranded" }>): string {
  const causes = n.causes ??
    [{ cause: "larger_than_capacity", jobs: n.waitingJobs, firstJob: -1 } as StrandedCause];
  return causes.map((c) => {
    const tail = "; they are left out of the schedule";
    const ids = c.jobs > 1 ? ` (the first: job ${c.firstJob})` : ` (job ${c.firstJob})`;
    const head = `Warning: ${c.jobs} job(s)${ids} never started: `;
    switch (c.cause) {
      case "larger_than_capacity":
        return `Warning: ${c.jobs} job(s) never started: at the end of the run (time ${n.time}) they still need more nodes than the usable capacity (${n.capacity} nodes, --capacity_schedule)${tail}`;
      case "never_fits":
        return `${head}they can never be placed on the machine, even empty (more replicas than its nodes, or than one domain of their topology level, hold at once; pend reason exceeds_capacity)${tail}`;
      case "held_by_queue":
        return `${head}held by the limits of queue ${c.queue}${tail}`;
      case "never_offered":
        return `${head}never offered by picker ${c.by}${tail}`;
      case "blocked_behind":
        return `${head}blocked behind job ${c.behindJob}, which needs more nodes than the usable capacity (${n.capacity} nodes)${tail}`;
      case "over_power_cap":
        return `${head}even alone on the machine they would draw more than the highest power cap to come (${c.powerCap} W; pend reason exceeds_capacity)${tail}`;
      case "not_started":
        return `${head}offered but left waiting by admission policy ${c.by}${tail}`;
    }
  }).join("\n");
}

/** An input's users and accounts numbered among its own names (index 0: none). */
interface OwnerTable {
  readonly names: readonly (string | undefined)[];
  readonly user: Uint32Array;
  readonly account: Uint32Array;
}

const ownerTables = new WeakMap<LoadedInput, OwnerTable>();

function ownerTable(loaded: LoadedInput): OwnerTable {
  const known = ownerTables.get(loaded);
  if (known !== undefined) return known;
  const jobs = loaded.mode === "replay" ? loaded.recorded : loaded.jobs;
  const names: (string | undefined)[] = [undefined];
  const ids = new Map<string, number>();
  const id = (s: string | undefined): number => {
    if (s === undefined) return 0;
    let k = ids.get(s);
    if (k === undefined) {
      k = names.push(s) - 1;
      ids.set(s, k);
    }
    return k;
  };
  // A CSV trace simulate read as columns comes first, then the job objects.
  const c = loaded.columns;
  const first = c?.length ?? 0, n = first + jobs.length;
  const user = new Uint32Array(n), account = new Uint32Array(n);
  for (let k = 0; k < first; k++) {
    const o = c!.owner(k);
    user[k] = id(o.user);
    account[k] = id(o.account);
  }
  for (let k = 0; k < jobs.length; k++) {
    user[first + k] = id(jobs[k].user);
    account[first + k] = id(jobs[k].account);
  }
  const t = { names, user, account };
  ownerTables.set(loaded, t);
  return t;
}

// The `power` column of a run with a power model (empty otherwise).
function powerColumn(r: ResourceRow, layout: ScheduleLayout): string {
  return layout.power === true ? `,${r.power ?? ""}` : "";
}
