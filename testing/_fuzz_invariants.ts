// The invariants fuzzScheduler runs on each drawn case, and which of them
// apply to a scheduler: a check that promises something of a particular
// policy (FCFS order, the head's reservation, conservative reservations) runs
// only where that promise was made and its preconditions hold.

import { resolveConfig } from "../core/config.ts";
import { promisedGuarantee } from "./_promise.ts";
import type { Picker } from "../core/picker.ts";
import type { JobRow, JobSpec, SimulationConfig } from "../core/types.ts";
import type { Admission } from "../core/admission.ts";
import {
  checkCapacity,
  checkClockMonotone,
  checkFcfsOrder,
  checkScheduleRows,
  withIds,
} from "./invariants.ts";
import { stepTwice } from "./purity.ts";
import { checkConservativeReservations, checkEasyHeadReservation } from "./reservations.ts";
import type { HeadOrderOptions } from "./reservations.ts";
import { runBatch, runInputs, type RunOutput } from "./run.ts";
import { type StreamingAction, streamingInputs } from "./streaming.ts";
import { checkWorkConservation, type WorkConservationGuarantee } from "./work_conservation.ts";
import { initialState } from "../api/initial_state.ts";
import type { StepResult } from "../core/step.ts";

/** The names of the invariants {@link fuzzScheduler} runs. */
export const INVARIANTS = [
  "runs",
  "capacity",
  "schedule-rows",
  "clock-monotone",
  "work-conservation",
  "head-reservation",
  "conservative-reservations",
  "fcfs-order",
  "batch-streaming",
  "purity",
] as const;

/** One invariant's name. */
export type InvariantName = typeof INVARIANTS[number];

/** One line each: what must hold. */
export const DESCRIPTIONS: Readonly<Record<InvariantName, string>> = {
  "runs": "the engine accepts every decision (no job started that does not fit or is not waiting)",
  "capacity": "allocated nodes stay within 0..total and free + allocated = total",
  "schedule-rows": "every accepted job is written once with end = begin + run time",
  "clock-monotone": "the clock never decreases, along resource rows and across steps",
  "work-conservation":
    "after every scheduling round the first job in the picker's order does not fit " +
    "the free nodes (and nothing the admission policy's rule would start is left waiting)",
  "head-reservation":
    "no job started ahead of the head delays it past its reservation at that moment",
  "conservative-reservations":
    "CONSERVATIVE with exact limits: no job starts later than its earliest reservation",
  "fcfs-order": "without backfilling, jobs start in submit order",
  "batch-streaming": "feeding the trace live gives exactly the batch run's rows",
  "purity": "step never changes the state it is given and gives equal results twice",
};

const BUILT_IN_PICKERS = new Set(["builtin_fcfs", "sjf", "ljf"]);
const DREVT_ADMISSIONS = new Set(["none", "easy", "conservative"]);

/** The scheduler under test, as fuzzScheduler was given it. */
export interface Scheduler {
  readonly picker?: Picker;
  readonly admission?: Admission;
  readonly headOrder?: HeadOrderOptions;
  readonly guarantee?: WorkConservationGuarantee;
}

/** One drawn case. */
export interface Case {
  readonly config: SimulationConfig;
  readonly trace: readonly JobSpec[];
  readonly plan: readonly StreamingAction[];
}

/** What an invariant found: its violations (empty = held). */
export interface Finding {
  readonly invariant: InvariantName;
  readonly violations: readonly string[];
}

/**
 * What the case's policies promise, from the resolved configuration: the
 * guarantee is the one given, or the admission policy's own
 * (`Admission.promise`; undefined when it promises none); `drevt` marks
 * DR_EVT's three rules, whose head reservation and FCFS order are checked too.
 */
function promisesOf(s: Scheduler, config: SimulationConfig) {
  const resolved = resolveConfig(config);
  const builtInPicker = BUILT_IN_PICKERS.has(resolved.picker) &&
    (s.picker === undefined || s.headOrder === undefined);
  const admission = resolved.backfillPolicy;
  const drevt = DREVT_ADMISSIONS.has(admission) && s.guarantee === undefined &&
    config.admission === undefined;
  const guarantee: WorkConservationGuarantee | undefined = s.guarantee ??
    promisedGuarantee(config).guarantee;
  return { resolved, builtInPicker, drevt, guarantee };
}

/** Limits are promises: positive, and no job runs longer. */
function limitsHold(trace: readonly JobSpec[], total: number, exact: boolean): boolean {
  return trace.every((j) =>
    j.numNodes > total ||
    (j.timeLimit > 0 &&
      (exact
        ? (j.actualRunTime ?? j.timeLimit) === j.timeLimit
        : (j.actualRunTime ?? j.timeLimit) <= j.timeLimit))
  );
}

/** First differing element of two row lists, as one line (or undefined if equal). */
function firstDifference(what: string, a: readonly unknown[], b: readonly unknown[]) {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = JSON.stringify(a[i]);
    const y = JSON.stringify(b[i]);
    if (x !== y) return `${what} ${i}: streaming ${x ?? "nothing"}, batch ${y ?? "nothing"}`;
  }
  return undefined;
}

const firstLines = (message: string) => message.split("\n").slice(0, 6).join("\n");

/**
 * Runs every selected invariant that applies to the case; returns the first
 * that fails, or undefined. `counts` gets one per invariant that ran.
 */
export function runInvariants(
  s: Scheduler,
  c: Case,
  selected: ReadonlySet<InvariantName>,
  counts: Map<InvariantName, number>,
): Finding | undefined {
  const on = (name: InvariantName) => {
    if (!selected.has(name)) return false;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return true;
  };
  const { config, trace, plan } = c;
  const traced = withIds(trace);
  const total = config.totalNodes;
  let out: RunOutput;
  try {
    counts.set("runs", (counts.get("runs") ?? 0) + 1);
    out = runBatch(config, trace);
  } catch (e) {
    return { invariant: "runs", violations: [`the engine refused: ${(e as Error).message}`] };
  }
  const p = promisesOf(s, config);
  const checks: [InvariantName, () => readonly string[]][] = [
    ["capacity", () => checkCapacity(out.resourceRows, total)],
    ["schedule-rows", () => checkScheduleRows(out.jobRows, traced, config)],
    [
      "clock-monotone",
      () => [...checkClockMonotone(out.resourceRows), ...checkClockMonotone(out.clocks)],
    ],
  ];
  const guarantee = p.guarantee;
  if (guarantee !== undefined) {
    checks.push([
      "work-conservation",
      () =>
        checkWorkConservation(out.jobRows, traced, config, {
          guarantee,
          ...(p.builtInPicker ? {} : { order: s.headOrder?.order ?? "any" }),
          ...(s.headOrder?.strict !== undefined ? { strict: s.headOrder.strict } : {}),
        }),
    ]);
  }
  // The head's reservation: promised by evtsim's admission policies and by
  // one of your own that claims EASY or CONSERVATIVE; needs the head order.
  const reserves = p.drevt || p.guarantee === "easy" || p.guarantee === "conservative";
  if (
    reserves && (p.builtInPicker || s.headOrder !== undefined) && limitsHold(trace, total, false)
  ) {
    const byShadow = s.picker?.backfillEndsByShadow === true;
    const order = p.builtInPicker ? undefined : {
      order: s.headOrder!.order,
      strict: s.headOrder!.strict ?? !byShadow,
    };
    checks.push([
      "head-reservation",
      () => checkEasyHeadReservation(out.jobRows, traced, config, order),
    ]);
  }
  if (
    p.guarantee === "conservative" && p.resolved.picker === "builtin_fcfs" &&
    s.picker === undefined &&
    limitsHold(trace, total, true)
  ) {
    checks.push([
      "conservative-reservations",
      () => checkConservativeReservations(out.jobRows, traced, config),
    ]);
  }
  if (p.drevt && p.guarantee === "none" && s.picker === undefined) {
    const ties = p.resolved.picker === "builtin_fcfs" ? "id" : "any";
    checks.push(["fcfs-order", () => checkFcfsOrder(out.jobRows, { ties })]);
  }
  checks.push(["batch-streaming", () => {
    const live = runInputs(config, streamingInputs(trace, plan));
    const diff = firstDifference("job row", live.jobRows, out.jobRows) ??
      firstDifference("resource row", live.resourceRows, out.resourceRows) ??
      firstDifference("notice", live.notices, out.notices);
    return diff === undefined ? [] : [diff];
  }]);
  checks.push(["purity", () => {
    let state = initialState(config);
    for (const input of streamingInputs(trace, plan)) {
      let r: StepResult | Error;
      try {
        r = stepTwice(state, input);
      } catch (e) {
        return [firstLines((e as Error).message)];
      }
      if (r instanceof Error) return [`${input.kind} refused: ${r.message}`];
      state = r.state;
    }
    return [];
  }]);
  for (const [name, check] of checks) {
    if (!on(name)) continue;
    let violations: readonly string[];
    try {
      violations = check();
    } catch (e) {
      violations = [`the engine refused: ${firstLines((e as Error).message)}`];
    }
    if (violations.length > 0) return { invariant: name, violations };
  }
  return undefined;
}

/** The rows of the case's batch run, or undefined when the engine refuses it. */
export function batchRows(c: Case): JobRow[] | undefined {
  try {
    return runBatch(c.config, c.trace).jobRows;
  } catch {
    return undefined;
  }
}
