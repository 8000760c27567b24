// The size-classed wait queue must answer "first job after the cursor that
// fits" exactly as a plain scan does.

import fc from "fast-check";
import type { JobRecord } from "../core/types.ts";
import {
  classMax,
  dequeue,
  emptySizeClassedQueue,
  enqueue,
  firstFitting,
  sizeClass,
} from "../schedulers/wait_queue.ts";
import { assert, assertEquals } from "./_assert.ts";

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
      fc.array(fc.tuple(fc.nat(50), fc.integer({ min: 0, max: 300 }), fc.nat(100)), {
        maxLength: 200,
      }),
      fc.array(fc.nat(199), { maxLength: 40 }),
      fc.integer({ min: 0, max: 300 }),
      fc.nat(120),
      fc.option(fc.nat(199)),
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
