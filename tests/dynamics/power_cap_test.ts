// The power cap by hand (docs/power.md): a worked example whose every row
// is computed below, a scheduled cap whose raise is an event that starts a
// round, the prefix rule with a policy of a user's own, a job over the
// highest cap held, and the fronts: simulate's CSV and stats JSON, a
// recording re-simulated with --verify, compare, sweep, serve over HTTP and
// gRPC.

import {
  type Admission,
  type DecisionRow,
  type JobSpec,
  Simulation,
  type SimulationConfig,
  withPolicies,
} from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { type AskClient, externalAdmission } from "../../api/service/_external.ts";

// 4 nodes of 10 W idle and 30 W busy; three jobs with their own draw.
const MACHINE: SimulationConfig = { totalNodes: 4, idleWatts: 10, busyWatts: 30, decisions: true };
const JOBS: JobSpec[] = [
  { submitTime: 0, numNodes: 2, timeLimit: 100, actualRunTime: 60, power: 40 },
  { submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 30, power: 30 },
  { submitTime: 10, numNodes: 1, timeLimit: 50, actualRunTime: 20, power: 20 },
];

function run(config: SimulationConfig, jobs = JOBS) {
  const sim = new Simulation(config);
  sim.appendJobs(jobs);
  return sim.finish();
}

const brief = (d: DecisionRow) =>
  d.type === "PEND"
    ? `${d.time} PEND ${d.jobId} ${d.reason.code}`
    : `${d.time} ${d.type} ${d.jobId}`;

Deno.test("power cap 170 W: job 2 waits from 10 to 30 for job 1's watts, every row by hand", () => {
  const out = run({ ...MACHINE, powerCap: 170 });
  // Idle: 4 × 10 = 40 W. Job 0: 2 × 10 + 2 × 30 + 40 = 120 W. Job 1 too:
  // 10 + 3 × 30 + 40 + 30 = 170 W (at the cap: allowed). At 10 job 2 fits
  // the free node but would make 4 × 30 + 90 = 210 W; at 30 job 1 ends
  // (120 W) and job 2 starts: 10 + 3 × 30 + 40 + 20 = 160 W.
  assertEquals(out.jobs.map((j) => [j.jobId, j.beginTime, j.endTime]), [
    [0, 0, 60],
    [1, 0, 30],
    [2, 30, 50],
  ]);
  assertEquals(out.resources.map((r) => [r.time, r.allocatedNodes, r.power]), [
    [0, 0, 40],
    [0, 2, 120],
    [0, 3, 170],
    [30, 2, 120],
    [30, 3, 160],
    [50, 2, 120],
    [60, 0, 40],
  ]);
  assertEquals(out.decisions.map(brief), [
    "0 DISPATCH 0",
    "0 DISPATCH 1",
    "10 PEND 2 power_cap",
    "30 DISPATCH 2",
  ]);
  const pend = out.decisions[2];
  assert(pend.type === "PEND");
  assertEquals(pend.reason.message, "the machine would draw 210 W, over the power cap of 170 W");
  // Without a cap job 2 starts at 10, on the free node.
  assertEquals(run(MACHINE).jobs[2].beginTime, 10);
});

Deno.test("power cap schedule 120 W then 200 W at 20: the raise is an event that starts job 1", () => {
  const out = run({
    ...MACHINE,
    powerCapSchedule: [{ time: 0, watts: 120 }, { time: 20, watts: 200 }],
  });
  // 0: job 0 (120 W) starts, job 1 (170 W) waits; 10: job 2 (160 W) waits too;
  // 20: the cap rises and job 1 starts (170 W); job 2 would make 210 W.
  // 50: job 1 ends (120 W): job 2 starts (160 W).
  assertEquals(out.jobs.map((j) => [j.beginTime, j.endTime]), [[0, 60], [20, 50], [50, 70]]);
  assertEquals(out.decisions.map(brief), [
    "0 DISPATCH 0",
    "0 PEND 1 power_cap",
    "20 DISPATCH 1",
    "20 PEND 2 power_cap",
    "50 DISPATCH 2",
  ]);
});

Deno.test("power cap schedule 200 W, 100 W at 50, 200 W at 120: a start stays under every cap its run meets", () => {
  const out = run({
    totalNodes: 2,
    decisions: true,
    powerCapSchedule: [{ time: 0, watts: 200 }, { time: 50, watts: 100 }, {
      time: 120,
      watts: 200,
    }],
  }, [
    { submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 80, power: 150 },
    { submitTime: 0, numNodes: 1, timeLimit: 40, actualRunTime: 40, power: 50 },
  ]);
  // At 0 job 0's 150 W fits the 200 W cap, but its run (up to its limit,
  // 100) would meet the 100 W cap from 50: refused, and job 1 behind it with
  // it (the starts stay a prefix). At 50 the same. At 120 both fit the
  // 200 W cap for good: 150 + 50 = 200 W.
  assertEquals(out.jobs.map((j) => [j.beginTime, j.endTime]), [[120, 200], [120, 160]]);
  const first = out.decisions[0];
  assert(first.type === "PEND" && first.reason.code === "power_cap");
  assertEquals(
    first.reason.message,
    "the machine would draw 150 W, over the power cap of 100 W in effect from 50, before it would end",
  );
  // (A PEND row is written when a job's reason changes: not again at 50.)
  assertEquals(out.decisions.map(brief), [
    "0 PEND 0 power_cap",
    "120 DISPATCH 0",
    "120 DISPATCH 1",
  ]);
  // A run no window can hold (the 100 W cap for good from 50): held at once.
  const held = run({
    totalNodes: 2,
    decisions: true,
    powerCapSchedule: [{ time: 0, watts: 200 }, { time: 50, watts: 100 }],
  }, [{ submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 80, power: 150 }]);
  const d = held.decisions[0];
  assert(d.type === "PEND" && d.reason.code === "exceeds_capacity", JSON.stringify(d));
  assertEquals(held.jobs, []);
});

Deno.test("power cap: the starts kept are a prefix of the policy's; a later start that fits is not made", () => {
  // Starts every job it is offered (in id order) that fits the free nodes.
  const greedy: Admission = {
    name: "greedy",
    runSession(s) {
      for (let j = s.next(); j !== undefined; j = s.next()) {
        if (j.numNodes <= s.free) s.dispatch(j, false);
        else s.pend(j, { code: "insufficient_nodes", message: "no room" });
      }
    },
  };
  const registry = withPolicies({ admissions: [greedy] });
  const jobs: JobSpec[] = [
    { submitTime: 0, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 50 },
    { submitTime: 0, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 80 },
    { submitTime: 0, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 5 },
  ];
  const sim = new Simulation({
    totalNodes: 4,
    backfillPolicy: "greedy",
    registry,
    powerCap: 100,
    decisions: true,
  });
  sim.appendJobs(jobs);
  const out = sim.finish();
  // Job 1 would take the draw to 130 W: refused, and job 2 (55 W) with it, with no row of its own.
  assertEquals(out.decisions.map(brief), [
    "0 DISPATCH 0",
    "0 PEND 1 power_cap",
    "10 DISPATCH 1",
    "10 DISPATCH 2",
  ]);
});

Deno.test("power cap: a job over the highest cap even alone is held (exceeds_capacity); later jobs go ahead", () => {
  const sim = new Simulation({ ...MACHINE, powerCap: 150, backfillPolicy: "none" });
  sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 10, power: 50 }, // 4 × 30 + 50 = 170 W alone
    { submitTime: 0, numNodes: 1, timeLimit: 10, power: 10 },
  ]);
  const out = sim.finish();
  assertEquals(out.jobs.map((j) => j.jobId), [1]);
  const held = out.decisions.find((d) => d.type === "PEND" && d.jobId === 0);
  assert(held?.type === "PEND");
  assertEquals(held.reason.code, "exceeds_capacity");
  assertEquals(
    held.reason.message,
    "draws 170 W alone on the idle machine, over the highest power cap of 150 W: held",
  );
  // The end-of-run notice names the cap as the cause, not the admission policy.
  const stranded = out.notices.find((n) => n.kind === "stranded");
  assert(stranded?.kind === "stranded", "the held job is reported at the end");
  assertEquals(stranded.causes, [
    { cause: "over_power_cap", jobs: 1, firstJob: 0, powerCap: 150 },
  ]);
});

const PCON = "job_submit_time,num_nodes,time_limit,actual_run_time,avgpcon,minpcon,maxpcon\n" +
  "0,2,100,60,40,35,45\n0,1,100,30,30,25,35\n10,1,50,20,20,15,25\n";

Deno.test("simulate --power_cap on a pcon trace: the power column, the PEND row, the energy", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/p.csv`, PCON);
    const r = await runCli([
      "simulate",
      `${dir}/p.csv`,
      "-n",
      "4",
      "--trace_type",
      "pcon",
      "--idle_watts",
      "10",
      "--busy_watts",
      "30",
      "--power_cap",
      "170",
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/s.json`,
      "--decisions",
      `${dir}/d.jsonl`,
      "--record",
      `${dir}/r.replay`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(
      await Deno.readTextFile(`${dir}/s_resources.csv`),
      "time,free_nodes,allocated_nodes,avgpcon,minpcon,maxpcon,power\n" +
        "0,4,0,0.000000,0.000000,0.000000,40\n" +
        "0,2,2,40.000000,35.000000,45.000000,120\n" +
        "0,1,3,70.000000,60.000000,80.000000,170\n" +
        "30,2,2,40.000000,35.000000,45.000000,120\n" +
        "30,1,3,60.000000,50.000000,70.000000,160\n" +
        "50,2,2,40.000000,35.000000,45.000000,120\n" +
        "60,4,0,0.000000,0.000000,0.000000,40\n",
    );
    // 170 × 30 + 160 × 20 + 120 × 10 = 9500 J; the jobs' own 2400 + 900 + 400.
    const stats = JSON.parse(await Deno.readTextFile(`${dir}/s.json`));
    assertEquals(stats.energy, { total: 9500, jobs: 3, per_job_mean: 3700 / 3, per_job_max: 2400 });
    assert((await Deno.readTextFile(`${dir}/d.jsonl`)).includes('"code":"power_cap"'));
    // The recording carries the cap and the jobs' power: a re-simulation agrees.
    const v = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
    assertEquals(v.code, 0, v.err.join("\n"));
    assert(
      v.out.join("\n").includes("verify: every decision matches the recording"),
      v.out.join("\n"),
    );
    // What if the cap had been 1000 W: job 2 starts at 10, and the first divergence says so.
    const w = await runCli(["replay", `${dir}/r.replay`, "--power_cap", "1000"]);
    assertEquals(w.code, 0, w.err.join("\n"));
    assert(
      w.out.join("\n").includes(
        "first divergence at t=10 job 2: recorded: t=10 round=2 PEND job=2 power_cap",
      ),
      w.out.join("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("simulate without power options: no power column, no energy (outputs as before)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/p.csv`, PCON);
    const r = await runCli([
      "simulate",
      `${dir}/p.csv`,
      "-n",
      "4",
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/s.json`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(
      (await Deno.readTextFile(`${dir}/s_resources.csv`)).split("\n")[0],
      "time,free_nodes,allocated_nodes",
    );
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/s.json`)).energy, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare and sweep pass the cap on: the capped run waits longer; both show each run's energy", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/p.csv`, PCON);
    const common = ["--trace_type", "pcon", "--idle_watts", "10", "--busy_watts", "30"];
    const waits = async (extra: string[]) => {
      const r = await runCli([
        "compare",
        `${dir}/p.csv`,
        "-n",
        "4",
        "--policies",
        "easy",
        "--json",
        ...common,
        ...extra,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const row = JSON.parse(r.out.join("\n"))[0];
      energies.push(row.energy_j);
      return row.wait_mean_s;
    };
    const energies: number[] = [];
    // Job 2 waits 20 s under the cap (mean 20 / 3), none without.
    assertEquals(await waits([]), 0);
    assertEquals(await waits(["--power_cap", "170"]), 20 / 3);
    // The runs' energy (the integral of the draw; 9500 J capped, docs/power.md).
    assertEquals(energies, [9500, 9500]); // the same work within the same span (0 to 60)
    const table = await runCli([
      "compare",
      `${dir}/p.csv`,
      "-n",
      "4",
      "--policies",
      "easy",
      ...common,
    ]);
    assert(/ energy_j +sim_s$/.test(table.out[0]), table.out[0]);
    await Deno.writeTextFile(
      `${dir}/spec.yaml`,
      "traces: [p.csv]\ntotal_nodes: [4]\noptions:\n  trace_type: pcon\n  idle_watts: 10\n" +
        "  busy_watts: 30\n  power_cap: [170, 1000]\n",
    );
    const s = await runCli(["sweep", `${dir}/spec.yaml`, "--results", `${dir}/res`]);
    assertEquals(s.code, 0, s.err.join("\n"));
    const rows = JSON.parse(await Deno.readTextFile(`${dir}/res/results.json`));
    assertEquals(rows.map((x: { wait_mean_s: number }) => x.wait_mean_s), [20 / 3, 0]);
    assertEquals(rows.map((x: { energy_j: number }) => x.energy_j), [9500, 9500]);
    const csv = (await Deno.readTextFile(`${dir}/res/results.csv`)).split("\n")[0].split(",");
    assert(csv.includes("energy_j"), csv.join());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: a capped session over HTTP and over gRPC", async () => {
  await withServer({}, async (server, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", { ...MACHINE, powerCap: 170 });
    await api.ok("POST", `/sessions/${sessionId}/jobs`, { jobs: JOBS });
    const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
    assertEquals(out.jobs.map((j: { beginTime: number }) => j.beginTime), [0, 0, 30]);
    assertEquals(out.resources.map((r: { power: number }) => r.power), [
      40,
      120,
      170,
      120,
      160,
      120,
      40,
    ]);

    const g = new GrpcSession(server.grpcPort!);
    try {
      await g.ok({
        init: {
          total_nodes: 4,
          session_name: "cap",
          power_cap: 170,
          idle_watts: 10,
          busy_watts: 30,
        },
      });
      await g.ok({
        append_jobs: {
          requests: JOBS.map((j) => ({
            submit_time: j.submitTime,
            num_nodes: j.numNodes,
            limit_time: j.timeLimit,
            actual_run_time: j.actualRunTime,
            power: j.power,
          })),
        },
      });
      for (const [id, t] of [[0, 0], [1, 0], [2, 10]]) {
        await g.ok({ submit_job: { job_idx: id, submit_time: t } });
      }
      // At 10 the third job waits for power: three of four nodes in use until 30.
      await g.ok({ advance_to: { target_time: 10 } });
      assertEquals((await g.ok({ get_nodes_in_use: {} })).nodes_in_use, 3);
      await g.ok({ advance_to: { target_time: 30 } });
      assertEquals((await g.ok({ get_nodes_in_use: {} })).nodes_in_use, 3);
      assertEquals((await g.ok({ get_available_nodes: {} })).available_nodes, 1);
    } finally {
      await g.close();
    }
  });
});

const MACHINE_FILE = "groups:\n" +
  "  - name: cpu\n    count: 2\n    resources: { cores: 4 }\n    idle_watts: 10\n    busy_watts: 100\n" +
  "  - name: gpu\n    count: 1\n    resources: { cores: 4, gpus: 2 }\n    idle_watts: 20\n    busy_watts: 300\n";
const MACHINE_TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,gpus\n" +
  "0,1,100,50,4,0\n0,1,100,50,4,2\n5,1,100,10,2,0\n";

Deno.test("a machine file's watts per group: each node idle or busy, the cap over them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE_FILE);
    await Deno.writeTextFile(`${dir}/t.csv`, MACHINE_TRACE);
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "--machine",
      `${dir}/m.yaml`,
      "--power_cap",
      "420",
      "-o",
      `${dir}/s.csv`,
      "--stats_json",
      `${dir}/s.json`,
      "--record",
      `${dir}/r.replay`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    // The recording carries the node watts: a re-simulation agrees.
    const v = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
    assertEquals(v.code, 0, v.err.join("\n"));
    assert(v.out.join("\n").includes("verify: every decision matches the recording"));
    // Idle: 10 + 10 + 20 = 40 W; job 0 on cpu001 (+90), job 1 on the gpu node (+280): 410 W.
    // Job 2 would wake cpu002 (+90): 500 W, over 420; it starts when both end at 50.
    const rows = (await Deno.readTextFile(`${dir}/s_resources.csv`)).trim().split("\n");
    assertEquals(rows.map((l) => l.split(",").at(-1)), [
      "power",
      "40",
      "130",
      "410",
      "320",
      "40",
      "130",
      "40",
    ]);
    assertEquals(
      (await Deno.readTextFile(`${dir}/s.csv`)).trim().split("\n").at(-1),
      "5,50,60,0,0,100",
    );
    // 410 × 50 + 130 × 10
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/s.json`)).energy.total, 21800);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --machine: a session on a machine with watts is capped by node", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/m.yaml`, MACHINE_FILE);
    const machine = await readMachine(`${dir}/m.yaml`);
    await withServer({ grpcPort: undefined, machine }, async (_s, api) => {
      const { sessionId } = await api.ok("POST", "/sessions", { powerCap: 420 });
      await api.ok("POST", `/sessions/${sessionId}/jobs`, {
        jobs: [
          { submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 50, numCores: 4 },
          { submitTime: 0, numNodes: 1, timeLimit: 100, actualRunTime: 50, numCores: 4, gpus: 2 },
          { submitTime: 5, numNodes: 1, timeLimit: 100, actualRunTime: 10, numCores: 2 },
        ],
      });
      const out = await api.ok("POST", `/sessions/${sessionId}/finish`, {});
      assertEquals(out.jobs.map((j: { beginTime: number }) => j.beginTime), [0, 0, 50]);
      assertEquals(out.resources[0].power, 40);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the external protocol: a client's DISPATCHes over the cap are not made, the first gets PEND power_cap", () => {
  // A client that starts every waiting job that fits the free nodes, in the round's order.
  const ask: AskClient = (m) => {
    const r = m.round;
    let free = r.free;
    const decisions = r.waiting.filter((j) => j.numNodes <= free && (free -= j.numNodes) >= 0)
      .map((j) => ({ type: "DISPATCH" as const, jobId: j.jobId }));
    return JSON.stringify({ round: r.round, decisions });
  };
  const admission = externalAdmission({ ask, onInvalid: "fail", totalNodes: 4, known: () => true });
  const sim = new Simulation({
    ...MACHINE,
    powerCap: 170,
    registry: withPolicies({ admissions: [admission] }),
    backfillPolicy: "external",
  });
  sim.appendJobs(JOBS);
  const out = sim.finish();
  assertEquals(out.jobs.map((j) => j.beginTime), [0, 0, 30]);
  // The refused job's row says power_cap (the protocol's pass over the candidates adds no row).
  assertEquals(out.decisions.map(brief), [
    "0 DISPATCH 0",
    "0 DISPATCH 1",
    "10 PEND 2 power_cap",
    "30 DISPATCH 2",
  ]);
});
