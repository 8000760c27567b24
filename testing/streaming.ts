// Plans for feeding a trace live: how many jobs each append carries and how
// the clock is moved in between. Every plan respects the streaming contract,
// so a plan run must give the same rows as the batch run of the same trace.

import fc from "fast-check";
import type { Arbitrary } from "./arbitraries.ts";
import type { Input } from "../core/step.ts";
import type { JobSpec } from "../core/types.ts";

/** One action of a streaming plan. `append` takes the next `count` jobs of the trace. */
export type StreamingAction =
  | { readonly kind: "append"; readonly count: number }
  | { readonly kind: "advanceTo"; readonly time: number }
  | { readonly kind: "runUntilExclusive"; readonly time: number }
  | { readonly kind: "flush" };

/** Options of {@link arbStreamingSchedule}. */
export interface StreamingScheduleOptions {
  /** The simulation's start time (default 0); no target is before it. */
  readonly startTime?: number;
  /** Most clock moves or flushes between two appends (default 3). */
  readonly maxControls?: number;
  /** Whole-number targets (default: when every time in the trace is whole). */
  readonly integerTimes?: boolean;
}

interface RawControl {
  readonly kind: "advanceTo" | "runUntilExclusive" | "flush";
  readonly pick: "lo" | "hi" | "below" | number;
}

/** The largest double below `x` (for `x` > 0 finite). */
function nextDown(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  buf.setBigUint64(0, x > 0 ? bits - 1n : bits + 1n);
  return buf.getFloat64(0);
}

/**
 * A target in [lo, hi] (inclusive) or [lo, hi) (exclusive), or undefined when
 * that range is empty. `hi` may be Infinity; `horizon` then bounds it.
 */
function target(
  lo: number,
  hi: number,
  inclusive: boolean,
  pick: RawControl["pick"],
  integer: boolean,
  horizon: number,
): number | undefined {
  const top = hi === Infinity ? Math.max(horizon, lo) : hi;
  const topIncluded = inclusive || hi === Infinity;
  if (!topIncluded && !(lo < top)) return undefined;
  const below = integer ? Math.ceil(top) - 1 : nextDown(top);
  let t: number;
  if (pick === "lo") t = lo;
  else if (pick === "hi") t = topIncluded ? top : below;
  else if (pick === "below") t = below;
  else {t = integer
      ? Math.ceil(lo) + Math.floor(pick * (Math.floor(top) - Math.ceil(lo) + 1))
      : lo + pick * (top - lo);}
  if (!(t >= lo)) t = lo;
  if (t > top || (!topIncluded && t >= top)) t = lo;
  return t;
}

/**
 * A streaming plan for `trace`: append batches with clock moves and flushes
 * between them. Targets never decrease, every `advanceTo` target is strictly
 * before the submit time of the next job not yet appended, and every
 * `runUntilExclusive` target is at most that submit time and at least the
 * previous target (so at least the clock). Feed it with {@link streamingInputs}.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbStreamingSchedule, arbTrace, runBatch, runInputs, streamingInputs } from "@evtsim/evtsim/testing";
 * const config = { totalNodes: 16 };
 * fc.assert(fc.property(
 *   arbTrace({ maxJobs: 8 }).chain((t) => fc.tuple(fc.constant(t), arbStreamingSchedule(t))),
 *   ([trace, plan]) =>
 *     runInputs(config, streamingInputs(trace, plan)).jobRows.length ===
 *       runBatch(config, trace).jobRows.length,
 * ), { numRuns: 20 });
 * ```
 */
export function arbStreamingSchedule(
  trace: readonly JobSpec[],
  options: StreamingScheduleOptions = {},
): Arbitrary<StreamingAction[]> {
  const n = trace.length;
  const start = options.startTime ?? 0;
  const integer = options.integerTimes ??
    trace.every((j) =>
      Number.isInteger(j.submitTime) && Number.isInteger(j.timeLimit) &&
      (j.actualRunTime === undefined || Number.isInteger(j.actualRunTime))
    );
  let horizon = start + 1;
  for (const j of trace) {
    horizon = Math.max(horizon, j.submitTime + Math.max(j.timeLimit, j.actualRunTime ?? 0) + 1);
  }
  const control: Arbitrary<RawControl> = fc.record({
    kind: fc.constantFrom("advanceTo", "runUntilExclusive", "flush"),
    pick: fc.oneof(
      fc.constantFrom("lo", "hi", "below"),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    ),
  });
  const controls = fc.array(control, { maxLength: options.maxControls ?? 3 });
  return fc.record({
    cuts: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    between: fc.array(controls, { minLength: n + 1, maxLength: n + 1 }),
  }).map(({ cuts, between }) => {
    const plan: StreamingAction[] = [];
    let lo = start;
    let next = 0; // index of the first job not yet appended
    let gap = 0;
    const emitControls = () => {
      const hi = next < n ? trace[next].submitTime : Infinity;
      for (const c of between[gap++]) {
        if (c.kind === "flush") {
          plan.push({ kind: "flush" });
          continue;
        }
        const inclusive = c.kind === "runUntilExclusive";
        const t = target(lo, hi, inclusive, c.pick, integer, horizon);
        // An advanceTo with no room before the next arrival becomes a no-op exclusive run.
        if (t === undefined) plan.push({ kind: "runUntilExclusive", time: lo });
        else {
          plan.push({ kind: c.kind, time: t });
          lo = t;
        }
      }
    };
    emitControls();
    while (next < n) {
      let count = 1;
      while (next + count < n && !cuts[next + count]) count++;
      plan.push({ kind: "append", count });
      next += count;
      emitControls();
    }
    return plan;
  });
}

/**
 * The reducer inputs for a plan: the plan's actions, then `runToCompletion`
 * and `finish`. Jobs the plan never appended are appended before the end.
 *
 * @example
 * ```ts
 * import { streamingInputs } from "@evtsim/evtsim/testing";
 * const jobs = [{ submitTime: 5, numNodes: 1, timeLimit: 10 }];
 * const inputs = streamingInputs(jobs, [{ kind: "advanceTo", time: 4 }, { kind: "append", count: 1 }]);
 * console.assert(inputs.length === 4 && inputs[3].kind === "finish");
 * ```
 */
export function streamingInputs(
  trace: readonly JobSpec[],
  plan: readonly StreamingAction[],
): Input[] {
  const inputs: Input[] = [];
  let next = 0;
  for (const a of plan) {
    if (a.kind === "append") {
      inputs.push({ kind: "appendJobs", jobs: trace.slice(next, next + a.count) });
      next += a.count;
    } else inputs.push(a);
  }
  if (next < trace.length) inputs.push({ kind: "appendJobs", jobs: trace.slice(next) });
  inputs.push({ kind: "runToCompletion" }, { kind: "finish" });
  return inputs;
}

/**
 * The reducer inputs of a batch run: append everything, run to completion, finish.
 *
 * @example
 * ```ts
 * import { batchInputs } from "@evtsim/evtsim/testing";
 * console.assert(batchInputs([]).map((i) => i.kind).join() === "appendJobs,runToCompletion,finish");
 * ```
 */
export function batchInputs(trace: readonly JobSpec[]): Input[] {
  return [{ kind: "appendJobs", jobs: trace }, { kind: "runToCompletion" }, { kind: "finish" }];
}
