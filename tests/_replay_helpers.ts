// Shared helpers of tests/recording/replay_test.ts: drive the reducer, simulate, replay
// with a scheduler that must never be called, and convert job rows back to
// recorded jobs.

import { initialState } from "../api/initial_state.ts";
import type { SimState } from "../core/state.ts";
import { type Input, step } from "../core/step.ts";
import { statistics } from "../core/queries.ts";
import type { Statistics } from "../core/statistics.ts";
import type {
  JobRow,
  JobSpec,
  Notice,
  RecordedJob,
  ResourceRow,
  SimulationConfig,
  SubmissionRow,
} from "../core/types.ts";
import type { Admission, Picker } from "../mod.ts";

/** Everything a run emitted, and its last state. */
export interface Run {
  readonly state: SimState;
  readonly jobs: JobRow[];
  readonly resources: ResourceRow[];
  readonly notices: Notice[];
  readonly submissions: SubmissionRow[];
}

/** Applies inputs in order and collects their rows. */
export function drive(state: SimState, inputs: readonly Input[]): Run {
  const run = {
    state,
    jobs: [] as JobRow[],
    resources: [] as ResourceRow[],
    notices: [] as Notice[],
  };
  const submissions: SubmissionRow[] = [];
  for (const input of inputs) {
    const r = step(run.state, input);
    run.state = r.state;
    run.jobs.push(...r.rows.jobs);
    run.resources.push(...r.rows.resources);
    run.notices.push(...r.rows.notices);
    submissions.push(...(r.rows.submissions ?? []));
  }
  return { ...run, submissions };
}

/** Simulates `jobs` to completion. */
export function simulate(config: SimulationConfig, jobs: readonly JobSpec[]): Run {
  return drive(initialState(config), [
    { kind: "appendJobs", jobs },
    { kind: "runToCompletion" },
    { kind: "finish" },
  ]);
}

/** A picker and an admission policy that count every call and fail the test on any of them. */
export function forbiddenScheduler(): { picker: Picker; admission: Admission; calls: number } {
  const s = {
    calls: 0,
    fail(what: string): never {
      s.calls++;
      throw new Error(`replay called the scheduler (${what})`);
    },
    picker: undefined as unknown as Picker,
    admission: undefined as unknown as Admission,
  };
  s.picker = {
    name: "forbidden",
    init: () => s.fail("init"),
    onQueueUpdate: () => s.fail("onQueueUpdate"),
    onJobPush: () => s.fail("onJobPush"),
    onJobStateChange: () => s.fail("onJobStateChange"),
    onJobUpdate: () => s.fail("onJobUpdate"),
    beginSession: () => s.fail("beginSession"),
    size: () => s.fail("size"),
    pending: () => s.fail("pending"),
  };
  s.admission = { name: "forbidden", runSession: () => s.fail("runSession") };
  return s;
}

/** Replays `jobs` in chunks of the given sizes (the rest in one), then `tail` and finish. */
export function replay(
  config: SimulationConfig,
  jobs: readonly RecordedJob[],
  chunks: readonly number[] = [jobs.length],
  tail: readonly Input[] = [{ kind: "runToCompletion" }],
): Run & { schedulerCalls: number } {
  const scheduler = forbiddenScheduler();
  const state = {
    ...initialState(config, { replay: true }),
    picker: scheduler.picker,
    admission: scheduler.admission,
  } as SimState;
  const inputs: Input[] = [];
  let i = 0;
  for (const n of chunks) {
    inputs.push({ kind: "replayJobs", jobs: jobs.slice(i, i + n) });
    i += n;
  }
  if (i < jobs.length) inputs.push({ kind: "replayJobs", jobs: jobs.slice(i) });
  const run = drive(state, [...inputs, ...tail, { kind: "finish" }]);
  return { ...run, schedulerCalls: scheduler.calls };
}

/** Job rows as replay input (what the schedule CSV carries). */
export function recorded(rows: readonly JobRow[]): RecordedJob[] {
  return rows.map((r) => ({
    submitTime: r.submitTime,
    beginTime: r.beginTime,
    endTime: r.endTime,
    numNodes: r.numNodes,
    timeLimit: r.timeLimit,
    ...(r.queue === undefined ? {} : { queue: r.queue }),
  }));
}

// statistics() of a replay state never asks the policies.
export function statsOf(run: Run, _config: SimulationConfig): Statistics {
  return statistics(run.state);
}

/** A resource row. */
export const row = (time: number, freeNodes: number, allocatedNodes: number): ResourceRow => ({
  time,
  freeNodes,
  allocatedNodes,
});

/** A recorded job. */
export const rec = (
  submitTime: number,
  beginTime: number,
  endTime: number,
  numNodes: number,
  timeLimit = 1000,
) => ({
  submitTime,
  beginTime,
  endTime,
  numNodes,
  timeLimit,
});
