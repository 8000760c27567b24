// The REPL on a machine whose nodes go down and up (issue 28): stepping over
// a `changeNodes` input shows what was asked (NODE_REQUEST), the instant it
// applies shows each node going offline or back (NODE_CHANGE, live or from
// the capacity schedule) and the jobs a kill cut ends; breakpoints stop
// before them; `info resource` lists the nodes online, offline and draining,
// and the changes still due.

import { fileRecordingSink, Simulation, topologyCluster } from "../../mod.ts";
import { ROOT } from "../_cli.ts";
import { assert, assertEquals } from "../_assert.ts";
import { recordLiveEvents, recordMachineRun, repl } from "../_repl_helpers.ts";

/** Records a 3-node machine session with live node changes (`cut`) into `dir/live.replay`. */
function recordLive(dir: string, cut: "drain" | "kill"): string {
  const path = `${dir}/live-${cut}.replay`;
  const sim = new Simulation({
    totalNodes: 3,
    onCapacityCut: cut,
    decisions: true,
    resourceModel: topologyCluster(
      ["n1", "n2", "n3"].map((name) => ({ name, capacity: { cpu: 8 } })),
    ),
  });
  sim.startRecording(fileRecordingSink(path));
  const job = (submitTime: number, replicas: number, timeLimit: number) => ({
    submitTime,
    numNodes: 0,
    timeLimit,
    demand: { replicas, perReplica: { cpu: 8 } },
  });
  sim.appendJobs([job(0, 2, 50), job(1, 1, 30)]);
  sim.advanceTo(5);
  // Job 0 runs on n1 and n2 (job 1 on n3): n1 goes down under it at 10.
  sim.changeNodes({ time: 10, down: ["n1"] });
  sim.advanceTo(20);
  sim.changeNodes({ time: 60, up: ["n1"] });
  sim.finish();
  sim.stopRecording();
  return path;
}

for (const cut of ["drain", "kill"] as const) {
  Deno.test(`REPL: a live changeNodes is shown when stepped over, and its instant shows the node going down and up (${cut})`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-node-changes-" });
    try {
      const log = recordLive(dir, cut);
      const r = await repl(log, [
        "break NODE_REQUEST",
        "continue",
        "step",
        "info resource",
        "delete all",
        "break NODE_CHANGE state=DOWN",
        "continue",
        "step",
        "info resource",
        "delete all",
        "break NODE_CHANGE node=n1 state=UP",
        "continue",
        "step",
        "info resource",
        "quit",
      ]);
      assertEquals(r.code, 0, r.err.join("\n"));
      assertEquals(r.of("continue"), [
        "[sim] breakpoint 1 hit before event #5 (t=5): NODE_REQUEST down=n1 time=10",
      ]);
      assertEquals(r.of("step"), [
        "[sim] event #5 at t=5: log event seq 2 (changeNodes, line 7)",
        "  NODE_REQUEST down=n1 time=10",
      ]);
      const asked = r.of("info resource");
      assert(asked.includes("online: 3 nodes n[1-3]"), asked.join("\n"));
      assert(asked.includes("offline: 0 nodes"), asked.join("\n"));
      assert(asked.includes("node change due at 10: down n1"), asked.join("\n"));
      assertEquals(r.of("continue", 1), [
        "[sim] breakpoint 2 hit before event #6 (t=10): NODE_CHANGE node=n1 state=DOWN source=live time=10",
      ]);
      // Job 0 runs on n1 and n2: drained, it runs on; killed, it ends at the cut.
      assertEquals(r.of("step", 1), [
        "[sim] event #6 at t=10: an instant of log event seq 3 (advanceTo, line 8)",
        "  NODE_CHANGE node=n1 state=DOWN source=live time=10",
        ...(cut === "kill" ? ["  JOB_STATE_CHANGE job=0 state=KILLED time=10"] : []),
      ]);
      const down = r.of("info resource", 1);
      assert(down.includes("online: 2 nodes n[2-3]"), down.join("\n"));
      assert(down.includes("offline: 1 nodes n1"), down.join("\n"));
      assertEquals(
        down.includes("draining (offline, jobs still running): n1 (job 0)"),
        cut === "drain",
        down.join("\n"),
      );
      assert(!down.some((l) => l.startsWith("node change due")), down.join("\n"));
      const back = r.of("step", 2);
      assertEquals(back.slice(1), ["  NODE_CHANGE node=n1 state=UP source=live time=60"]);
      const up = r.of("info resource", 2);
      assert(up.includes("online: 3 nodes n[1-3]"), up.join("\n"));
      assert(up.includes("offline: 0 nodes"), up.join("\n"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("REPL: a machine's capacity schedule shows its nodes going down and up (source=schedule)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-node-schedule-" });
  try {
    await Deno.writeTextFile(`${dir}/c.csv`, "time,nodes,state\n200,gpu,down\n2500,gpu,up\n");
    const log = await recordMachineRun(dir, `${ROOT}examples/gpu_trace.csv`, [
      "--capacity_schedule",
      `${dir}/c.csv`,
    ]);
    const r = await repl(log, [
      "info resource",
      "break NODE_CHANGE source=schedule",
      "continue",
      "step",
      "info resource",
      "quit",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(
      r.of("info resource").includes("next capacity change: 10 nodes at 200 (down gpu[001-004])"),
      r.of("info resource").join("\n"),
    );
    const gpus = ["gpu001", "gpu002", "gpu003", "gpu004"];
    assertEquals(
      r.of("continue"),
      gpus.map((n) =>
        `[sim] breakpoint 1 hit before event #12 (t=200): NODE_CHANGE node=${n} state=DOWN source=schedule time=200`
      ),
    );
    assertEquals(
      r.of("step").slice(1),
      gpus.map((n) => `  NODE_CHANGE node=${n} state=DOWN source=schedule time=200`),
    );
    const cut = r.of("info resource", 1);
    for (
      const line of [
        "online: 10 nodes bigmem[001-002],cpu[001-008]",
        "offline: 4 nodes gpu[001-004]",
        "draining (offline, jobs still running): gpu001 (job 1), gpu002 (job 3)",
        "next capacity change: 14 nodes at 2500 (up gpu[001-004])",
      ]
    ) assert(cut.includes(line), `${line}\n${cut.join("\n")}`);
    // Before the cut: nothing drains.
    assert(!r.of("info resource").some((l) => l.startsWith("draining")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("REPL: on whole nodes info resource has no online/offline lines, and steps show no node events", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-repl-node-whole-" });
  try {
    const r = await repl(await recordLiveEvents(dir), ["step 3", "info resource", "continue"]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assert(!r.of("info resource").some((l) => /^(online|offline|draining)/.test(l)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
