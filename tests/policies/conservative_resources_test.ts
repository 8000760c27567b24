// Conservative backfilling on a multi-resource machine (a topology cluster
// as the resource model): DR_EVT's `conservative`, `conservative_profile`
// and `conservative_profile_no_compression` against the plain reference
// (tests/_reference_conservative_resources.ts) on random machines and
// traces with every built-in picker, and the properties that define them:
// no node resource oversubscribed, every job that fits the machine starts,
// the arrival guarantee, batch = streaming = resumed from a kept state, the
// whole-node answers on a one-node machine, and the pend reasons.

import fc from "fast-check";
import {
  advanceTo,
  appendJobs,
  type DecisionRow,
  finish,
  initialState,
  type JobRow,
  type JobSpec,
  type ResourceModel,
  runToCompletion,
  type SimState,
  Simulation,
  step,
  topologyCluster,
  type TopologyState,
} from "../../mod.ts";
import { conservativeProfilePolicy } from "../../schedulers/conservative_profile.ts";
import { assert, assertEquals } from "../_assert.ts";
import {
  referenceConservativeResources,
  type RefJob,
  type RefNode,
  type RefPicker,
  refPlace,
  type RefPolicy,
} from "../_reference_conservative_resources.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 300);
const POLICIES: RefPolicy[] = [
  "conservative_profile",
  "conservative_profile_no_compression",
  "conservative",
];
const PICKERS: RefPicker[] = ["builtin_fcfs", "sjf", "ljf", "fairshare"];
const RESOURCES = ["cpu", "gpu", "mem", "ssd"];

/** 1–4 node groups (a rack each) of 1–3 identical nodes, over 1–4 resources. */
const arbMachine: fc.Arbitrary<RefNode[]> = fc.integer({ min: 1, max: 4 }).chain((r) =>
  fc.array(
    fc.record({
      count: fc.integer({ min: 1, max: 2 }),
      capacity: fc.tuple(...RESOURCES.slice(0, r).map(() => fc.integer({ min: 0, max: 6 }))),
    }),
    { minLength: 1, maxLength: 4 },
  ).map((groups) => {
    const nodes: RefNode[] = [];
    groups.forEach((g, k) => {
      for (let i = 0; i < g.count; i++) {
        const capacity: Record<string, number> = {};
        g.capacity.forEach((v, c) => capacity[RESOURCES[c]] = v);
        nodes.push({ name: `g${k}n${i}`, rack: `rack${k % 2}`, capacity });
      }
    });
    return nodes;
  })
);

/** How run times relate to limits: equal, at most (over-estimates), or some past the limit (overruns). */
type Estimates = "exact" | "over" | "overruns";

/** Jobs sorted by submit; runs of at least 1. */
const arbJobs = (estimates: Estimates | boolean): fc.Arbitrary<RefJob[]> =>
  fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 2 }),
      limit: fc.integer({ min: 1, max: 30 }),
      cut: fc.integer({ min: 0, max: 39 }),
      replicas: fc.integer({ min: 1, max: 4 }),
      per: fc.tuple(...RESOURCES.map(() => fc.integer({ min: 0, max: 4 }))),
      rack: fc.boolean(),
    }),
    { minLength: 6, maxLength: 20 },
  ).map((list) => {
    let t = 0;
    return list.map((j) => {
      t += j.gap;
      const perReplica: Record<string, number> = {};
      j.per.forEach((v, c) => {
        if (v > 0) perReplica[RESOURCES[c]] = v;
      });
      if (Object.keys(perReplica).length === 0) perReplica.cpu = 1;
      const kind = estimates === true ? "exact" : estimates === false ? "over" : estimates;
      const run = kind === "exact"
        ? j.limit
        : kind === "over" || j.cut % 3 !== 0
        ? Math.max(1, j.limit - j.cut)
        : j.limit + 1 + (j.cut % 7);
      return { submit: t, limit: j.limit, run, replicas: j.replicas, perReplica, rack: j.rack };
    });
  });

const arbCase = fc.record({
  nodes: arbMachine,
  exact: fc.constantFrom<Estimates>("exact", "over", "overruns"),
  picker: fc.constantFrom(...PICKERS),
}).chain((c) =>
  arbJobs(c.exact).map((jobs) => {
    // Demands over the machine's resources only (cpu always is one).
    const has = new Set(c.nodes.flatMap((n) => Object.keys(n.capacity)));
    return {
      ...c,
      jobs: jobs.map((j) => ({
        ...j,
        perReplica: Object.fromEntries(Object.entries(j.perReplica).filter(([r]) => has.has(r))),
      })).map((j) => Object.keys(j.perReplica).length > 0 ? j : { ...j, perReplica: { cpu: 1 } }),
    };
  })
);

function model(nodes: readonly RefNode[]): ResourceModel {
  return topologyCluster(nodes.map((n) => ({
    name: n.name,
    topology: { rack: n.rack },
    capacity: n.capacity,
  })));
}

function specs(jobs: readonly RefJob[]): JobSpec[] {
  return jobs.map((j, i) => ({
    submitTime: j.submit,
    numNodes: 0,
    timeLimit: j.limit,
    actualRunTime: j.run,
    user: `u${i % 3}`,
    demand: {
      replicas: j.replicas,
      perReplica: j.perReplica,
      ...(j.rack ? { topologyKey: "rack" } : {}),
    },
  }));
}

function config(nodes: readonly RefNode[], policy: string, picker: string, decisions = true) {
  return {
    totalNodes: nodes.length,
    resourceModel: model(nodes),
    backfillPolicy: policy as "conservative",
    picker,
    decisions,
  };
}

function times(rows: readonly JobRow[], n: number): { begin: number[]; end: number[] } {
  const begin = Array.from({ length: n }, () => -1);
  const end = Array.from({ length: n }, () => -1);
  for (const r of rows) {
    begin[r.jobId] = r.beginTime;
    end[r.jobId] = r.endTime;
  }
  return { begin, end };
}

function batch(nodes: readonly RefNode[], jobs: readonly RefJob[], policy: string, picker: string) {
  const sim = new Simulation(config(nodes, policy, picker));
  sim.appendJobs(specs(jobs));
  return sim.finish();
}

/** Per node and resource, the units in use never exceed the capacity (from the DISPATCH rows). */
function assertNeverOversubscribed(
  nodes: readonly RefNode[],
  jobs: readonly RefJob[],
  decisions: readonly DecisionRow[],
  end: readonly number[],
): void {
  const placed = new Map<number, { nodeName: string; replicas: number }[]>();
  for (const d of decisions) if (d.type === "DISPATCH") placed.set(d.jobId, [...d.allocation!]);
  const instants = [...new Set(decisions.filter((d) => d.type === "DISPATCH").map((d) => d.time))];
  const begins = new Map<number, number>();
  for (const d of decisions) if (d.type === "DISPATCH") begins.set(d.jobId, d.time);
  for (const t of instants) {
    for (const n of nodes) {
      for (const r of RESOURCES) {
        let used = 0;
        for (const [id, alloc] of placed) {
          if (!(begins.get(id)! <= t && t < end[id])) continue;
          for (const a of alloc) {
            if (a.nodeName === n.name) used += (jobs[id].perReplica[r] ?? 0) * a.replicas;
          }
        }
        assert(used <= (n.capacity[r] ?? 0), `${n.name} ${r}: ${used} in use at ${t}`);
      }
    }
  }
}

for (const policy of POLICIES) {
  Deno.test(`${policy} on a resource model: the engine equals the plain reference on ${RUNS} random machines and traces, every picker`, () => {
    let waited = 0;
    fc.assert(
      fc.property(arbCase, ({ nodes, jobs, picker }) => {
        const out = batch(nodes, jobs, policy, picker);
        const engine = times(out.jobs, jobs.length);
        const ref = referenceConservativeResources(nodes, jobs, policy, picker);
        assertEquals(engine, ref);
        if (engine.begin.some((b, i) => b > jobs[i].submit)) waited++;
        // Properties: nothing oversubscribed; every job that fits the empty machine starts.
        assertNeverOversubscribed(nodes, jobs, out.decisions, engine.end);
        const empty = nodes.map((n) => ({ ...n.capacity }));
        jobs.forEach((j, i) => {
          assertEquals(engine.begin[i] >= 0, refPlace(nodes, empty, j) !== undefined, `job ${i}`);
        });
      }),
      { seed: 2801 + POLICIES.indexOf(policy), numRuns: RUNS },
    );
    assert(waited >= RUNS / 4, `only ${waited} of ${RUNS} traces made a job wait`);
  });
}

// With the arrival-order pickers, as on whole nodes: sjf/ljf end a session
// at its first start, and a reservation not offered in a session is given
// again in the next (it is not kept), so the guarantee is not theirs.
Deno.test("conservative_profile on a resource model: with exact estimates no job starts later than the reservation it got on arrival", () => {
  let reserved = 0;
  for (const compression of [true, false]) {
    fc.assert(
      fc.property(
        arbMachine,
        arbJobs(true),
        fc.constantFrom("builtin_fcfs", "fairshare"),
        (nodes, jobs, picker) => {
          const first = new Map<number, { start: number; now: number }>();
          const admission = conservativeProfilePolicy({
            compression,
            observe: (id, start, now) => {
              if (!first.has(id)) first.set(id, { start, now });
            },
          });
          const sim = new Simulation({ ...config(nodes, "none", picker), admission });
          sim.appendJobs(specs(jobs));
          for (const r of sim.finish().jobs) {
            const f = first.get(r.jobId)!;
            assertEquals(f.now, r.submitTime);
            assert(
              r.beginTime <= f.start,
              `job ${r.jobId} reserved ${f.start} began ${r.beginTime}`,
            );
            if (f.start > f.now) reserved++;
          }
        },
      ),
      { seed: 2810 + (compression ? 0 : 1), numRuns: RUNS },
    );
  }
  assert(reserved >= RUNS / 5, `only ${reserved} future reservations`);
});

/** Rows of a pure run from `s` to the end. */
function toEnd(s: SimState): JobRow[] {
  const a = step(s, runToCompletion());
  return [...a.rows.jobs, ...step(a.state, finish()).rows.jobs];
}

Deno.test("conservative family on a resource model: batch = streaming = resumed from a state kept at a random instant, decisions on or off", () => {
  fc.assert(
    fc.property(
      arbCase,
      fc.constantFrom(...POLICIES),
      fc.integer({ min: 0, max: 150 }),
      ({ nodes, jobs, picker }, policy, cut) => {
        const whole = batch(nodes, jobs, policy, picker);
        const rows = (list: readonly JobRow[]) => [...list].sort((a, b) => a.jobId - b.jobId);
        // Streaming: each job appended when the clock reaches its submit time.
        const sim = new Simulation(config(nodes, policy, picker, false));
        for (const j of specs(jobs)) {
          sim.runUntilExclusive(j.submitTime);
          sim.appendJobs([j]);
        }
        assertEquals(rows(sim.finish().jobs), rows(whole.jobs));
        // A state kept at `cut`, run to the end twice: it is a value.
        const quiet = config(nodes, policy, picker, cut % 2 === 0);
        let s = step(initialState(quiet), appendJobs(specs(jobs))).state;
        const a = step(s, advanceTo(cut));
        s = a.state;
        const first = [...a.rows.jobs, ...toEnd(s)];
        const again = [...a.rows.jobs, ...toEnd(s)];
        assertEquals(rows(first), rows(whole.jobs));
        assertEquals(rows(again), rows(whole.jobs));
      },
    ),
    { seed: 2812, numRuns: 150 },
  );
});

Deno.test("conservative family on a one-node, one-resource machine schedules as on whole nodes", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }),
      arbJobs(false),
      fc.constantFrom(...POLICIES),
      fc.constantFrom(...PICKERS),
      (units, list, policy, picker) => {
        const jobs: JobSpec[] = list.map((j) => ({
          submitTime: j.submit,
          numNodes: Math.min(units, j.replicas * 2),
          timeLimit: j.limit,
          actualRunTime: j.run,
        }));
        const whole = new Simulation({
          totalNodes: units,
          backfillPolicy: policy as "conservative",
          picker,
        });
        whole.appendJobs(jobs);
        const one = new Simulation({
          totalNodes: units,
          backfillPolicy: policy as "conservative",
          picker,
          resourceModel: topologyCluster([{ name: "machine", capacity: { units } }]),
        });
        one.appendJobs(jobs.map((j) => ({
          ...j,
          numNodes: 0,
          demand: { replicas: 1, perReplica: { units: j.numNodes } },
        })));
        const key = (rows: readonly JobRow[]) =>
          rows.map((r) => `${r.jobId}:${r.beginTime}`).join();
        assertEquals(key(one.finish().jobs), key(whole.finish().jobs));
      },
    ),
    { seed: 2813, numRuns: RUNS },
  );
});

Deno.test("conservative_profile on a resource model: a job that could start now pends naming the reservation it would delay", () => {
  const sim = new Simulation({
    ...config(
      [
        { name: "a", rack: "r", capacity: { cpu: 8, gpu: 2 } },
        { name: "b", rack: "r", capacity: { cpu: 8 } },
      ],
      "conservative_profile",
      "builtin_fcfs",
    ),
  });
  const job = (
    submitTime: number,
    replicas: number,
    cpu: number,
    gpu: number,
    timeLimit: number,
  ) => ({
    submitTime,
    numNodes: 0,
    timeLimit,
    demand: { replicas, perReplica: (gpu > 0 ? { cpu, gpu } : { cpu }) as Record<string, number> },
  });
  // Job 0 holds node a until 100; job 1 needs both nodes whole and is reserved them at 100;
  // job 2 could start on b now, but runs past 100 on b.
  sim.appendJobs([job(0, 1, 8, 0, 100), job(0, 2, 8, 0, 10), job(0, 1, 4, 0, 200)]);
  const out = sim.finish();
  const pend = out.decisions.find((d) => d.type === "PEND" && d.jobId === 2);
  assertEquals(
    pend?.type === "PEND" ? pend.reason.message : "",
    "would end at 200, not before the reservation at 100 of job 1",
  );
  assertEquals(out.jobs.map((r) => `${r.jobId}:${r.beginTime}`).join(), "0:0,1:100,2:110");
});

Deno.test("conservative_profile on a resource model without fits: refused in one line", () => {
  const base = topologyCluster([{ name: "a", capacity: { cpu: 1 } }]);
  const noFits: ResourceModel<TopologyState> = {
    name: "mine",
    initial: base.initial,
    place: (s, j) => base.place(s, j),
    beginEdit: (s) => base.beginEdit(s),
    allocate: (s, j, p) => base.allocate(s, j, p),
    release: (s, j) => base.release(s, j),
    endEdit: (s) => base.endEdit(s),
  };
  const sim = new Simulation({
    totalNodes: 1,
    resourceModel: noFits as ResourceModel,
    backfillPolicy: "conservative_profile",
  });
  sim.appendJobs([{
    submitTime: 0,
    numNodes: 0,
    timeLimit: 5,
    demand: { replicas: 1, perReplica: { cpu: 1 } },
  }]);
  let message = "";
  try {
    sim.finish();
  } catch (e) {
    message = (e as Error).message;
  }
  assertEquals(
    message,
    "backfill policy conservative_profile on resource model mine: the model has no fits(state, job, placement), which reservations need",
  );
});

Deno.test("conservative_profile on a resource model: a cancelled waiting job is dropped as on whole nodes, also after its record left the job store", () => {
  for (const compression of [true, false]) {
    const name = compression ? "conservative_profile" : "conservative_profile_no_compression";
    const machine = [
      { name: "a", rack: "r", capacity: { cpu: 8 } },
      { name: "b", rack: "r", capacity: { cpu: 8 } },
    ];
    const job = (replicas: number, timeLimit: number, actualRunTime: number) => ({
      submitTime: 0,
      numNodes: 0,
      timeLimit,
      actualRunTime,
      demand: { replicas, perReplica: { cpu: 8 } },
    });
    // Job 0 ends early at 3; job 1 (both nodes) is reserved at 50, after job 2 (backfilled on b).
    // Cancelled at 10, job 1's record leaves the store with job 0's (flushed after every end).
    const jobs = [job(1, 100, 3), job(2, 10, 10), job(1, 50, 50), job(2, 10, 10)];
    const sim = new Simulation({ ...config(machine, name, "builtin_fcfs"), jobFlushInterval: 1 });
    sim.appendJobs(jobs);
    sim.advanceTo(0);
    sim.cancelJob(1, 10);
    // The same on two whole nodes.
    const whole = new Simulation({ totalNodes: 2, backfillPolicy: name, jobFlushInterval: 1 });
    whole.appendJobs(jobs.map(({ demand, ...j }) => ({ ...j, numNodes: demand.replicas })));
    whole.advanceTo(0);
    whole.cancelJob(1, 10);
    const begins = (rows: readonly JobRow[]) =>
      rows.map((r) => `${r.jobId}:${r.beginTime}:${r.outcome ?? ""}`).join();
    const out = begins(sim.finish().jobs);
    assertEquals(out, begins(whole.finish().jobs));
    assert(out.includes("1:10:cancelled"), out);
  }
});
