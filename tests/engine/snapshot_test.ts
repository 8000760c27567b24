// Snapshots (seed 003 AC 21): at every step of random live sessions, the
// state serialised to JSON, parsed and loaded, then stepped with the next
// input, equals stepping the original state — same rows, same next state —
// under every picker (whose state is rebuilt, never stored) and admission
// policy. And broken snapshot values are one clear error each.

import fc from "fast-check";
import { reconfigure } from "../../core/reconfigure.ts";
import type { SnapshotData } from "../../core/snapshot.ts";
import { restoreSnapshot } from "../../core/_snapshot_restore.ts";
import {
  EvtsimError,
  initialState,
  type Input,
  loadSnapshot,
  saveSnapshot,
  type SimState,
  step,
} from "../../mod.ts";
import { arbLivePlan, configOf, drivePlan, REGISTRY } from "../_recording_helpers.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 150);

const json = (s: SimState) => JSON.stringify(saveSnapshot(s));

Deno.test("snapshot → JSON → load, then step, equals stepping the original (every picker × admission, live events)", () => {
  let compared = 0;
  fc.assert(
    fc.property(arbLivePlan, (p) => {
      let s = initialState(configOf(p), { registry: REGISTRY });
      drivePlan(p, (input: Input) => {
        const text = json(s);
        const copy = loadSnapshot(JSON.parse(text), { registry: REGISTRY });
        // Loading is exact: the copy saves to the same bytes.
        assert(json(copy) === text, "a loaded snapshot must save to the same JSON");
        let a;
        try {
          a = step(s, input);
        } catch (e) {
          // An input the original refuses, the copy refuses the same way.
          const e2 = assertThrows(() => step(copy, input));
          assertEquals(e2.message, (e as Error).message);
          throw e;
        }
        const b = step(copy, input);
        assertEquals(b.rows, a.rows);
        assertEquals(b.ids, a.ids);
        assert(json(b.state) === json(a.state), `states differ after ${input.kind}`);
        compared++;
        s = a.state;
      }, () => s);
    }),
    { seed: 2222, numRuns: RUNS },
  );
  assert(compared > 10 * RUNS, `only ${compared} steps compared`);
});

Deno.test("snapshot: the picker's state is rebuilt through its hooks, so another picker can take over", () => {
  let s = initialState({ totalNodes: 4, backfillPolicy: "none" });
  s = step(s, {
    kind: "appendJobs",
    jobs: [
      { submitTime: 0, numNodes: 4, timeLimit: 10 },
      { submitTime: 1, numNodes: 1, timeLimit: 50 },
      { submitTime: 2, numNodes: 2, timeLimit: 5 },
    ],
  }).state;
  s = step(s, { kind: "advanceTo", time: 5 }).state;
  const data = saveSnapshot(s) as unknown as SnapshotData;
  // The snapshot holds no picker state, only the picker's name.
  assert(!("pickerState" in data) && data.config.picker === "builtin_fcfs");
  const largest = restoreSnapshot(reconfigure(data, { picker: "walk_only" }), REGISTRY);
  const order = (x: SimState) => [...x.picker.pending(x.pickerState)].map((j) => j.id);
  assertEquals(order(s), [1, 2]);
  assertEquals(order(largest), [2, 1]);
  assertEquals(largest.picker.name, "walk_only");
});

Deno.test("snapshot: bad values are one clear error each; the state is never half-built", () => {
  const good = saveSnapshot(
    step(initialState({ totalNodes: 4 }), {
      kind: "appendJobs",
      jobs: [{ submitTime: 0, numNodes: 2, timeLimit: 5 }],
    }).state,
  ) as unknown as Record<string, unknown> & SnapshotData;
  const cases: [unknown, string][] = [
    [null, "snapshot: "],
    [{ ...good, version: 2 }, "snapshot: version 2 is newer than this program reads (1)"],
    [{ ...good, time: "soon" }, "snapshot: time: expected number"],
    [{ ...good, extra: 1 }, "snapshot: extra: unknown field"],
    [{ ...good, config: { ...good.config, totalNodes: 0 } }, "snapshot: config.totalNodes"],
    [
      { ...good, config: { ...good.config, picker: "nobody_registered_this" } },
      "unknown picker 'nobody_registered_this' (registered: builtin_fcfs, fairshare, ljf, sjf)",
    ],
    [
      { ...good, config: { ...good.config, backfillPolicy: "greedy" } },
      "unknown backfill policy 'greedy'",
    ],
    [
      { ...good, nextJobId: 5 },
      "snapshot: nextJobId: the store holds jobs 0..0 but the next job id is 5",
    ],
    [{ ...good, arrivals: [3] }, "snapshot: arrivals[0] names job 3, which is not in the store"],
    [
      { ...good, allocatedNodes: 2 },
      "snapshot: allocatedNodes: 2 nodes are allocated but the running jobs hold 0",
    ],
  ];
  for (const [value, message] of cases) {
    const e = assertThrows(() => loadSnapshot(value), message);
    assert(e instanceof EvtsimError, `${message}: expected an EvtsimError`);
  }
  // A replay of a recorded schedule has no scheduler to snapshot.
  assertThrows(() => saveSnapshot(initialState({ totalNodes: 4 }, { replay: true })), "replay");
});

Deno.test("snapshot: the run-time generator (std::mt19937) is carried over in distribution mode", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("normal", "lognormal", "uniform"),
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.integer({ min: 1, max: 700 }),
      (dist, seed, cut) => {
        const config = {
          totalNodes: 16,
          runTimeMode: "distribution",
          runTimeDistribution: dist,
          runTimeScale: 0.5,
          runTimeStddev: 0.3,
          seed,
        } as const;
        // More jobs than one twist of the generator (624 words) when cut is large.
        const job = (i: number) => ({ submitTime: i, numNodes: 1 + (i % 4), timeLimit: 100 + i });
        const first = Array.from({ length: cut }, (_, i) => job(i));
        const rest = Array.from({ length: 50 }, (_, i) => job(cut + i));
        const s = step(initialState(config), { kind: "appendJobs", jobs: first }).state;
        const copy = loadSnapshot(JSON.parse(json(s)));
        const a = step(s, { kind: "appendJobs", jobs: rest }).state;
        const b = step(copy, { kind: "appendJobs", jobs: rest }).state;
        assertEquals(
          b.store.records.toArray().map((r) => r.runTime),
          a.store.records.toArray().map((r) => r.runTime),
        );
      },
    ),
    { seed: 2323, numRuns: 40 },
  );
});

Deno.test("snapshot: a job's user and account survive save → JSON → load", () => {
  let s = initialState({ totalNodes: 4, backfillPolicy: "none" });
  s = step(s, {
    kind: "appendJobs",
    jobs: [
      { submitTime: 0, numNodes: 4, timeLimit: 10, user: "alice", account: "phys" },
      { submitTime: 1, numNodes: 1, timeLimit: 50, user: "bob" },
      { submitTime: 2, numNodes: 2, timeLimit: 5, account: "chem" },
      { submitTime: 3, numNodes: 2, timeLimit: 5 },
    ],
  }).state;
  s = step(s, { kind: "advanceTo", time: 5 }).state;
  const text = json(s);
  const copy = loadSnapshot(JSON.parse(text), { registry: REGISTRY });
  assert(json(copy) === text, "a loaded snapshot must save to the same JSON");
  const owners = (x: SimState) =>
    [0, 1, 2, 3].map((id) => [x.store.records.get(id)?.user, x.store.records.get(id)?.account]);
  const expected = [["alice", "phys"], ["bob", undefined], [undefined, "chem"], [
    undefined,
    undefined,
  ]];
  assertEquals(owners(s), expected);
  assertEquals(owners(copy), expected);
  // Absent fields are left out of the snapshot, so older snapshots read the same.
  const records = (JSON.parse(text) as { store: { records: Record<string, unknown>[] } }).store
    .records;
  assertEquals(records.map((r) => [r.user, r.account]), expected);
  assert(!("user" in records[3]) && !("account" in records[3]));
});
