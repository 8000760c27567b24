// Live changes of a machine's nodes (issue 28 item 5, one engine for every
// input path): `changeNodes` at time t gives the same rows as the same change
// in the capacity schedule, for drain and kill (fast-check, fixed seed printed
// on failure); a recorded session with a live node change replays and
// verifies; bad names are refused in one line and change nothing.

import fc from "fast-check";
import {
  appendJobs,
  type CapacityChange,
  changeNodes,
  finish,
  initialState,
  type Input,
  loadSnapshot,
  type Machine,
  machineNodes,
  runToCompletion,
  runUntilExclusive,
  saveSnapshot,
  type SimState,
  Simulation,
  step,
  topologyCluster,
} from "../../mod.ts";
import { EvtsimError } from "../../core/errors.ts";
import { fileRecordingSink } from "../../mod.ts";
import { Resimulation } from "../../api/resimulation.ts";
import { readLog } from "../../io/replay_reader.ts";
import { runCli } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 100);

// From t=1: the schedule's changes at the start make the starting machine
// (the run's first resource row shows it), which a live change cannot precede.
const arbChanges = fc.array(
  fc.record({
    time: fc.integer({ min: 1, max: 60 }),
    group: fc.boolean(),
    pick: fc.nat(),
    down: fc.boolean(),
  }),
  { maxLength: 6 },
);

// The changes as a capacity schedule gives them (io/machine_capacity.ts's
// form: one list of names per row, capacity = the nodes online after it).
function scheduleOf(
  m: Machine,
  raw: readonly { time: number; group: boolean; pick: number; down: boolean }[],
): CapacityChange[] {
  const nodes = machineNodes(m);
  const offline = new Set<string>();
  const out: CapacityChange[] = [];
  const add = (time: number, names: string[], down: boolean) => {
    for (const n of names) down ? offline.add(n) : offline.delete(n);
    out.push({
      time,
      capacity: nodes.length - offline.size,
      ...(down ? { down: names } : { up: names }),
    });
  };
  for (const c of [...raw].sort((a, b) => a.time - b.time)) {
    const names = c.group
      ? nodes.filter((n) => n.group === c.pick % m.groups.length).map((n) => n.name)
      : [nodes[c.pick % nodes.length].name];
    add(c.time, names, c.down);
  }
  add(100, nodes.map((n) => n.name), false);
  return out;
}

function machineState(m: Machine, admission: string, cut: "drain" | "kill", schedule = []) {
  const nodes = machineNodes(m);
  return initialState({
    totalNodes: nodes.length,
    resourceModel: topologyCluster(
      nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
    ),
    backfillPolicy: admission,
    decisions: true,
    capacitySchedule: schedule as CapacityChange[],
    onCapacityCut: cut,
  });
}

// Every row the run gives, in the order it gives them.
function drive(s: SimState, inputs: readonly Input[]) {
  const rows: unknown[] = [];
  for (const input of inputs) {
    const r = step(s, input);
    s = r.state;
    rows.push(r.rows);
  }
  return { rows, stats: s.stats };
}

Deno.test("property: a live changeNodes at time t gives the same rows as the same change in the capacity schedule (drain and kill; pushed ahead or when the clock reaches t)", () => {
  const seen = { killed: 0, changes: 0 };
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 1, maxLength: 15 }),
      arbChanges,
      fc.constantFrom("none", "easy"),
      fc.constantFrom("drain" as const, "kill" as const),
      fc.boolean(),
      (m, reqs, raw, admission, cut, ahead) => {
        const { jobs } = machineJobs(m, reqs);
        if (jobs.length === 0) return;
        const schedule = scheduleOf(m, raw);
        const scheduled = drive(machineState(m, admission, cut, schedule as never), [
          appendJobs(jobs),
          runToCompletion(),
          finish(),
        ]);
        const live: Input[] = [appendJobs(jobs)];
        const change = (c: CapacityChange) => changeNodes({ time: c.time, down: c.down, up: c.up });
        if (ahead) live.push(...schedule.map(change));
        else {
          for (const c of schedule) live.push(runUntilExclusive(c.time), change(c));
        }
        live.push(runToCompletion(), finish());
        const given = drive(machineState(m, admission, cut), live);
        const flat = (x: { rows: unknown[] }) =>
          JSON.stringify(x.rows.flatMap((r) => Object.entries(r as object)));
        const merged = (x: { rows: unknown[] }) => {
          const all: Record<string, unknown[]> = {};
          for (const r of x.rows) {
            for (const [k, v] of Object.entries(r as Record<string, unknown[]>)) {
              (all[k] ??= []).push(...v);
            }
          }
          return all;
        };
        assert(flat(given).length > 0, "rows");
        assertEquals(merged(given), merged(scheduled));
        assertEquals(given.stats, scheduled.stats);
        seen.killed += scheduled.stats.jobsKilled;
        seen.changes += schedule.length;
      },
    ),
    { seed: 2806, numRuns: RUNS },
  );
  assert(seen.killed > 0, JSON.stringify(seen));
});

function twoNodes(cut: "drain" | "kill" = "drain") {
  return new Simulation({
    totalNodes: 2,
    onCapacityCut: cut,
    resourceModel: topologyCluster([
      { name: "n1", capacity: { cpu: 8 } },
      { name: "n2", capacity: { cpu: 8 } },
    ]),
  });
}

Deno.test("changeNodes: an unknown node, no node, or whole nodes: one line, nothing changes", () => {
  const sim = twoNodes();
  const refused = (f: () => void) => {
    try {
      f();
    } catch (e) {
      assert(e instanceof EvtsimError, String(e));
      assert(!e.message.includes("\n"), e.message);
      return e.message;
    }
    throw new Error("not refused");
  };
  const liveBefore = sim.state.liveSeq;
  assert(refused(() => sim.changeNodes({ down: ["n9"] })).includes("'n9' is not a node"));
  assert(refused(() => sim.changeNodes({ down: ["n1"], up: ["x"] })).includes("up: 'x'"));
  assert(refused(() => sim.changeNodes({})).includes("at least one node"));
  assert(refused(() => sim.changeNodes({ down: "n1" as never })).includes("list of node names"));
  assertEquals(sim.state.liveSeq, liveBefore);
  const whole = new Simulation({ totalNodes: 4 });
  assert(refused(() => whole.changeNodes({ down: ["n1"] })).includes("needs a machine"));
});

for (const cut of ["drain", "kill"] as const) {
  Deno.test(`a recorded machine session with live node changes (${cut}) passes replay --verify and re-simulates to the live schedule`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const path = `${dir}/live.replay`;
      const sim = new Simulation({
        totalNodes: 3,
        onCapacityCut: cut,
        decisions: true,
        resourceModel: topologyCluster(
          ["n1", "n2", "n3"].map((name) => ({ name, capacity: { cpu: 8 } })),
        ),
      });
      sim.startRecording(fileRecordingSink(path), { snapshotInterval: 2 });
      const job = (submitTime: number, replicas: number, timeLimit: number) => ({
        submitTime,
        numNodes: 0,
        timeLimit,
        demand: { replicas, perReplica: { cpu: 8 } },
      });
      sim.appendJobs([job(0, 2, 50), job(1, 1, 30)]);
      sim.advanceTo(5);
      // A node holding a running job goes down; the 3-node job waits for it.
      sim.changeNodes({ time: 10, down: ["n1"] });
      sim.appendJob(job(12, 3, 20));
      sim.advanceTo(20);
      sim.changeNodes({ up: ["n1"] });
      sim.changeNodes({ time: 70, down: ["n2", "n3"], up: [] });
      sim.changeNodes({ time: 90, up: ["n2", "n3"] });
      const out = sim.finish();
      sim.stopRecording();
      assertEquals(out.jobs.length, 3);
      assert(
        (cut === "kill") === out.jobs.some((j) => j.outcome === "killed"),
        JSON.stringify(out.jobs),
      );
      const cli = await runCli(["replay", path, "--verify"]);
      assertEquals(cli.code, 0, cli.out.join("\n") + cli.err.join("\n"));
      assert(cli.out.join("\n").includes("verify: every decision matches the recording"));
      // Re-simulated in the library too: no mismatch, the live rows.
      const re = new Resimulation({
        log: readLog(path),
        verify: true,
        output: { write: () => {} },
      });
      const jobs = [];
      for (let r = re.step(); r !== undefined; r = re.step()) jobs.push(...r.rows.jobs);
      assertEquals(re.mismatches, []);
      assertEquals(jobs, [...out.jobs]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a pending changeNodes survives a snapshot (JSON) and applies as without it", () => {
  const model = topologyCluster(
    ["n1", "n2"].map((name) => ({ name, capacity: { cpu: 8 } })),
  );
  const job = {
    submitTime: 0,
    numNodes: 0,
    timeLimit: 50,
    demand: { replicas: 1, perReplica: { cpu: 8 } },
  };
  const inputs: Input[] = [
    appendJobs([job, job, { ...job, submitTime: 30 }]),
    changeNodes({ time: 20, down: ["n1", "n2"] }),
    changeNodes({ time: 40, up: ["n2"] }),
    runUntilExclusive(10),
  ];
  const run = (resume: boolean) => {
    let s = initialState({ totalNodes: 2, resourceModel: model, onCapacityCut: "kill" });
    for (const i of inputs) s = step(s, i).state;
    if (resume) s = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(s))));
    assertEquals(s.liveEvents.first()?.kind, "nodes");
    return drive(s, [runToCompletion(), finish()]).rows;
  };
  const plain = run(false);
  assertEquals(run(true), plain);
  assert(JSON.stringify(plain).includes('"outcome":"killed"'), JSON.stringify(plain));
});
