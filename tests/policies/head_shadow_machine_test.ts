// The head's shadow time on a machine (issue 28): the REPL's `info resource`,
// gRPC's get_fcfs_head_shadow_time (HTTP's headShadowTime, the library's
// headShadowTime) give the time EASY reserves for its head over every
// resource of the machine — the time its reservation_blocked reasons name —
// not the whole-node count's (which, as demand jobs hold no whole node, was
// the clock). A head every waiting job of which is held says so as its pend
// reason does (exceeds_capacity), with no time.

import { simulateGpu } from "../_gpu_example.ts";
import fc from "fast-check";
import {
  advanceTo,
  appendJobs,
  changeNodes,
  headShadowTime,
  initialState,
  machineNodes,
  type SimState,
  step,
  topologyCluster,
} from "../../mod.ts";
import { headReservation, waitingReasons } from "../../core/queries.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";
import { repl } from "../_repl_helpers.ts";
import { GrpcSession, withServer } from "../_service_helpers.ts";
import { readMachine } from "../../io/machine_file.ts";
import { arbMachine, arbRequest, machineJobs } from "../_machine_arbs.ts";
import { grpcJobs } from "../_trace_jobs.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;
const TRACE = `${ROOT}examples/gpu_trace.csv`;

// "reservation at 3600 of job 4" in a reservation_blocked reason: [time, head].
const RESERVATION = /reservation at (-?\d+) of job (\d+)/;

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("REPL and gRPC on a machine (EASY): the head's shadow time is the reservation its reservation_blocked reasons name, at every instant", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-head-shadow-" });
  try {
    await simulateGpu(["-o", `${dir}/s.csv`, "--record", `${dir}/g.replay`, "--no_progress"]);
    const steps = 12;
    const cmds: string[] = [];
    for (let i = 0; i < steps; i++) cmds.push("next 1", "info resource", "info pending");
    const r = await repl(`${dir}/g.replay`, cmds);
    assertEquals(r.code, 0, r.err.join("\n"));
    // The REPL's shadow time per instant, and how many instants a reason checked.
    const byTime = new Map<number, number>();
    let checked = 0;
    for (let i = 0; i < steps; i++) {
      const at = r.of("next 1", i)[0].match(/ at t=(\d+) /);
      if (at === null) break; // the run ended
      const head = r.of("info resource", i).find((l) => l.startsWith("head:"));
      const shadow = head?.match(/reservation \(shadow time\) at (-?\d+)$/);
      if (shadow) byTime.set(Number(at[1]), Number(shadow[1]));
      for (const line of r.of("info pending", i)) {
        const m = line.match(RESERVATION);
        if (m === null) continue;
        checked++;
        assert(head?.startsWith(`head: job ${m[2]} needs `), `${head} / ${line}`);
        assertEquals(Number(shadow?.[1]), Number(m[1]), `${head} / ${line}`);
      }
    }
    assert(checked >= 2, `reasons checked: ${checked}`);
    assertEquals(byTime.get(420), 3600); // the whole-node count said 420 (the clock)
    // gRPC at the same instants (the same trace on the same machine).
    const jobs = grpcJobs(await Deno.readTextFile(TRACE));
    const machine = await readMachine(MACHINE);
    await withServer({ machine }, async (server) => {
      const g = new GrpcSession(server.grpcPort!);
      try {
        await g.ok({ init: { session_name: "h", backfill_policy: "easy" } });
        const { job_idx } = await g.ok({ append_jobs: { requests: jobs } });
        for (let i = 0; i < jobs.length; i++) {
          await g.ok({ submit_job: { job_idx: job_idx[i], submit_time: jobs[i].submit_time } });
        }
        let compared = 0;
        for (const [t, want] of byTime) {
          await g.ok({ advance_to: { target_time: t } });
          const got = await g.ok({ get_fcfs_head_shadow_time: {} });
          assertEquals(Number(got.shadow_time), want, `t=${t}`);
          compared++;
        }
        assert(compared >= 3, `instants compared: ${compared}`);
      } finally {
        await g.close();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Every reservation_blocked reason at `s` names the library's head and shadow time. */
function agrees(s: SimState): number {
  let n = 0;
  const head = headReservation(s);
  for (const reason of waitingReasons(s).values()) {
    if (reason.code !== "reservation_blocked") continue;
    const m = reason.message.match(RESERVATION)!;
    n++;
    if (head?.job.id !== Number(m[2]) || head.shadowTime !== Number(m[1])) {
      throw new Error(`reason '${reason.message}', head ${JSON.stringify(head)}`);
    }
    if (headShadowTime(s) !== head.shadowTime) throw new Error("headShadowTime");
  }
  return n;
}

Deno.test("property: on random machines under EASY, the library's head shadow time is the one EASY's reasons name, at every submit time", () => {
  let reasons = 0;
  fc.assert(
    fc.property(
      arbMachine,
      fc.array(arbRequest, { minLength: 2, maxLength: 20 }),
      fc.constantFrom("builtin_fcfs", "sjf", "ljf"),
      (m, reqs, picker) => {
        const nodes = machineNodes(m);
        const model = topologyCluster(
          nodes.map((n) => ({ name: n.name, topology: n.topology, capacity: n.capacity })),
        );
        const { jobs } = machineJobs(m, reqs);
        let s = initialState({
          totalNodes: nodes.length,
          resourceModel: model,
          backfillPolicy: "easy",
          picker,
        });
        s = step(s, appendJobs(jobs)).state;
        const times = [...new Set(jobs.flatMap((j) => [j.submitTime, j.submitTime + 7]))]
          .sort((a, b) => a - b);
        for (const t of times) {
          s = step(s, advanceTo(t)).state;
          reasons += agrees(s);
        }
      },
    ),
    { seed: 2028, numRuns: 150 },
  );
  assert(reasons > 20, `reservation_blocked reasons checked: ${reasons}`);
});

Deno.test("a head that can never be placed as things are: no shadow time (-1), and its hold's reason, as its pend reason says", () => {
  const model = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }, {
    name: "n2",
    capacity: { cpu: 8 },
  }]);
  let s = initialState({ totalNodes: 2, resourceModel: model, backfillPolicy: "easy" });
  s = step(s, changeNodes({ time: 0, down: ["n2"] })).state;
  s = step(
    s,
    appendJobs([{
      submitTime: 0,
      numNodes: 0,
      timeLimit: 10,
      demand: { replicas: 2, perReplica: { cpu: 8 } },
    }]),
  ).state;
  s = step(s, advanceTo(0)).state;
  const pend = waitingReasons(s).get(0);
  assertEquals(pend?.code, "exceeds_capacity");
  const head = headReservation(s);
  assertEquals(head?.job.id, 0);
  assertEquals(head?.shadowTime, undefined);
  assertEquals(head?.reason, pend);
  assertEquals(headShadowTime(s), -1);
});
