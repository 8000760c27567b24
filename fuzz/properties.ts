// The library's properties as a list, so that `deno task fuzz` can run each
// one many times with a random seed and tests/library/fuzz_test.ts can run the same
// list a few times with a fixed one. Every property draws a FuzzCase (a
// configuration, a trace and, for live feeding, a plan), which is what the
// counterexample writer turns into files.

import fc from "fast-check";
import { deepStrictEqual } from "node:assert";
import { initialState } from "../api/initial_state.ts";
import type { SimState } from "../core/state.ts";
import { type Input, step, type StepResult } from "../core/step.ts";
import type {
  CapacityChange,
  JobSpec,
  Notice,
  PriorityPolicy,
  SimulationConfig,
} from "../core/types.ts";
import {
  arbAnyScenario,
  arbScenario,
  arbStreamingSchedule,
  arbTrace,
  checkCapacity,
  checkClockMonotone,
  checkConservativeReservations,
  checkEasyHeadReservation,
  checkFcfsOrder,
  checkScheduleRows,
  checkWorkConservation,
  runBatch,
  runInputs,
  type RunOutput,
  type Scenario,
  stepTwice,
  type StreamingAction,
  streamingInputs,
  withIds,
} from "../testing/mod.ts";
import { referenceModels, referenceSimulate } from "../tests/_reference_sim.ts";
import {
  checkBatchEnd,
  checkCapacityChangeRows,
  checkCapacityRows,
  checkStartsWithinCapacity,
} from "./capacity_checks.ts";

/** One drawn input of a property. */
export interface FuzzCase {
  readonly config: SimulationConfig;
  /** Sorted by submit time; job ids are the indexes. */
  readonly trace: readonly JobSpec[];
  /** For properties that feed the trace live: the streaming plan. */
  readonly plan?: readonly StreamingAction[];
  /** A free number some properties use to pick among variants. */
  readonly pick?: number;
}

/** A named property over drawn cases. */
export interface FuzzProperty {
  /** Short name, used by `--only` and in file names. */
  readonly name: string;
  /** One line: what must hold. */
  readonly description: string;
  readonly arbitrary: fc.Arbitrary<FuzzCase>;
  /** Throws an Error saying what went wrong when the property fails. */
  readonly check: (c: FuzzCase) => void;
}

/** Throws unless the violation list is empty. */
function none(violations: readonly string[], what: string): void {
  if (violations.length > 0) throw new Error(`${what}:\n  ${violations.join("\n  ")}`);
}

function equal<T>(actual: T, expected: T, what: string): void {
  try {
    deepStrictEqual(actual, expected);
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
}

const PRIORITIES: PriorityPolicy[] = ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"];
const anyScenario: fc.Arbitrary<Scenario> = arbAnyScenario();

const withPlan = (arb: fc.Arbitrary<Scenario>): fc.Arbitrary<FuzzCase> =>
  arb.chain((s) => arbStreamingSchedule(s.trace).map((plan) => ({ ...s, plan })));

const streamed = withPlan(anyScenario);

// The reservation guarantees are promises about limits: jobs end no later
// than their limits, and limits are positive (see testing/reservations.ts).
const reservationOptions = {
  zeroLimits: false,
  priorities: PRIORITIES,
  backfills: ["easy", "conservative"],
} as const;
const conservativeOptions = {
  zeroLimits: false,
  actual: "equalsLimit",
  maxJobs: 20,
  priorities: ["fcfs", "fcfs_alt", "fcfs_conservative"],
  backfills: ["conservative"],
} as const;

const plain = (c: SimulationConfig): SimulationConfig => ({
  ...c,
  jobStoreCapacity: 0,
  jobFlushInterval: 0,
  resourceHistoryCapacity: 0,
});

/** Statistics apart from the clock, which a plan may move past the last event. */
function statsBesidesClock(out: RunOutput): Record<string, unknown> {
  const { currentTime: _clock, ...rest } = out.statistics;
  return rest;
}

function sameRows(a: RunOutput, b: RunOutput, what: string): void {
  equal(a.jobRows, b.jobRows, `${what}: job rows`);
  equal(a.resourceRows, b.resourceRows, `${what}: resource rows`);
  equal(a.notices, b.notices, `${what}: notices`);
}

function withoutStrandedTime(n: Notice): unknown {
  if (n.kind !== "stranded") return n;
  const { time: _clock, ...rest } = n;
  return rest;
}

/** A capacity schedule for a machine of `total` nodes, ending at full capacity or not. */
function arbCapacitySchedule(total: number): fc.Arbitrary<CapacityChange[]> {
  // Deep cuts early on, while the first jobs still run, are what strands
  // allocation above the capacity.
  const change = fc.record({
    time: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 400 })),
    capacity: fc.oneof(
      fc.integer({ min: 0, max: Math.floor(total / 2) }),
      fc.integer({ min: 0, max: total }),
      fc.constant(total),
    ),
  });
  return fc.tuple(fc.array(change, { maxLength: 5 }), fc.boolean()).map(([cs, restore]) => {
    const sorted = [...cs].sort((a, b) => a.time - b.time);
    const last = sorted.length > 0 ? sorted[sorted.length - 1].time : 0;
    return restore ? [...sorted, { time: last + 50, capacity: total }] : sorted;
  });
}

const capacityCase: fc.Arbitrary<FuzzCase> = fc.integer({ min: 1, max: 16 }).chain((total) =>
  fc.record({
    config: fc.record({
      totalNodes: fc.constant(total),
      priorityPolicy: fc.constantFrom(...PRIORITIES),
      backfillPolicy: fc.constantFrom("none", "easy", "conservative" as const),
      capacitySchedule: arbCapacitySchedule(total),
      // DR_EVT's rules (a too-large job waits at the head, free goes
      // negative); evtsim's own are in tests/machine/capacity_changes_test.ts.
      capacitySemantics: fc.constant("drevt" as const),
    }) as fc.Arbitrary<SimulationConfig>,
    trace: arbTrace({ totalNodes: total, allowOversized: true, maxJobs: 25, maxGap: 20 }),
  })
).chain((c) => arbStreamingSchedule(c.trace).map((plan) => ({ ...c, plan })));

// Pickers named explicitly: `sjf`/`ljf` then run the admission policy asked
// for (DR_EVT's priority policies turn their conservative into EASY).
const explicitPicker: fc.Arbitrary<FuzzCase> = anyScenario.chain((s) =>
  fc.constantFrom("builtin_fcfs", "sjf", "ljf").map((picker) => ({
    ...s,
    config: { ...s.config, picker },
  }))
);

// ---- purity ----------------------------------------------------------------

/** Inputs that break a contract at `state`; each must be refused without a trace. */
function badInput(state: SimState, k: number): Input {
  const t = state.time;
  const bad: Input[] = [
    { kind: "advanceTo", time: t - 1 },
    { kind: "runUntilExclusive", time: Number.NaN },
    { kind: "appendJobs", jobs: [{ submitTime: t - 1, numNodes: 1, timeLimit: 1 }] },
    {
      kind: "appendJobs",
      jobs: [
        { submitTime: t + 2, numNodes: 1, timeLimit: 1 },
        { submitTime: t + 1, numNodes: 1, timeLimit: 1 },
      ],
    },
    { kind: "appendJobs", jobs: [{ submitTime: t, numNodes: -1, timeLimit: 1 }] },
    { kind: "submitJob", id: state.nextJobId + 5, submitTime: t },
  ];
  return bad[k % bad.length];
}

function checkPurity({ config, trace, plan, pick = 0 }: FuzzCase): void {
  let state = initialState(config);
  const states: SimState[] = [state];
  const results: StepResult[] = [];
  streamingInputs(trace, plan ?? []).forEach((input, i) => {
    if ((pick + i) % 3 === 0) {
      const bad = badInput(state, pick + i);
      if (!(stepTwice(state, bad) instanceof Error)) {
        throw new Error(`${JSON.stringify(bad)} must be refused at time ${state.time}`);
      }
    }
    const r = stepTwice(state, input);
    if (r instanceof Error) throw new Error(`${input.kind} refused: ${r.message}`);
    results.push(r);
    state = r.state;
    states.push(state);
  });
  // An old state stays usable: stepping it again repeats the run.
  streamingInputs(trace, plan ?? []).forEach((input, i) => {
    const again = step(states[i], input);
    equal(again.rows, results[i].rows, `re-stepping kept state ${i} (${input.kind})`);
  });
}

// ---- the list ----------------------------------------------------------------

/** Every property `deno task fuzz` runs, in order. */
export const PROPERTIES: readonly FuzzProperty[] = [
  {
    name: "capacity",
    description: "allocated nodes stay within 0..total and free + allocated = total",
    arbitrary: anyScenario,
    check: ({ config, trace }) =>
      none(checkCapacity(runBatch(config, trace).resourceRows, config.totalNodes), "capacity"),
  },
  {
    name: "clock-monotone",
    description: "the clock never decreases, along resource rows and across streaming steps",
    arbitrary: streamed,
    check: ({ config, trace, plan }) => {
      const out = runInputs(config, streamingInputs(trace, plan ?? []));
      none(checkClockMonotone(out.resourceRows), "resource row times");
      none(checkClockMonotone(out.clocks), "clock after each step");
    },
  },
  {
    name: "schedule-rows",
    description: "every accepted job is written once with end = begin + run time; oversized " +
      "jobs are rejected and never start",
    arbitrary: anyScenario,
    check: ({ config, trace }) => {
      const out = runBatch(config, trace);
      none(checkScheduleRows(out.jobRows, withIds(trace), config), "schedule rows");
      const oversized = trace.flatMap((j, id) => (j.numNodes > config.totalNodes ? [id] : []));
      const rejected = out.notices.flatMap((n) => n.kind === "rejected" ? [n.jobId] : []);
      equal(rejected, oversized, "rejection notices");
      equal(out.statistics.jobsRejected, oversized.length, "jobsRejected");
      equal(out.statistics.jobsStarted, trace.length - oversized.length, "jobsStarted");
    },
  },
  {
    name: "fcfs-order",
    description: "without backfilling, jobs start in submit order",
    arbitrary: arbScenario({ backfills: ["none"], priorities: PRIORITIES }),
    check: ({ config, trace }) => {
      const sjf = config.priorityPolicy === "sjf" || config.priorityPolicy === "ljf";
      const rows = runBatch(config, trace).jobRows;
      none(checkFcfsOrder(rows, { ties: sjf ? "any" : "id" }), "FCFS order");
    },
  },
  {
    name: "easy-head-reservation",
    description: "no backfilled job delays the head past its reservation at the moment of backfill",
    arbitrary: fc.oneof(
      arbScenario(reservationOptions),
      arbScenario({ ...reservationOptions, maxGap: 6 }),
    ),
    check: ({ config, trace }) => {
      const rows = runBatch(config, trace).jobRows;
      none(checkEasyHeadReservation(rows, withIds(trace), config), "head reservation");
    },
  },
  {
    name: "conservative-reservations",
    description: "CONSERVATIVE, actual = limit: no job starts later than its earliest reservation",
    arbitrary: fc.oneof(
      arbScenario(conservativeOptions),
      arbScenario({ ...conservativeOptions, maxGap: 6 }),
    ),
    check: ({ config, trace }) => {
      const rows = runBatch(config, trace).jobRows;
      none(checkConservativeReservations(rows, withIds(trace), config), "reservations");
    },
  },
  {
    name: "work-conservation",
    description: "after every scheduling round the head does not fit the free nodes, and " +
      "nothing the EASY or CONSERVATIVE rule would start is left waiting",
    arbitrary: fc.oneof(
      anyScenario,
      explicitPicker,
      capacityCase.map(({ plan: _plan, ...c }) => c),
    ),
    check: ({ config, trace }) => {
      const rows = runBatch(config, trace).jobRows;
      none(checkWorkConservation(rows, withIds(trace), config), "work conservation");
    },
  },
  {
    name: "reference",
    description: "the engine's job and resource rows equal the naive reference simulator's",
    arbitrary: anyScenario.filter((c) => referenceModels(c.config)),
    check: ({ config, trace }) => {
      const engine = runBatch(config, trace);
      const ref = referenceSimulate(config, trace);
      equal(engine.jobRows, ref.jobRows, "job rows vs reference");
      equal(engine.resourceRows, ref.resourceRows, "resource rows vs reference");
      equal(engine.notices, ref.notices, "notices vs reference");
    },
  },
  {
    name: "batch-streaming",
    description: "a streaming plan that keeps the contract gives exactly the batch run's rows",
    arbitrary: streamed,
    check: ({ config, trace, plan }) => {
      const live = runInputs(config, streamingInputs(trace, plan ?? []));
      const batch = runBatch(config, trace);
      sameRows(live, batch, "streaming vs batch");
      equal(statsBesidesClock(live), statsBesidesClock(batch), "statistics, streaming vs batch");
    },
  },
  {
    name: "flush-invariance",
    description: "job-store capacity, flush interval, resource buffer and flush() calls never " +
      "change rows or statistics",
    arbitrary: streamed,
    check: ({ config, trace, plan }) => {
      const reference = runBatch(plain(config), trace);
      const tuned = runBatch(config, trace);
      sameRows(tuned, reference, "buffer knobs, batch");
      equal(tuned.statistics, reference.statistics, "statistics with buffer knobs");
      const live = runInputs(config, streamingInputs(trace, plan ?? []));
      const livePlain = runInputs(plain(config), streamingInputs(trace, plan ?? []));
      sameRows(live, livePlain, "buffer knobs and flushes, streaming");
      equal(live.statistics, livePlain.statistics, "statistics with flushes, streaming");
    },
  },
  {
    name: "purity",
    description: "step never changes its input state, gives equal results twice, refuses bad " +
      "input without a trace, and old states stay usable",
    arbitrary: withPlan(arbScenario({ allowOversized: true, maxJobs: 15 })).chain((c) =>
      fc.nat(1000).map((pick) => ({ ...c, pick }))
    ),
    check: checkPurity,
  },
  {
    name: "capacity-schedule",
    description: "starts stay within the capacity in force; cuts never preempt; a change " +
      "writes its row while a job runs; jobs that never fit are reported as stranded; " +
      "streaming ≡ batch",
    arbitrary: capacityCase,
    check: ({ config, trace, plan }) => {
      const out = runBatch(config, trace);
      none(checkStartsWithinCapacity(out.jobRows, config), "starts within capacity");
      none(checkCapacityRows(out.resourceRows, config), "resource rows under the schedule");
      none(
        checkBatchEnd(trace, out.jobRows, out.notices, out.statistics.currentTime, config),
        "end of the run",
      );
      none(checkCapacityChangeRows(out.resourceRows, out.jobRows, config), "capacity-change rows");
      // Rows that are written are whole (a cut never shortens a job). A job
      // larger than the final capacity waits for ever (and, at the head,
      // blocks others); checkBatchEnd counts those against the notice.
      const stranded = out.notices.some((n) => n.kind === "stranded");
      const rowViolations = checkScheduleRows(out.jobRows, withIds(trace), config);
      none(
        stranded ? rowViolations.filter((v) => !/never written$|^… and/.test(v)) : rowViolations,
        "schedule rows",
      );
      const live = runInputs(config, streamingInputs(trace, plan ?? []));
      equal(live.jobRows, out.jobRows, "streaming vs batch: job rows");
      equal(live.resourceRows, out.resourceRows, "streaming vs batch: resource rows");
      // Both paths end with finish, which stamps a stranded notice with the
      // clock; a plan may have moved the clock past the last event (as
      // statsBesidesClock allows), so only that field may differ.
      equal(
        live.notices.map(withoutStrandedTime),
        out.notices.map(withoutStrandedTime),
        "streaming vs batch: notices",
      );
      equal(statsBesidesClock(live), statsBesidesClock(out), "statistics, streaming vs batch");
    },
  },
];
