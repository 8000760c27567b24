// The simulation state: one immutable value holding everything the reducer
// needs. Persistent structures (OrderedSet, Vec) share unchanged
// parts between successive states, so keeping an old state costs little and
// stepping it again gives the same answer.

import { policyFailure } from "./_policy_faults.ts";
import { OrderedSet, type OrderSpec } from "./_ordered_set.ts";
import { Vec } from "./_vector.ts";
import type { Admission } from "./admission.ts";
import { resolveConfig, type ResolvedConfig } from "./config.ts";
import type { PendCode } from "./decisions.ts";
import { EvtsimError } from "./errors.ts";
import { emptyLiveEvents, type LiveEvent } from "./live.ts";
import type { Picker } from "./picker.ts";
import { lookupAdmission, lookupPicker, type PolicyRegistry } from "./policies.ts";
import { preemptive, type QueueTable, queueTable } from "./queues.ts";
import type { ResourceModel } from "./resource_model.ts";
import { REPLAY_SCHEDULE } from "./replay.ts";
import { type RngState, seedRng } from "./rng.ts";
import { type RunMode, SIMULATE } from "./_run_mode.ts";
import { emptyRunningSet, type RunningSet } from "./running.ts";
import { emptyStatistics, type StatisticsAccumulator } from "./statistics.ts";
import type { JobRecord, ResourceRow, SimulationConfig } from "./types.ts";
import { idleDraw, powerModelOn } from "./_power.ts";

/**
 * A start (allocation) or end (release) of a job's nodes.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, step } from "@evtsim/evtsim";
 * import type { ResourceEvent } from "./state.ts";
 * const job = { submitTime: 0, numNodes: 2, timeLimit: 60, actualRunTime: 45 };
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job])).state;
 * s = step(s, advanceTo(0)).state;
 * const next: ResourceEvent | undefined = s.events.first();
 * // The started job's end (kind 0) is pending at its run time, not at its limit.
 * if (next?.kind !== 0 || next.time !== 45 || next.id !== 0 || next.numNodes !== 2) {
 *   throw new Error("expected job 0's end at 45");
 * }
 * ```
 */
export interface ResourceEvent {
  /** When the event happens. */
  readonly time: number;
  /** 0 = end, 1 = start: ends sort first at equal times. */
  readonly kind: 0 | 1;
  /** The job's id. */
  readonly id: number;
  /** Nodes the job holds. */
  readonly numNodes: number;
  /** When the job starts (or started). */
  readonly beginTime: number;
  /** The job's requested time limit. */
  readonly timeLimit: number;
}

const EVENT_ORDER: OrderSpec<ResourceEvent> = {
  compare: (a, b) => a.time - b.time || a.kind - b.kind || a.id - b.id,
  p1: (x) => x.time,
  p2: (x) => x.kind,
};

const ARRIVAL_ORDER: OrderSpec<JobRecord> = {
  compare: (a, b) => a.submitTime - b.submitTime || a.id - b.id,
  p1: (x) => x.submitTime,
  p2: (x) => x.numNodes,
};

/**
 * The job store: records from `firstId` on; the front is reclaimed once written.
 *
 * @example
 * ```ts
 * import { appendJobs, flush, initialState, runToCompletion, step } from "@evtsim/evtsim";
 * import type { JobStore } from "./state.ts";
 * const job = { submitTime: 0, numNodes: 4, timeLimit: 10 };
 * let s = step(initialState({ totalNodes: 8 }), appendJobs([job, job])).state;
 * const held: JobStore = s.store;
 * s = step(step(s, runToCompletion()).state, flush()).state;
 * // Flushing writes the finished jobs and reclaims them from the front of the store.
 * if (held.firstId !== 0 || held.records.size !== 2) throw new Error("two records held");
 * if (s.store.firstId !== 2 || s.store.records.size !== 0) throw new Error("both reclaimed");
 * ```
 */
export interface JobStore {
  /** Id of the first record still held (= number of records reclaimed). */
  readonly firstId: number;
  /** Records `firstId`, `firstId + 1`, … in id order. */
  readonly records: Vec<JobRecord>;
  /** Current capacity (0 = unbounded). Grows by doubling under `grow`. */
  readonly capacity: number;
  /** Completions since the last reclamation, for the flush interval. */
  readonly completedSinceFlush: number;
}

/**
 * The whole simulation state, an immutable value: keep one and it is a
 * snapshot (`saveSnapshot` serialises it). Read it through the queries
 * (`statistics`, `availableNodes`, `activeJobCount`, `headShadowTime`,
 * `backfillWindow`, `pendingReason`) and the fields below; never change it.
 * Fields marked `@internal` hold the engine's own structures: they are not
 * part of the stable API and may change in any release.
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type SimState, step } from "@evtsim/evtsim";
 * const job = (submitTime: number) => ({ submitTime, numNodes: 6, timeLimit: 10 });
 * const s0: SimState = initialState({ totalNodes: 8 });
 * const s1 = step(step(s0, appendJobs([job(0), job(0), job(30)])).state, advanceTo(0)).state;
 * // At 0: job 0 runs, job 1 waits with the picker, job 2 has not arrived yet.
 * if (s1.allocatedNodes !== 6 || s1.running.size !== 1) throw new Error("job 0 runs");
 * if (s1.picker.size(s1.pickerState) !== 1 || s1.time !== 0) throw new Error("job 1 waits at 0");
 * if (s0.nextJobId !== 0 || s1.nextJobId !== 3) throw new Error("s0 must be unchanged");
 * ```
 */
export interface SimState {
  /** The configuration with its defaults filled in. */
  readonly config: ResolvedConfig;
  /** The picker the configuration selects; `pickerState` is its state. */
  readonly picker: Picker;
  /** The picker's own state: the waiting (eligible) jobs in its order. */
  readonly pickerState: unknown;
  /** The admission (backfilling) policy. */
  readonly admission: Admission;
  /**
   * The admission policy's own state (see `Admission.init`), undefined for a
   * stateless policy. Internal: not part of the stable API, may change in any release.
   * @internal
   */
  readonly admissionMemory: unknown;
  /** The registry the policies came from (per-queue pickers are looked up in it). */
  readonly registry: PolicyRegistry;
  /** The simulation clock. */
  readonly time: number;
  /**
   * The run-time generator's state. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly rng: RngState;
  /** Id the next created job gets. */
  readonly nextJobId: number;
  /**
   * Job records not yet written and reclaimed. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly store: JobStore;
  /**
   * Submitted jobs whose submit time is still ahead of the clock. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly arrivals: OrderedSet<JobRecord>;
  /** The queues and their running counts (empty: one implicit queue). */
  readonly queues: QueueTable;
  /**
   * Live events (cancels, ends, updates) waiting for their time. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly liveEvents: OrderedSet<LiveEvent>;
  /**
   * Sequence number the next live event gets (orders events at one time). Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly liveSeq: number;
  /** Scheduling rounds run so far. */
  readonly round: number;
  /**
   * With decisions on: each waiting job's last reported pend reason code. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly pendCodes: OrderedSet<PendCode>;
  /** Running jobs, ordered by projected end. */
  readonly running: RunningSet;
  /**
   * Pending start/end events. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly events: OrderedSet<ResourceEvent>;
  /** Nodes allocated to running jobs. */
  readonly allocatedNodes: number;
  /** Usable nodes now (the capacity schedule may lower it). */
  readonly capacity: number;
  /**
   * Index of the next capacity change to apply. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly capacityIndex: number;
  /**
   * The initial queue-length sample has been taken. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly sampled: boolean;
  /**
   * Resource rows not yet emitted, oldest first. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly resourceBuffer: Vec<ResourceRow>;
  /**
   * Number of rows in `resourceBuffer`. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly resourceBufferLength: number;
  /**
   * Running sums for the statistics. Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly stats: StatisticsAccumulator;
  /**
   * Schedule replay: recorded begin and end times, the scheduler is never
   * called (`runMode` is `replay-schedule`).
   */
  readonly replay: boolean;
  /**
   * How the run is driven, chosen once by {@link createState}: a simulation
   * or a schedule replay (core/_run_mode.ts). Internal: not part of the
   * stable API, may change in any release.
   *
   * @internal
   */
  readonly runMode: RunMode;
  /** `finish` has been applied; no further input is accepted. */
  readonly finished: boolean;
  /**
   * An over-allocation notice has been emitted (reported once). Internal: not part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly overallocationReported: boolean;
  /**
   * What keeps computed times exact (below 2^53): the latest time any input
   * named and the sum of the jobs' time spans. Internal: not part of the
   * stable API, may change in any release.
   *
   * @internal
   */
  readonly timeBound: TimeBound;
  /**
   * Preemptions whose victims run on through a grace time (core/_grace.ts):
   * each preemptor, its victims and their modes; absent: none. Internal: not
   * part of the stable API, may change in any release.
   *
   * @internal
   */
  readonly graces?: readonly {
    readonly preemptor: number;
    readonly victims: readonly number[];
    readonly modes: readonly ("requeue" | "cancel" | "suspend")[];
  }[];
  /**
   * The configuration's resource model and the state of its resources;
   * absent without one (the node-count pool alone).
   */
  readonly resources?: ResourceModelState;
}

/**
 * A resource model and the current state of its resources (`SimState.resources`).
 *
 * @example
 * ```ts
 * import { initialState, type ResourceModelState, topologyCluster } from "@evtsim/evtsim";
 * const resourceModel = topologyCluster([{ name: "n1", capacity: { gpu: 4 } }]);
 * const s = initialState({ totalNodes: 1, resourceModel });
 * const r: ResourceModelState | undefined = s.resources;
 * if (r?.model !== resourceModel || r.state !== resourceModel.initial) throw new Error("empty cluster");
 * ```
 */
export interface ResourceModelState {
  /** The model. */
  readonly model: ResourceModel;
  /** Its state: what is free, and what each running job holds. */
  readonly state: unknown;
}

/**
 * A bound on every time the engine can compute (docs/reliability.md: computed
 * times stay exact): a job
 * begins at an input's time or at another job's end, and ends at most its
 * span (the larger of its time limit and run time, plus a second for DR_EVT's
 * rounding of drawn run times) later, so no computed time passes
 * `latestInput + jobSpans`. Inputs that would take it past 2^53 − 1 are
 * refused where they are given (core/_input_check.ts), so the event loop
 * never checks a sum.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, step } from "@evtsim/evtsim";
 * import type { TimeBound } from "./state.ts";
 * const s = step(initialState({ totalNodes: 8 }), appendJobs([{ submitTime: 5, numNodes: 1, timeLimit: 60 }])).state;
 * const b: TimeBound = s.timeBound;
 * if (b.latestInput !== 5 || b.jobSpans !== 60) throw new Error("bound");
 * ```
 */
export interface TimeBound {
  /** The latest time any input named (a submit time, a live event's time, a capacity change). */
  readonly latestInput: number;
  /** Σ over the jobs of their span (see above). */
  readonly jobSpans: number;
}

/** An empty event queue. */
export function emptyEvents(): OrderedSet<ResourceEvent> {
  return OrderedSet.empty(EVENT_ORDER);
}

const PEND_CODE_ORDER: OrderSpec<PendCode> = {
  compare: (a, b) => a.id - b.id,
  p1: (x) => x.id,
  p2: (x) => x.id,
};

/** No pend codes kept. */
export function emptyPendCodes(): OrderedSet<PendCode> {
  return OrderedSet.empty(PEND_CODE_ORDER);
}

/** An empty future-arrival queue. */
export function emptyArrivals(): OrderedSet<JobRecord> {
  return OrderedSet.empty(ARRIVAL_ORDER);
}

/** How {@link createState} builds a state. */
export interface CreateStateOptions {
  /** Where the configuration's picker and admission names are looked up. */
  readonly registry: PolicyRegistry;
  /** A schedule-replay state: recorded jobs, the policies are never asked. */
  readonly replay?: boolean;
}

/**
 * The state before any job exists: clock at the start time, all nodes free,
 * and the resource baseline row buffered. The policies come from the
 * registry handed in; the core knows none of them.
 *
 * @example
 * ```ts
 * import { createState, defaultRegistry } from "@evtsim/evtsim";
 * const s = createState({ totalNodes: 64 }, { registry: defaultRegistry() });
 * console.assert(s.time === 0 && s.allocatedNodes === 0 && s.picker.name === "builtin_fcfs");
 * ```
 */
export function createState(config: SimulationConfig, options: CreateStateOptions): SimState {
  const c = resolveConfig(config);
  const registry = options.registry;
  // The run's mode, chosen once: every later difference is the mode's call.
  const mode = options.replay ? REPLAY_SCHEDULE : SIMULATE;
  const picker = typeof config.picker === "object" && config.picker !== null
    ? config.picker
    : lookupPicker(registry, c.picker);
  const admission = config.admission ?? lookupAdmission(registry, c.backfillPolicy);
  let capacity = c.totalNodes;
  let capacityIndex = 0;
  while (
    capacityIndex < c.capacitySchedule.length &&
    c.capacitySchedule[capacityIndex].time <= c.startTime
  ) {
    capacity = c.capacitySchedule[capacityIndex].capacity;
    capacityIndex++;
  }
  const queues = queueTable(c.queues);
  let pickerState: unknown;
  try {
    pickerState = !mode.decides ? undefined : picker.init({
      queues: c.queues,
      searchByLimit: admission.searchesByLimit === true,
      pickerNamed: (name) => lookupPicker(registry, name),
      totalNodes: c.totalNodes,
      ...(config.resourceModel?.nodes !== undefined ? { nodes: config.resourceModel.nodes } : {}),
      settings: c.pickerSettings?.[picker.name],
      settingsOf: (name) => c.pickerSettings?.[name],
    });
  } catch (e) {
    throw policyFailure(picker.name, c.startTime, e);
  }
  const baseline: ResourceRow = options.replay || !powerModelOn(c)
    ? { time: c.startTime, freeNodes: capacity, allocatedNodes: 0 }
    : {
      time: c.startTime,
      freeNodes: capacity,
      allocatedNodes: 0,
      power: idleDraw(c, config.resourceModel),
    };
  const model = config.resourceModel;
  if (model !== undefined && !mode.decides) {
    throw new EvtsimError("usage", "a replay state takes no resource model");
  }
  const state: SimState = {
    config: c,
    picker,
    pickerState,
    admission,
    admissionMemory: !mode.decides ? undefined : admissionInit(admission, c.startTime),
    registry,
    time: c.startTime,
    rng: seedRng(c.seed),
    nextJobId: 0,
    store: Object.freeze({
      firstId: 0,
      records: Vec.empty<JobRecord>(),
      capacity: c.jobStoreCapacity,
      completedSinceFlush: 0,
    }),
    arrivals: emptyArrivals(),
    queues,
    liveEvents: emptyLiveEvents(),
    liveSeq: 0,
    round: 0,
    pendCodes: emptyPendCodes(),
    running: emptyRunningSet(),
    events: emptyEvents(),
    allocatedNodes: 0,
    capacity,
    capacityIndex,
    sampled: false,
    resourceBuffer: Vec.of([baseline]),
    resourceBufferLength: 1,
    stats: initialStatistics(c, queues),
    replay: mode === REPLAY_SCHEDULE,
    runMode: mode,
    finished: false,
    overallocationReported: false,
    timeBound: Object.freeze({
      latestInput: Math.max(c.startTime, ...c.capacitySchedule.slice(-1).map((x) => x.time)),
      jobSpans: 0,
    }),
  };
  return Object.freeze(
    model === undefined
      ? state
      : { ...state, resources: Object.freeze({ model, state: initialNodes(model, c) }) },
  );
}

// The model's empty machine, with the nodes the capacity changes at or
// before the start took offline (as the start's capacity counts them).
function initialNodes(model: ResourceModel, c: ResolvedConfig): unknown {
  const early = c.capacitySchedule.filter((x) => x.time <= c.startTime);
  if (!early.some((x) => x.down !== undefined || x.up !== undefined || x.failed !== undefined)) {
    return model.initial;
  }
  if (model.setOnline === undefined) {
    throw new EvtsimError(
      "usage",
      "a capacity change names nodes, which needs a resource model that takes nodes offline",
    );
  }
  let st = model.beginEdit(model.initial);
  for (const x of early) {
    if (x.down !== undefined) st = model.setOnline(st, x.down, false);
    if (x.failed !== undefined) st = model.setOnline(st, x.failed, false);
    if (x.up !== undefined) st = model.setOnline(st, x.up, true);
  }
  return model.endEdit(st);
}

// The admission policy's initial state, its failure named.
function admissionInit(admission: Admission, time: number): unknown {
  try {
    return admission.init?.();
  } catch (e) {
    throw policyFailure(admission.name, time, e);
  }
}

// A run with node failures counts lost work and requeues from the start; one
// with preemptive queues, preempted work and preemptions.
function initialStatistics(c: ResolvedConfig, queues: QueueTable): StatisticsAccumulator {
  const failures = c.capacitySchedule.some((x) => x.failed !== undefined && x.failed.length > 0);
  const preemption = preemptive(queues);
  if (!failures && !preemption) return emptyStatistics();
  return Object.freeze({
    ...emptyStatistics(),
    ...(failures ? { lostWork: 0, requeues: 0, maxRequeues: 0 } : {}),
    ...(preemption ? { preemptedWork: 0, preemptions: 0, maxPreemptions: 0 } : {}),
    ...(queues.list.some((q) => q.def.preemptMode === "suspend")
      ? { suspensions: 0, suspendedSeconds: 0 }
      : {}),
  });
}
