// DR_EVT's `-r distribution` draws, operation for operation: a fresh
// libstdc++ distribution object per job (so the normal distribution's cached
// second value is never used) over the simulation's std::mt19937, with
// glibc's log and exp, so that a seed gives DR_EVT's run times to the bit.

import { glibcExp, glibcLog } from "./_glibc_math.ts";
import type { RngCursor } from "./rng.ts";

/**
 * libstdc++'s `std::normal_distribution<double>(mean, stddev)` on a fresh
 * object: Marsaglia's polar method on two canonical draws per attempt,
 * returning `y · mult` (the `x · mult` it would cache is dropped).
 */
export function normalDraw(g: RngCursor, mean: number, stddev: number): number {
  let x: number, y: number, r2: number;
  do {
    x = 2.0 * g.canonical() - 1.0;
    y = 2.0 * g.canonical() - 1.0;
    r2 = x * x + y * y;
  } while (r2 > 1.0 || r2 === 0.0);
  const mult = Math.sqrt((-2 * glibcLog(r2)) / r2);
  return y * mult * stddev + mean;
}

/** libstdc++'s `std::lognormal_distribution<double>(m, s)`: `exp(s · N(0, 1) + m)`. */
export function lognormalDraw(g: RngCursor, m: number, s: number): number {
  return glibcExp(s * normalDraw(g, 0, 1) + m);
}

/** libstdc++'s `std::uniform_real_distribution<double>(a, b)`: `u · (b − a) + a`. */
export function uniformDraw(g: RngCursor, a: number, b: number): number {
  return g.canonical() * (b - a) + a;
}

/**
 * One job's run time as DR_EVT's `sample_run_time` draws it for a time limit
 * `limit` > 0, scale `f` and spread `s`: normal N(L·f, L·s) clamped to [0, L];
 * lognormal with μ = ln(L·f), σ = s, capped at L; uniform on [L·f, L·(f+s)],
 * floored at 0 and not capped.
 */
export function drawRunTime(
  g: RngCursor,
  kind: "normal" | "lognormal" | "uniform",
  limit: number,
  f: number,
  s: number,
): number {
  let x: number;
  switch (kind) {
    case "normal":
      x = min(limit, max(0, normalDraw(g, limit * f, limit * s)));
      break;
    case "lognormal":
      x = min(limit, lognormalDraw(g, glibcLog(limit * f), s));
      break;
    case "uniform":
      x = max(0, uniformDraw(g, limit * f, limit * (f + s)));
      break;
  }
  // DR_EVT starts a job whose run time is not positive with its time limit.
  return x > 0 ? x : limit;
}

// std::min and std::max: the first argument unless the second compares
// strictly smaller (larger), so a NaN second argument gives the first.
function min(a: number, b: number): number {
  return b < a ? b : a;
}

function max(a: number, b: number): number {
  return a < b ? b : a;
}

// ---- DR_EVT's time arithmetic for drawn run times ---------------------------

/**
 * When a job that started at `begin` ends, as DR_EVT computes it for its
 * event queue and its row (`Job_Record::compute_end_time`): DR_EVT keeps a
 * time as whole seconds plus a `float` fraction, so the run time's fraction
 * is rounded to float and added to the start's fraction in float. With
 * whole-second times this is exact; drawn run times have fractions, and this
 * rounding shows in their schedules (used for `runTimeMode: "distribution"`).
 */
export function drawnEndTime(begin: number, runTime: number): number {
  const bSec = Math.trunc(begin);
  const rSec = Math.trunc(runTime);
  let sec = bSec + rSec;
  let frac = Math.fround(Math.fround(begin - bSec) + Math.fround(runTime - rSec));
  if (frac >= 1) {
    sec += 1;
    frac = Math.fround(frac - 1);
  }
  return sec + frac;
}
