// The size-classed wait queue must answer "first job after the cursor that
// fits" exactly as a plain scan does.

import fc from "fast-check";
import type { JobRecord } from "../../core/types.ts";
import {
  classMax,
  dequeue,
  emptySizeClassedQueue,
  enqueue,
  firstFitting,
  persistentQueue,
  sizeClass,
  type SizeClassedQueue,
  transientQueue,
} from "../../schedulers/wait_queue.ts";
import { assert, assertEquals } from "../_assert.ts";

Deno.test("size classes partition the node counts and classMax bounds each class", () => {
  let prev = -1;
  for (let n = 0; n <= 70_000; n++) {
    const c = sizeClass(n);
    assert(c >= prev, `classes must not decrease at ${n}`);
    assert(n <= classMax(c), `${n} above classMax(${c}) = ${classMax(c)}`);
    if (c !== prev && prev >= 0) assertEquals(classMax(prev), n - 1);
    prev = c;
  }
});

function job(id: number, submitTime: number, numNodes: number, timeLimit: number): JobRecord {
  return {
    id,
    submitTime,
    numNodes,
    timeLimit,
    runTime: timeLimit,
    queue: undefined,
    priority: 0,
    beginTime: -1,
    endTime: -1,
    rejected: false,
    hidden: false,
  };
}

Deno.test("firstFitting equals a scan, indexed or not, after inserts and deletes", () => {
  fc.assert(
    fc.property(
      // Up to 600 jobs: past the whole-node queue's single-walk size (256).
      fc.array(fc.tuple(fc.nat(50), fc.integer({ min: 0, max: 300 }), fc.nat(100)), {
        maxLength: 600,
        size: "max",
      }),
      fc.array(fc.nat(599), { maxLength: 40 }),
      fc.integer({ min: 0, max: 300 }),
      fc.nat(120),
      fc.option(fc.nat(599)),
      (specs, removals, free, window, cursorIndex) => {
        const jobs = specs.map(([t, n, l], i) => job(i, t, n, l));
        for (const indexed of [true, false]) {
          let q = emptySizeClassedQueue(indexed);
          for (const j of jobs) q = enqueue(q, j);
          const removed = new Set<number>();
          for (const r of removals) {
            if (r < jobs.length && !removed.has(r)) {
              q = dequeue(q, jobs[r]);
              removed.add(r);
            }
          }
          const order = q.all.toArray();
          const cursor = cursorIndex !== null && cursorIndex < order.length
            ? order[cursorIndex]
            : undefined;
          const start = cursor === undefined ? 0 : order.indexOf(cursor) + 1;
          const expected = order.slice(start).find((j) =>
            j.numNodes <= free && j.timeLimit < window
          );
          const got = firstFitting(q, cursor, free, (limit) => limit < window);
          assertEquals(got?.id, expected?.id);
        }
      },
    ),
    { seed: 42, numRuns: 300 },
  );
});

// Replica shapes of jobs placed by a resource model (whole nodes: none).
const SHAPES: readonly Readonly<Record<string, number>>[] = [
  { cpu: 8 },
  { cpu: 8, gpu: 1 },
  { cpu: 32, mem: 64 },
];

Deno.test("firstFitting with noRoomFrom passes over exactly the jobs of a shape with at least that many replicas", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.nat(50),
          fc.integer({ min: -1, max: 2 }),
          fc.integer({ min: 1, max: 40 }),
          fc.nat(100),
        ),
        // Deep enough for the per-class and per-shape search (past the probe).
        { minLength: 70, maxLength: 250 },
      ),
      fc.array(fc.nat(249), { maxLength: 20 }),
      fc.tuple(
        fc.integer({ min: 1, max: 41 }),
        fc.integer({ min: 1, max: 41 }),
        fc.integer({ min: 1, max: 41 }),
      ),
      fc.integer({ min: 0, max: 40 }),
      fc.nat(120),
      fc.option(fc.nat(199)),
      fc.boolean(),
      (specs, removals, bars, free, window, cursorIndex, transient) => {
        // Shape -1: a whole-node job of `r` nodes; else `r` replicas of that shape and no nodes.
        const jobs = specs.map(([t, k, r, l], i): JobRecord =>
          k < 0 ? job(i, t, r, l) : {
            ...job(i, t, 0, l),
            demand: { replicas: r, perReplica: SHAPES[k] },
          }
        );
        // Bar 41: no bar on that shape (Infinity).
        const barOf = (j: JobRecord) => {
          const k = SHAPES.indexOf(j.demand!.perReplica);
          return bars[k] > 40 ? Infinity : bars[k];
        };
        for (const indexed of [true, false]) {
          let q: SizeClassedQueue = emptySizeClassedQueue(indexed);
          if (transient) q = transientQueue(q, {});
          for (const j of jobs) q = enqueue(q, j);
          const removed = new Set<number>();
          for (const r of removals) {
            if (r < jobs.length && !removed.has(r)) {
              q = dequeue(q, jobs[r]);
              removed.add(r);
            }
          }
          q = persistentQueue(q);
          const order = q.all.toArray();
          const cursor = cursorIndex !== null && cursorIndex < order.length
            ? order[cursorIndex]
            : undefined;
          const start = cursor === undefined ? 0 : order.indexOf(cursor) + 1;
          const expected = order.slice(start).find((j) =>
            j.numNodes <= free && j.timeLimit < window &&
            (j.demand === undefined || j.demand.replicas < barOf(j))
          );
          const got = firstFitting(q, cursor, free, (limit) => limit < window, barOf);
          assertEquals(got?.id, expected?.id, `indexed ${indexed}`);
        }
      },
    ),
    { seed: 28, numRuns: 300 },
  );
});

Deno.test("a limit test that itself searches the queue leaves the outer search's bounds as they were", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(50), fc.integer({ min: 0, max: 300 }), fc.nat(100)), {
        minLength: 1,
        maxLength: 120,
      }),
      fc.integer({ min: 0, max: 300 }),
      fc.nat(120),
      fc.boolean(),
      (specs, free, window, indexed) => {
        const jobs = specs.map(([t, n, l], i) => job(i, t, n, l));
        let q = emptySizeClassedQueue(indexed);
        for (const j of jobs) q = enqueue(q, j);
        const expected = q.all.toArray().find((j) => j.numNodes <= free && j.timeLimit < window);
        // The inner search asks for other bounds (no nodes free, every limit fits).
        const got = firstFitting(q, undefined, free, (limit) => {
          firstFitting(q, undefined, 0, () => true);
          return limit < window;
        });
        assertEquals(got?.id, expected?.id);
      },
    ),
    { seed: 34, numRuns: 200 },
  );
});
