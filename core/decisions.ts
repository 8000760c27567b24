// Scheduling decisions as rows (docs/seed-003-mapping.md, "Decisions"): every round's DISPATCH and
// PEND outcomes, with a reason code and a message for each PEND. Produced
// only when the configuration asks for them (`decisions: true`); a PEND row
// is written when a job's reason code changes, not every round, so the
// stream stays linear in the trace.

import type { NodeShare } from "./resource_model.ts";

/**
 * Why a waiting job did not start.
 *
 * - `insufficient_nodes`: it needs more nodes than are free.
 * - `reservation_blocked`: it fits, but would not end before the
 *   reservation (shadow time) of a job ahead of it.
 * - `behind_head`: no backfilling, and a job ahead of it is waiting.
 * - `backfill_skipped`: no node is free, so no backfill pass runs (DR_EVT).
 * - `queue_limit`: its queue runs `maxRunning` jobs already.
 * - `queue_closed`: its queue is closed.
 * - `insufficient_capacity`: a resource model (topology cluster) has fewer
 *   replica slots cluster-wide than the job has replicas.
 * - `topology_fragmented`: enough slots cluster-wide, but no single domain
 *   of the job's topology key has enough.
 * - `head_of_line_blocked`: strict FIFO, and an earlier job cannot be placed.
 * - `exceeds_capacity`: it needs more nodes than the machine has now (a
 *   capacity cut; on a resource model: it does not fit the nodes online,
 *   some being offline): it is held, and later jobs go ahead of it, until
 *   the capacity comes back; or a resource model can never place it, even
 *   on its empty machine: it is held for good (unless the admission policy
 *   is offered such jobs: `Admission.offersUnplaceable`).
 * - `external`: an external scheduler (`evtsim serve`, admission
 *   `external`) did not start it and gave no reason of its own.
 * - `power_cap`: the admission policy started it, but the machine's draw
 *   with it would exceed the power cap: it was not started, nor any later
 *   start of that round (docs/power.md). A job that would exceed the highest
 *   cap even alone on an idle machine is held instead (`exceeds_capacity`).
 *
 * @example
 * ```ts
 * import { type PendReasonCode, Simulation } from "@evtsim/evtsim";
 * const codes: PendReasonCode[] = [];
 * const sim = new Simulation({ totalNodes: 10 }, {
 *   onDecision: (d) => { if (d.type === "PEND") codes.push(d.reason.code); },
 * });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 500 },
 * ]);
 * sim.advanceTo(0);
 * // Job 1 needs 8 nodes (4 are free); job 2 fits, but would delay job 1's reservation at 100.
 * console.assert(codes.join() === "insufficient_nodes,reservation_blocked", codes.join());
 * ```
 */
export type PendReasonCode =
  | "insufficient_nodes"
  | "reservation_blocked"
  | "behind_head"
  | "backfill_skipped"
  | "queue_limit"
  | "queue_closed"
  | "insufficient_capacity"
  | "topology_fragmented"
  | "head_of_line_blocked"
  | "exceeds_capacity"
  | "external"
  | "power_cap";

// A record, so that the compiler sees a code missing from the list.
const CODES: Readonly<Record<PendReasonCode, true>> = {
  insufficient_nodes: true,
  reservation_blocked: true,
  behind_head: true,
  backfill_skipped: true,
  queue_limit: true,
  queue_closed: true,
  insufficient_capacity: true,
  topology_fragmented: true,
  head_of_line_blocked: true,
  exceeds_capacity: true,
  external: true,
  power_cap: true,
};

/**
 * Every pend reason code, for readers that check codes (the `.replay` log
 * reader, the REPL's breakpoint filters).
 *
 * @example
 * ```ts
 * import { PEND_REASON_CODES } from "./decisions.ts";
 * if (!PEND_REASON_CODES.includes("queue_closed")) throw new Error("listed");
 * ```
 */
export const PEND_REASON_CODES = Object.freeze(
  Object.keys(CODES) as [PendReasonCode, ...PendReasonCode[]],
);

/**
 * A pend reason: its code, a one-line message, and the facts behind it.
 *
 * @example
 * ```ts
 * import { type PendReason, pendReasons } from "@evtsim/evtsim";
 * const r: PendReason = pendReasons.insufficientNodes(8, 3);
 * if (r.code !== "insufficient_nodes" || r.message !== "needs 8 nodes, 3 free") throw new Error(r.message);
 * ```
 */
export interface PendReason {
  /** The reason code. */
  readonly code: PendReasonCode;
  /** One line saying why, with the numbers that decided it. */
  readonly message: string;
  /** Nodes the job needs (insufficient_nodes, reservation_blocked). */
  readonly needed?: number;
  /** Nodes free at the decision (insufficient_nodes, reservation_blocked). */
  readonly free?: number;
  /** When the job would end by its limit if started now (reservation_blocked). */
  readonly end?: number;
  /** The reservation it would run into (reservation_blocked). */
  readonly reservation?: number;
  /** The job holding that reservation, or the waiting job ahead (behind_head). */
  readonly blockedBy?: number;
  /** Nodes the machine has now (exceeds_capacity). */
  readonly capacity?: number;
  /** The queue (queue_limit, queue_closed). */
  readonly queue?: string;
  /** Replicas the job asks for (insufficient_capacity, topology_fragmented). */
  readonly requestedReplicas?: number;
  /** Replica slots free cluster-wide (insufficient_capacity). */
  readonly availableClusterWideReplicaSlots?: number;
  /** The job's topology key (topology_fragmented). */
  readonly topologyKey?: string;
  /** Replica slots free cluster-wide (topology_fragmented). */
  readonly totalAvailableReplicaSlots?: number;
  /** The first domain, by name, with the most free slots (topology_fragmented). */
  readonly largestTopologyDomain?: string;
  /** Its free slots (topology_fragmented). */
  readonly largestTopologyDomainReplicaSlots?: number;
  /** The name of the job ahead that cannot be placed (head_of_line_blocked). */
  readonly blockingJob?: string;
  /** The machine's draw with the job started (power_cap) or alone (exceeds_capacity), watts. */
  readonly draw?: number;
  /**
   * The power cap it exceeds, watts: power_cap, the lowest in effect while it
   * would run; exceeds_capacity, the best a run of its length can meet.
   */
  readonly powerCap?: number;
}

/**
 * Constructors for every pend reason, with their messages.
 *
 * @example
 * ```ts
 * import { pendReasons } from "@evtsim/evtsim";
 * const r = pendReasons.reservationBlocked(4, 6, 250, 200, 7);
 * if (r.message !== "would end at 250, not before the reservation at 200 of job 7") throw new Error(r.message);
 * ```
 */
export const pendReasons: {
  /** Needs `needed` nodes, `free` are free. */
  insufficientNodes(needed: number, free: number): PendReason;
  /** Fits, but would end at `end`, not before `reservation` held by job `blockedBy`. */
  reservationBlocked(
    needed: number,
    free: number,
    end: number,
    reservation: number,
    blockedBy: number,
  ): PendReason;
  /** No backfilling, and job `blockedBy` is ahead. */
  behindHead(blockedBy: number): PendReason;
  /** No node is free, so the backfill pass does not run. */
  backfillSkipped(blockedBy: number): PendReason;
  /** Queue `queue` runs `maxRunning` jobs already. */
  queueLimit(queue: string, maxRunning: number): PendReason;
  /** Queue `queue` is closed. */
  queueClosed(queue: string): PendReason;
  /** Needs `needed` nodes, more than the `capacity` the machine has now: held. */
  exceedsCapacity(needed: number, capacity: number): PendReason;
  /** An external scheduler (evtsim serve's `admission: "external"`) did not start it. */
  external(): PendReason;
  /**
   * Started, the machine would draw `draw` watts, over the cap of `cap`
   * watts: the one in effect now, or the lowest one in effect from `from`
   * on, before the job would end.
   */
  powerCap(draw: number, cap: number, from?: number): PendReason;
  /** Alone on an idle machine it draws `draw` watts, over the highest cap `cap` to come: held. */
  exceedsPowerCap(draw: number, cap: number): PendReason;
} = {
  /** Needs `needed` nodes, `free` are free. */
  insufficientNodes(needed: number, free: number): PendReason {
    return {
      code: "insufficient_nodes",
      message: `needs ${needed} nodes, ${free} free`,
      needed,
      free,
    };
  },
  /** Fits, but would end at `end`, not before `reservation` held by job `blockedBy`. */
  reservationBlocked(
    needed: number,
    free: number,
    end: number,
    reservation: number,
    blockedBy: number,
  ): PendReason {
    return {
      code: "reservation_blocked",
      message:
        `would end at ${end}, not before the reservation at ${reservation} of job ${blockedBy}`,
      needed,
      free,
      end,
      reservation,
      blockedBy,
    };
  },
  /** No backfilling, and job `blockedBy` is ahead. */
  behindHead(blockedBy: number): PendReason {
    return {
      code: "behind_head",
      message: `no backfilling: job ${blockedBy} is ahead`,
      blockedBy,
    };
  },
  /** No node is free, so the backfill pass does not run. */
  backfillSkipped(blockedBy: number): PendReason {
    return {
      code: "backfill_skipped",
      message: `no node is free: no backfill pass behind job ${blockedBy}`,
      free: 0,
      blockedBy,
    };
  },
  /** Queue `queue` runs `maxRunning` jobs already. */
  queueLimit(queue: string, maxRunning: number): PendReason {
    return {
      code: "queue_limit",
      message: `queue ${queue} runs its maximum of ${maxRunning} jobs`,
      queue,
    };
  },
  /** Queue `queue` is closed. */
  queueClosed(queue: string): PendReason {
    return { code: "queue_closed", message: `queue ${queue} is closed`, queue };
  },
  /** Needs `needed` nodes, more than the `capacity` the machine has now: held. */
  exceedsCapacity(needed: number, capacity: number): PendReason {
    return {
      code: "exceeds_capacity",
      message:
        `needs ${needed} nodes, the machine has ${capacity} now: held until the capacity comes back`,
      needed,
      capacity,
    };
  },
  /** An external scheduler (evtsim serve's `admission: "external"`) did not start it. */
  external(): PendReason {
    return { code: "external", message: "the external scheduler did not start it" };
  },
  /**
   * Started, the machine would draw `draw` watts, over the cap of `cap`
   * watts: the one in effect now, or the lowest one in effect from `from`
   * on, before the job would end.
   */
  powerCap(draw: number, cap: number, from?: number): PendReason {
    return {
      code: "power_cap",
      message: `the machine would draw ${draw} W, over the power cap of ${cap} W${
        from === undefined ? "" : ` in effect from ${from}, before it would end`
      }`,
      draw,
      powerCap: cap,
    };
  },
  /** Alone on an idle machine it draws `draw` watts, over the highest cap `cap` to come: held. */
  exceedsPowerCap(draw: number, cap: number): PendReason {
    return {
      code: "exceeds_capacity",
      message:
        `draws ${draw} W alone on the idle machine, over the highest power cap of ${cap} W: held`,
      draw,
      powerCap: cap,
    };
  },
};

/**
 * A job was started by a scheduling round.
 *
 * @example
 * ```ts
 * import { type DispatchDecision, Simulation } from "@evtsim/evtsim";
 * const starts: DispatchDecision[] = [];
 * const sim = new Simulation({ totalNodes: 10 }, {
 *   onDecision: (d) => { if (d.type === "DISPATCH") starts.push(d); },
 * });
 * sim.appendJobs([
 *   { submitTime: 0, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 0, numNodes: 8, timeLimit: 10 },
 *   { submitTime: 0, numNodes: 4, timeLimit: 50 },
 * ]);
 * sim.advanceTo(0);
 * // Job 2 ends (at 50) before waiting job 1's reservation (100): it is a backfill.
 * const text = starts.map((d) => `${d.jobId}:${d.numNodes}:${d.backfill}`).join();
 * console.assert(text === "0:6:false,2:4:true", text);
 * ```
 */
export interface DispatchDecision {
  /** Decision type. */
  readonly type: "DISPATCH";
  /** When the round ran. */
  readonly time: number;
  /** The round's number (1, 2, … over the run). */
  readonly round: number;
  /** The started job. */
  readonly jobId: number;
  /** Nodes allocated to it (with a `resourceModel`: the nodes its allocation spans). */
  readonly numNodes: number;
  /** Whether it started ahead of a waiting job that holds a reservation. */
  readonly backfill: boolean;
  /** Its queue, when it has one. */
  readonly queue?: string;
  /** The topology domain a resource model placed it in (with a `resourceModel` only). */
  readonly domain?: string;
  /** Its replicas per node, by node name (with a `resourceModel` only). */
  readonly allocation?: readonly NodeShare[];
  /**
   * Units of each resource one replica holds (with a `resourceModel` only):
   * a node's share of the allocation holds `replicas` × these.
   */
  readonly perReplica?: Readonly<Record<string, number>>;
}

/**
 * A waiting job's reason changed in a scheduling round.
 *
 * @example
 * ```ts
 * import { type PendDecision, Simulation } from "@evtsim/evtsim";
 * const pends: PendDecision[] = [];
 * const sim = new Simulation({ totalNodes: 10 }, {
 *   onDecision: (d) => { if (d.type === "PEND") pends.push(d); },
 * });
 * sim.appendJobs([{ submitTime: 0, numNodes: 6, timeLimit: 100 }, { submitTime: 5, numNodes: 8, timeLimit: 10 }]);
 * sim.advanceTo(5);
 * const [d] = pends;
 * console.assert(pends.length === 1 && d.jobId === 1 && d.time === 5);
 * console.assert(d.reason.message === "needs 8 nodes, 4 free", d.reason.message);
 * ```
 */
export interface PendDecision {
  /** Decision type. */
  readonly type: "PEND";
  /** When the round ran. */
  readonly time: number;
  /** The round's number. */
  readonly round: number;
  /** The waiting job. */
  readonly jobId: number;
  /** Why it did not start. */
  readonly reason: PendReason;
}

/**
 * One scheduling decision.
 *
 * @example
 * ```ts
 * import { type DecisionRow, Simulation } from "@evtsim/evtsim";
 * const seen: DecisionRow[] = [];
 * const sim = new Simulation({ totalNodes: 4 }, { onDecision: (d) => seen.push(d) });
 * sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }, { submitTime: 0, numNodes: 2, timeLimit: 5 }]);
 * sim.advanceTo(0);
 * const text = seen.map((d) => d.type === "PEND" ? `PEND ${d.jobId} ${d.reason.code}` : `DISPATCH ${d.jobId}`);
 * if (text.join("; ") !== "DISPATCH 0; PEND 1 insufficient_nodes") throw new Error(text.join("; "));
 * ```
 */
export type DecisionRow =
  | DispatchDecision
  | PendDecision
  | {
    /**
     * Running jobs were preempted so that a waiting job of a queue of higher
     * priority could start (docs/preemption.md): written right before the
     * preemptor's DISPATCH row, at the same time and round.
     */
    readonly type: "PREEMPT";
    /** When the round ran. */
    readonly time: number;
    /** The round's number. */
    readonly round: number;
    /** The preemptor: the waiting job that starts in the room the victims leave. */
    readonly jobId: number;
    /** The preempted running jobs, in the order they were chosen. */
    readonly victims: readonly number[];
    /** What happened to each victim (its own queue's `preemptMode`). */
    readonly mode: readonly ("requeue" | "cancel" | "suspend")[];
    /**
     * Only when a victim's queue has a grace time: each victim's (seconds;
     * it runs on until then, or its own end if earlier).
     */
    readonly grace?: readonly number[];
    /** With `grace`: the latest instant a victim stops (`time` + the largest grace). */
    readonly stopAt?: number;
    /** Why the preemptor could not start without the victims (the resource model's answer). */
    readonly reason: PendReason;
    /** The preemptor's queue (a `.replay` log does not repeat it: the job's own). */
    readonly queue?: string;
  };

/**
 * A waiting job's last reported pend reason code, as the state keeps it
 * (so that a PEND row is written only when the code changes).
 *
 * @example
 * ```ts
 * import { advanceTo, appendJobs, initialState, type PendCode, step } from "@evtsim/evtsim";
 * const jobs = [{ submitTime: 0, numNodes: 4, timeLimit: 9 }, { submitTime: 0, numNodes: 4, timeLimit: 9 }];
 * let s = step(initialState({ totalNodes: 4, decisions: true }), appendJobs(jobs)).state;
 * s = step(s, advanceTo(0)).state;
 * const kept: PendCode[] = s.pendCodes.toArray();
 * if (kept.length !== 1 || kept[0].id !== 1 || kept[0].code !== "insufficient_nodes") throw new Error("job 1");
 * ```
 */
export interface PendCode {
  /** The waiting job. */
  readonly id: number;
  /** Its last reported reason code. */
  readonly code: PendReasonCode;
}
