// The `fairshare` picker as a queue's own picker under `builtin_fcfs`: it
// gets its settings (`pickerSettings.fairshare`) and every job end (usage is
// the whole machine's), and its usage is carried in snapshots. One queue
// ordered by fairshare must schedule exactly as the global fairshare picker,
// and a run restored from a mid-run snapshot exactly as the uninterrupted one.

import fc from "fast-check";
import { initialState, loadSnapshot, saveSnapshot, Simulation, step } from "../../mod.ts";
import {
  arbScenario,
  arbStreamingSchedule,
  runBatch,
  type Scenario,
  streamingInputs,
} from "../../testing/mod.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { rowsThroughSnapshot } from "../_snapshot_cut.ts";

const USERS = [undefined, "u1", "u2", "u3"] as const;

/** A scenario whose jobs have users, with fairshare settings, under `backfill`. */
function withUsers(backfill: "none" | "easy" | "conservative" | "easy_extra") {
  return fc.tuple(
    arbScenario({ backfills: [backfill as "none"], allowOversized: true, maxJobs: 40 }),
    fc.constantFrom(1, 60, 604800),
    fc.constantFrom(0, 1, 100),
  ).chain(([sc, halfLife, age]) =>
    fc.array(fc.constantFrom(...USERS), {
      minLength: sc.trace.length,
      maxLength: sc.trace.length,
    }).map((who): Scenario => ({
      // builtin_fcfs (the picker that honours a queue's own picker).
      config: {
        ...sc.config,
        priorityPolicy: "fcfs",
        pickerSettings: { fairshare: { halfLife, maxAge: 30, weights: { age, fairshare: 1000 } } },
      },
      trace: sc.trace.map((j, i) => {
        const { queue: _, ...job } = j;
        return who[i] === undefined ? job : { ...job, user: who[i] };
      }),
    }))
  );
}

const ONE_QUEUE = [{ name: "batch", picker: "fairshare" }];

Deno.test("fairshare as the only queue's picker schedules exactly as the global fairshare picker", () => {
  let reordered = 0;
  const seed = 1621;
  try {
    fc.assert(
      fc.property(
        fc.constantFrom("none", "easy", "conservative", "easy_extra").chain((b) =>
          withUsers(b as "none")
        ),
        ({ config, trace }) => {
          const queued = runBatch({ ...config, queues: ONE_QUEUE }, trace);
          const global = runBatch({ ...config, picker: "fairshare" }, trace);
          // The rows of the queued run carry the queue's name.
          assertEquals(queued.jobRows, global.jobRows.map((r) => ({ ...r, queue: "batch" })));
          assertEquals(queued.resourceRows, global.resourceRows);
          const fcfs = runBatch(config, trace);
          if (JSON.stringify(fcfs.jobRows) !== JSON.stringify(queued.jobRows)) reordered++;
        },
      ),
      { seed, numRuns: 300 },
    );
  } catch (e) {
    console.error(`fast-check seed ${seed}`);
    throw e;
  }
  // Not vacuous: the queue's order is not FCFS's on many traces.
  assert(reordered >= 50, `only ${reordered} of 300 traces were scheduled unlike FCFS`);
});

Deno.test("fairshare as a queue's picker: a run restored from a mid-run snapshot gives the uninterrupted run's rows", () => {
  let withUsage = 0;
  const seed = 1622;
  try {
    fc.assert(
      fc.property(
        withUsers("easy").chain((s) =>
          arbStreamingSchedule(s.trace).map((plan) => ({ ...s, plan }))
        ),
        fc.nat(),
        ({ config, trace, plan }, k) => {
          const inputs = streamingInputs(trace, plan);
          const cut = 1 + (k % (inputs.length - 1));
          // Two queues, the second FCFS; finished records are reclaimed early,
          // so the usage cannot be rebuilt from them.
          const c = {
            ...config,
            queues: [...ONE_QUEUE, { name: "other" }],
            jobStoreCapacity: 2,
            jobFlushInterval: 1,
          };
          const whole = rowsThroughSnapshot(c, inputs, -1);
          const restored = rowsThroughSnapshot(c, inputs, cut);
          assertEquals(restored.jobs, whole.jobs);
          assertEquals(restored.resources, whole.resources);
          let s = initialState(c);
          for (const input of inputs.slice(0, cut)) s = step(s, input).state;
          const memory = saveSnapshot(s).pickerMemory as {
            queues: { batch: { usage: [string, number, number][] } };
          };
          assertEquals(Object.keys(memory.queues), ["batch"]);
          if (memory.queues.batch.usage.some(([, v]) => v > 0)) withUsage++;
        },
      ),
      { seed, numRuns: 200 },
    );
  } catch (e) {
    console.error(`fast-check seed ${seed}`);
    throw e;
  }
  assert(withUsage >= 50, `only ${withUsage} cuts had usage to carry`);
});

Deno.test("builtin_fcfs: no picker memory without a queue picker that keeps one; a bad one is refused", () => {
  const plain = new Simulation({ totalNodes: 4, queues: [{ name: "a" }] });
  assertEquals("pickerMemory" in saveSnapshot(plain.state), false);
  const fs = new Simulation({ totalNodes: 4, queues: ONE_QUEUE });
  const snap = JSON.parse(JSON.stringify(saveSnapshot(fs.state)));
  assertEquals(snap.pickerMemory, { queues: { batch: { usage: [] } } });
  for (
    const [memory, message] of [
      [{ usage: [] }, "snapshot: builtin_fcfs memory must hold a queues object"],
      [{ queues: { nope: { usage: [] } } }, "memory names queue 'nope'"],
      [{ queues: { batch: { usage: 3 } } }, "fairshare memory must hold a usage list"],
    ] as const
  ) {
    assertThrows(() => loadSnapshot({ ...snap, pickerMemory: memory }), message);
  }
});
