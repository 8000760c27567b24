// The admission (backfill) contract: given the candidates a picker offers,
// in its order, decide which start now. The core runs the session: it hands
// out candidates (pending those of queues that may not start), starts a
// dispatched job at once (so `free` and `running` are always current), and
// records the decisions. An admission policy only decides.

import type { PendReason, PendReasonCode } from "./decisions.ts";
import type { CandidateSearch } from "./picker.ts";
import type { QueueState } from "./queues.ts";
import type { Placement, PlaceResult, ResourceModel } from "./resource_model.ts";
import type { RunningSet } from "./running.ts";
import type { JobRecord } from "./types.ts";

/**
 * What an admission policy sees during one scheduling session.
 *
 * @example
 * ```ts
 * import { type AdmissionSession, Simulation } from "@evtsim/evtsim";
 * // Start candidates in order while they fit; the first that does not fit blocks the rest.
 * function strictOrder(s: AdmissionSession): void {
 *   for (let job = s.next(); job !== undefined; job = s.next()) {
 *     if (job.numNodes > s.free) return s.pend(job, { code: "insufficient_nodes", message: "no room" });
 *     s.dispatch(job, false);
 *   }
 * }
 * const sim = new Simulation({ totalNodes: 10, admission: { name: "strict_order", runSession: strictOrder } });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 2, timeLimit: 10 },
 * ]);
 * sim.advanceTo(0);
 * // Job 1 does not fit, so job 2 waits behind it although 4 nodes are free.
 * console.assert(sim.availableNodes === 4 && sim.activeJobCount === 2);
 * console.assert(sim.pendingReason(1)?.message === "no room");
 * ```
 */
export interface AdmissionSession {
  /** The simulation clock. */
  readonly now: number;
  /** Nodes free now (after the jobs dispatched so far in this session). */
  readonly free: number;
  /** Running jobs by projected end (including those dispatched in this session). */
  readonly running: RunningSet;
  /**
   * The picker's `stableOrder`, while no queues are configured and no
   * capacity cut holds jobs back: a session right after one that started
   * jobs, at the same clock (nothing happens between them), is offered the
   * same candidates in the same order, less those started.
   */
  readonly stableOrder?: boolean;
  /**
   * A count that changes whenever a waiting job may have left the candidates
   * other than by starting, or changed (a live event was applied: a cancel,
   * an update, ...). The same count in two sessions of a picker of stable
   * order means every candidate the first left waiting is still one, in the
   * same order (new ones may have come).
   */
  readonly waitingChanges?: number;
  /**
   * Optional: passes over the next `n` candidates without a verdict when
   * `to` (a record the picker offered) comes right after them and the picker
   * can tell; `to` is then the candidate just offered (as if `next` had
   * returned it) and the answer is true. Otherwise nothing changes (false).
   * Only for a policy that knows what it passes over (see `waitingChanges`).
   */
  skip?(n: number, to: JobRecord): boolean;
  /**
   * Whether decisions are recorded: when false, `pend` writes no row, so a
   * policy that passes over candidates need not know the reason each would get.
   */
  readonly recordsDecisions?: boolean;
  /** The picker's `backfillEndsByShadow` (DR_EVT's SJF/LJF boundary). */
  readonly endsByShadow: boolean;
  /** The next candidate of a ready queue in the picker's order, or undefined. */
  next(): JobRecord | undefined;
  /**
   * Whether `job` can start now, and where: the configuration's resource
   * model answers (a placement, or the reason it cannot be placed); without
   * one, the node-count pool does (it fits when `numNodes <= free`, else
   * `insufficient_nodes`). `dispatch` starts a job only where this places it.
   */
  place(job: JobRecord): PlaceResult;
  /**
   * The configuration's resource model, its state now and the jobs' records,
   * present only when there is one: what a policy needs to plan ahead (EASY's
   * shadow time: release running jobs on a `beginEdit` copy until the head
   * can be placed; conservative reservations over future states).
   */
  readonly resources?: SessionResources;
  /**
   * The picker's indexed search, present only when the picker has one and
   * decisions are not `true` (a verdict for every waiting job): then a policy
   * may skip candidates without pending each one.
   */
  readonly search?: CandidateSearch;
  /**
   * Starts `job` now (it must fit the free nodes). `backfill` says it starts
   * ahead of a waiting job that holds a reservation. With a resource model,
   * `placement` names where (one the policy reserved; the model's `fits`
   * must accept it now); without it, the job goes where `place` puts it.
   */
  dispatch(job: JobRecord, backfill: boolean, placement?: Placement): void;
  /**
   * Records that `job` stays waiting, and why. The reason may be given as a
   * function: it is then built only when decisions are recorded — and, when
   * `code` says what its code will be, only when that is not the code last
   * reported for the job (a PEND row is written only when the code changes).
   */
  pend(
    job: JobRecord,
    reason: PendReason | (() => PendReason),
    code?: PendReasonCode,
  ): void;
  /**
   * The policy's own state as the last session left it (`remember`), or
   * `init()`'s value before the first session; undefined for a policy
   * without `init`. It is part of the immutable simulation state, so it must
   * never be changed: build a new value and `remember` it. (Optional only so
   * that sessions written by hand, e.g. in a benchmark, need not have it; the
   * core's sessions always do.)
   */
  readonly memory?: unknown;
  /** Keeps `value` as the policy's state for the next session (never change it afterwards). */
  remember?(value: unknown): void;
  /**
   * Optional (the core's sessions have it): ends the picker's pass and starts
   * a new one from the first candidate still waiting, as the core's next
   * session would. Candidates passed over without a verdict are offered
   * again. For a policy that must see every candidate before it decides (an
   * external scheduler is asked with the whole list), then starts them in
   * an order of its own.
   */
  restart?(): void;
  /**
   * Optional (the core's sessions have it): the queue table now, every
   * defined queue in definition order with its jobs running (empty without
   * configured queues).
   */
  queueStates?(): readonly QueueState[];
}

/**
 * What an admission session shows of a resource model (`AdmissionSession.resources`).
 *
 * @example
 * ```ts
 * import { type Admission, type SessionResources, Simulation, topologyCluster } from "@evtsim/evtsim";
 * // Starts every candidate the machine can place now; notes the model each session shows.
 * const models: string[] = [];
 * const placeAll: Admission = {
 *   name: "place_all",
 *   runSession(s) {
 *     const r: SessionResources | undefined = s.resources;
 *     models.push(r?.model.name ?? "whole nodes");
 *     for (let job = s.next(); job !== undefined; job = s.next()) {
 *       const at = s.place(job);
 *       if (at.placement !== undefined) s.dispatch(job, false, at.placement);
 *       else s.pend(job, at.reason);
 *     }
 *   },
 * };
 * const resourceModel = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }]);
 * const cpu = (n: number) => ({ submitTime: 0, numNodes: 0, timeLimit: 10, demand: { replicas: 1, perReplica: { cpu: n } } });
 * const sim = new Simulation({ totalNodes: 1, resourceModel, admission: placeAll });
 * sim.appendJobs([cpu(6), cpu(4), cpu(2)]);
 * sim.advanceTo(0);
 * // 6 of the 8 cpu are held: job 1 waits, job 2 starts.
 * console.assert(models[0] === "topology" && sim.activeJobCount === 1 && sim.pendingReason(1) !== undefined);
 * // Without a resource model a session has no `resources`.
 * const plain = new Simulation({ totalNodes: 1, admission: placeAll });
 * plain.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 10 });
 * plain.advanceTo(0);
 * console.assert(models.at(-1) === "whole nodes");
 * ```
 */
export interface SessionResources {
  /** The configuration's resource model. */
  readonly model: ResourceModel;
  /**
   * The model's state now (after the jobs dispatched so far in this
   * session). Never change it, and do not keep it: a dispatch may change it
   * in place. Plan on copies (`model.beginEdit`).
   */
  readonly state: unknown;
  /**
   * The record of a job (what the model's `release`, `allocate` and `place`
   * are given for it when planning ahead): always there for a running or
   * waiting job; undefined once a finished job's record left the job store.
   */
  job(id: number): JobRecord | undefined;
}

/**
 * An admission (backfilling) policy: `none`, `easy`, `conservative`, or your own.
 *
 * @example
 * ```ts
 * import { type Admission, Simulation } from "@evtsim/evtsim";
 * // First fit: start every candidate that fits, in the picker's order (no reservations).
 * const firstFit: Admission = {
 *   name: "first_fit",
 *   runSession(s) {
 *     for (let job = s.next(); job !== undefined; job = s.next()) {
 *       if (job.numNodes <= s.free) s.dispatch(job, false);
 *       else s.pend(job, { code: "insufficient_nodes", message: `needs ${job.numNodes}, ${s.free} free` });
 *     }
 *   },
 * };
 * const sim = new Simulation({ totalNodes: 4, admission: firstFit });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 3, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 2, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 1, timeLimit: 100 },
 * ]);
 * // Job 2 starts at once although it outlasts job 1's wait: first fit makes no reservation.
 * if (sim.finish().jobs.map((r) => r.beginTime).join() !== "0,10,0") throw new Error("first fit");
 * ```
 */
export interface Admission {
  /** The name it is registered under. */
  readonly name: string;
  /**
   * Whether the policy searches candidates by time limit (EASY does): pickers
   * then keep the index that makes `CandidateSearch.nextFitting` prune by limit.
   * Such a policy, if it keeps no memory (`init`), also keeps its indexed
   * search under a power cap when no decisions are recorded (the others walk
   * there): `nextFitting` then never returns a job held for power, but
   * `minNodesBefore` and `maxNodesBefore` still count such jobs among those
   * ahead; and once the cap refused a start, `next` and `nextFitting` offer no
   * more candidates in that session.
   */
  readonly searchesByLimit?: boolean;
  /**
   * The policy's initial state, for a policy that keeps one between sessions
   * (`conservative_profile` keeps every waiting job's reservation). It is not
   * stored in snapshots: a state restored from one starts from `init()` again.
   */
  init?(): unknown;
  /**
   * When the policy wants a session although nothing arrives or ends, from
   * the memory its last session left (`conservative_profile`: the earliest
   * reservation still to come, so that a job starts at its reservation even
   * when no event falls there). Infinity for none; a time at or before the
   * clock is ignored, and so is every time while no job waits.
   */
  wakeTime?(memory: unknown): number;
  /**
   * One session per scheduling round: the policy looks at every candidate in
   * one pass (TopoQueue's admission cycle), so the core does not start
   * another session after one that started a job.
   */
  readonly singleSession?: boolean;
  /**
   * Whether the policy is offered the jobs the resource model can never
   * place, even on its empty machine (TopoQueue's admission: its strict FIFO
   * blocks behind such a job and reports why). Without it such a job is held
   * before the policy sees it (pend reason `exceeds_capacity`), as one larger
   * than a cut machine is, and the jobs behind it go on.
   */
  readonly offersUnplaceable?: boolean;
  /**
   * What the policy promises about the jobs it leaves waiting, which testing
   * kits (`fuzzScheduler`, `deno task fuzz`, `checkWorkConservation`) check
   * for every registered policy: `head`, after every session the first
   * candidate in the picker's order does not fit (it would have started);
   * `easy` and `conservative`, DR_EVT's EASY and CONSERVATIVE rules (`head`,
   * nothing the rule would start is left waiting, and the head never delayed
   * past its reservation). Absent: no such promise (textbook conservative
   * backfilling may keep a job that fits waiting for a reservation of a job
   * behind it); capacity, rows, the clock, streaming and purity are still
   * checked.
   */
  readonly promise?: AdmissionPromise;
  /** Decides one session: calls `next`, `dispatch` and `pend` on `s`. */
  runSession(s: AdmissionSession): void;
  /**
   * Optional, with preemptive queues (docs/preemption.md): the order in which
   * the core considers running jobs as victims for `job`, a waiting job that
   * cannot start for lack of resources. `candidates` are the running jobs of
   * queues of lower priority whose `preemptMode` is not `off`, youngest
   * first (latest begin, then highest id: the default order). Return them
   * (or some of them) in the order to try: the core takes them in that order
   * until `job` can start, then gives back each taken victim (the most nodes
   * first) that `job` can start without.
   */
  orderVictims?(job: JobRecord, candidates: readonly JobRecord[]): readonly JobRecord[];
}

/**
 * What an admission policy promises (see {@link Admission.promise}).
 *
 * @example
 * ```ts
 * import { type AdmissionPromise, defaultRegistry } from "@evtsim/evtsim";
 * const p: AdmissionPromise | undefined = defaultRegistry().admissions.get("easy")?.promise;
 * console.assert(p === "easy", p);
 * ```
 */
export type AdmissionPromise = "head" | "easy" | "conservative";
