// Aggregate statistics, accumulated exactly once per job at the moment its
// end event is processed, so they do not depend on when rows are flushed.

/** Bounded-slowdown threshold τ (seconds): slowdown = max(1, turnaround / max(run, τ)). */
export const BOUNDED_SLOWDOWN_THRESHOLD = 10;

/** Running sums kept in the state. */
export interface StatisticsAccumulator {
  /** Jobs created (loaded or appended), rejected ones included. */
  readonly jobsCreated: number;
  readonly jobsRejected: number;
  /** Jobs that started (DR_EVT's "Jobs submitted"). */
  readonly jobsStarted: number;
  readonly jobsCompleted: number;
  readonly sumWait: number;
  readonly maxWait: number;
  readonly sumTurnaround: number;
  readonly sumBoundedSlowdown: number;
  /** Σ nodes × (end − begin) over completed jobs. */
  readonly nodeSeconds: number;
  /** Earliest submit time among completed jobs (Infinity if none). */
  readonly firstSubmit: number;
  /** Latest end time among completed jobs (−Infinity if none). */
  readonly lastEnd: number;
  readonly queueSamples: number;
  readonly queueSampleSum: number;
  readonly queueSampleMax: number;
}

/** Accumulator with nothing counted. */
export function emptyStatistics(): StatisticsAccumulator {
  return Object.freeze({
    jobsCreated: 0,
    jobsRejected: 0,
    jobsStarted: 0,
    jobsCompleted: 0,
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

/** Statistics of a run so far, as the monitors and the CLI report them. */
export interface Statistics {
  /** Jobs created (loaded or appended), rejected ones included. */
  readonly totalJobs: number;
  /** Jobs rejected because they ask for more nodes than the machine has. */
  readonly jobsRejected: number;
  /** Jobs that have started (DR_EVT prints this as "Jobs submitted"). */
  readonly jobsStarted: number;
  readonly jobsCompleted: number;
  readonly jobsRunning: number;
  readonly jobsWaiting: number;
  readonly currentTime: number;
  readonly totalNodes: number;
  readonly nodesInUse: number;
  /** Mean of begin − submit over completed jobs (0 when none). */
  readonly averageWait: number;
  readonly maxWait: number;
  /** Mean of end − submit over completed jobs. */
  readonly averageTurnaround: number;
  /** Mean of max(1, turnaround / max(run time, 10 s)) over completed jobs. */
  readonly averageBoundedSlowdown: number;
  /** Last end − first submit over completed jobs (0 when none). */
  readonly makespan: number;
  /** Σ nodes × run time / (total nodes × makespan); 0 when makespan is 0. */
  readonly utilization: number;
  /** Mean eligible-queue length, sampled once per scheduling pass (not time-weighted). */
  readonly averageQueueLength: number;
  readonly peakQueueLength: number;
  readonly queueSamples: number;
}

/** Adds one completed job to the accumulator. */
export function recordCompletion(
  s: StatisticsAccumulator,
  submit: number,
  begin: number,
  end: number,
  nodes: number,
): StatisticsAccumulator {
  const wait = begin - submit;
  const turnaround = end - submit;
  const run = end - begin;
  return {
    ...s,
    jobsCompleted: s.jobsCompleted + 1,
    sumWait: s.sumWait + wait,
    maxWait: wait > s.maxWait ? wait : s.maxWait,
    sumTurnaround: s.sumTurnaround + turnaround,
    sumBoundedSlowdown: s.sumBoundedSlowdown +
      Math.max(1, turnaround / Math.max(run, BOUNDED_SLOWDOWN_THRESHOLD)),
    nodeSeconds: s.nodeSeconds + nodes * run,
    firstSubmit: submit < s.firstSubmit ? submit : s.firstSubmit,
    lastEnd: end > s.lastEnd ? end : s.lastEnd,
  };
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
  },
): Statistics {
  const n = s.jobsCompleted;
  const makespan = n > 0 ? s.lastEnd - s.firstSubmit : 0;
  return {
    totalJobs: s.jobsCreated,
    jobsRejected: s.jobsRejected,
    jobsStarted: s.jobsStarted,
    jobsCompleted: n,
    jobsRunning: live.jobsRunning,
    jobsWaiting: live.jobsWaiting,
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
  };
}
