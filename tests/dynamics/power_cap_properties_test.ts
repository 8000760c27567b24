// Properties of the power cap (docs/power.md) over random traces, caps
// (constant, scheduled, both), node watts and every registered admission
// policy (and a policy of a user's own): no start takes the machine's draw
// over the cap, checked from the job rows alone; the energy (the integral of
// the rows' `power`) equals the jobs' and nodes' own sum; a cap above any
// possible draw changes nothing; batch ≡ streaming ≡ a JSON snapshot at a
// random input ≡ record and re-simulate from every snapshot of the log.

import fc from "fast-check";
import { Resimulation } from "../../api/resimulation.ts";
import { parseLog } from "../../io/replay_reader.ts";
import {
  type Admission,
  type DecisionRow,
  defaultRegistry,
  initialState,
  type Input,
  type JobRow,
  type JobSpec,
  loadSnapshot,
  type ResourceRow,
  saveSnapshot,
  Simulation,
  type SimulationConfig,
  step,
  topologyCluster,
  withPolicies,
} from "../../mod.ts";
import { arbStreamingSchedule, streamingInputs } from "../../testing/mod.ts";
import { PowerEnergy } from "../../cli/_power_options.ts";
import { capAt } from "../../core/_power.ts";
import { resolveConfig } from "../../core/config.ts";
import { applyToSimulation } from "../_recording_helpers.ts";
import { batchInputs } from "../../testing/streaming.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 200);
const SEED = 3030;

// A user's own admission policy: every offered job that fits starts, in the
// picker's order (a greedy first fit), so a start may come after a refused one.
const firstFit: Admission = {
  name: "first_fit",
  runSession(s) {
    for (let j = s.next(); j !== undefined; j = s.next()) {
      if (s.place(j).placement !== undefined) s.dispatch(j, false);
      else s.pend(j, { code: "insufficient_nodes", message: "does not fit" });
    }
  },
};
const REGISTRY = withPolicies({ admissions: [firstFit] });
const ADMISSIONS = [...defaultRegistry().admissions.keys(), "first_fit"];

interface RunRows {
  jobRows: JobRow[];
  resourceRows: ResourceRow[];
  decisions: DecisionRow[];
  notices: unknown[];
  statistics: unknown;
}

// Steps `inputs` with the test's registry, through a JSON snapshot before input `cut` (-1: never).
function runInputs(config: SimulationConfig, inputs: readonly Input[], cut = -1): RunRows {
  let s = initialState(config, { registry: REGISTRY });
  const out: RunRows = { jobRows: [], resourceRows: [], decisions: [], notices: [], statistics: 0 };
  inputs.forEach((input, i) => {
    if (i === cut) {
      s = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(s))), { registry: REGISTRY });
    }
    const r = step(s, input);
    out.jobRows.push(...r.rows.jobs);
    out.resourceRows.push(...r.rows.resources);
    out.decisions.push(...r.rows.decisions);
    out.notices.push(...r.rows.notices);
    s = r.state;
  });
  out.statistics = s.stats;
  return out;
}

const runBatch = (config: SimulationConfig, trace: readonly JobSpec[]) =>
  runInputs(config, batchInputs(trace));

interface Case {
  readonly config: SimulationConfig;
  readonly trace: JobSpec[];
}

// Whole watts and seconds: every sum is exact, so the checks compare with ===.
// Run times of at least 1 s: no job starts and ends at one instant, so the
// jobs running just after the starts at t are those with begin ≤ t < end.
const arbCase: fc.Arbitrary<Case> = fc.record({
  totalNodes: fc.integer({ min: 1, max: 8 }),
  admission: fc.constantFrom(...ADMISSIONS),
  picker: fc.constantFrom("builtin_fcfs", "sjf"),
  idleWatts: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  busyWatts: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
  powerCap: fc.option(fc.integer({ min: 0, max: 160 }), { nil: undefined }),
  schedule: fc.option(
    fc.array(
      fc.record({ time: fc.integer({ min: 0, max: 90 }), watts: fc.integer({ min: 0, max: 160 }) }),
      {
        maxLength: 3,
      },
    ),
    { nil: undefined },
  ),
  jobs: fc.array(
    fc.record({
      submitTime: fc.integer({ min: 0, max: 60 }),
      nodes: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      timeLimit: fc.integer({ min: 1, max: 40 }),
      run: fc.integer({ min: 1, max: 40 }),
      power: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 12 },
  ),
}).map((r) => {
  const config: SimulationConfig = {
    totalNodes: r.totalNodes,
    backfillPolicy: r.admission,
    picker: r.picker,
    decisions: true,
    ...(r.idleWatts === undefined ? {} : { idleWatts: r.idleWatts }),
    ...(r.busyWatts === undefined ? {} : { busyWatts: r.busyWatts }),
    ...(r.powerCap === undefined ? {} : { powerCap: r.powerCap }),
    ...(r.schedule === undefined
      ? {}
      : { powerCapSchedule: [...r.schedule].sort((a, b) => a.time - b.time) }),
  } as SimulationConfig;
  const trace = r.jobs.map((j): JobSpec => ({
    submitTime: j.submitTime,
    numNodes: Math.floor(j.nodes * (r.totalNodes + 1)),
    timeLimit: j.timeLimit,
    actualRunTime: Math.min(j.run, j.timeLimit),
    ...(j.power === undefined ? {} : { power: j.power }),
  })).sort((a, b) => a.submitTime - b.submitTime);
  return { config, trace };
});

// The machine's draw with `running` on it, from the job specs alone.
function drawOf(c: Case, running: readonly JobRow[]): number {
  const idle = c.config.idleWatts ?? 0, busy = c.config.busyWatts ?? 0;
  const nodes = running.reduce((n, j) => n + j.numNodes, 0);
  return idle * (c.config.totalNodes - nodes) + busy * nodes +
    running.reduce((p, j) => p + (c.trace[j.jobId].power ?? 0), 0);
}

Deno.test("power cap: no start takes the draw over the cap (from the job rows), under every admission policy", () => {
  let starts = 0, refused = 0;
  fc.assert(
    fc.property(arbCase, (c) => {
      const out = runBatch(c.config, c.trace);
      const cap = (t: number) => capAt(resolveConfig(c.config), t);
      for (const t of new Set(out.jobRows.map((j) => j.beginTime))) {
        const running = out.jobRows.filter((j) => j.beginTime <= t && t < j.endTime);
        const draw = drawOf(c, running);
        assert(draw <= cap(t), `draw ${draw} W over the cap ${cap(t)} W at ${t}`);
        starts++;
      }
      // The resource rows' power is the same draw, row by row.
      for (const r of out.resourceRows) {
        assert(r.power !== undefined, "every row has a power");
      }
      refused += out.decisions.filter((d) => d.type === "PEND" && d.reason.code === "power_cap")
        .length;
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert(starts > RUNS && refused > RUNS / 4, `only ${starts} start instants, ${refused} refusals`);
});

Deno.test("power cap: while any job runs, the draw is never over the cap in effect at that instant, a scheduled lowering included", () => {
  let instants = 0, later = 0;
  fc.assert(
    fc.property(arbCase, (given) => {
      // Busy nodes draw at least what idle ones do: an end never raises the draw.
      const idle = given.config.idleWatts ?? 0;
      const busy = Math.max(given.config.busyWatts ?? 0, idle);
      const c = { ...given, config: { ...given.config, busyWatts: busy } };
      const out = runBatch(c.config, c.trace);
      const cap = (t: number) => capAt(resolveConfig(c.config), t);
      // Between these instants the cap is constant and the draw only falls.
      const times = new Set([
        ...out.jobRows.map((j) => j.beginTime),
        ...(c.config.powerCapSchedule ?? []).map((x) => x.time),
      ]);
      for (const t of times) {
        const running = out.jobRows.filter((j) => j.beginTime <= t && t < j.endTime);
        if (running.length === 0) continue;
        const draw = drawOf(c, running);
        assert(draw <= cap(t), `draw ${draw} W over the cap ${cap(t)} W at ${t}`);
        instants++;
      }
      later += out.decisions.filter((d) =>
        d.type === "PEND" && d.reason.code === "power_cap" && d.reason.message.includes("from")
      ).length;
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert(instants > RUNS && later > 0, `only ${instants} instants, ${later} later-cap refusals`);
});

Deno.test("power cap: the energy (integral of the power column) is the nodes' and the jobs' own sum", () => {
  fc.assert(
    fc.property(arbCase, (given) => {
      // A power model in every case (node watts of 0 are one), so rows carry the draw.
      const c = { ...given, config: { ...given.config, idleWatts: given.config.idleWatts ?? 0 } };
      const out = runBatch(c.config, c.trace);
      const e = new PowerEnergy();
      e.jobs(c.trace);
      e.resources(out.resourceRows);
      e.written(out.jobRows);
      const rows = out.resourceRows;
      const idle = c.config.idleWatts ?? 0, busy = c.config.busyWatts ?? 0;
      const span = rows[rows.length - 1].time - rows[0].time;
      let expected = idle * c.config.totalNodes * span;
      let jobsOwn = 0;
      for (const j of out.jobRows) {
        const p = c.trace[j.jobId].power ?? 0;
        expected += ((busy - idle) * j.numNodes + p) * (j.endTime - j.beginTime);
        jobsOwn += p * (j.endTime - j.beginTime);
      }
      const m = e.energy();
      assertEquals(m.total, expected);
      assertEquals(m.jobs, out.jobRows.length);
      if (m.jobs > 0) assertEquals(m.per_job_mean, jobsOwn / m.jobs);
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

Deno.test("power cap: a cap above any possible draw changes no row but adds the power", () => {
  fc.assert(
    fc.property(arbCase, (c) => {
      const { powerCap: _, powerCapSchedule: __, idleWatts: ___, busyWatts: ____, ...plain } =
        c.config;
      const most = (c.config.idleWatts ?? 0) * c.config.totalNodes +
        (c.config.busyWatts ?? 0) * c.config.totalNodes +
        c.trace.reduce((p, j) => p + (j.power ?? 0), 0);
      const capped = runBatch({ ...plain, powerCap: most + 1, busyWatts: 1 }, c.trace);
      const free = runBatch(plain, c.trace);
      assertEquals(capped.jobRows, free.jobRows);
      assertEquals(capped.decisions, free.decisions);
      assertEquals(capped.notices, free.notices);
      assertEquals(capped.statistics, free.statistics);
      assertEquals(capped.resourceRows.map(({ power: _, ...r }) => r), free.resourceRows);
      assert(free.resourceRows.every((r) => r.power === undefined), "no power without a model");
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

Deno.test("power cap: with no decisions recorded (EASY's indexed search, stopped at a refusal) the same run as the walk", () => {
  fc.assert(
    fc.property(arbCase, (c) => {
      const walked = runBatch(c.config, c.trace);
      const searched = runBatch({ ...c.config, decisions: false }, c.trace);
      assertEquals(searched.jobRows, walked.jobRows);
      assertEquals(searched.resourceRows, walked.resourceRows);
      assertEquals(searched.statistics, walked.statistics);
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

Deno.test("power cap: batch ≡ streaming ≡ a JSON snapshot at a random input", () => {
  fc.assert(
    fc.property(
      arbCase.chain((c) =>
        fc.tuple(fc.constant(c), arbStreamingSchedule(c.trace), fc.nat({ max: 40 }))
      ),
      ([c, plan, cutAt]) => {
        const batch = runBatch(c.config, c.trace);
        const inputs = streamingInputs(c.trace, plan);
        const live = runInputs(c.config, inputs);
        assertEquals(live.jobRows, batch.jobRows);
        assertEquals(live.resourceRows, batch.resourceRows);
        const cut = cutAt % (inputs.length + 1);
        const through = runInputs(c.config, inputs, cut);
        assertEquals(through.jobRows, batch.jobRows);
        assertEquals(through.resourceRows, batch.resourceRows);
        assertEquals(decided(through.decisions), decided(batch.decisions));
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});

// A streaming run's rounds are numbered by its own steps; what was decided must agree.
const keep = (d: DecisionRow) => d.type !== "PEND" || d.reason.code === "power_cap";
function decided(rows: readonly DecisionRow[]): string[] {
  return rows.filter(keep).map((d) =>
    `${d.type} ${d.time} ${d.jobId} ${d.type === "PEND" ? d.reason.code : ""}`
  );
}

Deno.test("power cap: recorded and re-simulated from the start and from every snapshot, zero mismatches", () => {
  let snapshots = 0;
  fc.assert(
    fc.property(arbCase, (c) => {
      let text = "";
      const jobs: JobRow[] = [];
      const resources: ResourceRow[] = [];
      const sim = new Simulation({ ...c.config, registry: REGISTRY }, {
        onJobRow: (r) => void jobs.push(r),
        onResourceRow: (r) => void resources.push(r),
      });
      sim.startRecording({ write: (t) => void (text += t) }, { snapshotInterval: 1 });
      for (const input of batchInputs(c.trace)) applyToSimulation(sim, input);
      sim.stopRecording();
      const log = parseLog(text, "cap.replay");
      const starts = [
        undefined,
        ...log.entries.filter((e) => e.type === "snapshot").map((e) => e.seq),
      ];
      for (const startSeq of starts) {
        const re = new Resimulation({
          log,
          registry: REGISTRY,
          verify: true,
          ...(startSeq === undefined ? {} : { startSeq }),
        });
        const got: JobRow[] = [];
        for (let r = re.step(); r !== undefined; r = re.step()) got.push(...r.rows.jobs);
        assertEquals(re.mismatches, []);
        if (startSeq === undefined) assertEquals(got, jobs);
        else snapshots++;
      }
      assert(resources.every((r) => r.power !== undefined), "live rows carry the power");
    }),
    { seed: SEED, numRuns: Math.ceil(RUNS / 2) },
  );
  assert(snapshots > RUNS / 2, `only ${snapshots} snapshots re-simulated from`);
});

Deno.test("power cap: decisions agree between batch and streaming (what was started and refused, when)", () => {
  fc.assert(
    fc.property(
      arbCase.chain((c) => fc.tuple(fc.constant(c), arbStreamingSchedule(c.trace))),
      ([c, plan]) => {
        const batch = runBatch(c.config, c.trace);
        const live = runInputs(c.config, streamingInputs(c.trace, plan));
        assertEquals(decided(live.decisions), decided(batch.decisions));
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});

Deno.test("power cap: a strict FCFS (none) is never overtaken for power: the jobs start in submit order", () => {
  let refused = 0;
  fc.assert(
    fc.property(arbCase, (given) => {
      const c = {
        ...given,
        config: { ...given.config, backfillPolicy: "none", picker: "builtin_fcfs" },
      };
      const out = runBatch(c.config, c.trace);
      const begins = [...out.jobRows].sort((a, b) => a.jobId - b.jobId).map((j) => j.beginTime);
      for (let i = 1; i < begins.length; i++) {
        assert(begins[i - 1] <= begins[i], `job started before an earlier one: ${begins}`);
      }
      refused += out.decisions.filter((d) => d.type === "PEND" && d.reason.code === "power_cap")
        .length;
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert(refused > RUNS / 4, `only ${refused} refusals`);
});

// A machine of nodes with their own watts (nodeWatts over a topology cluster).
const arbMachineCase = fc.record({
  nodes: fc.array(
    fc.record({
      cores: fc.integer({ min: 1, max: 4 }),
      idle: fc.integer({ min: 0, max: 8 }),
      busy: fc.integer({ min: 0, max: 40 }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  admission: fc.constantFrom(...ADMISSIONS),
  cap: fc.integer({ min: 0, max: 160 }),
  jobs: fc.array(
    fc.record({
      submitTime: fc.integer({ min: 0, max: 40 }),
      replicas: fc.integer({ min: 1, max: 3 }),
      cores: fc.integer({ min: 1, max: 4 }),
      limit: fc.integer({ min: 1, max: 30 }),
      power: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 10 },
  ),
});

Deno.test("power cap on a machine with node watts: no start takes the draw over the cap (from the DISPATCH placements)", () => {
  let starts = 0;
  fc.assert(
    fc.property(arbMachineCase, (m) => {
      const names = m.nodes.map((_, i) => `n${i}`);
      const config: SimulationConfig = {
        totalNodes: m.nodes.length,
        backfillPolicy: m.admission,
        decisions: true,
        resourceModel: topologyCluster(
          m.nodes.map((n, i) => ({ name: names[i], capacity: { cores: n.cores } })),
        ),
        nodeWatts: m.nodes.map((n) => ({ nodes: 1, idleWatts: n.idle, busyWatts: n.busy })),
        powerCap: m.cap,
      };
      const trace: JobSpec[] = m.jobs.map((j) => ({
        submitTime: j.submitTime,
        numNodes: 0,
        timeLimit: j.limit,
        actualRunTime: j.limit,
        demand: { replicas: j.replicas, perReplica: { cores: j.cores } },
        ...(j.power === undefined ? {} : { power: j.power }),
      })).sort((a, b) => a.submitTime - b.submitTime);
      const out = runBatch(config, trace);
      const where = new Map<number, string[]>();
      for (const d of out.decisions) {
        if (d.type === "DISPATCH") where.set(d.jobId, (d.allocation ?? []).map((a) => a.nodeName));
      }
      for (const t of new Set(out.jobRows.map((j) => j.beginTime))) {
        const running = out.jobRows.filter((j) => j.beginTime <= t && t < j.endTime);
        const busy = new Set(running.flatMap((j) => where.get(j.jobId) ?? []));
        let draw = 0;
        names.forEach((n, i) => draw += busy.has(n) ? m.nodes[i].busy : m.nodes[i].idle);
        for (const j of running) draw += trace[j.jobId].power ?? 0;
        assert(draw <= m.cap, `draw ${draw} W over the cap ${m.cap} W at ${t}`);
        starts++;
      }
      // Through a JSON snapshot halfway: the same rows.
      const inputs = batchInputs(trace);
      const through = runInputs(config, inputs, 1);
      assertEquals(through.jobRows, out.jobRows);
      assertEquals(through.resourceRows, out.resourceRows);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert(starts > RUNS / 2, `only ${starts} start instants`);
});

// Batch jobs from 0 holding the machine, urgent ones arriving later that may
// preempt them: the cap must never refuse a preemptor once its victims left.
const arbPreemptive = fc.record({
  totalNodes: fc.integer({ min: 2, max: 6 }),
  admission: fc.constantFrom(...ADMISSIONS),
  mode: fc.constantFrom("requeue" as const, "cancel" as const, "suspend" as const),
  idleWatts: fc.integer({ min: 0, max: 6 }),
  busyWatts: fc.integer({ min: 0, max: 12 }),
  powerCap: fc.integer({ min: 0, max: 160 }),
  jobs: fc.array(
    fc.record({
      urgent: fc.boolean(),
      submitTime: fc.integer({ min: 0, max: 30 }),
      nodes: fc.integer({ min: 1, max: 6 }),
      run: fc.integer({ min: 1, max: 60 }),
      power: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    }),
    { minLength: 2, maxLength: 10 },
  ),
});

Deno.test("power cap: a preemption is always followed by its preemptor's start (the cap never refuses it after)", () => {
  let preemptions = 0;
  fc.assert(
    fc.property(arbPreemptive, (r) => {
      const config: SimulationConfig = {
        totalNodes: r.totalNodes,
        backfillPolicy: r.admission,
        decisions: true,
        idleWatts: r.idleWatts,
        busyWatts: r.busyWatts,
        powerCap: r.powerCap,
        queues: [
          { name: "batch", priority: 0, preemptMode: r.mode },
          { name: "urgent", priority: 10 },
        ],
      };
      const trace = r.jobs.map((j): JobSpec => ({
        submitTime: j.urgent ? j.submitTime : 0,
        numNodes: Math.min(j.nodes, r.totalNodes),
        timeLimit: j.run,
        actualRunTime: j.run,
        queue: j.urgent ? "urgent" : "batch",
        ...(j.power === undefined ? {} : { power: j.power }),
      })).sort((a, b) => a.submitTime - b.submitTime);
      const d = runBatch(config, trace).decisions;
      d.forEach((x, i) => {
        if (x.type !== "PREEMPT") return;
        preemptions++;
        const after = d[i + 1];
        assert(
          after?.type === "DISPATCH" && after.jobId === x.jobId && after.time === x.time,
          `job ${x.jobId} preempted ${x.victims} at ${x.time} but did not start then`,
        );
      });
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert(preemptions > RUNS / 10, `only ${preemptions} preemptions`);
});
