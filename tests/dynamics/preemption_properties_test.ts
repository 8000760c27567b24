// Properties of preemption (issue 30 item 2; fast-check, fixed seed, which
// fast-check prints with the path of a failure): on random machines, traces
// and queue sets (random priorities, preemptMode off/requeue/cancel/suspend)
// under every built-in admission policy,
// - no resource of any node is oversubscribed, counting each run of a job
//   from its start to its end, its requeue or its cancel;
// - a preempted job's resources are free from the preemption's instant on,
//   and the preemptor starts at that instant;
// - a requeued or suspended job never runs twice at once and keeps its id;
// - a suspended job loses no work: its runs add up to its run time, and its
//   row spans its first start to its last end;
// - with no preemptible queue (every preemptMode off) every row, decision,
//   notice and statistic is the same as without the field;
// - batch ≡ streaming ≡ a snapshot at a random instant, continued (but for
//   conservative_profile, whose reservations a snapshot does not keep) ≡ a
//   recording re-simulated with verification.

import fc from "fast-check";
import {
  advanceTo,
  appendJobs,
  type DecisionRow,
  fileRecordingSink,
  finish,
  initialState,
  type Input,
  type JobRow,
  type JobSpec,
  loadSnapshot,
  type Machine,
  machineNodes,
  type Notice,
  type QueueDef,
  runToCompletion,
  saveSnapshot,
  type SimState,
  Simulation,
  type SimulationConfig,
  step,
  topologyCluster,
} from "../../mod.ts";
import { Resimulation } from "../../api/resimulation.ts";
import { readLog } from "../../io/replay_reader.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs, type Request } from "../_machine_arbs.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 80);
const NAMES = ["q0", "q1", "q2"];

// Mostly distinct priorities (q0 < q1 < q2), sometimes ties; mostly preemptible.
const arbQueues = fc.array(
  fc.record({
    tie: fc.integer({ min: 0, max: 4 }),
    preemptMode: fc.constantFrom(
      "off" as const,
      "requeue" as const,
      "requeue" as const,
      "cancel" as const,
      "suspend" as const,
    ),
    graceTime: fc.constantFrom(0, 0, 0, 3, 20),
  }),
  { minLength: 3, maxLength: 3 },
).map((qs): QueueDef[] =>
  qs.map((q, i) => ({
    name: NAMES[i],
    priority: q.tie === 0 ? 0 : i,
    preemptMode: q.preemptMode,
    ...(q.graceTime === 0 ? {} : { graceTime: q.graceTime }),
  }))
);

const arbCase = fc.record({
  machine: arbMachine,
  reqs: fc.array(arbRequest, { minLength: 15, maxLength: 40 }),
  queueOf: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 40 }),
  queues: arbQueues,
  admission: fc.constantFrom("none", "easy", "conservative", "conservative_profile"),
});

type Case = {
  machine: Machine;
  reqs: Request[];
  queueOf: number[];
  queues: QueueDef[];
  admission: string;
};

function jobsOf(c: Case) {
  const r = machineJobs(c.machine, c.reqs);
  const jobs = r.jobs.map((j, i) => ({ ...j, queue: NAMES[c.queueOf[i % c.queueOf.length]] }));
  return { ...r, jobs };
}

function configOf(c: Case, queues = c.queues): SimulationConfig {
  const nodes = machineNodes(c.machine);
  return {
    totalNodes: nodes.length,
    resourceModel: topologyCluster(
      nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
    ),
    backfillPolicy: c.admission,
    decisions: "heads",
    queues,
  };
}

interface Run {
  rows: JobRow[];
  decisions: DecisionRow[];
  notices: Notice[];
  state: SimState;
}

function drive(
  s: SimState,
  inputs: readonly Input[],
  each?: (s: SimState, d: DecisionRow[]) => void,
) {
  const out: Run = { rows: [], decisions: [], notices: [], state: s };
  for (const input of inputs) {
    const r = step(out.state, input);
    out.state = r.state;
    out.rows.push(...r.rows.jobs);
    out.decisions.push(...r.rows.decisions);
    out.notices.push(...r.rows.notices);
    each?.(r.state, [...r.rows.decisions]);
  }
  return out;
}

const byId = (a: JobRow, b: JobRow) => a.jobId - b.jobId;

// Times a preemption suspended job `id` (its JOB_STATE_CHANGE notices to suspended).
const suspensionsOf = (notices: readonly Notice[], id: number) =>
  notices.filter((n) => n.kind === "jobStateChange" && n.jobId === id && n.newState === "suspended")
    .length;

Deno.test("property: with preemptive queues no resource is oversubscribed, a victim's resources are free at the preemption, a requeued or suspended job keeps its id and never runs twice at once, a suspended one keeps its work", () => {
  let preempted = 0;
  let suspendedJobs = 0;
  let graced = 0;
  fc.assert(
    fc.property(arbCase, (c) => {
      const { jobs, asked, placeable } = jobsOf(c);
      if (jobs.length === 0) return;
      const config = configOf(c);
      const model = config.resourceModel!;
      const nodes = machineNodes(c.machine);
      const times = [...new Set(jobs.map((j) => j.submitTime))];
      // Instant by instant: after each step, the victims hold nothing (unless started again).
      const run = drive(
        initialState(config),
        [appendJobs(jobs), ...times.map((t) => advanceTo(t)), runToCompletion(), finish()],
        (s, decisions) => {
          for (const d of decisions) {
            if (d.type !== "PREEMPT" || d.time !== s.time) continue;
            // (A victim with a grace time runs on: it is checked when it stops, below.)
            for (const v of d.victims.filter((_, k) => (d.grace?.[k] ?? 0) === 0)) {
              const again = [...s.running.values()].find((r) => r.id === v);
              if (again === undefined) {
                assert(
                  model.allocationOf!(s.resources!.state, v) === undefined,
                  `victim ${v} holds`,
                );
              } else assert(again.beginTime >= d.time, `victim ${v} runs on from before`);
            }
          }
        },
      );
      assertEquals(run.rows.length, placeable);
      assertEquals(new Set(run.rows.map((r) => r.jobId)).size, run.rows.length);
      const rowOf = new Map(run.rows.map((r) => [r.jobId, r]));
      // Ends of runs other than the row's: requeues (state changes) and cancels (the row's end).
      const requeues = run.notices.filter((n) => n.kind === "jobStateChange");
      const preempts = run.decisions.filter((d) => d.type === "PREEMPT");
      preempted += preempts.length;
      // A preemptor starts at the preemption (its DISPATCH follows its PREEMPT
      // row), or, with a grace time, no later than its victims' stop, and
      // nothing starts before it (its claim).
      for (const p of preempts) {
        const i = run.decisions.indexOf(p);
        const next = p.grace === undefined
          ? run.decisions[i + 1]
          : run.decisions.find((d, j) => j > i && d.type !== "PEND");
        if (p.grace === undefined) {
          assert(next?.type === "DISPATCH" && next.jobId === p.jobId && next.time === p.time);
        } else {
          graced++;
          assert(next?.type === "DISPATCH" && next.jobId === p.jobId, `claim of ${p.jobId}`);
          assert(next.time >= p.time && next.time <= p.stopAt!, `${p.jobId} starts late`);
          assertEquals(p.stopAt, p.time + Math.max(...p.grace));
        }
        // Only lower priorities, only preemptible queues.
        const prio = (q: string | undefined) => c.queues.find((x) => x.name === q)!;
        const mine = prio(jobs[p.jobId].queue).priority!;
        for (const v of p.victims) {
          const q = prio(jobs[v].queue);
          assert(q.priority! < mine && q.preemptMode !== "off", `victim ${v} of ${q.name}`);
        }
      }
      const runs: { id: number; begin: number; end: number; d: DecisionRow }[] = [];
      for (const d of run.decisions) {
        if (d.type !== "DISPATCH") continue;
        const back = requeues.find((n) =>
          n.jobId === d.jobId && n.time >= d.time &&
          !runs.some((x) => x.id === d.jobId && x.end === n.time)
        );
        runs.push({
          id: d.jobId,
          begin: d.time,
          end: back?.time ?? rowOf.get(d.jobId)!.endTime,
          d,
        });
      }
      const created = step(initialState(config), appendJobs(jobs)).state.store.records;
      for (const r of rowOf.values()) {
        const mine = runs.filter((x) => x.id === r.jobId);
        const suspended = suspensionsOf(run.notices, r.jobId);
        assertEquals(mine.length, (r.requeues ?? 0) + suspended + 1, `job ${r.jobId}: runs`);
        for (let i = 1; i < mine.length; i++) {
          assert(mine[i].begin >= mine[i - 1].end, `job ${r.jobId} runs twice at once`);
        }
        if (suspended === 0) assertEquals(mine[mine.length - 1].begin, r.beginTime);
        else {
          suspendedJobs++;
          assertEquals(mine[0].begin, r.beginTime, `job ${r.jobId}: its row's begin`);
          const ran = mine.reduce((sum, x) => sum + x.end - x.begin, 0);
          if (r.outcome === undefined) {
            assertEquals(ran, created.get(r.jobId)!.runTime, `job ${r.jobId}: work kept`);
          }
        }
      }
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
              continue;
            }
            for (const [res, units] of Object.entries(a.per)) {
              const k = `${share.nodeName} ${res}`;
              used.set(k, (used.get(k) ?? 0) + units * share.replicas);
            }
          }
        }
        for (const [k, u] of used) {
          const [node, res] = k.split(" ");
          assert(u <= (capacity.get(node)![res] ?? 0), `${k}: ${u} used at ${at.begin}`);
        }
        for (const [node, n] of exclusive) {
          assert(n <= 1 && !used.has(`${node} cores`) || n <= 1, `${node} shared at ${at.begin}`);
        }
      }
    }),
    { seed: 3011, numRuns: RUNS },
  );
  assert(preempted > RUNS / 4, `only ${preempted} preemptions in ${RUNS} runs`);
  assert(suspendedJobs > RUNS / 8, `only ${suspendedJobs} suspended jobs in ${RUNS} runs`);
  assert(graced > RUNS / 8, `only ${graced} preemptions with a grace time in ${RUNS} runs`);
});

Deno.test("property: with no preemptible queue (every preemptMode off) nothing changes", () => {
  fc.assert(
    fc.property(arbCase, (c) => {
      const { jobs } = jobsOf(c);
      const off = c.queues.map((q) => ({ ...q, preemptMode: "off" as const }));
      const plain = c.queues.map(({ preemptMode: _, ...q }) => q);
      const inputs = [appendJobs(jobs), runToCompletion(), finish()];
      const a = drive(initialState(configOf(c, off)), inputs);
      const b = drive(initialState(configOf(c, plain)), inputs);
      assertEquals(a.rows, b.rows);
      assertEquals(a.decisions, b.decisions);
      assertEquals(a.notices, b.notices);
      assertEquals(a.state.stats, b.state.stats);
      assertEquals(JSON.stringify(saveSnapshot(a.state)), JSON.stringify(saveSnapshot(b.state)));
      assert(!("preemptedWork" in a.state.stats));
    }),
    { seed: 3012, numRuns: RUNS },
  );
});

Deno.test("property: with preemption, batch ≡ streaming ≡ a snapshot at a random instant, continued ≡ the recording re-simulated with --verify", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-preempt-" });
  try {
    let k = 0;
    await fc.assert(
      fc.asyncProperty(
        arbCase,
        fc.integer({ min: 0, max: 110 }),
        fc.integer({ min: 1, max: 4 }),
        async (c, cut, interval) => {
          const { jobs } = jobsOf(c);
          if (jobs.length === 0) return;
          const config = configOf(c);
          const batch = drive(initialState(config), [
            appendJobs(jobs),
            runToCompletion(),
            finish(),
          ]);
          const sim = new Simulation(config);
          const path = `${dir}/run${k++}.replay`;
          sim.startRecording(fileRecordingSink(path), { snapshotInterval: interval });
          // (Up to each submit time, exclusive: the instant itself waits for every job
          // submitted at it, as the queues may order them otherwise.)
          for (const j of jobs) {
            sim.runUntilExclusive(j.submitTime);
            sim.appendJob(j as JobSpec);
          }
          const streamed = sim.finish();
          sim.stopRecording();
          assertEquals([...streamed.jobs].sort(byId), [...batch.rows].sort(byId));
          assertEquals(streamed.statistics.preemptions, batch.state.stats.preemptions);
          // A snapshot does not keep conservative_profile's reservations (Admission.init):
          // restored, it plans afresh, and with queues a later job of a higher queue may
          // then go first, with or without preemption. The other policies keep nothing.
          if (c.admission !== "conservative_profile") {
            const before = drive(initialState(config), [appendJobs(jobs), advanceTo(cut)]);
            const restored = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(before.state))));
            const after = drive(restored, [runToCompletion(), finish()]);
            assertEquals([...before.rows, ...after.rows].sort(byId), [...batch.rows].sort(byId));
            assertEquals(after.state.stats, batch.state.stats);
          }
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
      { seed: 3013, numRuns: Math.ceil(RUNS / 2) },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("property: on whole nodes (no machine), preemption never takes more nodes than the machine has, and a victim's nodes are free at once", () => {
  let preempted = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 16 }),
      fc.array(
        fc.record({
          submit: fc.integer({ min: 0, max: 50 }),
          nodes: fc.integer({ min: 1, max: 16 }),
          limit: fc.integer({ min: 1, max: 40 }),
          queue: fc.integer({ min: 0, max: 2 }),
        }),
        { minLength: 1, maxLength: 30 },
      ),
      arbQueues,
      fc.constantFrom("none", "easy", "conservative", "conservative_profile"),
      (total, reqs, queues, admission) => {
        const jobs: JobSpec[] = reqs.sort((a, b) => a.submit - b.submit).map((r) => ({
          submitTime: r.submit,
          numNodes: Math.min(r.nodes, total),
          timeLimit: r.limit,
          queue: NAMES[r.queue],
        }));
        const run = drive(
          initialState({
            totalNodes: total,
            backfillPolicy: admission,
            decisions: "heads",
            queues,
          }),
          [appendJobs(jobs), runToCompletion(), finish()],
        );
        assertEquals(run.rows.length, jobs.length);
        const requeues = run.notices.filter((n) => n.kind === "jobStateChange");
        preempted += run.decisions.filter((d) => d.type === "PREEMPT").length;
        const rowOf = new Map(run.rows.map((r) => [r.jobId, r]));
        const runs: { id: number; begin: number; end: number }[] = [];
        for (const d of run.decisions) {
          if (d.type !== "DISPATCH") continue;
          const back = requeues.find((n) =>
            n.jobId === d.jobId && n.time >= d.time &&
            !runs.some((x) => x.id === d.jobId && x.end === n.time)
          );
          runs.push({ id: d.jobId, begin: d.time, end: back?.time ?? rowOf.get(d.jobId)!.endTime });
        }
        for (const at of runs) {
          let used = 0;
          for (const x of runs) {
            if (x.begin <= at.begin && at.begin < x.end) used += jobs[x.id].numNodes;
          }
          assert(used <= total, `${used} of ${total} nodes used at ${at.begin}`);
        }
        for (const r of rowOf.values()) {
          const mine = runs.filter((x) => x.id === r.jobId);
          const suspended = suspensionsOf(run.notices, r.jobId);
          assertEquals(mine.length, (r.requeues ?? 0) + suspended + 1, `job ${r.jobId}: runs`);
          for (let i = 1; i < mine.length; i++) {
            assert(mine[i].begin >= mine[i - 1].end, `job ${r.jobId} runs twice at once`);
          }
          if (suspended > 0) {
            // No work lost: the runs add up to the job's run time (its time limit here).
            const ran = mine.reduce((sum, x) => sum + x.end - x.begin, 0);
            assertEquals(ran, jobs[r.jobId].timeLimit, `job ${r.jobId}: work kept`);
          }
        }
      },
    ),
    { seed: 3014, numRuns: RUNS },
  );
  assert(preempted > RUNS / 4, `only ${preempted} preemptions in ${RUNS} runs`);
});
