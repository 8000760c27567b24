// EASY under a power cap with no decisions recorded keeps its indexed search
// (core/_session.ts, searchesUnderCap): the same starts as the walk that
// recording decisions makes, by hand.

import { type JobSpec, Simulation, type SimulationConfig } from "../../mod.ts";
import { assertEquals } from "../_assert.ts";

// 4 nodes drawing nothing idle and 10 W busy, under 50 W.
const MACHINE: SimulationConfig = {
  totalNodes: 4,
  idleWatts: 0,
  busyWatts: 10,
  powerCap: 50,
  backfillPolicy: "easy",
};

function begins(config: SimulationConfig, jobs: JobSpec[]): number[] {
  const sim = new Simulation(config);
  sim.appendJobs(jobs);
  return sim.finish().jobs.map((j) => j.beginTime);
}

Deno.test("power cap, EASY's search: a job held for power is passed over, the job behind it is backfilled", () => {
  const jobs: JobSpec[] = [
    // 3 nodes until 100: 30 W.
    { submitTime: 0, numNodes: 3, timeLimit: 100, actualRunTime: 100 },
    // The head at 1: 4 nodes, its reservation at 100.
    { submitTime: 1, numNodes: 4, timeLimit: 10, actualRunTime: 10 },
    // Even alone 10 + 100 = 110 W, over the cap: held, never starts.
    { submitTime: 1, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 100 },
    // 30 + 10 + 5 = 45 W, ends by 11 (< 100): backfilled at 1.
    { submitTime: 1, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 5 },
  ];
  const walked = begins({ ...MACHINE, decisions: true }, jobs);
  assertEquals(walked, [0, 100, 1]);
  assertEquals(begins({ ...MACHINE, decisions: false }, jobs), walked);
});

Deno.test("power cap, EASY's search: after a refused backfill nothing more of the session starts", () => {
  const jobs: JobSpec[] = [
    { submitTime: 0, numNodes: 3, timeLimit: 100, actualRunTime: 100 },
    { submitTime: 1, numNodes: 4, timeLimit: 10, actualRunTime: 10 },
    // 30 + 10 + 15 = 55 W: refused at 1 (alone 25 W: not held).
    { submitTime: 1, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 15 },
    // 45 W would fit, but the refusal above ended the session's starts; at
    // 11 nothing happens (no event), so both wait for 100.
    { submitTime: 1, numNodes: 1, timeLimit: 10, actualRunTime: 10, power: 5 },
  ];
  const walked = begins({ ...MACHINE, decisions: true }, jobs);
  assertEquals(walked, [0, 100, 110, 110]);
  assertEquals(begins({ ...MACHINE, decisions: false }, jobs), walked);
});
