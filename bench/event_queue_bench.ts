// The engine's resource-event queue (a persistent ordered set keyed by time,
// kind, id) under the classic "hold" workload: pop the earliest event and
// schedule a new one a random delay later, at queue sizes a run sees (1k
// running jobs on a large machine, 20k when many small jobs run at once).
// Baseline: a mutable array kept sorted with binary search and splice.
//
// run: deno task bench (or deno bench bench/event_queue_bench.ts)

import { emptyEvents, type ResourceEvent } from "../core/state.ts";
import { lowerBound, seededRandom } from "./_util.ts";

const compare = (a: ResourceEvent, b: ResourceEvent) =>
  a.time - b.time || a.kind - b.kind || a.id - b.id;

const HOLDS = 1_000;

function fixture(size: number) {
  const rand = seededRandom(size);
  const events: ResourceEvent[] = [];
  for (let i = 0; i < size; i++) {
    events.push({
      time: Math.floor(rand() * 100_000),
      kind: rand() < 0.5 ? 0 : 1,
      id: i,
      numNodes: 1 + Math.floor(rand() * 64),
      beginTime: 0,
      timeLimit: 3600,
    });
  }
  const delays = Array.from({ length: HOLDS }, () => 1 + Math.floor(rand() * 50_000));
  let queue = emptyEvents();
  for (const e of events) queue = queue.add(e);
  return { queue, sorted: [...events].sort(compare), delays };
}

for (const size of [1_000, 20_000]) {
  const f = fixture(size);
  Deno.bench({
    name: `event queue (persistent tree): ${HOLDS} holds at size ${size}`,
    group: `hold ${size}`,
    fn() {
      let q = f.queue;
      let id = 1e9;
      for (const d of f.delays) {
        const e = q.first()!;
        q = q.deleteFirst().add({ ...e, time: e.time + d, id: id++ });
      }
      if (q.size !== size) throw new Error("size drifted");
    },
  });
  Deno.bench({
    name: `sorted array (mutable splice): ${HOLDS} holds at size ${size}`,
    group: `hold ${size}`,
    baseline: true,
    fn() {
      const a = [...f.sorted];
      let id = 1e9;
      for (const d of f.delays) {
        const e = a.shift()!;
        const next = { ...e, time: e.time + d, id: id++ };
        a.splice(lowerBound(a, next, compare), 0, next);
      }
      if (a.length !== size) throw new Error("size drifted");
    },
  });
}
