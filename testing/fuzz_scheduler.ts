// fuzzScheduler: every applicable invariant on random scenarios, through the
// real engine, for a picker and/or admission policy of your own (or
// evtsim's), with the shrunk counterexample reported as `deno task fuzz`
// reports its own: the trace CSV, the seed and path, and the commands that
// reproduce it.

import fc from "fast-check";
import type { Admission } from "../core/admission.ts";
import type { Picker } from "../core/picker.ts";
import { lookupAdmission, type PolicyRegistry } from "../core/policies.ts";
import { defaultRegistry } from "../schedulers/registry.ts";
import type { JobRow, JobSpec, PriorityPolicy, SimulationConfig } from "../core/types.ts";
import { arbTrace, DEFAULT_PRIORITIES } from "./arbitraries.ts";
import type { HeadOrderOptions } from "./reservations.ts";
import { arbStreamingSchedule, type StreamingAction } from "./streaming.ts";
import type { WorkConservationGuarantee } from "./work_conservation.ts";
import {
  batchRows,
  type Case,
  DESCRIPTIONS,
  type Finding,
  type InvariantName,
  INVARIANTS,
  runInvariants,
} from "./_fuzz_invariants.ts";
import { counterexampleReport } from "./_counterexample.ts";

/**
 * The name of an invariant {@link fuzzScheduler} runs: `runs` (the engine
 * accepts every decision), `capacity`, `schedule-rows`, `clock-monotone`,
 * `work-conservation`, `head-reservation` (EASY-like admission policies),
 * `conservative-reservations` (CONSERVATIVE with FCFS), `fcfs-order`
 * (no backfilling, evtsim's pickers), `batch-streaming`, `purity`.
 *
 * @example
 * ```ts
 * import { type FuzzInvariant, fuzzScheduler } from "@evtsim/evtsim/testing";
 * const only: FuzzInvariant[] = ["work-conservation", "capacity"];
 * const r = fuzzScheduler({}, { numRuns: 5, seed: 1, admissions: ["easy"], invariants: only });
 * if (!r.ok) throw new Error(r.report);
 * // `runs` (the engine accepts every decision) always runs; the others only when asked for.
 * console.assert(Object.keys(r.checked).sort().join() === "capacity,runs,work-conservation");
 * ```
 */
export type FuzzInvariant = InvariantName;

/**
 * What {@link fuzzScheduler} tests: a picker and/or an admission policy of
 * your own (the other half is drawn from evtsim's), or neither (evtsim's
 * own pairs).
 *
 * @example
 * ```ts
 * import { orderedPicker } from "@evtsim/evtsim";
 * import { fuzzScheduler, type SchedulerUnderTest } from "@evtsim/evtsim/testing";
 * const s: SchedulerUnderTest = {
 *   picker: orderedPicker({ name: "largest_first", compare: (a, b) => b.numNodes - a.numNodes || a.id - b.id }),
 *   headOrder: { order: (a, b) => b.numNodes - a.numNodes || a.jobId - b.jobId },
 * };
 * // Paired with evtsim's EASY; without `headOrder` the head reservation is not checked.
 * const r = fuzzScheduler(s, { numRuns: 5, seed: 1, admissions: ["easy"], invariants: ["head-reservation"] });
 * if (!r.ok) throw new Error(r.report);
 * console.assert((r.checked["head-reservation"] ?? 0) > 0);
 * ```
 */
export interface SchedulerUnderTest {
  /** Your picker (default: evtsim's, per `options.priorities`). */
  readonly picker?: Picker;
  /** Your admission policy (default: evtsim's, per `options.admissions`). */
  readonly admission?: Admission;
  /**
   * Your picker's order on job rows. Without it, work conservation is
   * checked in the form that holds in every order, and the head reservation
   * is not checked.
   */
  readonly headOrder?: HeadOrderOptions;
  /**
   * What your admission policy promises (default `none`: the head never fits
   * after a round). `easy` or `conservative` also checks that nothing the
   * EASY or DR_EVT-conservative rule would start is left waiting, and that
   * the head is never delayed past its reservation.
   */
  readonly guarantee?: WorkConservationGuarantee;
}

/**
 * Options of {@link fuzzScheduler}; every field is optional.
 *
 * @example
 * ```ts
 * import { fuzzScheduler, type FuzzSchedulerOptions } from "@evtsim/evtsim/testing";
 * const o: FuzzSchedulerOptions = { numRuns: 5, seed: 7, maxJobs: 6, admissions: ["easy"] };
 * const r = fuzzScheduler({}, o);
 * console.assert(r.ok && r.seed === 7 && r.numRuns === 5);
 * ```
 */
export interface FuzzSchedulerOptions {
  /** Scenarios to run (default 200). */
  readonly numRuns?: number;
  /** fast-check seed (default: a random one; the result and report say which). */
  readonly seed?: number;
  /** Replays the counterexample at this fast-check path (with the same seed and options). */
  readonly path?: string;
  /** Most jobs per trace (default 20). */
  readonly maxJobs?: number;
  /** A fixed machine size; otherwise 1..`maxNodes`. */
  readonly totalNodes?: number;
  /** Largest machine drawn (default 16). */
  readonly maxNodes?: number;
  /**
   * Admission policies to pair your picker with, by registered name (default:
   * every admission policy in `registry`, so a policy added to evtsim's
   * registry is fuzzed with no edit here). Each is checked by what it
   * promises (`Admission.promise`).
   */
  readonly admissions?: readonly string[];
  /** The registry the names come from (default: evtsim's, `defaultRegistry()`). */
  readonly registry?: PolicyRegistry;
  /**
   * evtsim's pickers to pair your admission policy with, by DR_EVT priority
   * policy: `fcfs*` for `builtin_fcfs`, `sjf`, `ljf` (default fcfs,
   * fcfs_conservative, sjf, ljf).
   */
  readonly priorities?: readonly PriorityPolicy[];
  /** Invariants to run (default: every one that applies). */
  readonly invariants?: readonly FuzzInvariant[];
  /** A module exporting your policies, for the report's `--policy_module`. */
  readonly policyModule?: string;
  /** Where the report tells you to save the trace CSV (default `counterexample.csv`). */
  readonly tracePath?: string;
}

/**
 * One scenario: the configuration (with your policies in it), the trace
 * (ids are the indexes) and a plan for feeding it live.
 *
 * @example
 * ```ts
 * import type { Admission } from "@evtsim/evtsim";
 * import { type FuzzSchedulerCase, fuzzScheduler } from "@evtsim/evtsim/testing";
 * const idle: Admission = { name: "idle", runSession() {} }; // never starts a job
 * const r = fuzzScheduler({ admission: idle }, { numRuns: 5, seed: 1 });
 * if (r.ok) throw new Error("an idle policy must be caught");
 * // Shrunk to the smallest scenario that shows it: one job on one node.
 * const c: FuzzSchedulerCase = r.counterexample;
 * console.assert(c.config.totalNodes === 1 && c.trace.length === 1 && c.config.admission === idle);
 * ```
 */
export interface FuzzSchedulerCase {
  /** The configuration the engine ran. */
  readonly config: SimulationConfig;
  /** The jobs, sorted by submit time. */
  readonly trace: readonly JobSpec[];
  /** How `batch-streaming` and `purity` fed the trace. */
  readonly plan: readonly StreamingAction[];
}

/**
 * Every invariant held on every scenario.
 *
 * @example
 * ```ts
 * import { fuzzScheduler, type FuzzSchedulerPassed } from "@evtsim/evtsim/testing";
 * const r = fuzzScheduler({}, { numRuns: 5, seed: 1, admissions: ["none"], invariants: ["capacity"] });
 * if (!r.ok) throw new Error(r.report);
 * const passed: FuzzSchedulerPassed = r;
 * console.assert(passed.numRuns === 5 && passed.checked.capacity === 5);
 * ```
 */
export interface FuzzSchedulerPassed {
  /** Every invariant held. */
  readonly ok: true;
  /** The seed used. */
  readonly seed: number;
  /** Scenarios run. */
  readonly numRuns: number;
  /** How many scenarios each invariant checked (those that never applied are absent). */
  readonly checked: Readonly<Partial<Record<FuzzInvariant, number>>>;
}

/**
 * An invariant failed: the shrunk counterexample and its report.
 *
 * @example
 * ```ts
 * import type { Admission } from "@evtsim/evtsim";
 * import { type FuzzSchedulerFailed, fuzzScheduler } from "@evtsim/evtsim/testing";
 * const idle: Admission = { name: "idle", runSession() {} }; // never starts a job
 * const r = fuzzScheduler({ admission: idle }, { numRuns: 5, seed: 1 });
 * if (r.ok) throw new Error("an idle policy must be caught");
 * const failed: FuzzSchedulerFailed = r;
 * console.assert(failed.invariant === "schedule-rows", failed.invariant);
 * console.assert(failed.violations[0] === "job 0: accepted but never written");
 * console.assert(failed.reproduce.includes(`"path":"${failed.path}"`));
 * ```
 */
export interface FuzzSchedulerFailed {
  /** An invariant failed. */
  readonly ok: false;
  /** The seed used. */
  readonly seed: number;
  /** fast-check path of the shrunk counterexample (pass it back as `options.path`). */
  readonly path: string;
  /** Scenarios run until the failure. */
  readonly numRuns: number;
  /** Shrinking steps taken. */
  readonly numShrinks: number;
  /** The invariant that failed. */
  readonly invariant: FuzzInvariant;
  /** What it says went wrong, one line each. */
  readonly violations: readonly string[];
  /** The shrunk scenario. */
  readonly counterexample: FuzzSchedulerCase;
  /** The job rows of its batch run (absent when the engine refused it). */
  readonly jobRows?: readonly JobRow[];
  /** The report, as `deno task fuzz` prints one: the error, the trace CSV, the commands. */
  readonly report: string;
  /** The trace as a DR_EVT CSV (save it at `options.tracePath` for `command`). */
  readonly traceCsv: string;
  /** The `evtsim simulate` command that runs the trace through the CLI. */
  readonly command: string;
  /** The call that replays this counterexample. */
  readonly reproduce: string;
}

/**
 * What {@link fuzzScheduler} returns.
 *
 * @example
 * ```ts
 * import { fuzzScheduler, type FuzzSchedulerResult } from "@evtsim/evtsim/testing";
 * const r: FuzzSchedulerResult = fuzzScheduler({}, { numRuns: 5, seed: 1, admissions: ["none"] });
 * console.assert(r.ok && r.seed === 1);
 * ```
 */
export type FuzzSchedulerResult = FuzzSchedulerPassed | FuzzSchedulerFailed;

/**
 * The configuration fields that name admission policy `name` of `registry`:
 * evtsim's by name (as a user's configuration or command line would), one
 * the caller registered as its value.
 */
function admissionFields(
  name: string,
  registry: PolicyRegistry,
): Pick<SimulationConfig, "backfillPolicy" | "admission"> {
  const a = lookupAdmission(registry, name);
  return defaultRegistry().admissions.get(name) === a ? { backfillPolicy: name } : { admission: a };
}

/** A finding carried out of fast-check (its error instance). */
class InvariantFailure extends Error {
  constructor(readonly finding: Finding) {
    super(`${finding.invariant}:\n  ${finding.violations.join("\n  ")}`);
  }
}

function arbCase(s: SchedulerUnderTest, o: FuzzSchedulerOptions): fc.Arbitrary<Case> {
  const maxJobs = o.maxJobs ?? 20;
  const nodes = o.totalNodes !== undefined
    ? fc.constant(o.totalNodes)
    : fc.integer({ min: 1, max: o.maxNodes ?? 16 });
  const priorities = s.picker !== undefined
    ? [undefined]
    : [...(o.priorities ?? DEFAULT_PRIORITIES)];
  const registry = o.registry ?? defaultRegistry();
  const admissions = s.admission !== undefined
    ? [undefined]
    : [...(o.admissions ?? [...registry.admissions.keys()])];
  // A name nobody registered is an error now, not in the middle of a run.
  for (const a of admissions) if (a !== undefined) lookupAdmission(registry, a);
  return nodes.chain((totalNodes) => {
    const t = { totalNodes, maxJobs };
    // Corners (zero limits, ties, oversized jobs, early ends), exact limits
    // (the reservation checks' preconditions), fractional times, overruns.
    const trace = fc.oneof(
      arbTrace({ ...t, allowOversized: true, maxGap: 20 }),
      arbTrace({ ...t, maxGap: 6, zeroLimits: false }),
      arbTrace({ ...t, maxGap: 6, zeroLimits: false, actual: "equalsLimit" }),
      arbTrace({ ...t, allowOversized: true, integerTimes: false }),
      arbTrace({ ...t, maxGap: 5, actual: "unbounded" }),
    );
    return fc.record({
      priority: fc.constantFrom(...priorities),
      backfill: fc.constantFrom(...admissions),
      trace,
    }).chain(({ priority, backfill, trace }) => {
      const config: SimulationConfig = {
        totalNodes,
        ...(priority !== undefined ? { priorityPolicy: priority } : {}),
        ...(s.picker !== undefined ? { picker: s.picker } : {}),
        ...(s.admission !== undefined
          ? { admission: s.admission }
          : admissionFields(backfill!, registry)),
      };
      return arbStreamingSchedule(trace).map((plan) => ({ config, trace, plan }));
    });
  });
}

function describeScheduler(s: SchedulerUnderTest): string {
  const parts = [
    ...(s.picker !== undefined ? [`picker: ${s.picker.name}`] : []),
    ...(s.admission !== undefined ? [`admission: ${s.admission.name}`] : []),
    ...(s.headOrder !== undefined ? ["headOrder"] : []),
    ...(s.guarantee !== undefined ? [`guarantee: "${s.guarantee}"`] : []),
  ];
  return parts.length === 0 ? "{}" : `{ ${parts.join(", ")} }`;
}

/**
 * Runs every applicable invariant on random scenarios through the real
 * engine and returns either `ok` or the shrunk counterexample with its
 * report (the trace CSV, the seed and path, and the commands that reproduce
 * it: the `fuzzScheduler` call with `seed` and `path`, and the
 * `evtsim simulate` command for the trace). Deterministic for a given seed.
 *
 * A scenario draws a machine size, a pairing (your picker with one of
 * `options.admissions`, your admission policy with one of evtsim's pickers
 * by `options.priorities`, or evtsim's own pairs when you give neither) and a
 * trace of one of five flavours: corner cases (zero limits, ties, jobs larger
 * than the machine, early ends), exact limits, run times equal to limits,
 * fractional times, and overruns. Checks that need a promise run only where
 * it was made and their preconditions hold: the head reservation for
 * evtsim's admission policies and for yours with `guarantee` `easy` or
 * `conservative` (limits positive and never overrun, head order known);
 * conservative reservations for CONSERVATIVE with evtsim's FCFS picker (run
 * times equal to limits); FCFS order for `none` with evtsim's pickers.
 * `result.checked` says how often each ran.
 *
 * @example
 * ```ts
 * import type { Admission } from "@evtsim/evtsim";
 * import { fuzzScheduler } from "@evtsim/evtsim/testing";
 * // A lazy admission policy: it starts jobs only on an idle machine.
 * const idleOnly: Admission = {
 *   name: "idle_only",
 *   runSession(s) {
 *     if (s.running.size > 0) return;
 *     for (let job = s.next(); job !== undefined && job.numNodes <= s.free; job = s.next()) {
 *       s.dispatch(job, false);
 *     }
 *   },
 * };
 * const r = fuzzScheduler({ admission: idleOnly }, { numRuns: 100, seed: 1 });
 * if (r.ok) throw new Error("the lazy policy must be caught");
 * console.assert(r.invariant === "work-conservation", r.invariant);
 * console.assert(r.report.includes("seed: 1\n") && r.report.includes(r.traceCsv.split("\n")[1]));
 * // evtsim's own EASY passes.
 * console.assert(fuzzScheduler({}, { admissions: ["easy"], numRuns: 20, seed: 1 }).ok);
 * ```
 */
export function fuzzScheduler(
  scheduler: SchedulerUnderTest,
  options: FuzzSchedulerOptions = {},
): FuzzSchedulerResult {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const selected = new Set<InvariantName>(options.invariants ?? INVARIANTS);
  const counts = new Map<InvariantName, number>();
  const details = fc.check(
    fc.property(arbCase(scheduler, options), (c) => {
      const finding = runInvariants(scheduler, c, selected, counts);
      if (finding !== undefined) throw new InvariantFailure(finding);
    }),
    { seed, numRuns: options.numRuns ?? 200, path: options.path },
  );
  if (!details.failed) {
    return { ok: true, seed, numRuns: details.numRuns, checked: Object.fromEntries(counts) };
  }
  const [c] = details.counterexample ?? [];
  const e = details.errorInstance;
  if (c === undefined || !(e instanceof InvariantFailure)) {
    // Not an invariant's verdict (fast-check itself failed): nothing to report.
    throw e instanceof Error ? e : new Error(String(e));
  }
  const path = details.counterexamplePath ?? "";
  const { finding } = e;
  const given = Object.fromEntries(
    Object.entries({ ...options, seed, path }).filter(([, v]) => v !== undefined),
  );
  const reproduce = `fuzzScheduler(${describeScheduler(scheduler)}, ${JSON.stringify(given)})`;
  const report = counterexampleReport({
    property: finding.invariant,
    description: DESCRIPTIONS[finding.invariant],
    seed,
    path,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    error: e.message,
    config: c.config,
    trace: c.trace,
    live: finding.invariant === "batch-streaming" || finding.invariant === "purity",
    tracePath: options.tracePath ?? "counterexample.csv",
    reproduce,
    policyModule: options.policyModule,
  });
  const jobRows = batchRows(c);
  return {
    ok: false,
    seed,
    path,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    invariant: finding.invariant,
    violations: finding.violations,
    counterexample: c,
    ...(jobRows !== undefined ? { jobRows } : {}),
    report: report.text,
    traceCsv: report.traceCsv,
    command: report.command,
    reproduce,
  };
}
