// Aggregate statistics, accumulated exactly once per job at the moment its
// end event is processed, so they do not depend on when rows are flushed.

/** Bounded-slowdown threshold τ (seconds): slowdown = max(1, turnaround / max(run, τ)). */
export const BOUNDED_SLOWDOWN_THRESHOLD = 10;

/**
 * Running sums kept in the state.
 *
 * @example
 * ```ts
 * import { appendJobs, initialState, runToCompletion, statistics, step } from "@evtsim/evtsim";
 * import type { StatisticsAccumulator } from "./statistics.ts";
 * const job = { submitTime: 0, numNodes: 10, timeLimit: 10 };
 * let s = step(initialState({ totalNodes: 10 }), appendJobs([job, job])).state;
 * s = step(s, runToCompletion()).state;
 * const acc: StatisticsAccumulator = s.stats;
 * // Raw sums (job 1 waited 10 s); `statistics` derives the averages from them.
 * if (acc.jobsCompleted !== 2 || acc.sumWait !== 10 || acc.nodeSeconds !== 200) throw new Error("sums");
 * if (statistics(s).averageWait !== acc.sumWait / acc.jobsCompleted) throw new Error("average");
 * ```
 */
export interface StatisticsAccumulator {
  /** Jobs created (loaded or appended), rejected ones included. */
  readonly jobsCreated: number;
  /** Jobs rejected at submission (larger than the machine). */
  readonly jobsRejected: number;
  /** Jobs that started (DR_EVT's "Jobs submitted"). */
  readonly jobsStarted: number;
  /** Jobs whose end event has been processed (normal completions). */
  readonly jobsCompleted: number;
  /** Jobs cancelled while waiting. */
  readonly jobsCancelled: number;
  /** Jobs ended early as failed. */
  readonly jobsFailed: number;
  /** Jobs ended early as killed. */
  readonly jobsKilled: number;
  /** Σ (begin − submit) over completed jobs. */
  readonly sumWait: number;
  /** Largest begin − submit over completed jobs. */
  readonly maxWait: number;
  /** Σ (end − submit) over completed jobs. */
  readonly sumTurnaround: number;
  /** Σ bounded slowdown over completed jobs. */
  readonly sumBoundedSlowdown: number;
  /** Σ nodes × (end − begin) over jobs that ran (failed and killed ones included). */
  readonly nodeSeconds: number;
  /** Earliest submit time among completed jobs (Infinity if none). */
  readonly firstSubmit: number;
  /** Latest end time among jobs that ran (−Infinity if none). */
  readonly lastEnd: number;
  /** Queue-length samples taken (one per scheduling pass). */
  readonly queueSamples: number;
  /** Σ of the sampled queue lengths. */
  readonly queueSampleSum: number;
  /** Largest sampled queue length. */
  readonly queueSampleMax: number;
  /**
   * Node failures only (absent in a run without them): Σ nodes × (failure −
   * begin) over the runs a failure ended (killed or requeued), node-seconds.
   */
  readonly lostWork?: number;
  /** Node failures only: requeues over all jobs. */
  readonly requeues?: number;
  /** Node failures only: the most times one job was requeued. */
  readonly maxRequeues?: number;
  /**
   * Preemptive queues only (absent otherwise): Σ nodes × (preemption −
   * begin) over the runs a preemption ended (requeued or cancelled).
   */
  readonly preemptedWork?: number;
  /** Preemptive queues only: jobs preempted (a job preempted twice counts twice). */
  readonly preemptions?: number;
  /** Preemptive queues only: the most times one job was preempted. */
  readonly maxPreemptions?: number;
  /** A queue with `preemptMode: "suspend"` only: suspensions over all jobs. */
  readonly suspensions?: number;
  /** A `suspend` queue only: seconds jobs waited suspended, over the finished suspensions. */
  readonly suspendedSeconds?: number;
}

/** Accumulator with nothing counted. */
export function emptyStatistics(): StatisticsAccumulator {
  return Object.freeze({
    jobsCreated: 0,
    jobsRejected: 0,
    jobsStarted: 0,
    jobsCompleted: 0,
    jobsCancelled: 0,
    jobsFailed: 0,
    jobsKilled: 0,
    sumWait: 0,
    maxWait: 0,
    sumTurnaround: 0,
    sumBoundedSlowdown: 0,
    nodeSeconds: 0,
    firstSubmit: Infinity,
    lastEnd: -Infinity,
    queueSamples: 0,
    queueSampleSum: 0,
    queueSampleMax: 0,
  });
}

/**
 * Statistics of a run so far, as the monitors and the CLI report them.
 *
 * @example
 * ```ts
 * import { Simulation, type Statistics } from "@evtsim/evtsim";
 * const sim = new Simulation({ totalNodes: 10 });
 * sim.appendJobs([{ submitTime: 0, numNodes: 10, timeLimit: 100 }, { submitTime: 0, numNodes: 5, timeLimit: 100 }]);
 * sim.advanceTo(50);
 * const mid: Statistics = sim.statistics();
 * if (mid.jobsRunning !== 1 || mid.jobsWaiting !== 1 || mid.jobsCompleted !== 0) throw new Error("mid");
 * const end: Statistics = sim.finish().statistics;
 * // Job 1 waited 100 s; 1500 node-seconds used of 10 nodes × 200 s.
 * if (end.averageWait !== 50 || end.makespan !== 200 || end.utilization !== 0.75) throw new Error("end");
 * ```
 */
export interface Statistics {
  /** Jobs created (loaded or appended), rejected ones included. */
  readonly totalJobs: number;
  /** Jobs rejected because they ask for more nodes than the machine has. */
  readonly jobsRejected: number;
  /** Jobs that have started (DR_EVT prints this as "Jobs submitted"). */
  readonly jobsStarted: number;
  /** Jobs that have finished normally. */
  readonly jobsCompleted: number;
  /** Jobs cancelled while waiting (left out of the averages). */
  readonly jobsCancelled: number;
  /** Jobs ended early as failed (left out of the averages). */
  readonly jobsFailed: number;
  /** Jobs ended early as killed (left out of the averages). */
  readonly jobsKilled: number;
  /** Jobs running now. */
  readonly jobsRunning: number;
  /** Submitted jobs not started yet: waiting in the queue or not yet arrived. */
  readonly jobsWaiting: number;
  /**
   * Of the waiting jobs, those held because they need more nodes than the
   * machine has now (a capacity cut, `exceeds_capacity`); at the end of a
   * run, the jobs that never started for that reason. They are not in the
   * averages. Present only when there are any.
   */
  readonly jobsHeld?: number;
  /** The simulation clock. */
  readonly currentTime: number;
  /** Nodes in the machine. */
  readonly totalNodes: number;
  /** Nodes allocated now. */
  readonly nodesInUse: number;
  /** Mean of begin − submit over completed jobs (0 when none). */
  readonly averageWait: number;
  /** Largest begin − submit over completed jobs. */
  readonly maxWait: number;
  /** Mean of end − submit over completed jobs. */
  readonly averageTurnaround: number;
  /** Mean of max(1, turnaround / max(run time, 10 s)) over completed jobs. */
  readonly averageBoundedSlowdown: number;
  /** Last end (of any job that ran) − first submit over completed jobs (0 when none). */
  readonly makespan: number;
  /** Σ nodes × run time / (total nodes × makespan); 0 when makespan is 0. */
  readonly utilization: number;
  /** Mean eligible-queue length, sampled once per scheduling pass (not time-weighted). */
  readonly averageQueueLength: number;
  /** Largest sampled eligible-queue length. */
  readonly peakQueueLength: number;
  /** Number of queue-length samples taken. */
  readonly queueSamples: number;
  /**
   * Work lost to node failures: Σ nodes × seconds run over the runs a
   * failure ended (killed or requeued). Present only in a run with node
   * failures configured.
   */
  readonly lostWork?: number;
  /** Requeues after node failures, over all jobs (present with node failures). */
  readonly requeues?: number;
  /** The most times one job was requeued (present with node failures). */
  readonly maxRequeues?: number;
  /**
   * Work lost to preemption: Σ nodes × seconds run over the runs a
   * preemption ended (requeued or cancelled). Present only with preemptive
   * queues (a queue with a `preemptMode` other than `off`).
   */
  readonly preemptedWork?: number;
  /** Preemptions over all jobs (present with preemptive queues). */
  readonly preemptions?: number;
  /** The most times one job was preempted (present with preemptive queues). */
  readonly maxPreemptions?: number;
  /**
   * Preemptions that suspended their victim (counted in `preemptions` too;
   * present with a queue whose `preemptMode` is `suspend`). A suspended
   * victim loses no work: it is not in `preemptedWork`.
   */
  readonly suspensions?: number;
  /**
   * Seconds suspended jobs waited before they resumed, summed over the
   * suspensions that ended (present with a `suspend` queue).
   */
  readonly suspendedSeconds?: number;
}

/** A statistics accumulator that one step may update in place. */
export type MutableStatistics = {
  -readonly [K in keyof StatisticsAccumulator]: StatisticsAccumulator[K];
};

/**
 * Adds one completed job to `s`, in place. Only for a step's own scratch
 * copy: the accumulator inside a state is never mutated.
 */
export function addCompletion(
  s: MutableStatistics,
  submit: number,
  begin: number,
  end: number,
  nodes: number,
): void {
  const wait = begin - submit;
  const turnaround = end - submit;
  const run = end - begin;
  s.jobsCompleted++;
  s.sumWait += wait;
  if (wait > s.maxWait) s.maxWait = wait;
  s.sumTurnaround += turnaround;
  s.sumBoundedSlowdown += Math.max(1, turnaround / Math.max(run, BOUNDED_SLOWDOWN_THRESHOLD));
  s.nodeSeconds += nodes * run;
  if (submit < s.firstSubmit) s.firstSubmit = submit;
  if (end > s.lastEnd) s.lastEnd = end;
}

/**
 * Adds a job ended early by the caller (failed or killed), in place: its
 * node-seconds count towards utilization, its wait and turnaround do not.
 */
export function addEarlyEnd(
  s: MutableStatistics,
  outcome: "failed" | "killed",
  begin: number,
  end: number,
  nodes: number,
): void {
  if (outcome === "failed") s.jobsFailed++;
  else s.jobsKilled++;
  s.nodeSeconds += nodes * (end - begin);
  if (end > s.lastEnd) s.lastEnd = end;
}

/** Derives the reported figures from the accumulator and live counts. */
export function summarize(
  s: StatisticsAccumulator,
  live: {
    currentTime: number;
    totalNodes: number;
    nodesInUse: number;
    jobsRunning: number;
    jobsWaiting: number;
    jobsHeld?: number;
  },
): Statistics {
  const n = s.jobsCompleted;
  const makespan = n > 0 ? s.lastEnd - s.firstSubmit : 0;
  return {
    totalJobs: s.jobsCreated,
    jobsRejected: s.jobsRejected,
    jobsStarted: s.jobsStarted,
    jobsCompleted: n,
    jobsCancelled: s.jobsCancelled,
    jobsFailed: s.jobsFailed,
    jobsKilled: s.jobsKilled,
    jobsRunning: live.jobsRunning,
    jobsWaiting: live.jobsWaiting,
    ...(live.jobsHeld ? { jobsHeld: live.jobsHeld } : {}),
    currentTime: live.currentTime,
    totalNodes: live.totalNodes,
    nodesInUse: live.nodesInUse,
    averageWait: n > 0 ? s.sumWait / n : 0,
    maxWait: s.maxWait,
    averageTurnaround: n > 0 ? s.sumTurnaround / n : 0,
    averageBoundedSlowdown: n > 0 ? s.sumBoundedSlowdown / n : 0,
    makespan,
    utilization: makespan > 0 ? s.nodeSeconds / (live.totalNodes * makespan) : 0,
    averageQueueLength: s.queueSamples > 0 ? s.queueSampleSum / s.queueSamples : 0,
    peakQueueLength: s.queueSampleMax,
    queueSamples: s.queueSamples,
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
