// What is free on a machine, in every front (issue 28): the node count's
// "available nodes" counts whole nodes only, and a job asking for cores or
// GPUs per replica holds none, so on a machine `availableNodes` said every
// node was free and the backfill window's releases gave 0 nodes. There the
// monitors read the model: `availableNodes` is the idle nodes online, the
// backfill window adds the nodes with any room, the idle ones and the free
// units of each resource (those simulate's per-resource timeline gives), and
// each release the units coming back; the REPL's `info summary` says the
// same. Whole-node answers are unchanged (tests/serve/service_http_test.ts).

import { simulateGpu } from "../_gpu_example.ts";
import { ROOT } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { machineInput } from "../../io/_machine_demands.ts";
import { machineSession } from "../../api/service/_machine_session.ts";
import { grpcJobs, httpJobs } from "../_trace_jobs.ts";
import { Simulation, topologyCluster } from "../../mod.ts";
import { recordMachineRun, repl } from "../_repl_helpers.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;
const T = 2000;

Deno.test("library on a machine: availableNodes counts idle nodes; backfillWindow gives nodes with room, free units and the units each release gives back", () => {
  const model = topologyCluster(
    ["n1", "n2", "n3", "n4"].map((name) => ({ name, capacity: { cpu: 8, gpu: 2 } })),
  );
  const job = (cpu: number, gpu: number, limit: number) => ({
    submitTime: 0,
    numNodes: 0,
    timeLimit: limit,
    demand: { replicas: 1, perReplica: { cpu, gpu } },
  });
  const sim = new Simulation({ totalNodes: 4, resourceModel: model, backfillPolicy: "easy" });
  // Jobs 0, 2, 3 fill a node each (n1, n3, n4); job 1 takes 3 cpu of n2;
  // job 4 waits for jobs 2 and 3 (limit 10).
  sim.appendJobs([job(8, 2, 100), job(3, 0, 50), job(8, 2, 10), job(8, 2, 10), job(8, 2, 10)]);
  sim.advanceTo(0);
  // Every node runs a job (whole nodes said 4 available): none idle, n2 has room.
  assertEquals(sim.availableNodes, 0);
  // And all four hold a job (the node count said 0 in use: no job asks for nodes).
  assertEquals([sim.nodesInUse, sim.statistics().nodesInUse], [4, 4]);
  assertEquals(sim.backfillWindow(), {
    currentTime: 0,
    availableNodes: 0,
    shadowTime: 10,
    // Jobs 2 and 3 end by 10 on two nodes: 16 cpu and 4 gpu back.
    releases: [{ time: 10, nodesReleased: 2, unitsReleased: { cpu: 16, gpu: 4 } }],
    nodesWithRoom: 1,
    idleNodes: 0,
    freeUnits: { cpu: 5, gpu: 2 },
  });
  // At 10 job 4 takes one of the two nodes: one idle, n2 still with room.
  sim.advanceTo(10);
  const at10 = sim.backfillWindow();
  assertEquals([sim.availableNodes, sim.nodesInUse], [1, 3]);
  assertEquals([at10.idleNodes, at10.nodesWithRoom, at10.freeUnits], [1, 2, { cpu: 13, gpu: 4 }]);
  assertEquals(at10.releases.map((r) => [r.time, r.nodesReleased, r.unitsReleased]), [
    [20, 1, { cpu: 8, gpu: 2 }],
    [50, 1, { cpu: 3, gpu: 0 }],
    [100, 1, { cpu: 8, gpu: 2 }],
  ]);
  // The idle node taken offline is neither available nor room.
  const idle = ["n3", "n4"].find((n) =>
    ![...sim.state.running.values()].some((r) =>
      sim.state.resources!.model.allocationOf!(sim.state.resources!.state, r.id)?.[0].nodeName === n
    )
  )!;
  sim.changeNodes({ down: [idle] });
  sim.advanceTo(10);
  const down = sim.backfillWindow();
  assertEquals(sim.availableNodes, 0);
  assertEquals([down.idleNodes, down.nodesWithRoom, down.freeUnits], [0, 1, { cpu: 5, gpu: 2 }]);
});

/** simulate --machine stopped at T with the per-resource timeline: its last row's free units. */
async function timelineFreeAt(dir: string): Promise<Record<string, number>> {
  await simulateGpu([
    "--max_time",
    String(T),
    "-o",
    `${dir}/s.csv`,
    "--resource_trace",
    `${dir}/r.csv`,
    "--resource_columns",
    "per_resource",
  ]);
  const [header, ...rows] = (await Deno.readTextFile(`${dir}/r.csv`)).trim().split("\n");
  const names = header.split(",");
  const last = rows.map((l) => l.split(",")).filter((f) => Number(f[0]) <= T).at(-1)!;
  return Object.fromEntries(
    names.flatMap((n, k) => n.endsWith("_free") ? [[n.slice(0, -5), Number(last[k])]] : []),
  );
}

Deno.test("serve --machine: HTTP backfill_window and monitors, gRPC get_available_nodes give the library's machine answers; free units are simulate's per-resource timeline's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-machine-room-" });
  try {
    const free = await timelineFreeAt(dir);
    const m = machineInput(await readMachine(MACHINE));
    const session = machineSession(m);
    const sim = new Simulation(session.config({ backfillPolicy: "easy" }));
    sim.appendJobs(session.jobs(httpJobs(await Deno.readTextFile(TRACE))));
    sim.advanceTo(T);
    const want = sim.backfillWindow();
    assertEquals(want.freeUnits, free);
    // Busy nodes at T: some idle, fewer than all.
    assert(
      want.idleNodes! < m.nodes.length && want.nodesWithRoom! > want.idleNodes!,
      JSON.stringify(want),
    );
    assert(want.releases.every((r) => r.unitsReleased !== undefined && r.nodesReleased > 0));
    await withServer({ machine: m.machine }, async (server, api) => {
      const { sessionId } = await api.ok("POST", "/sessions", { backfillPolicy: "easy" });
      await api.ok("POST", `/sessions/${sessionId}/jobs`, {
        jobs: httpJobs(await Deno.readTextFile(TRACE)),
      });
      const step = await api.ok("POST", `/sessions/${sessionId}/advance`, { time: T });
      assertEquals(await api.ok("GET", `/sessions/${sessionId}/backfill_window`), want);
      assertEquals(step.monitors.availableNodes, want.idleNodes);
      assertEquals(step.monitors.nodesInUse, sim.nodesInUse);
      assert(sim.nodesInUse > 0 && sim.nodesInUse === m.nodes.length - want.idleNodes!);
      const g = new GrpcSession(server.grpcPort!);
      try {
        await g.ok({ init: { session_name: "u", backfill_policy: "easy" } });
        const jobs = grpcJobs(await Deno.readTextFile(TRACE));
        const { job_idx } = await g.ok({ append_jobs: { requests: jobs } });
        for (let i = 0; i < jobs.length; i++) {
          await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: jobs[i].submit_time } });
        }
        await g.ok({ advance_to: { target_time: T } });
        assertEquals((await g.ok({ get_available_nodes: {} })).available_nodes, want.idleNodes);
        assertEquals((await g.ok({ get_statistics: {} })).nodes_available, want.idleNodes);
        assertEquals((await g.ok({ get_nodes_in_use: {} })).nodes_in_use, sim.nodesInUse);
      } finally {
        await g.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("REPL info summary on a machine: nodes in use, with free room and idle, and the free units, from the machine model", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-machine-summary-" });
  try {
    await Deno.writeTextFile(
      `${dir}/t.csv`,
      "job_submit_time,num_nodes,time_limit,actual_run_time,num_cores,memory,gpus,partition\n" +
        "0,4,1000,1000,,,4,gpu\n" +
        "10,2,500,500,8,16G,2,gpu\n" +
        "20,2,500,500,,,,cpu\n",
    );
    const log = await recordMachineRun(dir, `${dir}/t.csv`);
    const r = await repl(log, ["next 3", "step", "info summary", "info resource"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const summary = r.of("info summary");
    assertEquals(summary.slice(1, 3), [
      "no queues configured; 14 nodes, 6 in use, 12 with free room (8 idle); 3 scheduling rounds",
      // Job 0 holds every GPU; job 2 the two 2T nodes whole (64 cores each).
      "free on the nodes online: cores 640 of 768, gpus 0 of 16, memory 4194304 of 8388608",
    ]);
    // As `info resource` counts them (no node is offline).
    assert(
      r.of("info resource").includes(
        "resources: cores 640 free of 768, gpus 0 free of 16, memory 4194304 free of 8388608",
      ),
      r.of("info resource").join("\n"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
