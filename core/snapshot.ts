// Snapshots (docs/library.md, "Snapshots"): the whole simulation state as plain,
// JSON-safe data, and back. A snapshot holds canonical core state only:
// the configuration (policies by name), the job store, the queues, the
// pending resource and live events, the decision bookkeeping (`pendCodes`, so
// that a re-simulation from a snapshot reports pend reasons exactly as the
// original run did from there on), the generator, the statistics sums and the
// unwritten resource rows. The picker's own state is never stored: loading
// rebuilds it through the picker's hooks (init with the configured queues,
// `onQueueUpdate` for every queue in force, `onJobPush` for every waiting job
// in arrival order: submit time, then id), and the running set and the
// queues' running counts are derived from the job records.
//
// Field order is fixed here (not taken from the objects), so the same state
// always serialises to the same bytes. Non-finite numbers never reach JSON:
// the statistics' "none yet" values (±Infinity) are written as null, and a
// queue update's explicit `maxRunning: undefined` (remove the limit) as null.
//
// Shape checks (types, ranges) belong to the schema that validates a value
// read from a file (io/replay_schema.ts); `restoreSnapshot` checks the facts
// that tie the parts together and throws an `EvtsimError` when they do not.

import type { GraceClaim } from "./_grace.ts";
import type { ResolvedConfig } from "./config.ts";
import type { PendReasonCode } from "./decisions.ts";
import { EvtsimError } from "./errors.ts";
import type { LiveFieldData } from "./_live_inputs_derived.ts";
import { liveEventData } from "./_live_stored.ts";
import type { LIVE_INPUTS, LiveInputKind, LiveStoredValues } from "./live_inputs.ts";
import type { ResolvedQueue } from "./queues.ts";
import type { ResourceEvent, SimState } from "./state.ts";
import type { StatisticsAccumulator } from "./statistics.ts";
import type { JobOutcome, JobRecord, ResourceRow } from "./types.ts";
import type { ModelNode, ResourceDemand, ResourceModel } from "./resource_model.ts";
import { type QueueDefData, queueDefData } from "./_snapshot_queues.ts";

/** The snapshot layout this program writes and reads. */
export const SNAPSHOT_VERSION = 1;

/** The configuration as stored (a resolved configuration, policies by name). */
export interface ConfigData {
  readonly totalNodes: number;
  readonly backfillPolicy: string;
  readonly priorityPolicy: ResolvedConfig["priorityPolicy"];
  readonly picker: string;
  readonly queues: readonly QueueDefData[];
  readonly decisions: boolean | "heads";
  readonly runTimeMode: ResolvedConfig["runTimeMode"];
  readonly runTimeDistribution: ResolvedConfig["runTimeDistribution"];
  readonly runTimeScale: number;
  readonly runTimeStddev: number;
  readonly seed: number;
  readonly jobStoreCapacity: number;
  readonly jobStoreOverflow: ResolvedConfig["jobStoreOverflow"];
  readonly jobFlushInterval: number;
  readonly resourceHistoryCapacity: number;
  readonly startTime: number;
  readonly capacitySchedule: readonly {
    readonly time: number;
    readonly capacity: number;
    readonly down?: readonly string[];
    readonly up?: readonly string[];
    readonly failed?: readonly string[];
  }[];
  /** Absent for the default `drain` (files written before it existed stay the same). */
  readonly onCapacityCut?: ResolvedConfig["onCapacityCut"];
  /** Absent for the default `evtsim`. */
  readonly capacitySemantics?: ResolvedConfig["capacitySemantics"];
  /** Absent when not given (`kill`). */
  readonly onNodeFailure?: ResolvedConfig["onNodeFailure"];
  /** Absent when not given (3). */
  readonly requeueLimit?: number;
  /** Settings of pickers by name; absent when none are given. */
  readonly pickerSettings?: Readonly<Record<string, unknown>>;
  /** The power model (docs/power.md); each absent when not given. */
  readonly powerCap?: number;
  readonly powerCapSchedule?: readonly { readonly time: number; readonly watts: number }[];
  readonly idleWatts?: number;
  readonly busyWatts?: number;
  readonly nodeWatts?: readonly {
    readonly nodes: number;
    readonly idleWatts: number;
    readonly busyWatts: number;
  }[];
  /**
   * The resource model's nodes (a machine run's), rebuilt on load by the
   * registry's `resourceModel`; absent without a model.
   */
  readonly resourceNodes?: readonly ModelNode[];
}

/** A job record as stored. */
export interface JobRecordData {
  readonly id: number;
  readonly submitTime: number;
  readonly numNodes: number;
  readonly timeLimit: number;
  readonly runTime: number;
  readonly queue?: string;
  readonly priority: number;
  readonly user?: string;
  readonly account?: string;
  readonly beginTime: number;
  readonly endTime: number;
  readonly rejected: boolean;
  readonly hidden: boolean;
  readonly unsubmitted?: boolean;
  readonly outcome?: JobOutcome;
  readonly exitStatus?: number;
  /** What it asks of the resource model (a machine run's jobs). */
  readonly demand?: ResourceDemand;
  /** Times a node failure requeued it (absent: never). */
  readonly requeues?: number;
  /** A requeued job's first submit time. */
  readonly firstSubmitTime?: number;
  /** Times a preemption ended its run (absent: never). */
  readonly preemptions?: number;
  /** Its own draw while it runs (watts), when given. */
  readonly power?: number;
  /** The suspension fields of a suspended job (see `JobRecord`). */
  readonly suspensions?: number;
  readonly firstBeginTime?: number;
  readonly fullTimeLimit?: number;
  readonly suspendedAt?: number;
  readonly suspendedSeconds?: number;
  /** A victim running on through its grace time: when it stops. */
  readonly graceStop?: number;
}

/**
 * A pending live event as stored: derived from its input's definition
 * (`LIVE_INPUTS`) as `LiveEvent` is, each field in its log form (a queue's
 * explicit "no limit" is null).
 */
export type LiveEventData = {
  [K in LiveInputKind]:
    & {
      readonly kind: (typeof LIVE_INPUTS)[K]["stored"];
      readonly time: number;
      readonly seq: number;
    }
    & LiveStoredValues<(typeof LIVE_INPUTS)[K]["fields"], LiveFieldData>;
}[LiveInputKind];

/** The statistics sums as stored: the "none yet" infinities are null. */
export type StatisticsData = Omit<StatisticsAccumulator, "firstSubmit" | "lastEnd"> & {
  readonly firstSubmit: number | null;
  readonly lastEnd: number | null;
};

/** The whole state as plain data (see the module comment). */
export interface SnapshotData {
  readonly version: number;
  readonly config: ConfigData;
  readonly time: number;
  /** The run-time generator (std::mt19937's words), or null when it was never drawn from. */
  readonly rng: { readonly index: number; readonly words: readonly number[] } | null;
  readonly nextJobId: number;
  readonly store: {
    readonly firstId: number;
    readonly capacity: number;
    readonly completedSinceFlush: number;
    readonly records: readonly JobRecordData[];
  };
  /** Ids of submitted jobs whose arrival the clock has not processed, in arrival order. */
  readonly arrivals: readonly number[];
  /** The queues in force, in definition order. */
  readonly queues: readonly QueueDefData[];
  readonly liveEvents: readonly LiveEventData[];
  readonly liveSeq: number;
  readonly round: number;
  /** Each waiting job's last reported pend reason code, by job id. */
  readonly pendCodes: readonly (readonly [number, PendReasonCode])[];
  readonly events: readonly ResourceEvent[];
  readonly allocatedNodes: number;
  readonly capacity: number;
  readonly capacityIndex: number;
  readonly sampled: boolean;
  /** Unwritten resource rows, oldest first. */
  readonly resourceBuffer: readonly ResourceRow[];
  readonly stats: StatisticsData;
  readonly finished: boolean;
  readonly overallocationReported: boolean;
  /** Preemptions whose victims run on through a grace time (absent: none). */
  readonly graces?: readonly GraceClaim[];
  /** The picker's memory (`Picker.saveMemory`), absent for a picker without one. */
  readonly pickerMemory?: unknown;
  /**
   * With a resource model: what each running job holds, by job id (ascending),
   * as `[node name, replicas]` pairs. Loading allocates them again.
   */
  readonly allocations?: readonly (readonly [number, readonly (readonly [string, number])[]])[];
  /** With a resource model: the nodes offline (a machine's capacity changes), when any are. */
  readonly offline?: readonly string[];
}

// ---- state -> data --------------------------------------------------------

function resolvedQueueData(q: ResolvedQueue): QueueDefData {
  return queueDefData({
    name: q.name,
    priority: q.priority,
    ...(q.picker === undefined ? {} : { picker: q.picker }),
    ...(q.project === undefined ? {} : { project: q.project }),
    ...(q.maxRunning === undefined ? {} : { maxRunning: q.maxRunning }),
    open: q.open,
    ...(q.preemptMode === undefined ? {} : { preemptMode: q.preemptMode }),
    ...(q.graceTime === undefined ? {} : { graceTime: q.graceTime }),
  });
}

/** A configuration as stored, fields in a fixed order (with the nodes of the state's resource model, if any). */
export function configData(c: ResolvedConfig, model?: ResourceModel): ConfigData {
  return {
    totalNodes: c.totalNodes,
    backfillPolicy: c.backfillPolicy,
    priorityPolicy: c.priorityPolicy,
    picker: c.picker,
    queues: c.queues.map(resolvedQueueData),
    decisions: c.decisions,
    runTimeMode: c.runTimeMode,
    runTimeDistribution: c.runTimeDistribution,
    runTimeScale: c.runTimeScale,
    runTimeStddev: c.runTimeStddev,
    seed: c.seed,
    jobStoreCapacity: c.jobStoreCapacity,
    jobStoreOverflow: c.jobStoreOverflow,
    jobFlushInterval: c.jobFlushInterval,
    resourceHistoryCapacity: c.resourceHistoryCapacity,
    startTime: c.startTime,
    capacitySchedule: c.capacitySchedule.map((x) => ({
      time: x.time,
      capacity: x.capacity,
      ...(x.down === undefined ? {} : { down: [...x.down] }),
      ...(x.up === undefined ? {} : { up: [...x.up] }),
      ...(x.failed === undefined ? {} : { failed: [...x.failed] }),
    })),
    ...(c.onCapacityCut === "drain" ? {} : { onCapacityCut: c.onCapacityCut }),
    ...(c.capacitySemantics === "evtsim" ? {} : { capacitySemantics: c.capacitySemantics }),
    ...(c.onNodeFailure === undefined ? {} : { onNodeFailure: c.onNodeFailure }),
    ...(c.requeueLimit === undefined ? {} : { requeueLimit: c.requeueLimit }),
    ...(c.pickerSettings === undefined ? {} : { pickerSettings: c.pickerSettings }),
    ...(c.powerCap === undefined ? {} : { powerCap: c.powerCap }),
    ...(c.powerCapSchedule === undefined ? {} : {
      powerCapSchedule: c.powerCapSchedule.map((x) => ({ time: x.time, watts: x.watts })),
    }),
    ...(c.idleWatts === undefined ? {} : { idleWatts: c.idleWatts }),
    ...(c.busyWatts === undefined ? {} : { busyWatts: c.busyWatts }),
    ...(c.nodeWatts === undefined ? {} : {
      nodeWatts: c.nodeWatts.map((r) => ({
        nodes: r.nodes,
        idleWatts: r.idleWatts,
        busyWatts: r.busyWatts,
      })),
    }),
    ...(model === undefined ? {} : { resourceNodes: modelNodes(model) }),
  };
}

// The nodes of the configuration's resource model, fields in a fixed order.
function modelNodes(m: ResourceModel): ModelNode[] {
  if (m.nodes === undefined || m.allocationOf === undefined) {
    throw new EvtsimError(
      "state",
      `the resource model ${m.name} lists no nodes or allocations: its state cannot be stored`,
    );
  }
  return m.nodes.map((n) => ({
    name: n.name,
    capacity: { ...n.capacity },
    ...(n.labels === undefined ? {} : { labels: { ...n.labels } }),
  }));
}

function demandData(d: ResourceDemand): ResourceDemand {
  return {
    ...(d.name === undefined ? {} : { name: d.name }),
    replicas: d.replicas,
    perReplica: { ...d.perReplica },
    ...(d.topologyKey === undefined ? {} : { topologyKey: d.topologyKey }),
  };
}

function recordData(r: JobRecord): JobRecordData {
  const out: { -readonly [K in keyof JobRecordData]: JobRecordData[K] } = {
    id: r.id,
    submitTime: r.submitTime,
    numNodes: r.numNodes,
    timeLimit: r.timeLimit,
    runTime: r.runTime,
    ...(r.queue === undefined ? {} : { queue: r.queue }),
    priority: r.priority,
    ...(r.user === undefined ? {} : { user: r.user }),
    ...(r.account === undefined ? {} : { account: r.account }),
    beginTime: r.beginTime,
    endTime: r.endTime,
    rejected: r.rejected,
    hidden: r.hidden,
  };
  if (r.unsubmitted === true) out.unsubmitted = true;
  if (r.outcome !== undefined) out.outcome = r.outcome;
  if (r.exitStatus !== undefined) out.exitStatus = r.exitStatus;
  if (r.demand !== undefined) out.demand = demandData(r.demand);
  if (r.requeues !== undefined) out.requeues = r.requeues;
  if (r.firstSubmitTime !== undefined) out.firstSubmitTime = r.firstSubmitTime;
  if (r.power !== undefined) out.power = r.power;
  if (r.preemptions !== undefined) out.preemptions = r.preemptions;
  if (r.suspensions !== undefined) {
    out.suspensions = r.suspensions;
    out.firstBeginTime = r.firstBeginTime;
    out.fullTimeLimit = r.fullTimeLimit;
    if (r.suspendedAt !== undefined) out.suspendedAt = r.suspendedAt;
    out.suspendedSeconds = r.suspendedSeconds;
  }
  if (r.graceStop !== undefined) out.graceStop = r.graceStop;
  return out;
}

/** A resource event as stored (fields in a fixed order). */
export function eventData(e: ResourceEvent): ResourceEvent {
  return {
    time: e.time,
    kind: e.kind,
    id: e.id,
    numNodes: e.numNodes,
    beginTime: e.beginTime,
    timeLimit: e.timeLimit,
  };
}

function statsData(s: StatisticsAccumulator): StatisticsData {
  return {
    jobsCreated: s.jobsCreated,
    jobsRejected: s.jobsRejected,
    jobsStarted: s.jobsStarted,
    jobsCompleted: s.jobsCompleted,
    jobsCancelled: s.jobsCancelled,
    jobsFailed: s.jobsFailed,
    jobsKilled: s.jobsKilled,
    sumWait: s.sumWait,
    maxWait: s.maxWait,
    sumTurnaround: s.sumTurnaround,
    sumBoundedSlowdown: s.sumBoundedSlowdown,
    nodeSeconds: s.nodeSeconds,
    firstSubmit: Number.isFinite(s.firstSubmit) ? s.firstSubmit : null,
    lastEnd: Number.isFinite(s.lastEnd) ? s.lastEnd : null,
    queueSamples: s.queueSamples,
    queueSampleSum: s.queueSampleSum,
    queueSampleMax: s.queueSampleMax,
    ...(s.lostWork === undefined ? {} : {
      lostWork: s.lostWork,
      requeues: s.requeues ?? 0,
      maxRequeues: s.maxRequeues ?? 0,
    }),
    ...(s.preemptedWork === undefined ? {} : {
      preemptedWork: s.preemptedWork,
      preemptions: s.preemptions ?? 0,
      maxPreemptions: s.maxPreemptions ?? 0,
    }),
    ...(s.suspensions === undefined ? {} : {
      suspensions: s.suspensions,
      suspendedSeconds: s.suspendedSeconds ?? 0,
    }),
  };
}

/**
 * The state as plain, JSON-safe data (see the module comment). Throws an
 * `EvtsimError` for the state of a schedule replay (recorded begin/end
 * times), which has no scheduler to rebuild.
 */
export function snapshotOf(state: SimState): SnapshotData {
  if (!state.runMode.decides) {
    throw new EvtsimError(
      "state",
      "a snapshot is of a simulation, not of the replay of a recorded schedule",
    );
  }
  const config = configData(state.config, state.resources?.model);
  let allocations: [number, [string, number][]][] | undefined;
  const res = state.resources;
  const offline = res?.model.offline?.(res.state);
  if (res !== undefined) {
    allocations = [];
    for (const r of state.store.records.toArray()) {
      if (r.rejected || r.beginTime < 0 || r.endTime >= 0) continue;
      const held = res.model.allocationOf!(res.state, r.id);
      if (held !== undefined) {
        allocations.push([r.id, held.map((h) => [h.nodeName, h.replicas])]);
      }
    }
  }
  const rows: ResourceRow[] = state.resourceBuffer.toArray().map((r) =>
    r.power === undefined
      ? { time: r.time, freeNodes: r.freeNodes, allocatedNodes: r.allocatedNodes }
      : { time: r.time, freeNodes: r.freeNodes, allocatedNodes: r.allocatedNodes, power: r.power }
  );
  const pend: [number, PendReasonCode][] = [];
  for (const { id, code } of state.pendCodes.toArray()) pend.push([id, code]);
  pend.sort((a, b) => a[0] - b[0]);
  const pickerMemory = state.picker.saveMemory?.(state.pickerState);
  return {
    version: SNAPSHOT_VERSION,
    config,
    time: state.time,
    // The generator changes only when run times are drawn; otherwise the
    // configuration's seed rebuilds it.
    rng: state.config.runTimeMode === "distribution"
      ? { index: state.rng.index, words: [...state.rng.words] }
      : null,
    nextJobId: state.nextJobId,
    store: {
      firstId: state.store.firstId,
      capacity: state.store.capacity,
      completedSinceFlush: state.store.completedSinceFlush,
      records: state.store.records.toArray().map(recordData),
    },
    arrivals: state.arrivals.toArray().map((r) => r.id),
    queues: state.queues.list.map((q) => resolvedQueueData(q.def)),
    liveEvents: state.liveEvents.toArray().map((e) => liveEventData(e) as LiveEventData),
    liveSeq: state.liveSeq,
    round: state.round,
    pendCodes: pend,
    events: state.events.toArray().map(eventData),
    allocatedNodes: state.allocatedNodes,
    capacity: state.capacity,
    capacityIndex: state.capacityIndex,
    sampled: state.sampled,
    resourceBuffer: rows,
    stats: statsData(state.stats),
    finished: state.finished,
    overallocationReported: state.overallocationReported,
    ...(state.graces === undefined || state.graces.length === 0
      ? {}
      : { graces: state.graces.map((c) => ({ ...c })) }),
    // A picker may have no memory in this run (builtin_fcfs without a queue picker that keeps one).
    ...(pickerMemory === undefined ? {} : { pickerMemory }),
    ...(allocations === undefined ? {} : { allocations }),
    ...(offline === undefined || offline.length === 0 ? {} : { offline: [...offline] }),
  };
}

export { type QueueDefData, queueDefData, queueDefOf } from "./_snapshot_queues.ts";
