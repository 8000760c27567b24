// The picker contract (docs/seed-003-mapping.md, "Picker hooks"): the core asks a picker for the next
// candidate and knows nothing of queue or job ordering. A picker keeps its
// own persistent state `P`, changed only through its hooks, so that it can
// be rebuilt from the core state at any time (a snapshot never stores it).
// Iteration within a scheduling session is scratch: `beginSession` returns a
// session object that lives for one pass and hands back the next state.

import type { ResolvedQueue } from "./queues.ts";
import type { ModelNode } from "./resource_model.ts";
import type { JobRecord } from "./types.ts";

/**
 * What a picker learns when it is created: the configured queues (empty when
 * none are configured: then `job.queue` is only a label and every job is in
 * one queue), whether the admission policy searches by time limit, and how to
 * find another registered picker (for per-queue overrides).
 *
 * @example
 * ```ts
 * import { defaultRegistry, type PickerSetup } from "@evtsim/evtsim";
 * const setup: PickerSetup = {
 *   queues: [],
 *   searchByLimit: true,
 *   pickerNamed: (name) => defaultRegistry().pickers.get(name)!,
 * };
 * // A picker builds its empty state from the setup, then takes arriving jobs.
 * const sjf = setup.pickerNamed("sjf");
 * const job = (id: number, timeLimit: number) => ({
 *   id, submitTime: 0, numNodes: 1, timeLimit, runTime: timeLimit, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 * });
 * const state = sjf.onJobPush(sjf.onJobPush(sjf.init(setup), job(0, 50)), job(1, 10));
 * console.assert([...sjf.pending(state)].map((j) => j.id).join() === "1,0");
 * ```
 */
export interface PickerSetup {
  /** Queues in definition order; a job's `queue` names one of them. */
  readonly queues: readonly ResolvedQueue[];
  /** The admission policy searches candidates by time limit (keep a limit index). */
  readonly searchByLimit: boolean;
  /** A registered picker by name; throws a usage error for an unknown name. */
  pickerNamed(name: string): Picker;
  /** The machine's node count (the core always gives it). */
  readonly totalNodes?: number;
  /**
   * The nodes of the configuration's resource model, when it has one that
   * lists them (`fairshare` charges a job placed by the model in node
   * equivalents of these nodes).
   */
  readonly nodes?: readonly ModelNode[];
  /**
   * The configuration's settings for this picker (`pickerSettings[name]`),
   * plain JSON data the picker checks itself; undefined when none are given.
   */
  readonly settings?: unknown;
  /**
   * The configuration's settings for any picker by name: for a picker that
   * sets up others (a queue's own picker, under `builtin_fcfs`).
   */
  settingsOf?(name: string): unknown;
}

/**
 * What a picker session may ask the core.
 *
 * @example
 * ```ts
 * import { defaultRegistry, type Picker, type SessionContext, Simulation } from "@evtsim/evtsim";
 * // evtsim's SJF, noting the clock of each session it is asked for.
 * const sjf = defaultRegistry().pickers.get("sjf")!;
 * const clocks = new Set<number>();
 * const noting: Picker = {
 *   ...sjf,
 *   name: "noting_sjf",
 *   beginSession: (state, ctx: SessionContext) => (clocks.add(ctx.now), sjf.beginSession(state, ctx)),
 * };
 * const sim = new Simulation({ totalNodes: 4, picker: noting });
 * sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }, { submitTime: 5, numNodes: 4, timeLimit: 10 }]);
 * sim.finish();
 * // Sessions run when a job arrives (0, 5) and when one ends (10).
 * console.assert([...clocks].join() === "0,5,10");
 * ```
 */
export interface SessionContext {
  /** The simulation clock. */
  readonly now: number;
  /** Whether queues are configured (else every job is in one implicit queue). */
  readonly queuesConfigured: boolean;
  /**
   * Whether a queue may start a job now (open and below its `maxRunning`).
   * Pickers may skip jobs of queues that are not ready; the core never starts
   * them either way.
   */
  queueReady(queue: string): boolean;
}

/**
 * A fast path a picker may offer when its order is kept in an index: the
 * admission policies use it, when present and unless decisions are `true` (a
 * verdict for every waiting job), instead of walking every candidate with `nextJob`.
 *
 * @example
 * ```ts
 * import { type CandidateSearch, defaultRegistry } from "@evtsim/evtsim";
 * const registry = defaultRegistry();
 * const fcfs = registry.pickers.get("builtin_fcfs")!;
 * const rec = (id: number, numNodes: number, timeLimit: number) => ({
 *   id, submitTime: 0, numNodes, timeLimit, runTime: timeLimit, queue: undefined, priority: 0,
 *   beginTime: -1, endTime: -1, rejected: false, hidden: false,
 * });
 * let state = fcfs.init({ queues: [], searchByLimit: true, pickerNamed: (n) => registry.pickers.get(n)! });
 * for (const job of [rec(0, 8, 10), rec(1, 2, 500), rec(2, 2, 50)]) state = fcfs.onJobPush(state, job);
 * const ctx = { now: 0, queuesConfigured: false, queueReady: () => true };
 * const search: CandidateSearch | undefined = fcfs.beginSession(state, ctx).search;
 * // The first candidate on at most 4 nodes with a limit under 100: job 2 (job 0 is too wide,
 * // job 1 too long).
 * console.assert(search?.nextFitting(4, (limit) => limit < 100)?.id === 2);
 * ```
 */
export interface CandidateSearch {
  /**
   * The first remaining candidate after the last one this session returned
   * (by `nextJob` or by this method), in a ready queue, with
   * `numNodes <= maxNodes` and `limitFits(timeLimit)`. `limitFits` is
   * monotone: if it accepts a limit it accepts every smaller one, so a
   * picker may skip whole groups by their smallest limit. Candidates passed
   * over are not returned again in this session.
   *
   * `noRoomFrom`, a hint a picker may use or ignore: for a candidate with a
   * `demand`, the fewest replicas from which the policy passes over every
   * candidate of the same replica shape (the same `perReplica` and
   * `topologyKey`) in this call (Infinity: none). A picker that files jobs
   * by shape skips such candidates together instead of returning them one by
   * one; it is asked about any job of a shape, and its answer holds for all.
   */
  nextFitting(
    maxNodes: number,
    limitFits: (timeLimit: number) => boolean,
    noRoomFrom?: (job: JobRecord) => number,
  ): JobRecord | undefined;
  /**
   * Smallest node count among remaining candidates in ready queues strictly
   * before `job` (all of them when `job` is undefined); Infinity if none.
   */
  minNodesBefore(job: JobRecord | undefined): number;
  /**
   * Largest node count among remaining candidates in ready queues strictly
   * before `job` (all of them when `job` is undefined); −Infinity if none.
   * Called with candidates in order, so an implementation may resume its scan.
   */
  maxNodesBefore(job: JobRecord | undefined): number;
}

/**
 * One scheduling session of a picker: the candidates in the picker's order.
 * The admission policy starts some of them; the core reports each outcome
 * back, then ends the session and keeps the state it returns.
 *
 * @example
 * ```ts
 * import { defaultRegistry, type Picker, type PickerSession, Simulation } from "@evtsim/evtsim";
 * // evtsim's SJF, with each session's candidates noted as it hands them out.
 * const sjf = defaultRegistry().pickers.get("sjf")!;
 * const offered: number[] = [];
 * const logging: Picker = {
 *   ...sjf,
 *   name: "logging_sjf",
 *   beginSession(state, ctx) {
 *     const s: PickerSession<unknown> = sjf.beginSession(state, ctx);
 *     return { ...s, nextJob: () => { const job = s.nextJob(); if (job) offered.push(job.id); return job; } };
 *   },
 * };
 * const sim = new Simulation({ totalNodes: 4, picker: logging, backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 4, timeLimit: 50 },
 *   { submitTime: 1, numNodes: 4, timeLimit: 20 },
 * ]);
 * sim.advanceTo(10);
 * // At 1 job 2 (limit 20) is offered first and waits; at 10 it starts, then job 1 is offered.
 * console.assert(offered.join() === "0,2,2,1", offered.join());
 * ```
 */
export interface PickerSession<P> {
  /** The next candidate, or undefined when the session has no more. */
  nextJob(): JobRecord | undefined;
  /** The job just offered was started: remove it from the candidates for good. */
  onDispatch(job: JobRecord): void;
  /** The job just offered was not started: it stays a candidate for later sessions. */
  onPend(job: JobRecord): void;
  /** Ends the session and returns the picker's next state. */
  endSession(): P;
  /**
   * Optional, for a picker of stable order: if `to` (a waiting job's record
   * as the picker holds it) comes right after the next `n` candidates,
   * passes over those `n` without offering them and hands out `to` (the next
   * `nextJob` returns the candidate after it) and returns true; otherwise
   * changes nothing and returns false.
   */
  skip?(n: number, to: JobRecord): boolean;
  /** The optional indexed fast path. */
  readonly search?: CandidateSearch;
}

/**
 * A job's new state, as `onJobStateChange` reports it: it left the
 * candidates (`cancelled`) or came back (`pending`).
 *
 * @example
 * ```ts
 * import { defaultRegistry, type JobStateChange, type Picker, Simulation } from "@evtsim/evtsim";
 * // evtsim's FCFS, noting the state changes it is told of.
 * const fcfs = defaultRegistry().pickers.get("builtin_fcfs")!;
 * const changes: string[] = [];
 * const noting: Picker = {
 *   ...fcfs,
 *   name: "noting_fcfs",
 *   onJobStateChange: (state, job, change: JobStateChange) => {
 *     changes.push(`${job.id} ${change}`);
 *     return fcfs.onJobStateChange(state, job, change);
 *   },
 * };
 * const sim = new Simulation({ totalNodes: 4, picker: noting });
 * const [, waiting] = sim.appendJobs([
 *   { submitTime: 0, numNodes: 4, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 10 },
 * ]);
 * sim.advanceTo(5);
 * sim.cancelJob(waiting);
 * sim.advanceTo(5);
 * console.assert(changes.join() === "1 cancelled", changes.join());
 * ```
 */
export type JobStateChange = "cancelled" | "pending";

/**
 * A pluggable job picker (docs/seed-003-mapping.md): the order in which waiting jobs
 * are offered to the admission policy. Hooks are pure: they return the next
 * state and never change the one they are given. The core calls
 * `onJobPush` when a job arrives (becomes eligible), `onJobStateChange` when
 * it stops being a candidate other than by being started (cancelled),
 * `onJobUpdate` when its priority or queue changes, and `onQueueUpdate` when
 * a queue is added or changed.
 *
 * @example
 * ```ts
 * import { type JobRecord, type Picker, Simulation } from "@evtsim/evtsim";
 * // Largest job first, over a frozen array kept in order.
 * const order = (a: JobRecord, b: JobRecord) => b.numNodes - a.numNodes || a.id - b.id;
 * const largestFirst: Picker<readonly JobRecord[]> = {
 *   name: "largest_first",
 *   init: () => [],
 *   onQueueUpdate: (jobs) => jobs,
 *   onJobPush: (jobs, job) => [...jobs, job].sort(order),
 *   onJobStateChange: (jobs, job) => jobs.filter((j) => j.id !== job.id),
 *   onJobUpdate: (jobs, _before, job) => jobs.map((j) => (j.id === job.id ? job : j)).sort(order),
 *   size: (jobs) => jobs.length,
 *   pending: (jobs) => jobs,
 *   beginSession: (jobs) => {
 *     let i = 0;
 *     const started = new Set<number>();
 *     return {
 *       nextJob: () => jobs[i++],
 *       onDispatch: (job) => void started.add(job.id),
 *       onPend: () => {},
 *       endSession: () => jobs.filter((j) => !started.has(j.id)),
 *     };
 *   },
 * };
 * const sim = new Simulation({ totalNodes: 8, picker: largestFirst, backfillPolicy: "none" });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 2, timeLimit: 10 },
 *   { submitTime: 1, numNodes: 7, timeLimit: 10 },
 * ]);
 * // At 10 the 7-node job 2 is offered before the 2-node job 1, which then waits until 20.
 * const begins = sim.finish().jobs.map((r) => r.beginTime).join();
 * if (begins !== "0,20,10") throw new Error(begins);
 * ```
 */
export interface Picker<P = unknown> {
  /** The name it is registered under (and recorded in logs). */
  readonly name: string;
  /**
   * DR_EVT's SJF/LJF semantics: a backfill may end exactly at the shadow time
   * (`limit <= shadow - now`), and only while the shadow time is in the
   * future. Other pickers backfill only jobs ending strictly before it.
   */
  readonly backfillEndsByShadow?: boolean;
  /**
   * Its sessions offer every waiting job (they never end early) in an order
   * that starts leave as it was: a start removes the started job only (a key
   * order on the jobs' own fields, as `builtin_fcfs` and `orderedPicker`).
   * An admission policy may then know, without walking them again, the
   * candidates of a session right after one that started jobs (see
   * `AdmissionSession.stableOrder`).
   */
  readonly stableOrder?: boolean;
  /** The state with no jobs. */
  init(setup: PickerSetup): P;
  /** A queue was added or changed (priority, limits, open/closed). */
  onQueueUpdate(state: P, queue: ResolvedQueue): P;
  /** A job arrived: it is a candidate from now on. */
  onJobPush(state: P, job: JobRecord): P;
  /** A waiting job left the candidates (cancelled) or came back (pending). */
  onJobStateChange(state: P, job: JobRecord, change: JobStateChange): P;
  /** A waiting job's priority or queue changed (`before` is its old record). */
  onJobUpdate(state: P, before: JobRecord, after: JobRecord): P;
  /**
   * Optional: a running job left (completed, failed or killed); `job` is its
   * final record, with `beginTime` and `endTime`. For pickers that charge
   * usage (`fairshare`). Not called for cancelled waiting jobs.
   */
  onJobEnd?(state: P, job: JobRecord): P;
  /**
   * Optional: the part of the state that the waiting jobs cannot rebuild
   * (e.g. accumulated usage), as JSON-safe data. A snapshot stores it and
   * hands it to {@link Picker.restoreMemory} when it is loaded.
   */
  saveMemory?(state: P): unknown;
  /**
   * Optional: `state` (fresh from `init` and the queue updates, before the
   * waiting jobs are pushed) with the memory {@link Picker.saveMemory} gave.
   */
  restoreMemory?(state: P, memory: unknown): P;
  /**
   * Optional, for a picker whose state is a persistent structure: a copy of
   * `state` that the current step may change in place under the edit token
   * `owner`. The core calls it at the start of a step and {@link Picker.endEdit}
   * at its end; in between every hook gets (and may change and return) the
   * copy. Nothing an earlier state holds may change.
   */
  beginEdit?(state: P, owner: object): P;
  /** Optional: the persistent state with the contents of an edited copy. */
  endEdit?(state: P): P;
  /** Starts a session: iteration begins at the picker's first candidate. */
  beginSession(state: P, ctx: SessionContext): PickerSession<P>;
  /** Number of candidates. */
  size(state: P): number;
  /** Every candidate, in the picker's order. */
  pending(state: P): Iterable<JobRecord>;
}
