// Properties of node failures (issue 30 item 1; fast-check, fixed seed,
// which fast-check prints with the path of a failure): on random machines,
// traces and failure schedules, under kill and requeue with random limits
// and every admission policy,
// - no resource of any node is oversubscribed, counting each run of a job
//   from its start to its end or its requeue;
// - a killed or requeued job's resources are free from the failure on: after
//   the failure's instant no running job holds a failed node, and a requeued
//   job holds nothing unless it started again since;
// - a requeued job never runs twice at once and keeps its id (one row per
//   job, its runs one after another);
// - with no failure in the schedule, the failure options change no row;
// - batch ≡ streaming (advancing instant by instant) ≡ a snapshot at a random
//   instant, continued ≡ a recording re-simulated with verification.

import fc from "fast-check";
import {
  advanceTo,
  appendJobs,
  type CapacityChange,
  type DecisionRow,
  finish,
  initialState,
  type Input,
  type JobRow,
  type JobSpec,
  loadSnapshot,
  type Machine,
  machineNodes,
  type Notice,
  runToCompletion,
  saveSnapshot,
  type SimState,
  Simulation,
  type SimulationConfig,
  step,
  topologyCluster,
} from "../../mod.ts";
import { withNodeFailures } from "../../core/failure_model.ts";
import { fileRecordingSink } from "../../mod.ts";
import { Resimulation } from "../../api/resimulation.ts";
import { readLog } from "../../io/replay_reader.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 80);

// Failures, each repaired `repair` seconds later.
const arbFailures = fc.array(
  fc.record({
    time: fc.integer({ min: 1, max: 60 }),
    pick: fc.nat(),
    repair: fc.integer({ min: 1, max: 20 }),
  }),
  { maxLength: 12 },
);

const arbPolicy = fc.record({
  onNodeFailure: fc.constantFrom("kill" as const, "requeue" as const, "requeue" as const),
  requeueLimit: fc.integer({ min: 0, max: 3 }),
  admission: fc.constantFrom("none", "easy", "conservative", "conservative_profile"),
});

type Raw = { time: number; pick: number; repair: number };

// The failures as capacity changes; every node is repaired at 100 at the
// latest, so every placeable job runs in the end.
function scheduleOf(m: Machine, raw: readonly Raw[]): CapacityChange[] {
  const names = machineNodes(m).map((n) => n.name);
  const events = raw.flatMap((r) => [
    { time: r.time, node: names[r.pick % names.length], state: "down" as const },
    { time: r.time + r.repair, node: names[r.pick % names.length], state: "up" as const },
  ]).sort((a, b) => a.time - b.time);
  for (const node of names) events.push({ time: 100, node, state: "up" });
  return withNodeFailures([], events, names.length);
}

function configOf(
  m: Machine,
  schedule: CapacityChange[],
  p: { onNodeFailure: "kill" | "requeue"; requeueLimit: number; admission: string },
): SimulationConfig {
  const nodes = machineNodes(m);
  return {
    totalNodes: nodes.length,
    resourceModel: topologyCluster(
      nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
    ),
    backfillPolicy: p.admission,
    decisions: "heads",
    capacitySchedule: schedule,
    onNodeFailure: p.onNodeFailure,
    requeueLimit: p.requeueLimit,
  };
}

interface Run {
  rows: JobRow[];
  decisions: DecisionRow[];
  notices: Notice[];
  state: SimState;
}

function drive(s: SimState, inputs: readonly Input[], each?: (s: SimState, n: Notice[]) => void) {
  const out: Run = { rows: [], decisions: [], notices: [], state: s };
  for (const input of inputs) {
    const r = step(out.state, input);
    out.state = r.state;
    out.rows.push(...r.rows.jobs);
    out.decisions.push(...r.rows.decisions);
    out.notices.push(...r.rows.notices);
    each?.(r.state, [...r.rows.notices]);
  }
  return out;
}

const byId = (a: JobRow, b: JobRow) => a.jobId - b.jobId;

Deno.test("property: with node failures (kill, requeue), no resource is oversubscribed, a failed job's resources are free at the failure, a requeued job keeps its id and never runs twice at once", () => {
  let requeued = 0;
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 1, maxLength: 20 }),
      arbFailures,
      arbPolicy,
      (m, reqs, raw, p) => {
        const { jobs, asked, placeable } = machineJobs(m, reqs);
        if (jobs.length === 0) return;
        const schedule = scheduleOf(m, raw);
        const nodes = machineNodes(m);
        const model = configOf(m, schedule, p).resourceModel!;
        const times = [...new Set(schedule.map((c) => c.time))];
        // Advanced instant by instant: after each change, what holds a failed node?
        const run = drive(
          initialState(configOf(m, schedule, p)),
          [appendJobs(jobs), ...times.map((t) => advanceTo(t)), runToCompletion(), finish()],
          (s, notices) => {
            const failed = new Set<string>();
            for (const c of schedule) {
              if (c.time > s.time) break;
              for (const n of c.failed ?? []) failed.add(n);
              for (const n of c.up ?? []) failed.delete(n);
            }
            const st = s.resources!.state;
            for (const r of s.running.values()) {
              for (const a of model.allocationOf!(st, r.id) ?? []) {
                assert(
                  !failed.has(a.nodeName),
                  `job ${r.id} holds failed ${a.nodeName} at ${s.time}`,
                );
              }
            }
            for (const n of notices) {
              if (n.kind !== "jobStateChange") continue;
              // Waiting again, or started again since (at the same instant, elsewhere).
              const again = [...s.running.values()].find((r) => r.id === n.jobId);
              if (again === undefined) {
                assert(model.allocationOf!(st, n.jobId) === undefined, `requeued ${n.jobId} holds`);
              } else {
                assert(again.beginTime >= n.time, `requeued ${n.jobId} runs on from before`);
              }
            }
          },
        );
        // One row per placeable job, ids kept.
        assertEquals(run.rows.length, placeable);
        assertEquals(new Set(run.rows.map((r) => r.jobId)).size, run.rows.length);
        const rowOf = new Map(run.rows.map((r) => [r.jobId, r]));
        // Each job's runs: [dispatch, next requeue) and the last one [dispatch, row end).
        const requeues = run.notices.filter((n) => n.kind === "jobStateChange");
        requeued += requeues.length;
        const runs: { id: number; begin: number; end: number; d: DecisionRow }[] = [];
        for (const d of run.decisions) {
          if (d.type !== "DISPATCH") continue;
          const back = requeues.find((n) =>
            n.jobId === d.jobId && n.time >= d.time &&
            !runs.some((x) => x.id === d.jobId && x.end === n.time)
          );
          const end = back?.time ?? rowOf.get(d.jobId)!.endTime;
          runs.push({ id: d.jobId, begin: d.time, end, d });
        }
        for (const r of rowOf.values()) {
          const mine = runs.filter((x) => x.id === r.jobId);
          assertEquals(mine.length, (r.requeues ?? 0) + 1, `job ${r.jobId}: runs`);
          for (let i = 1; i < mine.length; i++) {
            assert(mine[i].begin >= mine[i - 1].end, `job ${r.jobId} runs twice at once`);
          }
          assertEquals(mine[mine.length - 1].begin, r.beginTime);
          if (p.onNodeFailure === "kill") assertEquals(r.requeues, undefined);
          else assert((r.requeues ?? 0) <= p.requeueLimit, `job ${r.jobId} over the limit`);
        }
        // No node's resource oversubscribed at any run's start.
        const capacity = new Map(nodes.map((n) => [n.name, n.capacity]));
        for (const at of runs) {
          const used = new Map<string, number>();
          const exclusive = new Map<string, number>();
          for (const x of runs) {
            if (!(x.begin <= at.begin && at.begin < x.end)) continue;
            const a = asked[x.id];
            for (const share of x.d.type === "DISPATCH" ? x.d.allocation ?? [] : []) {
              if (a.whole) {
                exclusive.set(share.nodeName, (exclusive.get(share.nodeName) ?? 0) + 1);
                used.set(`${share.nodeName} node`, (used.get(`${share.nodeName} node`) ?? 0) + 1);
                continue;
              }
              used.set(`${share.nodeName} node`, used.get(`${share.nodeName} node`) ?? 0);
              for (const [res, units] of Object.entries(a.per)) {
                const k = `${share.nodeName} ${res}`;
                used.set(k, (used.get(k) ?? 0) + units * share.replicas);
              }
            }
          }
          for (const [k, u] of used) {
            const [node, res] = k.split(" ");
            if (res === "node") continue;
            assert(u <= (capacity.get(node)![res] ?? 0), `${k}: ${u} used at ${at.begin}`);
          }
          for (const [node, n] of exclusive) assert(n <= 1, `${node} shared at ${at.begin}`);
        }
      },
    ),
    { seed: 3001, numRuns: RUNS },
  );
  assert(requeued > RUNS / 4, `only ${requeued} requeues in ${RUNS} runs`);
});

Deno.test("property: with no failure in the schedule the failure options change no row, decision or statistic", () => {
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 1, maxLength: 20 }),
      arbPolicy,
      (m, reqs, p) => {
        const { jobs } = machineJobs(m, reqs);
        const names = machineNodes(m).map((n) => n.name);
        // Planned maintenance only: no failed node.
        const schedule: CapacityChange[] = [
          { time: 20, capacity: names.length - 1, down: [names[0]] },
          { time: 60, capacity: names.length, up: [names[0]] },
        ];
        const inputs = [appendJobs(jobs), runToCompletion(), finish()];
        const withOptions = drive(initialState(configOf(m, schedule, p)), inputs);
        const { onNodeFailure: _, requeueLimit: __, ...plain } = configOf(m, schedule, p);
        const without = drive(initialState(plain), inputs);
        assertEquals(withOptions.rows, without.rows);
        assertEquals(withOptions.decisions, without.decisions);
        assertEquals(withOptions.notices, without.notices);
        assertEquals(withOptions.state.stats, without.state.stats);
        assert(!("lostWork" in withOptions.state.stats));
      },
    ),
    { seed: 3002, numRuns: RUNS },
  );
});

Deno.test("property: with node failures, batch ≡ streaming ≡ a snapshot at a random instant, continued ≡ the recording re-simulated with --verify", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-failures-" });
  try {
    let k = 0;
    await fc.assert(
      fc.asyncProperty(
        arbMachine,
        fc.array(arbRequest, { minLength: 1, maxLength: 15 }),
        arbFailures,
        arbPolicy,
        fc.integer({ min: 0, max: 110 }),
        fc.integer({ min: 1, max: 4 }),
        async (m, reqs, raw, p, cut, interval) => {
          const { jobs } = machineJobs(m, reqs);
          if (jobs.length === 0) return;
          const schedule = scheduleOf(m, raw);
          const config = configOf(m, schedule, p);
          const batch = drive(initialState(config), [
            appendJobs(jobs),
            runToCompletion(),
            finish(),
          ]);
          // Streaming: the jobs one at a time, the clock to each submit time first.
          const sim = new Simulation(config);
          const path = `${dir}/run${k++}.replay`;
          sim.startRecording(fileRecordingSink(path), { snapshotInterval: interval });
          for (const j of jobs) {
            sim.advanceTo(j.submitTime);
            sim.appendJob(j as JobSpec);
          }
          const streamed = sim.finish();
          sim.stopRecording();
          assertEquals([...streamed.jobs].sort(byId), [...batch.rows].sort(byId));
          assertEquals(streamed.statistics.lostWork, batch.state.stats.lostWork);
          // A snapshot at `cut`, through JSON, continued.
          const before = drive(initialState(config), [appendJobs(jobs), advanceTo(cut)]);
          const restored = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(before.state))));
          const after = drive(restored, [runToCompletion(), finish()]);
          assertEquals([...before.rows, ...after.rows].sort(byId), [...batch.rows].sort(byId));
          assertEquals(after.state.stats, batch.state.stats);
          // The recording re-simulated, verified decision by decision.
          const re = new Resimulation({
            log: readLog(path),
            verify: true,
            output: { write: () => {} },
          });
          const rows: JobRow[] = [];
          for (let r = re.step(); r !== undefined; r = re.step()) rows.push(...r.rows.jobs);
          assertEquals(re.mismatches, []);
          assertEquals(rows.sort(byId), [...batch.rows].sort(byId));
          await Deno.remove(path);
        },
      ),
      { seed: 3003, numRuns: Math.ceil(RUNS / 2) },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
