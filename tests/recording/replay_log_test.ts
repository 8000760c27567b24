// The log codec: the fast check for session lines never lets through what
// the zod schema refuses, and jobs survive the table form they are written in.

import fc from "fast-check";
import { inputData, inputOf, jobsOf, jobTable } from "../../io/replay_log.ts";
import { sha256Hex } from "../../io/_sha256.ts";
import { isPlainSession, MESSAGE_SCHEMAS } from "../../io/replay_schema.ts";
import type { JobSpec } from "../../mod.ts";
import { arbTrace } from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 200);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true }),
  fc.constantFrom("DISPATCH", "PEND", "backfill", "session", ""),
  fc.constant([]),
  fc.constant({}),
);

/** Session-like values: valid ones, and ones with one part replaced by anything. */
const arbSession = fc.record({
  time: fc.integer({ min: 0, max: 100 }),
  round: fc.nat({ max: 9 }),
  decisions: fc.array(
    fc.tuple(fc.nat({ max: 9 }), fc.nat({ max: 9 }), fc.boolean()).map(([j, n, b]) =>
      b ? ["DISPATCH", j, n, "backfill"] : ["DISPATCH", j, n]
    ),
    { maxLength: 3 },
  ),
  dispatched: fc.nat({ max: 3 }),
  wallMs: fc.double({ min: 0, max: 10, noNaN: true }),
}).chain((v) => {
  const m: Record<string, unknown> = {
    type: "session",
    version: 1,
    time: v.time,
    round: v.round,
    decisions: v.decisions,
    summary: { dispatched: v.dispatched, pended: 0, wallMs: v.wallMs },
  };
  const paths = [
    ["type"],
    ["version"],
    ["time"],
    ["round"],
    ["decisions"],
    ["summary"],
    ["extra"],
    ["summary", "pended"],
    ["summary", "wallMs"],
    ["summary", "other"],
    ["decisions", 0],
    ["decisions", 0, 0],
    ["decisions", 0, 2],
    ["decisions", 0, 3],
  ];
  return fc.option(fc.tuple(fc.constantFrom(...paths), anyJson), { nil: undefined }).map(
    (change) => {
      if (change === undefined) return m;
      const [path, value] = change;
      const copy = JSON.parse(JSON.stringify(m));
      let target = copy;
      for (const k of path.slice(0, -1)) {
        if (target?.[k] === undefined || typeof target[k] !== "object") return copy;
        target = target[k];
      }
      target[path[path.length - 1]] = value;
      return copy;
    },
  );
});

Deno.test("the fast session check accepts only what the session schema accepts", () => {
  let fast = 0;
  let refused = 0;
  fc.assert(
    fc.property(arbSession, (m) => {
      const ok = MESSAGE_SCHEMAS.session.safeParse(m).success;
      if (isPlainSession(m)) {
        fast++;
        assert(ok, `the fast check let through what the schema refuses: ${JSON.stringify(m)}`);
      }
      if (!ok) refused++;
    }),
    { seed: 3333, numRuns: RUNS * 5 },
  );
  assert(fast > RUNS && refused > RUNS, `fast ${fast}, refused ${refused}`);
});

Deno.test("jobs round-trip through the table form of an append", () => {
  fc.assert(
    fc.property(
      arbTrace({ maxJobs: 20, queues: ["a", "b"] }),
      fc.array(fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), { maxLength: 20 }),
      fc.array(
        fc.record({
          user: fc.option(fc.constantFrom("alice", "bob", "7"), { nil: undefined }),
          account: fc.option(fc.constantFrom("phys", "chem"), { nil: undefined }),
        }),
        { maxLength: 20 },
      ),
      (trace, priorities, owners) => {
        const jobs: JobSpec[] = trace.map((j, i) => {
          const o = owners[i] ?? {};
          return {
            ...(priorities[i] === undefined ? j : { ...j, priority: priorities[i] }),
            ...(o.user === undefined ? {} : { user: o.user }),
            ...(o.account === undefined ? {} : { account: o.account }),
          };
        });
        const table = jobTable(jobs);
        assertEquals(jobsOf(table), jobs);
        const d = inputData({ kind: "appendJobs", jobs });
        assert(
          MESSAGE_SCHEMAS.event.safeParse({ type: "event", version: 1, seq: 0, time: 0, input: d })
            .success,
        );
        assertEquals(inputOf(JSON.parse(JSON.stringify(d))), { kind: "appendJobs", jobs });
      },
    ),
    { seed: 4444, numRuns: RUNS },
  );
  assertEquals(jobTable([{ submitTime: 1, numNodes: 2, timeLimit: 3 }]), {
    columns: ["submitTime", "numNodes", "timeLimit"],
    rows: [[1, 2, 3]],
  });
  assertEquals(jobTable([{ submitTime: 1, numNodes: 2, timeLimit: 3, account: "phys" }]), {
    columns: ["submitTime", "numNodes", "timeLimit", "account"],
    rows: [[1, 2, 3, "phys"]],
  });
});

Deno.test("an explicit maxRunning: undefined (remove the limit) and an infinite advance survive JSON", () => {
  const update = { kind: "updateQueue" as const, queue: { name: "q", maxRunning: undefined } };
  const back = inputOf(JSON.parse(JSON.stringify(inputData(update))));
  assert(
    back.kind === "updateQueue" && "maxRunning" in back.queue &&
      back.queue.maxRunning === undefined,
  );
  const far = inputOf(JSON.parse(JSON.stringify(inputData({ kind: "advanceTo", time: Infinity }))));
  assertEquals(far, { kind: "advanceTo", time: Infinity });
});

Deno.test("the configuration hash is the SHA-256 that crypto.subtle computes", async () => {
  const texts = [
    "",
    "abc",
    "a".repeat(55),
    "a".repeat(56),
    "a".repeat(64),
    "é€😀 and more",
    ...fc.sample(fc.string({ maxLength: 300 }), { seed: 5555, numRuns: 60 }),
  ];
  for (const t of texts) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(t));
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    assertEquals(sha256Hex(t), hex, JSON.stringify(t));
  }
});
