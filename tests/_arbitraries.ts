// Random-job arbitraries (fast-check) shared by the property tests that
// generate the same kind of trace with different bounds. Each test passes
// its own bounds, so what it generates, and for its fixed seed the very
// values, stay its own.

import fc from "fast-check";
import type { JobSpec } from "../core/types.ts";

/** Bounds of {@link arbGapJobs}. */
export interface GapJobBounds {
  /** Largest gap between two submissions (seconds; the smallest is 0). */
  readonly maxGap: number;
  /** Largest node count (the smallest is 1). */
  readonly maxNodes: number;
  /** Largest time limit (the smallest is 1). */
  readonly maxLimit: number;
  /** Run time drawn in [minRun, maxRun], then cut to the limit. */
  readonly minRun: number;
  readonly maxRun: number;
  /** At most this many jobs (at least one). */
  readonly maxLength: number;
  /** Jobs may have a user (ann, bob, 7, 12) and an account (g1, g2). */
  readonly owners?: boolean;
}

/**
 * Whole-node jobs submitted in order (each `gap` seconds after the one
 * before, from 0), the actual run time cut to the time limit.
 */
export function arbGapJobs(b: GapJobBounds): fc.Arbitrary<JobSpec[]> {
  return fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: b.maxGap }),
      numNodes: fc.integer({ min: 1, max: b.maxNodes }),
      timeLimit: fc.integer({ min: 1, max: b.maxLimit }),
      run: fc.integer({ min: b.minRun, max: b.maxRun }),
      // Only when asked for: a field more draws more values (the other tests' cases stay theirs).
      ...(b.owners === true
        ? {
          user: fc.constantFrom(undefined, "ann", "bob", "7", "12"),
          account: fc.constantFrom(undefined, "g1", "g2"),
        }
        : {}),
    }),
    { minLength: 1, maxLength: b.maxLength },
  ).map((raw) => {
    let t = 0;
    return raw.map((j): JobSpec => {
      t += j.gap;
      const { user, account } = j as { user?: string; account?: string };
      return {
        submitTime: t,
        numNodes: j.numNodes,
        timeLimit: j.timeLimit,
        actualRunTime: Math.min(j.run, j.timeLimit),
        ...(user === undefined ? {} : { user }),
        ...(account === undefined ? {} : { account }),
      };
    });
  });
}

/** A job of {@link arbCpuGpuJobs}: replicas of cpu and gpu units, run for `run` seconds. */
export interface CpuGpuJob {
  readonly submitTime: number;
  readonly replicas: number;
  readonly cpu: number;
  readonly gpu: number;
  readonly run: number;
}

/** Bounds of {@link arbCpuGpuJobs}. */
export interface CpuGpuJobBounds {
  /** Latest submit time (the earliest is 0). */
  readonly maxSubmit: number;
  /** Longest run (the shortest is 0). */
  readonly maxRun: number;
  /** At most this many jobs (at least one). */
  readonly maxLength: number;
}

/**
 * Jobs asking for 1–4 replicas of 1–4 cpu and 0–1 gpu each, in submit
 * order; {@link cpuGpuSpec} makes one a job spec.
 */
export function arbCpuGpuJobs(b: CpuGpuJobBounds): fc.Arbitrary<CpuGpuJob[]> {
  return fc.array(
    fc.record({
      submitTime: fc.integer({ min: 0, max: b.maxSubmit }),
      replicas: fc.integer({ min: 1, max: 4 }),
      cpu: fc.integer({ min: 1, max: 4 }),
      gpu: fc.integer({ min: 0, max: 1 }),
      run: fc.integer({ min: 0, max: b.maxRun }),
    }),
    { minLength: 1, maxLength: b.maxLength },
  ).map((js) => js.sort((a, b) => a.submitTime - b.submitTime));
}

/** A {@link CpuGpuJob} as a job spec: no share of the node count, its limit its run time. */
export function cpuGpuSpec(j: CpuGpuJob): JobSpec {
  return {
    submitTime: j.submitTime,
    numNodes: 0,
    timeLimit: j.run,
    actualRunTime: j.run,
    demand: { replicas: j.replicas, perReplica: { cpu: j.cpu, gpu: j.gpu } },
  };
}
