// The session layer of `evtsim serve`: independent `Simulation`s, each a
// DR_EVT streaming session, behind random 128-bit ids. Both fronts (HTTP in
// http.ts, gRPC in grpc.ts) validate their requests and call these methods;
// neither touches a `Simulation` directly, so both give the same answers
// for the same calls.
//
// Every operation is synchronous (no `await` between reading and changing
// a session), so concurrent requests on one session are applied one at a
// time in arrival order, and a failed call changes nothing (the
// `Simulation` contract). Errors are `ServiceError`s carrying the HTTP
// status a front reports.

import type { DecisionRow, PendReason } from "../../core/decisions.ts";
import { type BackfillWindow, statistics } from "../../core/queries.ts";
import type { Statistics } from "../../core/statistics.ts";
import {
  type Breakdowns,
  capacityOverTime,
  checkMetricsOptions,
  type Fairness,
  machineMetrics,
  type Metrics,
  MetricsCollector,
  type MetricsOptions,
} from "../../core/metrics.ts";
import type { ResourceColumns } from "../../core/_resource_columns.ts";
import { extendedJobRows, resourcePairRows } from "./_finish_rows.ts";
import type { JobRow, JobSpec, Notice, ResourceRow, SimulationConfig } from "../../core/types.ts";
import type { RecordingSink, RecordingStatus } from "../recorder.ts";
import { Simulation } from "../simulation.ts";
import type { PolicyRegistry } from "../../core/policies.ts";
import { FileRows, MemoryRows, type RowStore } from "./_row_store.ts";
import type { MachineInput } from "../../io/_machine_demands.ts";
import type { QueueDef } from "../../core/queues.ts";
import {
  type MachineSession,
  machineSession,
  queuePartitions,
  withoutDemands,
} from "./_machine_session.ts";
import { ServiceError, serviceError } from "./service_error.ts";

// Re-exported where the fronts have always found them.
export { ServiceError, serviceError };
import type { ResourceMetrics } from "../../core/_metrics_resources.ts";
import { defaultRegistry, withPolicies } from "../../schedulers/registry.ts";
import {
  type AskClient,
  type ExternalAdmission,
  externalAdmission,
  type ExternalOptions,
} from "./_external.ts";

/** Parameters a session is created with (checked by the fronts' schemas first). */
export interface SessionParams extends
  Pick<
    SimulationConfig,
    | "backfillPolicy"
    | "priorityPolicy"
    | "decisions"
    | "runTimeMode"
    | "runTimeDistribution"
    | "runTimeScale"
    | "runTimeStddev"
    | "seed"
    | "startTime"
    | "pickerSettings"
    | "onCapacityCut"
    | "capacitySemantics"
    | "onNodeFailure"
    | "requeueLimit"
    | "powerCap"
    | "powerCapSchedule"
    | "idleWatts"
    | "busyWatts"
  > {
  /**
   * Whole identical nodes (required, except on a server started with
   * `--machine`, where it must be left out: the machine gives the nodes).
   */
  readonly totalNodes?: number;
  /**
   * The session's queues; on a `--machine` server a queue may bind its jobs
   * that name no partition to one (`partition`, as a `--queues` file's).
   */
  readonly queues?: readonly (QueueDef & { readonly partition?: string })[];
  /** A label, used in recording file names (letters, digits, `.`, `_`, `-`). */
  readonly name?: string;
  /** A registered picker by name (the built-ins, or one of the server's --policy_module). */
  readonly picker?: string;
  /**
   * A registered admission (backfill) policy by name, e.g. `easy_extra`,
   * `conservative_profile` or one of the server's --policy_module; overrides
   * `backfillPolicy`.
   */
  readonly admission?: string;
  /**
   * With `admission: "external"`: the round's time budget, and what an
   * invalid answer or a silent client does (docs/external-schedulers.md).
   */
  readonly external?: ExternalOptions;
  /** Bounded-slowdown threshold τ of the finish reply's metrics, seconds > 0 (default 10). */
  readonly bsldTau?: number;
  /** The finish reply's metrics measure only jobs submitted in `[start, end)` seconds. */
  readonly measureWindow?: readonly [number, number];
  /** Instead of a window: leave out the first and last jobs in submit order (`--trim`). */
  readonly trim?: readonly [number, number];
  /**
   * The finish reply's resource rows: DR_EVT's fields (drevt, default), or
   * per_resource: `NAME_free` and `NAME_used` added per resource type (`nodes`
   * on whole nodes), as simulate's `--resource_columns per_resource`.
   */
  readonly resourceColumns?: ResourceColumns;
  /**
   * The finish reply's job rows gain `waitTime`, `boundedSlowdown` and
   * `nodes` (Slurm hostlist form), as simulate's `--extended_output` columns.
   */
  readonly extendedOutput?: boolean;
}

/** The metric options of session parameters (the server's defaults already merged in). */
export type SessionMetricOptions = Pick<
  SessionParams,
  "bsldTau" | "measureWindow" | "trim" | "resourceColumns" | "extendedOutput"
>;

/**
 * A session's parameters over the server's defaults: a session's own
 * `bsldTau` and `resourceColumns` win; a session giving `measureWindow` or
 * `trim` replaces the server's choice of either (they exclude each other).
 */
export function withMetricDefaults(
  defaults: SessionMetricOptions | undefined,
  params: SessionParams,
): SessionParams {
  if (defaults === undefined) return params;
  const own = params.measureWindow !== undefined || params.trim !== undefined;
  const { measureWindow, trim, ...rest } = defaults;
  return { ...rest, ...(own ? {} : { measureWindow, trim }), ...params };
}

/** What the monitors of a session read. */
export interface SessionMonitors {
  readonly sessionId: string;
  readonly name: string;
  readonly currentTime: number;
  readonly nodesInUse: number;
  readonly availableNodes: number;
  readonly activeJobCount: number;
  readonly headShadowTime: number;
  readonly totalJobs: number;
}

/** The statistics a session reports: on a machine with its per-resource utilization. */
export type SessionStatistics = Statistics & { readonly resources?: ResourceMetrics };

/** The rows one call made final besides job and resource rows. */
export interface CallRows {
  readonly decisions: readonly DecisionRow[];
  readonly notices: readonly Notice[];
}

/** A session's recording status, with the file it writes (or wrote). */
export interface SessionRecordingStatus extends RecordingStatus {
  readonly file?: string;
}

/** What a finish reply holds (its rows sent in pages). */
export interface SessionOutput {
  readonly sessionId: string;
  readonly jobs: readonly JobRow[];
  readonly resources: readonly ResourceRow[];
  readonly notices: readonly Notice[];
  readonly decisions: readonly DecisionRow[];
  readonly statistics: Statistics;
  /** The metric set of the session's job rows (core/metrics.ts), as `--stats_json` gives it. */
  readonly metrics: Metrics;
  /** Per user, account, queue and size class, as `--stats_json` gives them. */
  readonly breakdowns: Breakdowns;
  /** Jain's index over the users' mean bounded slowdowns and the worst user. */
  readonly fairness: Fairness;
  /** Per-resource (and per-partition) utilization, on a `--machine` server only. */
  readonly resourceMetrics?: ResourceMetrics;
  readonly recording: SessionRecordingStatus;
}

/** The rows of a finish reply that are sent in pages. */
export type OutputField = "jobs" | "resources" | "notices" | "decisions";

/** What `finish` answers first: everything but the rows, and how many rows each field has. */
export interface FinishSummary {
  readonly head: Omit<SessionOutput, OutputField>;
  readonly counts: Readonly<Record<OutputField, number>>;
}

/** Where a session runs: its recording folder, how it opens files, its policies. */
export interface SessionEnv {
  /** Where recordings go (recording control needs it). */
  readonly recordDir?: string;
  /** Opens a recording file (default: {@link writeThroughSink}); tests inject failures. */
  readonly openSink?: (path: string) => RecordingSink;
  /** Snapshot interval of recordings (default 1000 events). */
  readonly snapshotInterval?: number;
  /** Where picker and admission names are looked up (default: evtsim's own). */
  readonly registry?: PolicyRegistry;
  /**
   * A folder of the session's own where the rows its finish reply sends are
   * kept (one file per kind); without it they are kept in memory.
   */
  readonly spillDir?: string;
  /** The server's `--machine`: every session runs on it. */
  readonly machine?: MachineInput;
  /**
   * How an external session asks its client (a session worker's blocking
   * call); without it `admission: "external"` is refused.
   */
  readonly ask?: AskClient;
}

/** Where a recording stands after a call: what the host needs to end it cleanly itself. */
export interface RecordingMark {
  /** The file being written. */
  readonly file: string;
  /** Bytes written to it so far (all of them whole answered calls). */
  readonly bytes: number;
  /** Events recorded so far. */
  readonly events: number;
  /** The clock now. */
  readonly time: number;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** A random 128-bit session id, as 32 hex digits. */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A recording file that writes every step's lines at once (no buffer), so a
 * server that is killed leaves a log that ends at the last answered call.
 * `onBytes` is told how many bytes each write added.
 */
export function writeThroughSink(path: string, onBytes?: (n: number) => void): RecordingSink {
  const file = Deno.openSync(path, { write: true, createNew: true });
  const encoder = new TextEncoder();
  return {
    write(text) {
      const bytes = encoder.encode(text);
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
      onBytes?.(bytes.length);
    },
    close() {
      file.close();
    },
  };
}

const METRIC_PAGE_ROWS = 5000;

/** One live session: a `Simulation` and what it has reported so far. */
export class Session {
  readonly id: string;
  readonly name: string;
  readonly #sim: Simulation;
  readonly #env: SessionEnv;
  /** Rows kept for the finish reply (in memory, or in files under the env's spill folder). */
  readonly #kept: Record<OutputField, RowStore>;
  /** The rows of the call running now (its reply), unless it streams into `#kept`. */
  #callRows: { decisions: DecisionRow[]; notices: Notice[] } | undefined;
  #recordings = 0;
  #file: string | undefined;
  #bytes = 0;
  /** Each appended job's user and account (job rows carry neither), for the breakdowns. */
  readonly #owners = new Map<number, { user?: string; account?: string }>();
  /** The machine the session runs on (the server's `--machine`), if any. */
  readonly #machine: MachineSession | undefined;
  /** How the finish reply's metrics are measured (simulate's --bsld_tau, --measure_window, --trim). */
  readonly #metricsOptions: MetricsOptions;
  readonly #resourceColumns: ResourceColumns;
  /** Whether the resource rows have their per-resource pairs (finish adds them once). */
  #paired = false;
  /** Job rows with simulate's extended columns (`waitTime`, `boundedSlowdown`, `nodes`). */
  readonly #extended: boolean;
  /** The policy of an `admission: "external"` session. */
  readonly #external: ExternalAdmission | undefined;
  /** Jobs the running append call adds (their ids are known to an external round). */
  #appending = 0;
  /** The capacity changes made so far, for the utilization (as simulate's --capacity_schedule). */
  readonly #capacity: { time: number; capacity: number }[] = [];

  constructor(env: SessionEnv, id: string, params: SessionParams) {
    const {
      name,
      admission,
      bsldTau,
      measureWindow,
      trim,
      resourceColumns,
      extendedOutput,
      external,
      ...given
    } = params;
    if (name !== undefined && !NAME.test(name)) {
      throw new ServiceError(400, "usage", `session name must match ${NAME.source}, got '${name}'`);
    }
    this.#metricsOptions = {
      ...(bsldTau !== undefined ? { bsldTau } : {}),
      ...(measureWindow !== undefined ? { measureWindow } : {}),
      ...(trim !== undefined ? { trim } : {}),
    };
    try {
      checkMetricsOptions(this.#metricsOptions);
    } catch (e) {
      throw serviceError(e);
    }
    if (resourceColumns !== undefined && !["drevt", "per_resource"].includes(resourceColumns)) {
      throw new ServiceError(
        400,
        "usage",
        `resourceColumns must be drevt or per_resource, got '${resourceColumns}'`,
      );
    }
    this.#resourceColumns = resourceColumns ?? "drevt";
    this.#extended = extendedOutput === true;
    const { machine, queues } = queuePartitions(env.machine, params.queues);
    const plain = { ...given, ...(queues !== undefined ? { queues } : {}) };
    this.#machine = machine === undefined ? undefined : machineSession(machine);
    if (this.#machine === undefined && plain.totalNodes === undefined) {
      throw new ServiceError(400, "usage", "totalNodes: required (the server has no --machine)");
    }
    const base: SimulationConfig = this.#machine !== undefined
      ? this.#machine.config(plain)
      : { ...plain, totalNodes: plain.totalNodes! };
    const config = admission === undefined ? base : { ...base, backfillPolicy: admission };
    let registry = env.registry;
    if (admission === "external") {
      if (env.ask === undefined) {
        throw new ServiceError(
          400,
          "usage",
          "admission external needs sessions in workers (an inline session cannot pause a call for its client)",
        );
      }
      this.#external = externalAdmission({
        ask: env.ask,
        onInvalid: external?.onInvalid ?? "reask",
        ...(plain.totalNodes === undefined ? {} : { totalNodes: plain.totalNodes }),
        known: (job) =>
          Number.isSafeInteger(job) && job >= 0 &&
          job < this.#sim.state.nextJobId + this.#appending,
      });
      registry = withPolicies({ admissions: [this.#external] }, registry ?? defaultRegistry());
    } else if (external !== undefined) {
      throw new ServiceError(400, "usage", 'external: only with admission "external"');
    }
    this.id = id;
    this.name = name ?? "session";
    this.#env = env;
    try {
      // A decision sink switches decisions on (at every PEND): only when asked for.
      const wants = config.decisions !== undefined && config.decisions !== false;
      const store = (field: OutputField): RowStore =>
        env.spillDir === undefined ? new MemoryRows() : new FileRows(`${env.spillDir}/${field}`);
      this.#kept = {
        jobs: store("jobs"),
        resources: store("resources"),
        notices: store("notices"),
        decisions: store("decisions"),
      };
      const kept = this.#kept;
      this.#sim = new Simulation({ ...config, registry }, {
        ...(wants
          ? {
            onDecision: (d: DecisionRow) => {
              kept.decisions.append(d);
              this.#callRows?.decisions.push(d);
            },
          }
          : {}),
        onNotice: (n) => {
          kept.notices.append(n);
          this.#callRows?.notices.push(n);
        },
        onJobRow: (r) => kept.jobs.append(r),
        onResourceRow: (r) => kept.resources.append(r),
      });
    } catch (e) {
      throw serviceError(e);
    }
  }

  /** Runs `f` on the simulation; maps its errors; returns its result and the rows it made. */
  call<T>(f: (sim: Simulation) => T, collect = true): { result: T } & CallRows {
    const fields = Object.keys(this.#kept) as OutputField[];
    const marks = fields.map((k) => this.#kept[k].mark());
    const rows = { decisions: [] as DecisionRow[], notices: [] as Notice[] };
    this.#callRows = collect ? rows : undefined;
    let result: T;
    try {
      result = f(this.#sim);
    } catch (e) {
      fields.forEach((k, i) => this.#kept[k].rollback(marks[i]));
      throw serviceError(e);
    } finally {
      this.#callRows = undefined;
    }
    return { result, ...rows };
  }

  /** Appends jobs (all or nothing); `submit: false` only stores them (DR_EVT's gRPC append). */
  append(jobs: readonly JobSpec[], submit = true): { result: number[] } & CallRows {
    // A job's demand fields (HTTP) become its demand on the machine here.
    let specs = jobs;
    try {
      specs = this.#machine?.jobs(jobs) ?? withoutDemands(jobs);
    } catch (e) {
      throw serviceError(e);
    }
    this.#appending = specs.length;
    let done;
    try {
      done = this.call((sim) => sim.appendJobs(specs, { submit }));
    } finally {
      this.#appending = 0;
    }
    done.result.forEach((id, i) => {
      const { user, account } = jobs[i];
      if (user !== undefined || account !== undefined) this.#owners.set(id, { user, account });
    });
    return done;
  }

  /** The monitors: clock, nodes, waiting jobs, the head's shadow time. */
  monitors(): SessionMonitors {
    const sim = this.#sim;
    return {
      sessionId: this.id,
      name: this.name,
      currentTime: sim.currentTime,
      nodesInUse: sim.nodesInUse,
      availableNodes: sim.availableNodes,
      activeJobCount: sim.activeJobCount,
      headShadowTime: sim.headShadowTime(),
      // The engine's count (a machine's statistics also measure its utilization).
      totalJobs: statistics(sim.state).totalJobs,
    };
  }

  /**
   * The statistics so far; on a machine with its utilization in node
   * equivalents and, as `resources`, per resource and partition (measured
   * as the finish reply's), as simulate --machine --stats_json gives them
   * for a run stopped now.
   */
  statistics(): SessionStatistics {
    const s = this.#sim.statistics();
    if (this.#machine === undefined) return s;
    return { ...s, resources: this.#sim.resourceMetrics(this.#metricsOptions)! };
  }

  backfillWindow(): BackfillWindow {
    return this.#sim.backfillWindow();
  }

  /** Why a waiting job waits (404 for a job that is not waiting, or that does not exist: each says which). */
  pendingReason(job: number): PendReason {
    let r: PendReason | undefined;
    // An external session's probe round must not ask its client.
    if (this.#external !== undefined) this.#external.probing = true;
    try {
      r = this.call((sim) => sim.pendingReason(job)).result;
    } catch (e) {
      if (e instanceof ServiceError && e.kind === "state") {
        throw new ServiceError(404, "not_found", e.message);
      }
      throw e;
    } finally {
      if (this.#external !== undefined) this.#external.probing = false;
    }
    if (r === undefined) throw new ServiceError(404, "not_found", `job ${job} is not waiting`);
    return r;
  }

  /** Starts a recording into the host's folder; returns the file it writes. */
  startRecording(): string {
    const dir = this.#env.recordDir;
    if (dir === undefined) {
      throw new ServiceError(409, "state", "recording needs the server's --record_dir");
    }
    if (this.#sim.isRecording) throw new ServiceError(409, "state", "already recording");
    const n = this.#recordings + 1;
    const file = `${dir.replace(/\/+$/, "")}/${this.name}-${this.id}${n > 1 ? `-${n}` : ""}.replay`;
    let sink: RecordingSink;
    try {
      this.#bytes = 0;
      sink = this.#env.openSink === undefined
        ? writeThroughSink(file, (n) => void (this.#bytes += n))
        : this.#env.openSink(file);
    } catch (e) {
      throw new ServiceError(500, "io", `cannot open ${file}: ${(e as Error).message}`);
    }
    try {
      this.#sim.startRecording(sink, { snapshotInterval: this.#env.snapshotInterval });
    } catch (e) {
      try {
        sink.close?.();
      } catch { /* already failing */ }
      throw new ServiceError(500, "io", (e as Error).message);
    }
    this.#recordings = n;
    this.#file = file;
    return file;
  }

  /** Stops the recording; returns the number of events it holds. */
  stopRecording(): number {
    if (!this.#sim.isRecording) throw new ServiceError(409, "state", "not recording");
    return this.#sim.stopRecording();
  }

  /** Where a running recording stands (see {@link RecordingMark}); undefined when none runs. */
  recordingMark(): RecordingMark | undefined {
    if (!this.#sim.isRecording || this.#file === undefined) return undefined;
    const { events } = this.#sim.recordingStatus();
    return { file: this.#file, bytes: this.#bytes, events, time: this.#sim.currentTime };
  }

  recordingStatus(): SessionRecordingStatus {
    const s = this.#sim.recordingStatus();
    return this.#file === undefined ? s : { ...s, file: this.#file };
  }

  /**
   * Runs the session to its end (or stops at the clock): the output without
   * its rows, and how many rows of each kind {@link Session.page} serves.
   * The rows stream into the session's stores as they come (not kept twice).
   */
  finish(runToCompletion = true): FinishSummary {
    const out = this.call((sim) => sim.finish({ runToCompletion }), false).result;
    if (this.#sim.isRecording) this.#sim.stopRecording();
    // Once: a client whose reply was cut may finish again.
    if (!this.#paired) {
      if (this.#resourceColumns === "per_resource") this.#addResourcePairs();
      if (this.#extended) this.#addExtendedFields(out.statistics.totalNodes);
    }
    this.#paired = true;
    const set = this.#metrics(out.statistics.totalNodes);
    if (this.#machine === undefined) {
      return {
        head: {
          sessionId: this.id,
          statistics: out.statistics,
          ...set,
          recording: this.recordingStatus(),
        },
        counts: this.#counts(),
      };
    }
    // On a machine utilization counts node equivalents, as simulate's does:
    // the metric set's over the measured span, the statistics' over the run
    // (the Simulation's, which reads the same rows: decisions are on).
    const resourceMetrics = this.#sim.resourceMetrics(this.#metricsOptions)!;
    return {
      head: {
        sessionId: this.id,
        statistics: out.statistics,
        ...set,
        metrics: machineMetrics(set.metrics, resourceMetrics),
        resourceMetrics,
        recording: this.recordingStatus(),
      },
      counts: this.#counts(),
    };
  }

  #counts(): FinishSummary["counts"] {
    const k = this.#kept;
    return {
      jobs: k.jobs.count,
      resources: k.resources.count,
      notices: k.notices.count,
      decisions: k.decisions.count,
    };
  }

  // The metric set, read back from the kept job rows (so a failed call's
  // rows, taken back, never count), a page at a time.
  #metrics(
    totalNodes: number,
  ): { metrics: Metrics; breakdowns: Breakdowns; fairness: Fairness } {
    const c = new MetricsCollector();
    const jobs = this.#kept.jobs;
    for (let from = 0; from < jobs.count; from += METRIC_PAGE_ROWS) {
      for (const r of JSON.parse(`[${jobs.page(from, METRIC_PAGE_ROWS)}]`)) {
        c.add(r, this.#owners.get(r.jobId) ?? {});
      }
    }
    // The capacity over time as simulate's --capacity_schedule gives it (changes in time order).
    const changes = [...this.#capacity].sort((a, b) => a.time - b.time);
    const options = this.#metricsOptions;
    return {
      metrics: c.metrics(capacityOverTime(totalNodes, changes), options),
      ...c.breakdowns(options),
    };
  }

  /**
   * Notes a capacity change the session made (the clock's time when none was
   * given), for the utilization's capacity over time.
   */
  capacityChanged(capacity: number, time: number): void {
    this.#capacity.push({ time, capacity });
  }

  /**
   * The node names of a live node change (`down`, `up`, `failed`: node or
   * group names of the server's --machine); a 400 on a whole-node session or
   * for a name the machine lacks.
   */
  nodeChange(
    change: {
      down?: readonly string[];
      up?: readonly string[];
      failed?: readonly string[];
      time?: number;
    },
  ): { down: readonly string[]; up: readonly string[]; failed?: readonly string[]; time?: number } {
    const m = this.#machine;
    if (m === undefined) {
      throw new ServiceError(
        400,
        "usage",
        "down, up: name nodes of a machine (a server started with --machine); " +
          "this session has whole nodes: give capacity (a node count)",
      );
    }
    const names = (f: "down" | "up" | "failed") =>
      (change[f] ?? []).flatMap((who) => {
        try {
          return m.nodeNames(who);
        } catch (e) {
          throw new ServiceError(400, "input", `${f}: ${(e as Error).message}`);
        }
      });
    return {
      down: names("down"),
      up: names("up"),
      ...(change.failed === undefined ? {} : { failed: names("failed") }),
      ...(change.time === undefined ? {} : { time: change.time }),
    };
  }

  /** Why an invalid answer ended this external session (onInvalid: fail), if it did. */
  get externalFailure(): string | undefined {
    return this.#external?.failure;
  }

  /** The clock now. */
  get currentTime(): number {
    return this.#sim.currentTime;
  }

  /** A new row store for the finish reply (beside the session's others). */
  #store(name: string): RowStore {
    return this.#env.spillDir === undefined
      ? new MemoryRows()
      : new FileRows(`${this.#env.spillDir}/${name}`);
  }

  // `extendedOutput`: the job rows with simulate's extended columns.
  #addExtendedFields(totalNodes: number): void {
    const next = this.#store("jobs-extended");
    extendedJobRows(this.#kept, next, totalNodes);
    this.#kept.jobs.close();
    this.#kept.jobs = next;
  }

  // `resourceColumns: per_resource`: the resource rows with their pairs.
  #addResourcePairs(): void {
    const next = this.#store("resources-per-resource");
    resourcePairRows(this.#kept, next, this.#machine?.nodes);
    this.#kept.resources.close();
    this.#kept.resources = next;
  }

  /** Rows `from` .. `from + count - 1` of `field` as JSON text, comma-separated. */
  page(field: OutputField, from: number, count: number): string {
    return this.#kept[field].page(from, count);
  }

  /** Ends a recording that is still running (the session is being dropped). */
  close(): void {
    for (const k of Object.values(this.#kept)) k.close();
    if (this.#sim.isRecording) this.#sim.stopRecording();
  }
}
