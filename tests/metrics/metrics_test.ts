// The metric set (core/metrics.ts) against a plain reference written with
// arrays and loops, on random schedules: percentiles are nearest rank
// (the smallest value with at least p % of the values at or below it).

import fc from "fast-check";
import {
  computeMetrics,
  METRIC_NAMES,
  MetricsCollector,
  type MetricsJob,
} from "../../core/metrics.ts";
import { assert, assertEquals } from "../_assert.ts";

const PARAMS = { seed: 29, numRuns: 300 };

// Nearest rank, by counting: the smallest value v with #{x <= v} >= p % of n.
function referencePercentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  for (const v of sorted) {
    let atOrBelow = 0;
    for (const x of sorted) if (x <= v) atOrBelow++;
    if (atOrBelow * 100 >= p * values.length) return v;
  }
  return sorted[sorted.length - 1];
}

function referenceStats(values: number[]): (number | null)[] {
  if (values.length === 0) return [null, null, null, null, null, null];
  let sum = 0;
  for (const v of values) sum += v;
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return [sum / values.length, ...[50, 90, 95, 99].map((p) => referencePercentile(values, p)), max];
}

function reference(
  jobs: MetricsJob[],
  nodes: number,
  tau: number,
  window: [number, number] | undefined,
): Record<string, number | null> {
  const measured: MetricsJob[] = [];
  let excluded = 0;
  for (const j of jobs) {
    if (j.outcome !== undefined) continue;
    if (window === undefined || (j.submitTime >= window[0] && j.submitTime < window[1])) {
      measured.push(j);
    } else excluded++;
  }
  const wait: number[] = [], response: number[] = [], slowdown: number[] = [], bsld: number[] = [];
  for (const j of measured) {
    const run = j.endTime - j.beginTime;
    wait.push(j.beginTime - j.submitTime);
    response.push(j.endTime - j.submitTime);
    slowdown.push((j.endTime - j.submitTime) / Math.max(run, 1));
    bsld.push(Math.max(1, (j.endTime - j.submitTime) / Math.max(run, tau)));
  }
  const out: Record<string, number | null> = { jobs: measured.length, jobs_excluded: excluded };
  out.bsld_tau_s = tau;
  const names = ["mean", "p50", "p90", "p95", "p99", "max"];
  for (
    const [metric, values, unit] of [
      ["wait", wait, "_s"],
      ["response", response, "_s"],
      ["slowdown", slowdown, ""],
      ["bsld", bsld, ""],
    ] as const
  ) {
    referenceStats(values).forEach((v, i) => out[`${metric}_${names[i]}${unit}`] = v);
  }
  if (measured.length === 0) {
    out.utilization = null;
    out.makespan_s = null;
    out.throughput_jobs_per_s = null;
    return out;
  }
  const first = Math.min(...measured.map((j) => j.submitTime));
  const last = Math.max(...measured.map((j) => j.endTime));
  // Node-seconds second by second would be exact only for whole seconds, so
  // clip each job to the span instead.
  let used = 0;
  for (const j of jobs) {
    const a = Math.max(j.beginTime, first), b = Math.min(j.endTime, last);
    if (b > a) used += j.numNodes * (b - a);
  }
  out.makespan_s = last - first;
  out.utilization = last > first ? used / (nodes * (last - first)) : null;
  out.throughput_jobs_per_s = last > first ? measured.length / (last - first) : null;
  return out;
}

const arbJob: fc.Arbitrary<MetricsJob> = fc.record({
  submit: fc.integer({ min: 0, max: 5000 }),
  wait: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })),
  run: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 4000 }),
    fc.double({ min: 0, max: 30, noNaN: true }),
  ),
  nodes: fc.integer({ min: 1, max: 16 }),
  outcome: fc.option(fc.constantFrom("cancelled", "failed", "killed"), { freq: 5 }),
}).map(({ submit, wait, run, nodes, outcome }) => ({
  submitTime: submit,
  beginTime: submit + wait,
  endTime: submit + wait + run,
  numNodes: nodes,
  ...(outcome === null ? {} : { outcome }),
}));

function close(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

Deno.test("metrics: every figure equals the plain reference on random schedules", () => {
  fc.assert(
    fc.property(
      fc.array(arbJob, { maxLength: 60, size: "max" }),
      fc.option(fc.double({ min: 0.5, max: 600, noNaN: true })),
      fc.option(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 5000 }))),
      (jobs, tau, w) => {
        const window: [number, number] | undefined = w === null ? undefined : [w[0], w[0] + w[1]];
        const got = computeMetrics(jobs, 16, {
          ...(tau === null ? {} : { bsldTau: tau }),
          ...(window === undefined ? {} : { measureWindow: window }),
        });
        const want = reference(jobs, 16, tau ?? 10, window);
        assertEquals(Object.keys(got), [...METRIC_NAMES]);
        assertEquals(Object.keys(got).sort(), Object.keys(want).sort());
        for (const k of METRIC_NAMES) {
          assert(close(got[k], want[k]), `${k}: ${got[k]} (module) vs ${want[k]} (reference)`);
        }
        // The collector gives the same set as the function.
        const c = new MetricsCollector();
        for (const j of jobs) c.add(j);
        assertEquals(c.metrics(16, { bsldTau: tau ?? 10, measureWindow: window }), got);
      },
    ),
    PARAMS,
  );
});

Deno.test("metrics: nearest-rank percentiles of 1..10 and excluded jobs are counted", () => {
  const jobs = Array.from({ length: 10 }, (_, i) => ({
    submitTime: i * 100,
    beginTime: i * 100 + i + 1,
    endTime: i * 100 + i + 11,
    numNodes: 1,
  }));
  const m = computeMetrics(jobs, 4);
  assertEquals([m.wait_p50_s, m.wait_p90_s, m.wait_p95_s, m.wait_p99_s], [5, 9, 10, 10]);
  const w = computeMetrics(jobs, 4, { measureWindow: [100, 500] });
  assertEquals([w.jobs, w.jobs_excluded, w.wait_max_s], [4, 6, 5]);
});

Deno.test("metrics: a capacity step function is integrated over the span", () => {
  const jobs = [{ submitTime: 0, beginTime: 0, endTime: 100, numNodes: 4 }];
  // 8 nodes for 50 s, then 4: 600 node-seconds available, 400 used.
  const m = computeMetrics(jobs, [{ time: 0, nodes: 8 }, { time: 50, nodes: 4 }]);
  assert(close(m.utilization, 400 / 600), String(m.utilization));
});
