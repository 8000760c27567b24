// fast-check arbitraries for jobs, traces and configurations. They are biased
// towards the corners that break schedulers: ties in submit times, jobs that
// take the whole machine, zero time limits, early finishes.

import fc, { type Arbitrary as FcArbitrary } from "fast-check";
import type { JobSpec, PriorityPolicy, SimulationConfig } from "../core/types.ts";
import { defaultRegistry } from "../schedulers/registry.ts";

// `@ignore` keeps this alias out of the generated docs: `deno doc --lint`
// (Deno 2.9) reports any reference to a type from an npm package as a
// private-type-ref (denoland/deno#27364), and re-exporting fast-check's class
// instead drags its undocumented internals into the lint. An ignored alias
// counts as public, so the `arb*` signatures below pass.
/**
 * fast-check's generator type (`fc.Arbitrary`), which every `arb*` function
 * returns: pass it to `fc.property`, `fc.assert`, `.map`, `.chain`, ...
 *
 * @ignore
 */
export type Arbitrary<T> = FcArbitrary<T>;

/** How a generated job's recorded run time relates to its time limit. */
export type ActualRunTimeKind = "atMostLimit" | "equalsLimit" | "unbounded";

/** Options of {@link arbJobSpec}; every field is optional. */
export interface JobSpecOptions {
  /** Nodes in the machine the jobs are meant for (default 16). */
  readonly totalNodes?: number;
  /** Let about one job in ten ask for more nodes than the machine has (default false). */
  readonly allowOversized?: boolean;
  /** Whole-second times only (default true); otherwise fractional times too. */
  readonly integerTimes?: boolean;
  /**
   * Recorded run time: `atMostLimit` (default; early finishes), `equalsLimit`
   * (actual = limit, sometimes by leaving the field out) or `unbounded`
   * (may overrun the limit, which DR_EVT does not check).
   */
  readonly actual?: ActualRunTimeKind;
  /** Largest time limit (default 100). */
  readonly maxLimit?: number;
  /** Generate a zero time limit now and then (default true). */
  readonly zeroLimits?: boolean;
  /** Submit time range for {@link arbJobSpec} (default 0..1000). */
  readonly minSubmitTime?: number;
  /** Submit time range for {@link arbJobSpec} (default 0..1000). */
  readonly maxSubmitTime?: number;
  /** Queue names to draw from; without it jobs carry no queue. */
  readonly queues?: readonly string[];
}

/** Options of {@link arbTrace}: job options plus the shape of the trace. */
export interface TraceOptions extends JobSpecOptions {
  /** Fewest jobs (default 0). */
  readonly minJobs?: number;
  /** Most jobs (default 30). */
  readonly maxJobs?: number;
  /** Generate equal submit times often (default true). */
  readonly ties?: boolean;
  /** Largest gap between consecutive submit times (default 40). */
  readonly maxGap?: number;
  /** Submit time of the first job is at least this (default 0). */
  readonly startTime?: number;
}

function arbTime(min: number, max: number, integer: boolean): Arbitrary<number> {
  const whole = fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) });
  if (integer) return whole;
  const frac = fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((x) => x + 0);
  return fc.oneof(whole, frac);
}

function arbNodes(total: number, oversized: boolean): Arbitrary<number> {
  const small = Math.max(1, Math.floor(total / 4));
  const fitting = [
    { arbitrary: fc.integer({ min: 1, max: small }), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: total }), weight: 4 },
    { arbitrary: fc.constant(total), weight: 1 },
  ];
  if (!oversized) return fc.oneof(...fitting);
  return fc.oneof(...fitting, {
    arbitrary: fc.integer({ min: total + 1, max: 2 * total }),
    weight: 1,
  });
}

/** Everything of a job but its submit time. */
function arbJobBody(o: JobSpecOptions): Arbitrary<Omit<JobSpec, "submitTime">> {
  const integer = o.integerTimes ?? true;
  const maxLimit = o.maxLimit ?? 100;
  const positive = arbTime(integer ? 1 : 0.001, maxLimit, integer);
  const limit = (o.zeroLimits ?? true)
    ? fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: positive, weight: 12 })
    : positive;
  const kind = o.actual ?? "atMostLimit";
  const queue = o.queues !== undefined && o.queues.length > 0
    ? fc.constantFrom(...o.queues)
    : fc.constant(undefined);
  return fc.record({
    numNodes: arbNodes(o.totalNodes ?? 16, o.allowOversized ?? false),
    timeLimit: limit,
    u: fc.double({ min: 0, max: 1, noNaN: true }),
    shape: fc.constantFrom("same", "omit", "scaled", "scaled"),
    queue,
  }).map(({ numNodes, timeLimit, u, shape, queue }) => {
    const body: { numNodes: number; timeLimit: number; actualRunTime?: number; queue?: string } = {
      numNodes,
      timeLimit,
    };
    if (shape === "same" || (kind === "equalsLimit" && shape !== "omit")) {
      body.actualRunTime = timeLimit;
    } else if (shape === "scaled") {
      // u·limit never exceeds the limit in floating point, since u <= 1.
      const scaled = kind === "unbounded" ? u * (2 * timeLimit + 10) : u * timeLimit;
      body.actualRunTime = integer ? Math.floor(scaled) : scaled;
    }
    if (queue !== undefined) body.queue = queue;
    return body;
  });
}

/**
 * One job specification.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbJobSpec } from "@evtsim/evtsim/testing";
 * fc.assert(fc.property(arbJobSpec({ totalNodes: 8 }), (j) => j.numNodes <= 8));
 * ```
 */
export function arbJobSpec(options: JobSpecOptions = {}): Arbitrary<JobSpec> {
  const integer = options.integerTimes ?? true;
  const submit = arbTime(options.minSubmitTime ?? 0, options.maxSubmitTime ?? 1000, integer);
  return fc.tuple(submit, arbJobBody(options)).map(([submitTime, body]) => ({
    submitTime,
    ...body,
  }));
}

/**
 * A trace: jobs sorted by submit time (job ids are the array indexes).
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbTrace } from "@evtsim/evtsim/testing";
 * fc.assert(fc.property(arbTrace({ maxJobs: 10, ties: true }), (t) =>
 *   t.every((j, i) => i === 0 || t[i - 1].submitTime <= j.submitTime)));
 * ```
 */
export function arbTrace(options: TraceOptions = {}): Arbitrary<JobSpec[]> {
  const integer = options.integerTimes ?? true;
  const maxGap = options.maxGap ?? 40;
  const gap = (options.ties ?? true)
    ? fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, {
      arbitrary: arbTime(0, maxGap, integer),
      weight: 2,
    })
    : arbTime(integer ? 1 : 0.001, maxGap, integer);
  const item = fc.tuple(gap, arbJobBody(options));
  return fc.array(item, {
    minLength: options.minJobs ?? 0,
    maxLength: options.maxJobs ?? 30,
    size: "max",
  })
    .map((items) => {
      let t = options.startTime ?? 0;
      return items.map(([g, body]) => {
        t += g;
        return { submitTime: t, ...body };
      });
    });
}

/** Options of {@link arbConfig}. */
export interface ConfigOptions {
  /** Machine size (default 16). */
  readonly totalNodes?: number;
  /** Priority policies to draw from (default fcfs, fcfs_conservative, sjf, ljf). */
  readonly priorities?: readonly PriorityPolicy[];
  /**
   * Admission (backfill) policies to draw from, by registered name (default:
   * every one in evtsim's registry, {@link DEFAULT_BACKFILLS}).
   */
  readonly backfills?: readonly string[];
  /**
   * Also draw small job-store capacities, flush intervals and resource
   * buffer sizes, so that rows are emitted in many small pieces (default true).
   * These never change what is written, only when.
   */
  readonly bufferKnobs?: boolean;
}

/** The priority policies {@link arbConfig} draws from by default. */
export const DEFAULT_PRIORITIES: readonly PriorityPolicy[] = [
  "fcfs",
  "fcfs_conservative",
  "sjf",
  "ljf",
];
/**
 * The admission policies {@link arbConfig} draws from by default: every one
 * registered in evtsim's registry (`defaultRegistry()`), so that a policy
 * added there is fuzzed by every property with no edit here.
 *
 * @example
 * ```ts
 * import { DEFAULT_BACKFILLS } from "@evtsim/evtsim/testing";
 * console.assert(DEFAULT_BACKFILLS.includes("easy") && DEFAULT_BACKFILLS.includes("conservative_profile"));
 * ```
 */
export const DEFAULT_BACKFILLS: readonly string[] = Object.freeze([
  ...defaultRegistry().admissions.keys(),
]);

/**
 * A simulation configuration: a policy pair, plus (by default) small buffer
 * sizes. Run time mode is always `actual`.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbConfig } from "@evtsim/evtsim/testing";
 * const [c] = fc.sample(arbConfig({ totalNodes: 32, backfills: ["easy"] }), { numRuns: 1, seed: 1 });
 * console.assert(c.totalNodes === 32 && c.backfillPolicy === "easy");
 * ```
 */
export function arbConfig(options: ConfigOptions = {}): Arbitrary<SimulationConfig> {
  const totalNodes = options.totalNodes ?? 16;
  const knobs = options.bufferKnobs ?? true;
  const small = (max: number) =>
    knobs ? fc.oneof(fc.constant(0), fc.integer({ min: 1, max })) : fc.constant(0);
  return fc.record({
    priorityPolicy: fc.constantFrom(...(options.priorities ?? DEFAULT_PRIORITIES)),
    backfillPolicy: fc.constantFrom(...(options.backfills ?? DEFAULT_BACKFILLS)),
    jobStoreCapacity: small(6),
    jobFlushInterval: small(4),
    resourceHistoryCapacity: small(4),
  }).map((c): SimulationConfig => ({
    totalNodes,
    runTimeMode: "actual",
    jobStoreOverflow: "grow",
    ...c,
  }));
}

/** A configuration together with a trace for the same machine. */
export interface Scenario {
  /** The configuration (its `totalNodes` is the machine the trace was drawn for). */
  readonly config: SimulationConfig;
  /** Jobs sorted by submit time; ids are the indexes. */
  readonly trace: JobSpec[];
}

/**
 * A configuration and a matching trace; the machine size varies between 1
 * and `maxNodes` (default 24) unless `totalNodes` is given.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbScenario, runBatch } from "@evtsim/evtsim/testing";
 * fc.assert(fc.property(arbScenario({ maxJobs: 5 }), ({ config, trace }) =>
 *   runBatch(config, trace).resourceRows.length >= 1), { numRuns: 10 });
 * ```
 */
export function arbScenario(
  options: TraceOptions & ConfigOptions & { readonly maxNodes?: number } = {},
): Arbitrary<Scenario> {
  const nodes = options.totalNodes !== undefined
    ? fc.constant(options.totalNodes)
    : fc.integer({ min: 1, max: options.maxNodes ?? 24 });
  return nodes.chain((totalNodes) =>
    fc.record({
      config: arbConfig({ ...options, totalNodes }),
      trace: arbTrace({ ...options, totalNodes }),
    })
  );
}

/**
 * Every policy pair on traces with everything in them: jobs larger than the
 * machine, ties, zero limits, fractional times, and (on small machines, where
 * it matters most) jobs that overrun their limits. The default input of the
 * library's own properties.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { arbAnyScenario, checkCapacity, runBatch } from "@evtsim/evtsim/testing";
 * fc.assert(fc.property(arbAnyScenario(), ({ config, trace }) =>
 *   checkCapacity(runBatch(config, trace).resourceRows, config.totalNodes).length === 0
 * ), { seed: 1, numRuns: 20 });
 * ```
 */
export function arbAnyScenario(): Arbitrary<Scenario> {
  const priorities: PriorityPolicy[] = ["fcfs", "fcfs_alt", "fcfs_conservative", "sjf", "ljf"];
  return fc.oneof(
    arbScenario({ allowOversized: true, priorities }),
    arbScenario({ allowOversized: true, integerTimes: false, priorities }),
    arbScenario({ allowOversized: true, actual: "unbounded", maxNodes: 6, maxGap: 5, priorities }),
  );
}
