// Capacity changes of a machine (issue 28 item 5), fast-check with a fixed
// seed (printed on failure): on random machines (tests/_machine_arbs.ts) and
// random schedules of groups and nodes going offline and back (all back at
// t=100, so every job can start), under admission none and easy:
// - no job is ever placed on a node offline at its start, and no resource of
//   any node is oversubscribed (drained jobs included);
// - `drain`: every job runs its whole run time (jobs on a node that goes
//   offline keep running);
// - `kill`: a job running on a node when it goes offline ends then, killed
//   (exit status 137); every other job runs its whole run time;
// - a run resumed from a snapshot (JSON) at a random instant is the same run.
// And the CLI: --capacity_schedule with --machine reads `time,nodes,state`.

import fc from "fast-check";
import {
  advanceTo,
  appendJobs,
  type CapacityChange,
  type DecisionRow,
  finish,
  initialState,
  type JobRow,
  loadSnapshot,
  type Machine,
  machineNodes,
  runToCompletion,
  saveSnapshot,
  type SimState,
  step,
  topologyCluster,
} from "../../mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";
import { runCli } from "../_cli.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 100);

const arbChanges = fc.array(
  fc.record({
    time: fc.integer({ min: 0, max: 60 }),
    group: fc.boolean(),
    pick: fc.nat(),
    down: fc.boolean(),
  }),
  { maxLength: 6 },
);

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

interface Run {
  rows: JobRow[];
  dispatches: DecisionRow[];
}

function run(
  m: Machine,
  jobs: ReturnType<typeof machineJobs>["jobs"],
  schedule: CapacityChange[],
  admission: string,
  cut: "drain" | "kill",
  snapshotAt?: number,
): Run {
  const nodes = machineNodes(m);
  let s: SimState = initialState({
    totalNodes: nodes.length,
    resourceModel: topologyCluster(
      nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
    ),
    backfillPolicy: admission,
    decisions: "heads",
    capacitySchedule: schedule,
    onCapacityCut: cut,
  });
  const out: Run = { rows: [], dispatches: [] };
  const apply = (input: Parameters<typeof step>[1]) => {
    const r = step(s, input);
    s = r.state;
    out.rows.push(...r.rows.jobs);
    out.dispatches.push(...r.rows.decisions.filter((d) => d.type === "DISPATCH"));
  };
  apply(appendJobs(jobs));
  if (snapshotAt !== undefined) {
    apply(advanceTo(snapshotAt));
    s = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(s))));
  }
  apply(runToCompletion());
  apply(finish());
  out.rows.sort((a, b) => a.jobId - b.jobId);
  return out;
}

Deno.test("property: a machine's nodes going offline and back: never placed on, never oversubscribed, drained or killed as configured, the same when resumed from a snapshot", () => {
  const seen = { killed: 0, drainedThrough: 0 };
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 1, maxLength: 15 }),
      arbChanges,
      fc.constantFrom("none", "easy"),
      fc.constantFrom("drain" as const, "kill" as const),
      fc.integer({ min: 0, max: 120 }),
      (m, reqs, raw, admission, cut, at) => {
        const { jobs, placeable } = machineJobs(m, reqs);
        if (jobs.length === 0) return;
        const schedule = scheduleOf(m, raw);
        const r = run(m, jobs, schedule, admission, cut);
        assertEquals(r.rows.length, placeable, "every placeable job runs once all nodes are back");
        const offlineAt = (t: number, strict: boolean) => {
          const off = new Set<string>();
          for (const c of schedule) {
            if (strict ? c.time >= t : c.time > t) break;
            for (const n of c.down ?? []) off.add(n);
            for (const n of c.up ?? []) off.delete(n);
          }
          return off;
        };
        const capacity = new Map(machineNodes(m).map((n) => [n.name, n.capacity]));
        const byId = new Map(r.rows.map((x) => [x.jobId, x]));
        for (const d of r.dispatches) {
          if (d.type !== "DISPATCH") continue;
          const off = offlineAt(d.time, false);
          for (const a of d.allocation!) {
            assert(
              !off.has(a.nodeName),
              `job ${d.jobId} placed on ${a.nodeName}, offline at ${d.time}`,
            );
          }
          // Everything running at this start, drained jobs included, fits each node.
          const used = new Map<string, number>();
          for (const e of r.dispatches) {
            if (e.type !== "DISPATCH") continue;
            const row = byId.get(e.jobId)!;
            if (!(row.beginTime <= d.time && d.time < row.endTime)) continue;
            for (const a of e.allocation!) {
              for (const [res, u] of Object.entries(e.perReplica ?? {})) {
                const k = `${a.nodeName}/${res}`;
                used.set(k, (used.get(k) ?? 0) + u * a.replicas);
                assert(
                  used.get(k)! <= (capacity.get(a.nodeName)![res] ?? 0),
                  `${k} oversubscribed at ${d.time}`,
                );
              }
            }
          }
        }
        for (const d of r.dispatches) {
          if (d.type !== "DISPATCH") continue;
          const row = byId.get(d.jobId)!;
          const planned = row.beginTime + row.timeLimit;
          // The first cut of one of its nodes while it runs (changes apply
          // before the ends of their instant, as on whole nodes).
          const cutAt = schedule.find((c) =>
            c.time > row.beginTime && c.time <= planned &&
            (c.down ?? []).some((n) => d.allocation!.some((a) => a.nodeName === n))
          )?.time;
          if (cut === "kill" && cutAt !== undefined) {
            assertEquals([row.endTime, row.exitStatus, row.outcome], [cutAt, 137, "killed"]);
            seen.killed++;
          } else {
            assertEquals([row.endTime, row.outcome], [planned, undefined], `job ${row.jobId}`);
            if (cutAt !== undefined) seen.drainedThrough++;
          }
        }
        const resumed = run(m, jobs, schedule, admission, cut, at);
        assertEquals(resumed.rows, r.rows, `resumed from a snapshot at ${at}`);
      },
    ),
    { seed: 2805, numRuns: RUNS },
  );
  assert(seen.killed > 0 && seen.drainedThrough > 0, JSON.stringify(seen));
});

Deno.test("simulate --machine --capacity_schedule: a job that no longer fits the nodes online is held (exceeds_capacity) while later jobs start; it starts when they come back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/m.yaml`,
      "groups:\n  - { name: cpu, count: 2, resources: { cores: 8 }, partitions: [cpu] }\n" +
        "  - { name: gpu, count: 2, resources: { cores: 8, gpus: 4 }, partitions: [gpu] }\n",
    );
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,num_cores,gpus,partition\n" +
        "0,1,100,8,4,gpu\n10,2,50,8,4,gpu\n20,1,30,8,,cpu\n",
    );
    // gpu001 drains its job from 5; both GPU nodes are offline from 5 to 200.
    await Deno.writeTextFile(`${dir}/c.csv`, "time,nodes,state\n5,gpu,down\n200,gpu,up\n");
    const r = await runCli([
      "simulate",
      `${dir}/t.csv`,
      "--machine",
      `${dir}/m.yaml`,
      "-b",
      "none",
      "--capacity_schedule",
      `${dir}/c.csv`,
      "--extended_output",
      "--decisions",
      `${dir}/d.jsonl`,
      "-o",
      `${dir}/o.csv`,
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const rows = (await Deno.readTextFile(`${dir}/o.csv`)).trim().split("\n").slice(1)
      .map((l) => l.split(",").slice(0, 3).join(",") + " " + l.slice(l.lastIndexOf(",") + 1));
    // Job 0 drains (runs to 100 on gpu001); job 1 waits for the GPU nodes; job 2 is not blocked by it.
    assertEquals(rows, ["0,0,100 gpu001", "10,200,250 gpu[001-002]", "20,20,50 cpu001"]);
    const held = (await Deno.readTextFile(`${dir}/d.jsonl`)).split("\n")
      .filter((l) => l.includes('"jobId":1,') && l.includes("PEND"));
    assert(held[0]?.includes('"code":"exceeds_capacity"'), held.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
