// The breakdowns (per user, account, queue, size class), the fairness figures
// and --trim's selection (core/_metrics_breakdowns.ts) against a plain
// reference written with arrays and loops, on random schedules.

import fc from "fast-check";
import { computeMetrics, MetricsCollector, type MetricsJob } from "../../core/metrics.ts";
import { jainIndex, parseTrim, sizeClass } from "../../core/_metrics_breakdowns.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const PARAMS = { seed: 2929, numRuns: 300 };

// Nearest rank, by counting: the smallest value v with #{x <= v} >= p % of n.
function referencePercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  for (const v of sorted) {
    let atOrBelow = 0;
    for (const x of sorted) if (x <= v) atOrBelow++;
    if (atOrBelow * 100 >= p * values.length) return v;
  }
  return sorted[sorted.length - 1];
}

// The measured jobs: ran to their end, then the window or the trim (by
// rank in submit order, ties in input order, found by counting).
function referenceMeasured(
  jobs: MetricsJob[],
  window: [number, number] | undefined,
  trim: [number, number] | undefined,
): MetricsJob[] {
  const done = jobs.filter((j) => j.outcome === undefined);
  if (trim !== undefined) {
    const n = done.length;
    const count = (t: number) => t < 1 ? Math.floor(t * n) : t;
    return done.filter((j, i) => {
      let rank = 0; // jobs before this one in submit order
      done.forEach((k, h) => {
        if (k.submitTime < j.submitTime || (k.submitTime === j.submitTime && h < i)) rank++;
      });
      return rank >= count(trim[0]) && rank < n - count(trim[1]);
    });
  }
  if (window === undefined) return done;
  return done.filter((j) => j.submitTime >= window[0] && j.submitTime < window[1]);
}

interface RefGroup {
  key: string | null;
  jobs: number;
  wait_mean_s: number;
  wait_p95_s: number;
  bsld_mean: number;
}

function referenceGroups(
  measured: MetricsJob[],
  keyOf: (j: MetricsJob) => string | null,
  tau: number,
): RefGroup[] {
  const keys: (string | null)[] = [];
  for (const j of measured) if (!keys.includes(keyOf(j))) keys.push(keyOf(j));
  return keys.map((key) => {
    const g = measured.filter((j) => keyOf(j) === key);
    const waits = g.map((j) => j.beginTime - j.submitTime);
    const bslds = g.map((j) =>
      Math.max(1, (j.endTime - j.submitTime) / Math.max(j.endTime - j.beginTime, tau))
    );
    return {
      key,
      jobs: g.length,
      wait_mean_s: waits.reduce((a, b) => a + b, 0) / g.length,
      wait_p95_s: referencePercentile(waits, 95),
      bsld_mean: bslds.reduce((a, b) => a + b, 0) / g.length,
    };
  });
}

function referenceSize(nodes: number): string {
  for (let k = 0; k < 40; k++) {
    if (nodes >= 2 ** k && nodes <= 2 ** (k + 1) - 1) {
      return k === 0 ? "1" : `${2 ** k}-${2 ** (k + 1) - 1}`;
    }
  }
  return "0";
}

const USERS = ["7", "12", "ann", "bob"];

const arbJob: fc.Arbitrary<MetricsJob> = fc.record({
  submit: fc.integer({ min: 0, max: 5000 }),
  wait: fc.integer({ min: 0, max: 3000 }),
  run: fc.oneof(fc.integer({ min: 0, max: 4000 }), fc.double({ min: 0, max: 30, noNaN: true })),
  nodes: fc.integer({ min: 1, max: 70 }),
  outcome: fc.option(fc.constantFrom("cancelled", "failed"), { freq: 6 }),
  user: fc.option(fc.constantFrom(...USERS), { freq: 8 }),
  account: fc.option(fc.constantFrom("g1", "g2"), { freq: 2 }),
  queue: fc.option(fc.constantFrom("batch", "debug"), { freq: 4 }),
}).map((r) => ({
  submitTime: r.submit,
  beginTime: r.submit + r.wait,
  endTime: r.submit + r.wait + r.run,
  numNodes: r.nodes,
  ...(r.outcome === null ? {} : { outcome: r.outcome }),
  ...(r.user === null ? {} : { user: r.user }),
  ...(r.account === null ? {} : { account: r.account }),
  ...(r.queue === null ? {} : { queue: r.queue }),
}));

function close(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function sameGroups(got: readonly RefGroup[], want: RefGroup[], what: string): void {
  // The module's order is its own (documented); compare as sets by key.
  assertEquals(got.map((g) => g.key).sort(), want.map((g) => g.key).sort(), what);
  for (const w of want) {
    const g = got.find((x) => x.key === w.key)!;
    assertEquals(g.jobs, w.jobs, `${what} ${w.key}`);
    for (const k of ["wait_mean_s", "wait_p95_s", "bsld_mean"] as const) {
      assert(close(g[k], w[k]), `${what} ${w.key} ${k}: ${g[k]} vs ${w[k]}`);
    }
  }
}

Deno.test("breakdowns: every group and the fairness figures equal the plain reference", () => {
  fc.assert(
    fc.property(
      fc.array(arbJob, { maxLength: 60, size: "max" }),
      fc.option(fc.double({ min: 0.5, max: 600, noNaN: true })),
      fc.oneof(
        fc.constant(undefined),
        fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 5000 }))
          .map(([a, b]) => ({ window: [a, a + b] as [number, number] })),
        fc.tuple(
          fc.oneof(fc.integer({ min: 0, max: 70 }), fc.double({ min: 0, max: 0.99, noNaN: true })),
          fc.oneof(fc.integer({ min: 0, max: 70 }), fc.double({ min: 0, max: 0.99, noNaN: true })),
        ).map((t) => ({ trim: t as [number, number] })),
      ),
      (jobs, tau, sel) => {
        const window = sel !== undefined && "window" in sel ? sel.window : undefined;
        const trim = sel !== undefined && "trim" in sel ? sel.trim : undefined;
        const options = {
          ...(tau === null ? {} : { bsldTau: tau }),
          ...(window === undefined ? {} : { measureWindow: window }),
          ...(trim === undefined ? {} : { trim }),
        };
        const c = new MetricsCollector();
        for (const j of jobs) c.add(j);
        const { breakdowns, fairness } = c.breakdowns(options);
        const measured = referenceMeasured(jobs, window, trim);
        const t = tau ?? 10;
        const metrics = computeMetrics(jobs, 16, options);
        assertEquals(metrics.jobs, measured.length);
        assertEquals(
          metrics.jobs + metrics.jobs_excluded,
          jobs.filter((j) => j.outcome === undefined).length,
        );
        for (const label of ["user", "account", "queue"] as const) {
          const any = measured.some((j) => j[label] !== undefined);
          const want = any ? referenceGroups(measured, (j) => j[label] ?? null, t) : [];
          sameGroups(breakdowns[label], want, label);
        }
        sameGroups(
          breakdowns.size,
          referenceGroups(measured, (j) => referenceSize(j.numNodes), t),
          "size",
        );
        // Each breakdown covers every measured job once.
        for (const b of Object.values(breakdowns)) {
          if (b.length > 0) {
            assertEquals(
              b.reduce((s: number, g: { jobs: number }) => s + g.jobs, 0),
              measured.length,
            );
          }
        }
        const users = referenceGroups(measured, (j) => j.user ?? null, t).filter((g) =>
          g.key !== null
        );
        assertEquals(fairness.users, users.length);
        if (users.length === 0) {
          assertEquals(fairness, {
            users: 0,
            jain_bsld: null,
            worst_user: null,
            worst_user_bsld_mean: null,
          });
        } else {
          const xs = users.map((u) => u.bsld_mean);
          const sum = xs.reduce((a, b) => a + b, 0);
          const squares = xs.reduce((a, b) => a + b * b, 0);
          assert(close(fairness.jain_bsld, (sum * sum) / (xs.length * squares)), "jain");
          const worst = Math.max(...xs);
          assert(close(fairness.worst_user_bsld_mean, worst), "worst");
          assert(
            close(users.find((u) => u.key === fairness.worst_user)!.bsld_mean, worst),
            "worst user",
          );
        }
      },
    ),
    PARAMS,
  );
});

Deno.test("breakdowns: size classes are powers of two; keys in order, numbers by value", () => {
  assertEquals([1, 2, 3, 4, 7, 8, 15, 16, 100].map(sizeClass), [
    "1",
    "2-3",
    "2-3",
    "4-7",
    "4-7",
    "8-15",
    "8-15",
    "16-31",
    "64-127",
  ]);
  const c = new MetricsCollector();
  for (const user of ["12", "ann", "7", undefined]) {
    c.add({ submitTime: 0, beginTime: 0, endTime: 10, numNodes: 1 }, user ? { user } : {});
  }
  assertEquals(c.breakdowns().breakdowns.user.map((g) => g.key), ["7", "12", "ann", null]);
  assertEquals(c.breakdowns().breakdowns.account, []);
  for (const nodes of [200, 3, 1, 20, 9]) {
    c.add({ submitTime: 0, beginTime: 0, endTime: 10, numNodes: nodes });
  }
  assertEquals(c.breakdowns().breakdowns.size.map((g) => g.key), [
    "1",
    "2-3",
    "8-15",
    "16-31",
    "128-255",
  ]);
  assertEquals(jainIndex([]), null);
  assertEquals(jainIndex([1, 3]), 0.8);
});

Deno.test("trim: counts and fractions exclude the first and last jobs by submit time, counted", () => {
  // Submitted in reverse input order: trimming goes by submit time.
  const jobs = Array.from({ length: 10 }, (_, i) => ({
    submitTime: (9 - i) * 100,
    beginTime: (9 - i) * 100,
    endTime: (9 - i) * 100 + 50,
    numNodes: 1,
  }));
  const m = computeMetrics(jobs, 4, { trim: [2, 3] });
  assertEquals([m.jobs, m.jobs_excluded], [5, 5]);
  assertEquals(m.makespan_s, 650 - 200); // jobs submitted at 200 .. 600 remain
  const f = computeMetrics(jobs, 4, { trim: [0.1, 0.25] });
  assertEquals([f.jobs, f.jobs_excluded], [7, 3]); // floor(1) + floor(2.5)
  assertEquals(computeMetrics(jobs, 4, { trim: [20, 0] }).jobs, 0);
  assertEquals(parseTrim("0.1,500"), [0.1, 500]);
  assertThrows(() => parseTrim("1.5,0"), "--trim: expected WARMUP,COOLDOWN");
  assertThrows(() => parseTrim("0.1"), "--trim: expected");
  assertThrows(
    () => computeMetrics(jobs, 4, { trim: [1, 1], measureWindow: [0, 1] }),
    "measure_window or trim",
  );
});
