// Machine runs recorded, snapshotted and replayed (issue 28 acceptance:
// "batch ≡ streaming ≡ recorded-and-replayed, snapshots at random instants
// included"), fast-check with a fixed seed (printed on failure): on random
// machines and traces (tests/_machine_arbs.ts), under admission none and
// easy, the job rows and each job's allocation are the same whether the
// trace is run in one batch, streamed job by job through `Simulation`,
// recorded and re-simulated from the log (zero mismatches), or saved to a
// JSON snapshot at a random instant and continued from it.

import fc from "fast-check";
import { Resimulation } from "../../api/resimulation.ts";
import { parseLog } from "../../io/replay_reader.ts";
import {
  advanceTo,
  appendJobs,
  type DecisionRow,
  finish,
  initialState,
  type JobRow,
  type JobSpec,
  loadSnapshot,
  type Machine,
  machineNodes,
  runToCompletion,
  saveSnapshot,
  type SimState,
  Simulation,
  type SimulationConfig,
  step,
  topologyCluster,
} from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 100);

/** A run's outcome: job rows by id, and each job's allocation (node=replicas). */
interface Outcome {
  rows: JobRow[];
  placed: Record<number, string>;
}

function configOf(m: Machine, admission: string): SimulationConfig {
  const nodes = machineNodes(m);
  return {
    totalNodes: nodes.length,
    resourceModel: topologyCluster(
      nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
    ),
    backfillPolicy: admission,
    decisions: "heads",
  };
}

class Collect {
  rows: JobRow[] = [];
  placed: Record<number, string> = {};
  decisions(ds: readonly DecisionRow[]): void {
    for (const d of ds) this.decision(d);
  }
  decision(d: DecisionRow): void {
    if (d.type === "DISPATCH" && d.allocation !== undefined) {
      this.placed[d.jobId] = d.allocation.map((a) => `${a.nodeName}=${a.replicas}`).join(",");
    }
  }
  outcome(): Outcome {
    return { rows: [...this.rows].sort((a, b) => a.jobId - b.jobId), placed: this.placed };
  }
}

function drive(s: SimState, inputs: readonly Parameters<typeof step>[1][], c: Collect): SimState {
  for (const input of inputs) {
    const r = step(s, input);
    s = r.state;
    c.rows.push(...r.rows.jobs);
    c.decisions(r.rows.decisions);
  }
  return s;
}

function batch(config: SimulationConfig, jobs: JobSpec[]): Outcome {
  const c = new Collect();
  drive(initialState(config), [appendJobs(jobs), runToCompletion(), finish()], c);
  return c.outcome();
}

/** Job by job through Simulation, recorded from the start: the outcome and the log. */
function streamed(config: SimulationConfig, jobs: JobSpec[]): Outcome & { log: string } {
  const c = new Collect();
  let log = "";
  const sim = new Simulation(config, {
    onJobRow: (r) => void c.rows.push(r),
    onDecision: (d) => c.decision(d),
  });
  sim.startRecording({ write: (t) => void (log += t) }, { snapshotInterval: 3 });
  for (const j of jobs) {
    sim.advanceTo(j.submitTime);
    sim.appendJob(j);
  }
  sim.runToCompletion();
  // The last rows come with the final flush, and those behind a job held for
  // good (one the machine can never hold) with the finish: recorded too.
  sim.flush();
  sim.finish();
  sim.stopRecording();
  return { ...c.outcome(), log };
}

function replayed(log: string): Outcome {
  const c = new Collect();
  const sim = new Resimulation({ log: parseLog(log, "m.replay"), verify: true });
  for (let r = sim.step(); r !== undefined; r = sim.step()) {
    c.rows.push(...r.rows.jobs);
    c.decisions(r.rows.decisions);
  }
  assertEquals(sim.mismatches, [], "the re-simulation decides as the recording did");
  return c.outcome();
}

/** Run to `t`, saved as JSON, loaded and continued to the end. */
function resumed(config: SimulationConfig, jobs: JobSpec[], t: number): Outcome {
  const c = new Collect();
  const s = drive(initialState(config), [appendJobs(jobs), advanceTo(t)], c);
  const loaded = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(s))));
  drive(loaded, [runToCompletion(), finish()], c);
  return c.outcome();
}

Deno.test("property: on random machines, batch = streaming = recorded-and-replayed = resumed from a snapshot at a random instant (admission none and easy)", () => {
  let withRunning = 0;
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 1, maxLength: 20 }),
      fc.constantFrom("none", "easy"),
      fc.integer({ min: 0, max: 80 }),
      (m, reqs, admission, cut) => {
        const { jobs, placeable } = machineJobs(m, reqs);
        if (jobs.length === 0) return;
        const config = configOf(m, admission);
        const a = batch(config, jobs);
        assertEquals(a.rows.length, placeable, "every placeable job runs");
        const b = streamed(config, jobs);
        assertEquals({ rows: b.rows, placed: b.placed }, a, "streaming");
        assertEquals(replayed(b.log), a, "recorded and replayed");
        assertEquals(resumed(config, jobs, cut), a, `resumed from a snapshot at t=${cut}`);
        if (a.rows.some((r) => r.beginTime <= cut && cut < r.endTime)) withRunning++;
      },
    ),
    { seed: 2028, numRuns: RUNS },
  );
  // Snapshots taken while jobs hold resources, not only of empty machines.
  assert(withRunning > RUNS / 4, `only ${withRunning} snapshots had running jobs`);
});

Deno.test("a machine snapshot whose allocations lie is refused in one line naming the field", () => {
  const m: Machine = { groups: [{ name: "g", count: 2, resources: { cores: 4 } }] };
  const { jobs } = machineJobs(m, [
    {
      submit: 0,
      limit: 10,
      replicas: 1,
      whole: false,
      units: [3, 0, 0, 0],
      partition: undefined,
      rack: false,
    },
    {
      submit: 0,
      limit: 10,
      replicas: 1,
      whole: false,
      units: [3, 0, 0, 0],
      partition: undefined,
      rack: false,
    },
  ]);
  const s = step(initialState(configOf(m, "none")), appendJobs(jobs)).state;
  const snap = JSON.parse(JSON.stringify(saveSnapshot(step(s, advanceTo(1)).state)));
  assertEquals(snap.allocations, [[0, [["g001", 1]]], [1, [["g002", 1]]]]);
  const refused = (change: (x: typeof snap) => void, expected: string) => {
    const bad = structuredClone(snap);
    change(bad);
    try {
      loadSnapshot(bad);
    } catch (e) {
      assertEquals((e as Error).message, expected);
      return;
    }
    throw new Error(`loaded: ${expected}`);
  };
  refused(
    (x) => (x.allocations[1][1][0][0] = "g001"),
    "snapshot: allocations[1][0]: node g001 would hold 6 cores of its 4 (oversubscribed)",
  );
  refused(
    (x) => x.allocations.pop(),
    "snapshot: allocations: running job 1 holds nothing (every running job is allocated)",
  );
  refused(
    (x) => (x.allocations[0][1][0][0] = "h001"),
    "snapshot: allocations[0][0]: h001 is not a node of the model",
  );
  refused(
    (x) => x.allocations[0][1].push(["g002", 1]),
    "snapshot: allocations[0]: job 0 holds 2 replicas, its demand is 1",
  );
  refused(
    (x) => delete x.config.resourceNodes,
    "snapshot: allocations: allocations without a resource model (config.resourceNodes)",
  );
  // The machine is back, with the holdings: free units as before the save.
  const loaded = loadSnapshot(snap);
  assertEquals(loaded.resources?.model.freeOn?.(loaded.resources.state, "g001")?.cores, 1);
});

Deno.test("simulate --machine --record: replay --verify matches, and a run continued from any of its snapshots writes the same rows, with the nodes of every job running at or started after the snapshot", async () => {
  const { runCli } = await import("../_cli.ts");
  const dir = await Deno.makeTempDir();
  try {
    const base = [
      "simulate",
      "examples/gpu_trace.csv",
      "--machine",
      "examples/gpu_machine.yaml",
      "--extended_output",
    ];
    const rec = await runCli([
      ...base,
      "-b",
      "easy",
      "--record",
      `${dir}/r.replay`,
      "--snapshot_interval",
      "4",
      "-o",
      `${dir}/a.csv`,
    ]);
    assertEquals(rec.code, 0, rec.err.join("\n"));
    const replay = await runCli(["replay", `${dir}/r.replay`, "--verify"]);
    assertEquals(replay.code, 0, replay.err.join("\n"));
    assert(
      [...replay.out, ...replay.err].some((l) => l.includes("every decision matches")),
      [...replay.out, ...replay.err].join("\n"),
    );
    const whole = new Set((await Deno.readTextFile(`${dir}/a.csv`)).trim().split("\n"));
    // A row without its nodes field (the last).
    const bare = (l: string) => l.slice(0, l.lastIndexOf(",") + 1);
    const wholeBare = new Set([...whole].map(bare));
    const lines = (await Deno.readTextFile(`${dir}/r.replay`)).split("\n");
    const snaps = lines.flatMap((l, i) => (l.includes('"type":"snapshot"') ? [i] : []));
    assert(snaps.length >= 3, `${snaps.length} snapshots`);
    for (const at of snaps.slice(1)) {
      await Deno.writeTextFile(`${dir}/cut.replay`, lines.slice(0, at + 1).join("\n") + "\n");
      const r = await runCli([
        ...base,
        "--from_snapshot",
        `${dir}/cut.replay`,
        "-o",
        `${dir}/b.csv`,
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      const t = JSON.parse(lines[at]).time as number;
      for (const l of (await Deno.readTextFile(`${dir}/b.csv`)).trim().split("\n")) {
        if (whole.has(l)) continue;
        // Only a job that ended by the snapshot has given its nodes back before it.
        assert(l === bare(l) && wholeBare.has(l), `continued from line ${at + 1}: ${l}`);
        assert(Number(l.split(",")[2]) <= t, `continued from line ${at + 1} (t=${t}): ${l}`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
