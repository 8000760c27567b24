// evtsim's capacity rules (the default `capacitySemantics: "evtsim"`; DR_EVT's
// are in capacity_schedule_test.ts): a waiting job needing more nodes than
// the present capacity is held with `exceeds_capacity` while later jobs start
// (under every admission policy) and starts when the capacity comes back;
// free nodes are never negative; a cut drains running jobs (`drain`) or kills
// the latest started (`kill`); the statistics count held jobs. Properties on
// random traces and schedules, under every admission policy with every
// built-in picker, and a plain reference (tests/_reference_capacity.ts) for
// `none` and `easy`.

import fc from "fast-check";
import { capacityAt } from "../../fuzz/capacity_checks.ts";
import type { JobRow, JobSpec, Notice, SimulationConfig } from "../../core/types.ts";
import { Simulation } from "../../api/simulation.ts";
import {
  arbStreamingSchedule,
  arbTrace,
  runBatch,
  runInputs,
  type RunOutput,
  streamingInputs,
} from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { withServer } from "../_service_helpers.ts";
import { referenceCapacityRun } from "../_reference_capacity.ts";

const ADMISSIONS = [
  "none",
  "easy",
  "conservative",
  "easy_extra",
  "conservative_profile",
  "conservative_profile_no_compression",
] as const;
const PICKERS = ["builtin_fcfs", "sjf", "ljf", "fairshare"] as const;

const job = (submitTime: number, numNodes: number, timeLimit: number): JobSpec => ({
  submitTime,
  numNodes,
  timeLimit,
});

const starts = (out: RunOutput) =>
  out.jobRows.map((r) => `${r.jobId}:${r.beginTime}-${r.endTime}${r.outcome ? "!" : ""}`);

Deno.test("a job larger than the capacity now is held; later jobs start under every admission policy", () => {
  // 10 nodes cut to 6 at 0 and back at 100: job 0 (8 nodes) cannot run on 6.
  const trace = [job(0, 8, 10), job(0, 4, 50), job(1, 2, 500)];
  for (const backfillPolicy of ADMISSIONS) {
    const config: SimulationConfig = {
      totalNodes: 10,
      backfillPolicy,
      capacitySchedule: [{ time: 0, capacity: 6 }, { time: 100, capacity: 10 }],
      decisions: true,
    };
    const out = runBatch(config, trace);
    // Jobs 1 and 2 start at once (job 2 runs past the restore: no reservation
    // of the held job stops it); job 0 starts when 8 nodes are free again,
    // at 100 (job 1 ended at 50).
    assertEquals(starts(out), ["0:100-110", "1:0-50", "2:1-501"], backfillPolicy);
    const held = out.decisions.find((d) => d.type === "PEND" && d.jobId === 0);
    assertEquals(held?.type === "PEND" && held.reason.code, "exceeds_capacity", backfillPolicy);
    assertEquals(
      held?.type === "PEND" && held.reason.message,
      "needs 8 nodes, the machine has 6 now: held until the capacity comes back",
    );
    assertEquals(out.notices, [], backfillPolicy);
  }
});

Deno.test("DR_EVT's rule stays reachable: the too-large job blocks the queue", () => {
  const trace = [job(0, 8, 10), job(0, 4, 50), job(1, 2, 500)];
  const out = runBatch({
    totalNodes: 10,
    backfillPolicy: "none",
    capacitySchedule: [{ time: 0, capacity: 6 }, { time: 100, capacity: 10 }],
    capacitySemantics: "drevt",
  }, trace);
  assertEquals(starts(out), ["0:100-110", "1:110-160", "2:110-610"]);
});

Deno.test("drain: running jobs on cut nodes run on, no node is free until they end; rows never negative", () => {
  const config: SimulationConfig = {
    totalNodes: 10,
    capacitySchedule: [{ time: 10, capacity: 4 }],
  };
  const out = runBatch(config, [job(0, 6, 100), job(0, 4, 50), job(20, 2, 10)]);
  assertEquals(starts(out), ["0:0-100", "1:0-50", "2:100-110"]);
  const res = out.resourceRows.map((r) => `${r.time}:${r.freeNodes}/${r.allocatedNodes}`);
  // At 10: 10 in use on 4 nodes (6 owed, shown as 0 free); at 50 job 1's 4
  // nodes leave with it (still 0 free); at 100 the machine is 4 nodes.
  assertEquals(res, [
    "0:10/0",
    "0:4/6",
    "0:0/10",
    "10:0/10",
    "50:0/6",
    "100:4/0",
    "100:2/2",
    "110:4/0",
  ]);
  const drevt = runBatch({ ...config, capacitySemantics: "drevt" }, [
    job(0, 6, 100),
    job(0, 4, 50),
  ]);
  assert(drevt.resourceRows.some((r) => r.freeNodes === -6), "DR_EVT's rows show the nodes owed");
});

Deno.test("kill: the latest started jobs end at the cut as killed, until the rest fits", () => {
  const config: SimulationConfig = {
    totalNodes: 10,
    capacitySchedule: [{ time: 10, capacity: 5 }],
    onCapacityCut: "kill",
  };
  // Job 0 (4 nodes) at 0, job 1 (3) at 0, job 2 (3) at 5: 10 in use at the cut to 5.
  const out = runBatch(config, [job(0, 4, 100), job(0, 3, 100), job(5, 3, 100)]);
  // Job 2 (latest) goes first, then job 1 (same begin as job 0, higher id): 4 left.
  assertEquals(starts(out), ["0:0-100", "1:0-10!", "2:5-10!"]);
  assertEquals(out.jobRows[1].outcome, "killed");
  assertEquals(out.jobRows[1].exitStatus, 137);
  assertEquals(out.statistics.jobsKilled, 2);
  assertEquals(out.statistics.jobsCompleted, 1);
  assert(out.resourceRows.every((r) => r.freeNodes >= 0));
  assertEquals(out.resourceRows.at(-2), { time: 10, freeNodes: 1, allocatedNodes: 4 });
});

Deno.test("live capacity changes follow the same rules; the statistics count held jobs", () => {
  const sim = new Simulation({ totalNodes: 8, onCapacityCut: "kill" });
  sim.appendJobs([job(0, 6, 100), job(0, 2, 100)]);
  sim.advanceTo(0);
  sim.changeCapacity(4, 5);
  sim.appendJobs([job(6, 6, 10), job(6, 1, 10)]);
  sim.advanceTo(10);
  // At 5 job 1 (2 nodes, started with job 0, higher id) is killed first, then
  // job 0: 0 in use. At 6 job 2 (6 nodes) is held and job 3 starts.
  const s = sim.statistics();
  assertEquals([s.jobsKilled, s.jobsRunning, s.jobsHeld], [2, 1, 1]);
  sim.changeCapacity(8, 20);
  const end = sim.finish();
  assertEquals(end.statistics.jobsHeld, undefined); // none left: the field is absent
  assertEquals(end.jobs.map((r) => r.beginTime), [0, 0, 20, 6]);
});

// ---- properties ----------------------------------------------------------------

/** A schedule of cuts and restores on a machine of `total` nodes. */
function arbSchedule(total: number) {
  const change = fc.record({
    time: fc.integer({ min: 0, max: 300 }),
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

const arbCase = fc.integer({ min: 1, max: 12 }).chain((total) =>
  fc.record({
    total: fc.constant(total),
    schedule: arbSchedule(total),
    cut: fc.constantFrom("drain" as const, "kill" as const),
    trace: arbTrace({ totalNodes: total, allowOversized: true, maxJobs: 20, maxGap: 20 }),
  })
);

/** Nodes of the jobs running just after the starts at `t` (ends at `t` came first). */
function inUseAfterStarts(rows: readonly JobRow[], t: number): number {
  let n = 0;
  for (const r of rows) if (r.beginTime <= t && r.endTime > t) n += r.numNodes;
  return n;
}

function capacityViolations(
  out: RunOutput,
  config: SimulationConfig,
  trace: readonly JobSpec[],
): string[] {
  const schedule = config.capacitySchedule ?? [];
  const total = config.totalNodes;
  const bad: string[] = [];
  for (const r of out.resourceRows) {
    if (r.freeNodes < 0) bad.push(`row ${r.time}: ${r.freeNodes} free`);
  }
  // A start never takes nodes beyond the capacity in force (drained jobs may
  // hold more, but then nothing starts until they have left).
  for (const r of out.jobRows) {
    if (r.numNodes === 0 || r.outcome !== undefined && r.beginTime === r.endTime) continue;
    const cap = capacityAt(schedule, total, r.beginTime);
    const used = inUseAfterStarts(out.jobRows, r.beginTime);
    if (used > cap) {
      bad.push(`job ${r.jobId} starts at ${r.beginTime}: ${used} in use, capacity ${cap}`);
    }
  }
  // kill: right after a cut, what runs fits it.
  if (config.onCapacityCut === "kill") {
    for (const c of schedule) {
      const cap = capacityAt(schedule, total, c.time);
      const used = inUseAfterStarts(out.jobRows, c.time);
      if (used > cap) bad.push(`after the cut at ${c.time}: ${used} in use, capacity ${cap}`);
    }
  }
  // Every job that fits the final machine starts; the others are the held ones.
  const finalCap = schedule.length > 0 ? schedule[schedule.length - 1].capacity : total;
  const written = new Set(out.jobRows.map((r) => r.jobId));
  let held = 0;
  trace.forEach((j, id) => {
    if (j.numNodes > total || written.has(id)) return;
    if (j.numNodes <= finalCap) bad.push(`job ${id} (${j.numNodes} nodes) never started`);
    else held++;
  });
  if ((out.statistics.jobsHeld ?? 0) !== held) {
    bad.push(`jobsHeld ${out.statistics.jobsHeld} but ${held} never started`);
  }
  return bad;
}

const withoutClock = (n: Notice) => n.kind === "stranded" ? { ...n, time: 0 } : n;

// The causes of a stranded notice are tests/engine/stranded_causes_test.ts's
// subject; the plain reference gives the count and the capacity.
const withoutCauses = (n: Notice) => {
  if (n.kind !== "stranded") return n;
  const { causes: _causes, ...rest } = n as Notice & { causes?: unknown };
  return rest;
};

Deno.test("property: capacity never exceeded, free never negative, every job that fits starts, streaming ≡ batch (every policy, every picker)", () => {
  let held = 0;
  let killed = 0;
  let drained = 0;
  fc.assert(
    fc.property(
      arbCase,
      fc.constantFrom(...ADMISSIONS),
      fc.constantFrom(...PICKERS),
      (c, backfillPolicy, picker) => {
        const config: SimulationConfig = {
          totalNodes: c.total,
          backfillPolicy,
          picker,
          capacitySchedule: c.schedule,
          onCapacityCut: c.cut,
        };
        const out = runBatch(config, c.trace);
        assertEquals(capacityViolations(out, config, c.trace), []);
        if ((out.statistics.jobsHeld ?? 0) > 0) held++;
        if (out.statistics.jobsKilled > 0) killed++;
        if (out.resourceRows.some((r) => r.freeNodes === 0 && r.allocatedNodes > 0)) drained++;
        return true;
      },
    ),
    { seed: 2028, numRuns: 400 },
  );
  assert(
    held >= 20 && killed >= 20 && drained >= 20,
    `coverage: ${held} held, ${killed} killed, ${drained} drained`,
  );
});

Deno.test("property: streaming ≡ batch with held, drained and killed jobs", () => {
  fc.assert(
    fc.property(
      arbCase.chain((c) => arbStreamingSchedule(c.trace).map((plan) => ({ ...c, plan }))),
      fc.constantFrom(...ADMISSIONS),
      fc.constantFrom(...PICKERS),
      (c, backfillPolicy, picker) => {
        const config: SimulationConfig = {
          totalNodes: c.total,
          backfillPolicy,
          picker,
          capacitySchedule: c.schedule,
          onCapacityCut: c.cut,
        };
        const batch = runBatch(config, c.trace);
        const live = runInputs(config, streamingInputs(c.trace, c.plan));
        assertEquals(live.jobRows, batch.jobRows);
        assertEquals(live.resourceRows, batch.resourceRows);
        assertEquals(live.notices.map(withoutClock), batch.notices.map(withoutClock));
      },
    ),
    { seed: 2029, numRuns: 300 },
  );
});

Deno.test("property: the plain reference agrees with the engine (none and easy, 300 traces each)", () => {
  for (const backfillPolicy of ["none", "easy"] as const) {
    let held = 0;
    fc.assert(
      fc.property(arbCase, (c) => {
        const config = {
          totalNodes: c.total,
          backfillPolicy,
          capacitySchedule: c.schedule,
          onCapacityCut: c.cut,
        };
        const ref = referenceCapacityRun(config, c.trace);
        const out = runBatch(config, c.trace);
        assertEquals(out.jobRows, ref.jobRows);
        assertEquals(out.resourceRows, ref.resourceRows);
        assertEquals(out.notices.map(withoutCauses), ref.notices);
        assertEquals(out.statistics.jobsHeld ?? 0, ref.held);
        if (ref.held > 0) held++;
      }),
      { seed: 2030, numRuns: 300 },
    );
    assert(held >= 20, `coverage: ${held} runs with held jobs`);
  }
});

Deno.test("serve HTTP: a session takes onCapacityCut and capacitySemantics; its cuts follow them", async () => {
  await withServer({}, async (_server, api) => {
    const jobs = [job(0, 6, 100), job(0, 2, 100), job(6, 6, 10), job(6, 1, 10)];
    const { sessionId: id } = await api.ok("POST", "/sessions", {
      totalNodes: 8,
      onCapacityCut: "kill",
    });
    await api.ok("POST", `/sessions/${id}/jobs`, { jobs });
    await api.ok("POST", `/sessions/${id}/capacity`, { capacity: 4, time: 5 });
    const out = await api.ok("POST", `/sessions/${id}/finish`, {});
    // As the library's live test: both first jobs killed at 5, job 2 held, job 3 runs.
    assertEquals(out.jobs.map((r: JobRow) => [r.jobId, r.endTime, r.outcome ?? ""]), [
      [0, 5, "killed"],
      [1, 5, "killed"],
      [3, 16, ""],
    ]);
    assertEquals(out.statistics.jobsHeld, 1);
    const bad = await api.send("POST", "/sessions", { totalNodes: 8, capacitySemantics: "x" });
    assertEquals(bad.status, 400);
  });
});
