/**
 * Test helpers for evtsim and for code built on it: fast-check arbitraries
 * for jobs, traces, configurations and streaming plans; runners that collect
 * every row a run emits; and invariant checkers that return readable
 * violations (an empty list means the invariant holds).
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbScenario, checkCapacity, checkScheduleRows, runBatch, withIds } from "@evtsim/evtsim/testing";
 * fc.assert(
 *   fc.property(arbScenario({ maxJobs: 20, allowOversized: true }), ({ config, trace }) => {
 *     const out = runBatch(config, trace);
 *     return checkCapacity(out.resourceRows, config.totalNodes).length === 0 &&
 *       checkScheduleRows(out.jobRows, withIds(trace), config).length === 0;
 *   }),
 *   { seed: 42, numRuns: 50 },
 * );
 * ```
 *
 * @module
 */

export {
  type ActualRunTimeKind,
  arbAnyScenario,
  arbConfig,
  type Arbitrary,
  arbJobSpec,
  arbScenario,
  arbTrace,
  type ConfigOptions,
  DEFAULT_BACKFILLS,
  DEFAULT_PRIORITIES,
  type JobSpecOptions,
  type Scenario,
  type TraceOptions,
} from "./arbitraries.ts";
export {
  arbStreamingSchedule,
  batchInputs,
  type StreamingAction,
  streamingInputs,
  type StreamingScheduleOptions,
} from "./streaming.ts";
export { runBatch, runInputs, type RunOutput } from "./run.ts";
export {
  checkCapacity,
  checkClockMonotone,
  checkFcfsOrder,
  checkScheduleRows,
  type TracedJob,
  withIds,
} from "./invariants.ts";
export {
  checkConservativeReservations,
  checkEasyHeadReservation,
  type HeadOrderOptions,
} from "./reservations.ts";
export {
  checkWorkConservation,
  type WorkConservationGuarantee,
  type WorkConservationOptions,
} from "./work_conservation.ts";
export {
  type FuzzInvariant,
  fuzzScheduler,
  type FuzzSchedulerCase,
  type FuzzSchedulerFailed,
  type FuzzSchedulerOptions,
  type FuzzSchedulerPassed,
  type FuzzSchedulerResult,
  type SchedulerUnderTest,
} from "./fuzz_scheduler.ts";
export { snapshotState } from "./snapshot.ts";
export { stepTwice } from "./purity.ts";
