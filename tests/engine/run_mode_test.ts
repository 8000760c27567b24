// The run's mode (core/_run_mode.ts) is chosen once, when the first state is
// made: a simulation or a schedule replay. Each mode takes its own inputs
// and refuses the others with the messages evtsim always gave.

import { assert, assertEquals, assertThrows } from "../_assert.ts";
import {
  advanceTo,
  appendJobs,
  finish,
  initialState,
  loadSnapshot,
  runToCompletion,
  saveSnapshot,
  type SimState,
  step,
} from "../../mod.ts";
import type { Input } from "../../core/step.ts";

const job = (submitTime: number) => ({ submitTime, numNodes: 1, timeLimit: 10 });

Deno.test("the run mode is chosen once: a simulation, a schedule replay, a restored snapshot", () => {
  const sim = initialState({ totalNodes: 4 });
  const replay = initialState({ totalNodes: 4 }, { replay: true });
  assertEquals([sim.runMode.name, sim.replay], ["simulate", false]);
  assertEquals([replay.runMode.name, replay.replay], ["replay-schedule", true]);
  const ran = step(step(sim, appendJobs([job(0)])).state, advanceTo(0)).state;
  assertEquals(loadSnapshot(saveSnapshot(ran)).runMode.name, "simulate");
  // Every later state keeps the mode it started with.
  const recorded = { ...job(0), beginTime: 2, endTime: 7 };
  const r =
    step(step(replay, { kind: "replayJobs", jobs: [recorded] }).state, runToCompletion()).state;
  assert(r.runMode === replay.runMode && r.replay, "replay keeps its mode");
  assertEquals(r.time, 7);
});

Deno.test("each mode refuses the inputs it does not take, with the messages it always gave", () => {
  const replay = initialState({ totalNodes: 4 }, { replay: true });
  assertThrows(
    () => step(replay, appendJobs([job(0)])),
    "a replay state takes replayJobs input, not appendJobs",
  );
  assertThrows(
    () => step(replay, { kind: "submitJob", id: 0, submitTime: 0 }),
    "a replay state takes replayJobs input, not submitJob",
  );
  assertThrows(
    () => step(replay, { kind: "cancelJob", id: 0 }),
    "live events need a simulation, not the replay of a schedule",
  );
  const sim = initialState({ totalNodes: 4 });
  const replayJobs: Input = { kind: "replayJobs", jobs: [{ ...job(0), beginTime: 0, endTime: 1 }] };
  assertThrows(
    () => step(sim, replayJobs),
    "replayJobs needs a replay state: initialState(config, { replay: true })",
  );
  const done: SimState = step(sim, finish()).state;
  assertThrows(() => step(done, replayJobs), "the simulation has finished");
});
